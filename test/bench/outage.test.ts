/**
 * The outage bench (bench/outage.ts) counts what it says from the sandbox's records: requests in
 * the outage's first and last minute (windows that end with the outage, so the recovery's
 * requests never count as the outage's), the recovery time, duplicates and 429s. Times are
 * printed by the bench, never asserted here.
 */
import { describe, expect, it } from 'vitest';
import { summarizeOutage } from '../../bench/outage.ts';
import type { RequestRecord } from '../../sandbox/stats.ts';

const post = (at: number, status: number, email?: string): RequestRecord => ({
  at,
  method: 'POST',
  route: 'POST /api/v1/prospects',
  status,
  ...(email !== undefined && { email }),
});
const lookup = (at: number, status: number): RequestRecord => ({
  at,
  method: 'GET',
  route: 'GET /api/v1/prospects',
  status,
});

describe('the outage bench', () => {
  it("counts the outage's first and last minute, the recovery, duplicates and 429s", () => {
    // Prepare: a 4-minute outage from t = 0; probes thin out; the upstream is back at 240 s.
    const requests = [
      post(0, 0),
      lookup(1_000, 0),
      post(3_000, 0),
      post(30_000, 0),
      post(70_000, 0),
      post(190_000, 0),
      post(220_000, 0),
      post(240_500, 429),
      post(241_000, 200, 'a@x.br'),
      post(241_300, 200, 'b@x.br'),
      post(242_000, 200, 'b@x.br'),
      post(243_000, 200, 'other@x.br'),
    ];

    // Act
    const summary = summarizeOutage(requests, {
      outageStart: 0,
      outageEnd: 240_000,
      waiting: 2,
      emails: new Set(['a@x.br', 'b@x.br']),
      recoveredAt: 241_300,
    });

    // Assess
    expect(summary).toEqual({
      firstMinute: 4,
      lastMinute: 2,
      during: 7,
      delivered: 2,
      duplicates: 1,
      http429: 1,
      recoveryS: 1.3,
      outageS: 240,
    });
  });

  it('never counts the recovery in a minute of an outage shorter than two', () => {
    const summary = summarizeOutage([post(0, 0), post(15_000, 0), post(21_000, 200, 'a@x.br')], {
      outageStart: 0,
      outageEnd: 20_000,
      waiting: 1,
      emails: new Set(['a@x.br']),
      recoveredAt: 21_000,
    });
    expect(summary).toMatchObject({ firstMinute: 2, lastMinute: 2, during: 2, delivered: 1 });
  });
});
