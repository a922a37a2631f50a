import { describe, expect, it } from 'vitest';
import { DEFAULT_TIME_ZONE, localDateTime, localDay } from '../../functions/domain/local-time.ts';

describe('local time', () => {
  it('writes an instant the Brazilian way in the account’s zone, São Paulo by default', () => {
    expect(DEFAULT_TIME_ZONE).toBe('America/Sao_Paulo');
    expect(localDateTime('2026-11-26T11:41:47.123Z', DEFAULT_TIME_ZONE)).toBe(
      '26/11/2026 08:41:47',
    );
    expect(localDateTime(new Date('2026-11-26T11:41:47Z'), 'America/Manaus')).toBe(
      '26/11/2026 07:41:47',
    );
    expect(localDateTime('2026-11-26T11:41:47Z', 'UTC')).toBe('26/11/2026 11:41:47');
  });

  it('takes the day where the operator is: 01:30 UTC is still the day before in São Paulo', () => {
    const instant = new Date('2026-11-27T01:30:00Z');
    expect(localDay(instant, DEFAULT_TIME_ZONE)).toBe('2026-11-26');
    expect(localDateTime(instant, DEFAULT_TIME_ZONE)).toBe('26/11/2026 22:30:00');
    expect(localDateTime('2026-01-01T03:00:00Z', DEFAULT_TIME_ZONE)).toBe('01/01/2026 00:00:00');
  });

  it('leaves text that is not a time as it is', () => {
    expect(localDateTime('ontem', DEFAULT_TIME_ZONE)).toBe('ontem');
  });
});
