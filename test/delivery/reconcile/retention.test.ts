/**
 * The personal-data retention (functions/delivery/reconcile/retention.ts) on a real ledger
 * (dynalite), with an injected clock: old parked, dead and test leads lose their personal data;
 * younger ones and leads still on their way keep it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactExpired } from '../../../functions/delivery/reconcile/retention.ts';
import type { LeadLedger, NewLead } from '../../../functions/ledger/lead-ledger.ts';
import { createDynamoLedger } from '../../../functions/ledger/lead-ledger-dynamodb.ts';
import { startTestDynamo, TEST_ERASURE_SALT, type TestDynamo } from '../../helpers/dynalite.ts';

const DAY = 86_400_000;
const NOW = new Date('2026-08-01T12:00:00.000Z');

let dynamo: TestDynamo;
let ledger: LeadLedger;

beforeAll(async () => {
  dynamo = await startTestDynamo();
  ledger = createDynamoLedger({
    erasureSalt: TEST_ERASURE_SALT,
    client: dynamo.client,
    tableName: await dynamo.createLedgerTable(),
  });
});
afterAll(() => dynamo?.close());

function lead(name: string, status: NewLead['status'], daysAgo: number): NewLead {
  return {
    profile: 'site',
    source: 'form',
    dedupKey: `hash:${name}`,
    capture: {
      source: 'form',
      dedupKey: `hash:${name}`,
      isTest: status === 'test',
      answers: [
        { key: 'nome', value: name },
        { key: 'email', value: `${name.toLowerCase()}@example.com` },
      ],
      attribution: {},
    },
    status,
    ...(status === 'parked' && { reason: 'missing: cellphone' }),
    receivedAt: new Date(NOW.getTime() - daysAgo * DAY),
  };
}

describe('redactExpired', () => {
  it('redacts old parked, dead and test leads, and nothing younger or still on its way', async () => {
    // Prepare
    const oldParked = await ledger.record(lead('Olga', 'parked', 31));
    const oldTest = await ledger.record(lead('Tito', 'test', 45));
    const oldDead = await ledger.record(lead('Dora', 'queued', 40));
    await ledger.markDead(oldDead.lead.leadId, 0, 'gave up', new Date(NOW.getTime() - 37 * DAY));
    const youngParked = await ledger.record(lead('Yara', 'parked', 5));
    const oldQueued = await ledger.record(lead('Quim', 'queued', 60));
    const redacted: string[] = [];

    // Act
    const result = await redactExpired({
      ledger,
      days: 30,
      now: () => NOW,
      events: { redacted: (e) => redacted.push(e.leadId) },
    });
    const again = await redactExpired({ ledger, days: 30, now: () => NOW });

    // Assess: the three old leads that wait for nobody, once
    expect(result).toEqual({ redacted: 3, more: false });
    expect(again).toEqual({ redacted: 0, more: false });
    expect(redacted.sort()).toEqual([oldParked, oldTest, oldDead].map((r) => r.lead.leadId).sort());
    const parked = await ledger.get(oldParked.lead.leadId);
    expect(parked).toMatchObject({
      status: 'parked',
      redaction: 'retention',
      redactedAt: NOW.toISOString(),
      reason: 'missing: cellphone',
    });
    expect(JSON.stringify(parked?.capture)).not.toMatch(/olga/i);
    expect(await ledger.findBySubjects(['email:olga@example.com'])).toEqual([]);
    // the young parked lead and the queued one keep their data
    expect((await ledger.get(youngParked.lead.leadId))?.capture.answers).toHaveLength(2);
    expect((await ledger.get(oldQueued.lead.leadId))?.capture.answers).toHaveLength(2);
    expect(await ledger.findBySubjects(['email:yara@example.com'])).toEqual([
      youngParked.lead.leadId,
    ]);
  });
});
