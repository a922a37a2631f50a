/**
 * A lead keeps the upstream account it was accepted for (issue 25): the recording step writes
 * its profile's account into the ledger, the lead reads it back whatever the configuration says
 * later, and a lead recorded before leads recorded their account falls back to its profile's.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Profile } from '../../functions/config/config-schema.ts';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { accountOfLead, type LeadLedger } from '../../functions/ledger/lead-ledger.ts';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import type { LeadQueueSendOptions } from '../../functions/ledger/lead-queue.ts';
import { isDropped, recordCapture } from '../../functions/ledger/record-capture.ts';
import { startTestDynamo, TEST_ERASURE_SALT, type TestDynamo } from '../helpers/dynalite.ts';

const T0 = new Date('2026-05-04T10:00:00.000Z');

function capture(id: string): LeadCapture {
  return {
    source: 'form',
    dedupKey: `key:${id}`,
    isTest: false,
    answers: [
      { key: 'name', value: 'Bia Lima' },
      { key: 'email', value: `bia.${id}@example.com` },
      { key: 'phone', value: '+55 11 91234-5678' },
    ],
    attribution: {},
  };
}

const SOUTH_SITE = {
  source: 'form',
  token: 'south-form-token',
  upstream: 'south',
  defaults: { idBranch: 7 },
} as Profile;
const SITE = { source: 'form', token: 'site-form-token', defaults: { idBranch: 1 } } as Profile;

let dynamo: TestDynamo;
let ledger: LeadLedger;
let sent: { leadId: string; options: LeadQueueSendOptions | undefined }[];
const queue = {
  send: async (leadId: string, options?: LeadQueueSendOptions) => {
    sent.push({ leadId, options });
  },
};

beforeAll(async () => {
  dynamo = await startTestDynamo();
});
afterAll(() => dynamo.close());
beforeEach(async () => {
  const tableName = await dynamo.createLedgerTable();
  ledger = createDynamoLedger({ erasureSalt: TEST_ERASURE_SALT, client: dynamo.client, tableName });
  sent = [];
});

describe('a lead and its upstream account', () => {
  it("is recorded with its profile's account, and keeps it", async () => {
    // Act
    const south = await recordCapture({ ledger, queue }, 'southsite', SOUTH_SITE, capture('1'), T0);
    const main = await recordCapture({ ledger, queue }, 'site', SITE, capture('2'), T0);

    // Assess: recorded with its account, and woken in its account's group on the queue.
    if (isDropped(south) || isDropped(main)) throw new Error('not recorded');
    expect((await ledger.get(south.record.leadId))?.account).toBe('south');
    expect((await ledger.get(main.record.leadId))?.account).toBe('default');
    expect(sent).toEqual([
      { leadId: south.record.leadId, options: { version: 0, group: 'south' } },
      { leadId: main.record.leadId, options: { version: 0, group: 'default' } },
    ]);
  });

  it("falls back to its profile's account as configured now when it recorded none", async () => {
    // Prepare: a lead recorded the way leads were before they recorded their account.
    const { lead } = await ledger.record({
      profile: 'southsite',
      source: 'form',
      dedupKey: 'key:old',
      capture: capture('old'),
      status: 'queued',
      receivedAt: T0,
    });
    const accountOf = async (profile: string) => (profile === 'southsite' ? 'south' : 'default');

    // Act
    const old = await accountOfLead(lead, accountOf);
    const moved = await accountOfLead({ ...lead, account: 'north' }, accountOf);

    // Assess: the recorded account wins over the configuration.
    expect(lead.account).toBeUndefined();
    expect(old).toBe('south');
    expect(moved).toBe('north');
  });
});
