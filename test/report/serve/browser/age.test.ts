import { describe, expect, it } from 'vitest';
import { describeAge } from '../../../../functions/report/serve/browser/age.ts';

describe('the report’s age in words (one function for the page and its script)', () => {
  it('says minutes, hours and days in Portuguese, one and many', () => {
    expect([0, 59, 60, 150, 3600, 7200, 86_400, 3 * 86_400, -5].map(describeAge)).toEqual([
      'agora há pouco',
      'agora há pouco',
      'há 1 minuto',
      'há 2 minutos',
      'há 1 hora',
      'há 2 horas',
      'há 1 dia',
      'há 3 dias',
      'agora há pouco',
    ]);
  });
});
