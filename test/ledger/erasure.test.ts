/**
 * Erasure in the ledger (functions/ledger/lead-ledger-dynamodb.ts, erasure-dynamodb.ts) against
 * dynalite: an erasure leaves salted tombstones of the lead's dedup key and of what was sent;
 * `record` reads them with one BatchGetItem before it writes anything and refuses the erased
 * lead sent again (ErasedLeadError), under its own dedup key or another, until the tombstones'
 * life ends; the shared record step (record-capture.ts) answers such a lead `{erased: true}`
 * and sends nothing; corrections and mappings add what they name to the subject items.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Profile } from '../../functions/config/config-schema.ts';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import type { DynamoDb } from '../../functions/kernel/dynamodb-aws.ts';
import { ErasureSaltError } from '../../functions/ledger/erasure-dynamodb.ts';
import {
  ERASURE_TOMBSTONE_DAYS,
  ErasedLeadError,
  type LeadLedger,
  type NewLead,
} from '../../functions/ledger/lead-ledger.ts';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import { recordCapture } from '../../functions/ledger/record-capture.ts';
import { startTestDynamo, TEST_ERASURE_SALT, type TestDynamo } from '../helpers/dynalite.ts';

const T0 = new Date('2026-05-04T10:00:00.000Z');
const DAY_MS = 86_400_000;
const later = (ms: number) => new Date(T0.getTime() + ms);

function capture(overrides: Partial<LeadCapture> = {}): LeadCapture {
  return {
    source: 'typeform',
    dedupKey: 'typeform:token-1',
    isTest: false,
    externalId: 'token-1',
    formId: 'form-1',
    submittedAt: '2026-05-04T09:59:00.000Z',
    answers: [
      { key: 'nome', value: 'Lia Apagada' },
      { key: 'email', value: 'lia.apagada@example.com' },
      { key: 'celular', value: '(11) 97777-0005' },
    ],
    attribution: { utm_source: 'instagram' },
    ...overrides,
  };
}

function newLead(overrides: Partial<NewLead> = {}): NewLead {
  const c = overrides.capture ?? capture();
  return {
    profile: 'typeform',
    source: c.source,
    dedupKey: c.dedupKey,
    capture: c,
    status: 'queued',
    receivedAt: T0,
    ...overrides,
  };
}

let dynamo: TestDynamo;
let tableName: string;
let ledger: LeadLedger;

/** The DynamoDB client, counting the calls of each operation. */
function counting(client: DynamoDb) {
  const calls: Record<string, number> = {};
  const wrapped = Object.fromEntries(
    Object.entries(client).map(([op, fn]) => [
      op,
      (input: unknown) => {
        calls[op] = (calls[op] ?? 0) + 1;
        return (fn as (input: unknown) => Promise<unknown>)(input);
      },
    ]),
  ) as unknown as DynamoDb;
  return { client: wrapped, calls };
}

async function items(): Promise<Record<string, unknown>[]> {
  return (await dynamo.client.scan({ TableName: tableName })).Items;
}

/** The table as text (sets and bytes readable), to compare before and after. */
async function tableText(): Promise<string> {
  return JSON.stringify(await items(), (_k, v) =>
    v instanceof Set ? [...v].sort() : v instanceof Uint8Array ? Buffer.from(v).toString() : v,
  );
}

/** Records, delivers and erases a lead; the record. */
async function deliveredThenErased(lead: NewLead = newLead()) {
  const { lead: recorded } = await ledger.record(lead);
  await ledger.markDelivered(recorded.leadId, 100061, lead.receivedAt);
  await ledger.redact(recorded.leadId, { reason: 'erasure', now: later(DAY_MS) });
  return recorded;
}

beforeAll(async () => {
  dynamo = await startTestDynamo();
});
afterAll(() => dynamo?.close());
beforeEach(async () => {
  tableName = await dynamo.createLedgerTable();
  ledger = createDynamoLedger({
    client: dynamo.client,
    tableName,
    erasureSalt: TEST_ERASURE_SALT,
  });
});

describe('erasure tombstones', () => {
  it('are two salted keys, with a life and nothing of the person', async () => {
    // Act
    await deliveredThenErased();

    // Assess
    const tombstones = (await items()).filter((item) => String(item.pk).startsWith('erased#'));
    expect(tombstones).toHaveLength(2);
    for (const tombstone of tombstones) {
      expect(Object.keys(tombstone).sort()).toEqual(['erasedAt', 'expiresAt', 'kind', 'pk']);
      expect(tombstone.expiresAt).toBe(
        Math.floor(later(DAY_MS).getTime() / 1000) + ERASURE_TOMBSTONE_DAYS * 86_400,
      );
    }
    // Salted: not the plain SHA-256 of the lead id anyone could compute.
    const plain = createHash('sha256').update('dedup:typeform:token-1').digest('hex');
    expect(JSON.stringify(tombstones)).not.toContain(plain);
    expect(await tableText()).not.toMatch(/lia|apagada|97777|token-1/i);
  });

  it('refuse the same lead sent again, and nothing of it is written', async () => {
    // Prepare
    await deliveredThenErased();
    const before = await tableText();

    // Act
    const again = ledger.record(newLead({ receivedAt: later(2 * DAY_MS) }));

    // Assess
    await expect(again).rejects.toBeInstanceOf(ErasedLeadError);
    expect(await tableText()).toBe(before);
    expect(await ledger.findBySubjects(['email:lia.apagada@example.com'])).toEqual([]);
  });

  it('recognise what was sent under another dedup key (a new Idempotency-Key, a window that ended)', async () => {
    // Prepare: the Prospect API's lead under one key
    const sent = capture({
      source: 'prospect',
      dedupKey: 'key:client:first-key',
      externalId: undefined,
      prospect: { name: 'Lia', lastName: 'Apagada', email: 'lia.apagada@example.com' },
    });
    await deliveredThenErased(newLead({ profile: 'native', capture: sent }));

    // Act: the same body with a new key, and a form's content hash long after its 10 minutes
    const newKey = ledger.record(
      newLead({
        profile: 'native',
        dedupKey: 'key:client:second-key',
        capture: { ...sent, dedupKey: 'key:client:second-key' },
        receivedAt: later(3 * DAY_MS),
      }),
    );

    // Assess
    await expect(newKey).rejects.toBeInstanceOf(ErasedLeadError);
  });

  it('recognise the lead id even when what comes carries other content (the webhook before its lookup)', async () => {
    // Prepare: erased once completed; Meta's webhook carries ids only
    await deliveredThenErased(
      newLead({ capture: capture({ source: 'meta', dedupKey: 'meta:777' }), dedupKey: 'meta:777' }),
    );
    const webhook = capture({
      source: 'meta',
      dedupKey: 'meta:777',
      answers: [],
      pending: { kind: 'graph', leadgenId: '777' },
    });

    // Act / Assess
    await expect(
      ledger.record(newLead({ capture: webhook, dedupKey: 'meta:777', receivedAt: later(DAY_MS) })),
    ).rejects.toBeInstanceOf(ErasedLeadError);
  });

  it(`end after ${ERASURE_TOMBSTONE_DAYS} days, and are no use under another salt`, async () => {
    // Prepare
    await deliveredThenErased();
    const otherSalt = createDynamoLedger({
      client: dynamo.client,
      tableName,
      erasureSalt: async () => 'another-salt-another-salt-another-salt',
    });

    // Act
    const lastDay = await ledger
      .record(newLead({ receivedAt: later(ERASURE_TOMBSTONE_DAYS * DAY_MS) }))
      .catch((error: unknown) => error);
    const underOtherSalt = await otherSalt.record(newLead({ receivedAt: later(2 * DAY_MS) }));
    const afterLife = await ledger.record(
      newLead({ receivedAt: later((ERASURE_TOMBSTONE_DAYS + 2) * DAY_MS) }),
    );

    // Assess
    expect(lastDay).toBeInstanceOf(ErasedLeadError);
    expect(underOtherSalt.duplicate).toBe(false);
    expect(afterLife.duplicate).toBe(false);
  });

  it("do not turn away a WhatsApp person's next conversation, only the same message sent again", async () => {
    // Prepare
    const first = capture({
      source: 'whatsapp',
      dedupKey: 'whatsapp:5511977770005',
      submittedAt: '2026-05-04T09:00:00.000Z',
    });
    await deliveredThenErased(newLead({ capture: first, dedupKey: first.dedupKey }));

    // Act
    const redelivered = await ledger
      .record(newLead({ capture: first, dedupKey: first.dedupKey, receivedAt: later(DAY_MS) }))
      .catch((error: unknown) => error);
    const next = { ...first, submittedAt: '2026-05-20T09:00:00.000Z' };
    const nextConversation = await ledger.record(
      newLead({ capture: next, dedupKey: next.dedupKey, receivedAt: later(16 * DAY_MS) }),
    );

    // Assess
    expect(redelivered).toBeInstanceOf(ErasedLeadError);
    expect(nextConversation.duplicate).toBe(false);
  });

  it('are not left by a test lead, nor by the retention', async () => {
    // Prepare
    const test = capture({ isTest: true, dedupKey: 'google:test-lead', source: 'google' });
    const { lead: testLead } = await ledger.record(
      newLead({ capture: test, dedupKey: test.dedupKey, status: 'test' }),
    );
    const { lead: parked } = await ledger.record(
      newLead({ status: 'parked', reason: 'missing: lastName' }),
    );

    // Act
    await ledger.redact(testLead.leadId, { reason: 'erasure', now: later(DAY_MS) });
    await ledger.redact(parked.leadId, { reason: 'retention', now: later(DAY_MS) });

    // Assess
    expect((await items()).filter((item) => String(item.pk).startsWith('erased#'))).toEqual([]);
  });
});

describe('record, checking the tombstones', () => {
  it('reads once more per new lead: one BatchGetItem and no other read', async () => {
    // Prepare
    const { client, calls } = counting(dynamo.client);
    const counted = createDynamoLedger({ client, tableName, erasureSalt: TEST_ERASURE_SALT });

    // Act
    await counted.record(newLead());

    // Assess
    expect({ batchGet: calls.batchGet, get: calls.get ?? 0, query: calls.query ?? 0 }).toEqual({
      batchGet: 1,
      get: 0,
      query: 0,
    });
  });

  it('asks again for the keys DynamoDB left unprocessed', async () => {
    // Prepare: the first BatchGetItem answers nothing and leaves every key unprocessed
    await deliveredThenErased();
    let rounds = 0;
    const throttled: DynamoDb = {
      ...dynamo.client,
      async batchGet(input) {
        rounds += 1;
        if (rounds > 1) return dynamo.client.batchGet(input);
        return { Responses: {}, UnprocessedKeys: input.RequestItems };
      },
    };
    const l = createDynamoLedger({
      client: throttled,
      tableName,
      erasureSalt: TEST_ERASURE_SALT,
    });

    // Act / Assess
    await expect(l.record(newLead({ receivedAt: later(DAY_MS) }))).rejects.toBeInstanceOf(
      ErasedLeadError,
    );
    expect(rounds).toBe(2);
  });

  it('refuses to record anything without the salt, or with one too short to keep a secret', async () => {
    // Prepare
    const none = createDynamoLedger({ client: dynamo.client, tableName });
    const short = createDynamoLedger({
      client: dynamo.client,
      tableName,
      erasureSalt: async () => 'short',
    });

    // Act / Assess
    await expect(none.record(newLead())).rejects.toBeInstanceOf(ErasureSaltError);
    await expect(short.record(newLead())).rejects.toBeInstanceOf(ErasureSaltError);
    expect(await items()).toEqual([]);
  });
});

describe('recordCapture (the intake and the backfill)', () => {
  const PROFILE = { source: 'typeform', secret: 'x', defaults: { idBranch: 1 } } as Profile;

  it('answers an erased lead listed again {erased: true} and sends no message', async () => {
    // Prepare
    await deliveredThenErased();
    const sent: string[] = [];
    const deps = { ledger, queue: { send: async (leadId: string) => void sent.push(leadId) } };

    // Act
    const outcome = await recordCapture(deps, 'typeform', PROFILE, capture(), later(DAY_MS));

    // Assess
    expect(outcome).toEqual({ erased: true });
    expect(sent).toEqual([]);
  });
});

describe('subject items of what an operator or a platform added', () => {
  it('are added by a correction and by a saved mapping, and left by the erasure', async () => {
    // Prepare: a Meta lead whose webhook named nobody
    const webhook = capture({
      source: 'meta',
      dedupKey: 'meta:888',
      answers: [],
      pending: { kind: 'graph', leadgenId: '888' },
    });
    const { lead } = await ledger.record(newLead({ capture: webhook, dedupKey: 'meta:888' }));
    const claimed = await ledger.claim(lead.leadId, 0, 60_000, T0);

    // Act: the lookup completes it; parked; an operator adds a CPF
    await ledger.saveMapping(
      lead.leadId,
      claimed?.version ?? -1,
      { capture: capture({ source: 'meta', dedupKey: 'meta:888' }) },
      T0,
    );
    await ledger.markParked(lead.leadId, claimed?.version ?? -1, 'missing: lastName', T0);
    const parked = await ledger.get(lead.leadId);
    await ledger.correct(
      lead.leadId,
      parked?.version ?? -1,
      { correction: { cpf: '529.982.247-25' }, prospect: { name: 'Lia' }, by: 'ops' },
      T0,
    );
    const found = {
      email: await ledger.findBySubjects(['email:lia.apagada@example.com']),
      cpf: await ledger.findBySubjects(['cpf:52998224725']),
    };
    await ledger.redact(lead.leadId, { reason: 'erasure', now: later(DAY_MS) });

    // Assess
    expect(found).toEqual({ email: [lead.leadId], cpf: [lead.leadId] });
    expect(await ledger.findBySubjects(['email:lia.apagada@example.com'])).toEqual([]);
    expect(await ledger.findBySubjects(['cpf:52998224725'])).toEqual([]);
    expect((await items()).filter((item) => String(item.pk).startsWith('subject#'))).toEqual(
      expect.arrayContaining([expect.objectContaining({ expiresAt: expect.any(Number) })]),
    );
  });

  it('are not added to a lead erased meanwhile: a correction of it changes nothing', async () => {
    // Prepare
    const { lead } = await ledger.record(newLead({ status: 'parked', reason: 'missing' }));
    await ledger.redact(lead.leadId, { reason: 'erasure', now: T0 });
    const erased = await ledger.get(lead.leadId);

    // Act
    const corrected = await ledger.correct(
      lead.leadId,
      erased?.version ?? -1,
      { correction: { email: 'new.person@example.com' }, prospect: { name: 'X' }, by: 'ops' },
      T0,
    );

    // Assess
    expect(corrected).toBeUndefined();
    expect(await ledger.findBySubjects(['email:new.person@example.com'])).toEqual([]);
  });
});
