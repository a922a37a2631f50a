import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import {
  isLeadId,
  LeadStateError,
  leadIdTime,
  newLeadId,
  publicStatus,
} from '../../functions/domain/lead-lifecycle.ts';
import type { DynamoDb } from '../../functions/kernel/dynamodb-aws.ts';
import {
  LEDGER_TABLE_DEFINITION,
  LeadTooLargeError,
} from '../../functions/ledger/lead-item-dynamodb.ts';
import {
  DedupConflictError,
  hashDedupKey,
  InvalidCursorError,
  type LeadLedger,
  type NewLead,
  toLeadSummary,
} from '../../functions/ledger/lead-ledger.ts';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import { createLocalDynamoDb, startLocalDynamo } from '../../local/dynamodb-local.ts';
import { startTestDynamo, TEST_ERASURE_SALT, type TestDynamo } from '../helpers/dynalite.ts';

const EMAIL = 'maria.silva@example.com';
const T0 = new Date('2026-03-02T12:00:00.000Z');
const LEASE_MS = 30_000;

/** T0 plus some seconds. */
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function capture(overrides: Partial<LeadCapture> = {}): LeadCapture {
  return {
    source: 'form',
    dedupKey: `key:${EMAIL}`,
    isTest: false,
    answers: [
      { key: 'name', value: 'Maria Silva' },
      { key: 'email', value: EMAIL },
      { key: 'phone', value: '+55 11 91234-5678' },
    ],
    attribution: { utm_source: 'google', gclid: 'abc123' },
    ...overrides,
  };
}

function newLead(overrides: Partial<NewLead> = {}): NewLead {
  return {
    profile: 'site',
    source: 'form',
    dedupKey: `key:${EMAIL}`,
    capture: capture(),
    prospect: { name: 'Maria', lastName: 'Silva', email: EMAIL, idBranch: 1 },
    status: 'queued',
    receivedAt: T0,
    ...overrides,
  };
}

let dynamo: TestDynamo;
let doc: DynamoDb;
let tableName: string;
let ledger: LeadLedger;

beforeAll(async () => {
  dynamo = await startTestDynamo();
  doc = dynamo.client;
});
afterAll(() => dynamo.close());
beforeEach(async () => {
  tableName = await dynamo.createLedgerTable();
  ledger = createDynamoLedger({ erasureSalt: TEST_ERASURE_SALT, client: dynamo.client, tableName });
});

async function scanTable(name = tableName): Promise<Record<string, unknown>[]> {
  const out = await doc.scan({ TableName: name, ConsistentRead: true });
  return out.Items ?? [];
}

/** A lead's version once claimed for the first time. */
const V1 = 1;

/** Records a lead and claims it (its version is then V1). */
async function recordClaimed(overrides: Partial<NewLead> = {}) {
  const { lead } = await ledger.record(newLead(overrides));
  const claimed = await ledger.claim(lead.leadId, 0, LEASE_MS, at(1));
  expect(claimed).toMatchObject({ status: 'sending', version: V1 });
  return lead.leadId;
}

/** A release that waits `seconds` and counts the failure. */
const failure = (error: string, now: Date, seconds = 10) => ({
  nextAttemptAt: new Date(now.getTime() + seconds * 1000),
  error,
  counted: true,
  failed: true,
});

describe('newLeadId', () => {
  it('makes short ids that sort by time and carry nothing but time and randomness', () => {
    // Prepare
    const times = [0, 1, 999, 1000, 60_000, 86_400_000].map((ms) => new Date(T0.getTime() + ms));

    // Act
    const ids = times.map((time) => newLeadId(time));

    // Assess
    for (const id of ids) expect(id).toMatch(/^ld_[0-9A-HJKMNP-TV-Z]{22}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(ids.map((id) => leadIdTime(id).toISOString())).toEqual(
      times.map((t) => t.toISOString()),
    );
    expect(new Set(Array.from({ length: 1000 }, () => newLeadId(T0))).size).toBe(1000);
    expect(isLeadId('ld_not-an-id')).toBe(false);
  });
});

describe('createDynamoLedger', () => {
  describe('record', () => {
    it('records a new lead and reads it back as it was given', async () => {
      // Act
      const { lead, duplicate } = await ledger.record(newLead());
      const read = await ledger.get(lead.leadId);

      // Assess
      expect(duplicate).toBe(false);
      expect(isLeadId(lead.leadId)).toBe(true);
      expect(lead).toEqual({
        leadId: lead.leadId,
        profile: 'site',
        source: 'form',
        status: 'queued',
        dedupKey: `key:${EMAIL}`,
        capture: capture(),
        prospect: { name: 'Maria', lastName: 'Silva', email: EMAIL, idBranch: 1 },
        attempts: 0,
        tries: 0,
        version: 0,
        receivedAt: T0.toISOString(),
        queuedAt: T0.toISOString(),
        nextAttemptAt: T0.toISOString(),
        dueAt: at(120).toISOString(),
        updatedAt: T0.toISOString(),
      });
      expect(read).toEqual(lead);
      expect(toLeadSummary(lead)).toEqual({
        leadId: lead.leadId,
        profile: 'site',
        status: 'queued',
        attempts: 0,
        tries: 0,
        receivedAt: T0.toISOString(),
        nextAttemptAt: T0.toISOString(),
      });
    });

    it('returns the existing lead for the same key within the window', async () => {
      // Prepare
      const first = await ledger.record(newLead({ dedupWindowSeconds: 3600 }));

      // Act
      const again = await ledger.record(
        newLead({ dedupWindowSeconds: 3600, receivedAt: at(3599) }),
      );

      // Assess
      expect(again).toEqual({ lead: first.lead, duplicate: true });
    });

    it('records a new lead for the same key once the window has passed', async () => {
      // Prepare
      const first = await ledger.record(newLead({ dedupWindowSeconds: 3600 }));

      // Act
      const later = await ledger.record(
        newLead({ dedupWindowSeconds: 3600, receivedAt: at(3601) }),
      );
      const laterStill = await ledger.record(
        newLead({ dedupWindowSeconds: 3600, receivedAt: at(3700) }),
      );

      // Assess
      expect(later.duplicate).toBe(false);
      expect(later.lead.leadId).not.toBe(first.lead.leadId);
      expect(laterStill).toEqual({ lead: later.lead, duplicate: true });
      expect(await ledger.get(first.lead.leadId)).toEqual(first.lead);
    });

    it('keeps a key without a window for as long as the ledger keeps leads', async () => {
      // Prepare
      const short = createDynamoLedger({
        erasureSalt: TEST_ERASURE_SALT,
        client: dynamo.client,
        tableName,
        retentionDays: 1,
      });
      const first = await short.record(newLead());

      // Act
      const nextDay = await short.record(newLead({ receivedAt: at(86_000) }));
      const twoDaysLater = await short.record(newLead({ receivedAt: at(2 * 86_400) }));

      // Assess
      expect(nextDay).toEqual({ lead: first.lead, duplicate: true });
      expect(twoDaysLater.duplicate).toBe(false);
    });

    it('deduplicates per profile', async () => {
      // Act
      const site = await ledger.record(newLead());
      const other = await ledger.record(newLead({ profile: 'landing' }));

      // Assess
      expect(other.duplicate).toBe(false);
      expect(other.lead.leadId).not.toBe(site.lead.leadId);
    });

    it('refuses the same key with another fingerprint within the window, and records nothing', async () => {
      // Prepare
      const first = await ledger.record(newLead({ dedupWindowSeconds: 3600, fingerprint: 'a1' }));

      // Act
      const same = await ledger.record(
        newLead({ dedupWindowSeconds: 3600, fingerprint: 'a1', receivedAt: at(10) }),
      );
      const other = ledger.record(
        newLead({ dedupWindowSeconds: 3600, fingerprint: 'b2', receivedAt: at(20) }),
      );

      // Assess
      expect(same).toEqual({ lead: first.lead, duplicate: true });
      await expect(other).rejects.toThrow(DedupConflictError);
      await expect(other).rejects.toMatchObject({ leadId: first.lead.leadId });
      const items = await scanTable();
      expect(items.filter((item) => item.kind === 'lead')).toHaveLength(1);
      // Once the window is over, the key is free for another body.
      const later = await ledger.record(
        newLead({ dedupWindowSeconds: 3600, fingerprint: 'b2', receivedAt: at(3601) }),
      );
      expect(later.duplicate).toBe(false);
    });

    it('creates exactly one lead out of 10 concurrent records of the same key', async () => {
      // Act
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => ledger.record(newLead({ receivedAt: at(i % 3) }))),
      );

      // Assess
      expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
      expect(new Set(results.map((r) => r.lead.leadId)).size).toBe(1);
      const items = await scanTable();
      expect(items.filter((item) => item.kind === 'lead')).toHaveLength(1);
      expect(items.filter((item) => item.kind === 'dedup')).toHaveLength(1);
    });

    it('writes the lead on the next record() after a crash between the dedup and lead writes', async () => {
      // Prepare: a client whose first lead put fails, as if the process died right there.
      const plain = createLocalDynamoDb(dynamo.endpoint);
      let crashed = false;
      const crashing: DynamoDb = {
        ...plain,
        put: async (input) => {
          if (!crashed && String(input.Item.pk).startsWith('lead#')) {
            crashed = true;
            throw new Error('simulated crash');
          }
          return plain.put(input);
        },
      };
      const crashingLedger = createDynamoLedger({
        erasureSalt: TEST_ERASURE_SALT,
        client: crashing,
        tableName,
      });
      await expect(crashingLedger.record(newLead())).rejects.toThrow('simulated crash');
      const [orphan] = await scanTable();

      // Act
      const retried = await crashingLedger.record(newLead({ receivedAt: at(5) }));
      const again = await ledger.record(newLead({ receivedAt: at(6) }));

      // Assess
      expect(crashed).toBe(true);
      expect(orphan).toMatchObject({ kind: 'dedup' });
      expect(retried.duplicate).toBe(false);
      expect(retried.lead.leadId).toBe(orphan?.leadId);
      expect(retried.lead.receivedAt).toBe(at(5).toISOString());
      expect(again).toEqual({ lead: retried.lead, duplicate: true });
      expect((await scanTable()).filter((item) => item.kind === 'lead')).toHaveLength(1);
    });

    it('puts no personal data in any key, id or dedup item', async () => {
      // Prepare
      await ledger.record(newLead());
      const { lead } = await ledger.record(
        newLead({ dedupKey: `hash:${EMAIL}|Maria`, profile: 'p2' }),
      );
      await ledger.claim(lead.leadId, 0, LEASE_MS, at(1));

      // Act
      const items = await scanTable();

      // Assess
      expect(items.filter((item) => item.kind !== 'subject')).toHaveLength(4);
      // the subject items (erasure's lookup) name the e-mail and phone by their hash only
      const subjects = items.filter((item) => item.kind === 'subject');
      expect(subjects.length).toBeGreaterThanOrEqual(2);
      for (const item of subjects) {
        expect(JSON.stringify(item, (_k, v) => (v instanceof Set ? [...v] : v))).not.toMatch(
          /maria|91234/i,
        );
      }
      for (const item of items) {
        for (const key of ['pk', 'gsi1pk', 'gsi1sk', 'duepk', 'dueAt', 'leadId']) {
          expect(String(item[key] ?? '')).not.toContain(EMAIL);
          expect(String(item[key] ?? '')).not.toContain('Maria');
        }
      }
      const dedupItems = items.filter((item) => item.kind === 'dedup');
      expect(dedupItems.map((item) => item.pk)).toEqual(
        expect.arrayContaining([
          `dedup#site#${hashDedupKey(`key:${EMAIL}`)}`,
          `dedup#p2#${hashDedupKey(`hash:${EMAIL}|Maria`)}`,
        ]),
      );
      for (const item of dedupItems) expect(JSON.stringify(item)).not.toContain(EMAIL);
    });

    it('compresses a large capture and refuses one that cannot fit in an item', async () => {
      // Prepare
      const big = 'Quero saber mais sobre os planos da academia. '.repeat(6000); // ~280 KB
      const noise = randomBytes(450_000).toString('base64'); // ~600 KB, incompressible

      // Act
      const { lead } = await ledger.record(
        newLead({ capture: capture({ answers: [{ key: 'message', value: big }] }) }),
      );
      const tooLarge = await ledger
        .record(
          newLead({
            dedupKey: 'key:other',
            capture: capture({ answers: [{ key: 'message', value: noise }] }),
          }),
        )
        .catch((error: unknown) => error);

      // Assess
      expect((await ledger.get(lead.leadId))?.capture.answers[0]?.value).toBe(big);
      const [item] = (await scanTable()).filter((i) => i.kind === 'lead');
      expect(item?.payload).toBeInstanceOf(Uint8Array);
      expect(tooLarge).toBeInstanceOf(LeadTooLargeError);
      expect((await scanTable()).filter((i) => i.kind !== 'subject')).toHaveLength(2);
    });

    it('starts parked and test leads in their own status; test leads get a TTL', async () => {
      // Act
      const parked = await ledger.record(
        newLead({ status: 'parked', reason: 'missing: cellphone', dedupKey: 'key:1' }),
      );
      const test = await ledger.record(newLead({ status: 'test', dedupKey: 'key:2' }));

      // Assess
      expect(parked.lead).toMatchObject({ status: 'parked', reason: 'missing: cellphone' });
      expect(parked.lead.expiresAt).toBeUndefined();
      expect(test.lead.status).toBe('test');
      expect(test.lead.expiresAt).toBe(Math.floor(T0.getTime() / 1000) + 90 * 86_400);
    });
  });

  describe('get', () => {
    it('answers undefined for unknown and malformed ids', async () => {
      expect(await ledger.get(newLeadId())).toBeUndefined();
      expect(await ledger.get('lead#whatever')).toBeUndefined();
      expect(await ledger.get('')).toBeUndefined();
    });
  });

  describe('claim', () => {
    it('lets exactly one of 10 concurrent claimers win', async () => {
      // Prepare
      const { lead } = await ledger.record(newLead());

      // Act
      const claims = await Promise.all(
        Array.from({ length: 10 }, () => ledger.claim(lead.leadId, 0, LEASE_MS, at(1))),
      );

      // Assess
      const winners = claims.filter((c) => c !== undefined);
      expect(winners).toHaveLength(1);
      expect(winners[0]).toMatchObject({
        status: 'sending',
        version: V1,
        tries: 1,
        leaseUntil: new Date(at(1).getTime() + LEASE_MS).toISOString(),
        dueAt: new Date(at(1).getTime() + LEASE_MS + 120_000).toISOString(),
        updatedAt: at(1).toISOString(),
      });
      expect(winners[0]?.nextAttemptAt).toBeUndefined();
    });

    it('lets someone else claim a lead once its lease has expired', async () => {
      // Prepare
      const leadId = await recordClaimed();

      // Act
      const whileHeld = await ledger.claim(leadId, V1, LEASE_MS, at(1 + LEASE_MS / 1000 - 1));
      const staleChain = await ledger.claim(leadId, 0, LEASE_MS, at(1 + LEASE_MS / 1000 + 1));
      const afterExpiry = await ledger.claim(leadId, V1, LEASE_MS, at(1 + LEASE_MS / 1000 + 1));

      // Assess
      expect(whileHeld).toBeUndefined();
      expect(staleChain).toBeUndefined();
      expect(afterExpiry?.leaseUntil).toBe(at(2 + (2 * LEASE_MS) / 1000).toISOString());
      expect(afterExpiry?.version).toBe(V1 + 1);
    });

    it('refuses unknown leads and leads that are parked, dead, rejected or test', async () => {
      // Prepare
      const parked = await ledger.record(newLead({ status: 'parked', dedupKey: 'key:p' }));
      const test = await ledger.record(newLead({ status: 'test', dedupKey: 'key:t' }));
      const dead = await ledger.record(newLead({ dedupKey: 'key:d' }));
      await ledger.markDead(dead.lead.leadId, 0, 'gave up', at(1));
      const rejected = await recordClaimed({ dedupKey: 'key:r' });
      await ledger.markRejected(rejected, V1, ['email inválido'], at(2));

      // Act
      const ids = [parked.lead.leadId, test.lead.leadId, dead.lead.leadId, rejected, newLeadId()];
      const claims = await Promise.all(
        ids.map((id) => Promise.all([0, V1].map((v) => ledger.claim(id, v, LEASE_MS, at(3))))),
      );

      // Assess
      expect(claims.flat()).toEqual(Array.from({ length: 10 }, () => undefined));
      expect((await scanTable()).filter((i) => i.kind !== 'subject')).toHaveLength(8);
    });
  });

  describe('markDelivered', () => {
    it('is final: no claim, requeue, rejection, release, death or parking afterwards', async () => {
      // Prepare
      const leadId = await recordClaimed();
      await ledger.markDelivered(leadId, 4242, at(2));
      const late = at(3600);

      // Act
      const claim = await ledger.claim(leadId, V1, LEASE_MS, late);
      const requeue = await ledger.requeue(leadId, late);
      const wake = await ledger.wake(leadId, V1, { dueAt: late, now: late, attemptNow: true });
      const refusals = await Promise.allSettled([
        ledger.markRejected(leadId, V1, ['no'], late),
        ledger.release(leadId, V1, failure('timeout', late), late),
        ledger.markDead(leadId, V1, 'gave up', late),
        ledger.markParked(leadId, V1, 'missing', late),
        ledger.markTest(leadId, V1, 'test', late),
        ledger.markDelivered(leadId, 999, late),
      ]);

      // Assess
      expect(claim).toBeUndefined();
      expect(requeue).toBeUndefined();
      expect(wake).toBeUndefined();
      for (const refusal of refusals) {
        expect(refusal.status).toBe('rejected');
        const reason = (refusal as PromiseRejectedResult).reason;
        expect(reason).toBeInstanceOf(LeadStateError);
        expect(reason).toMatchObject({ leadId, status: 'delivered' });
      }
      expect(await ledger.get(leadId)).toMatchObject({
        status: 'delivered',
        idProspect: 4242,
        deliveredAt: at(2).toISOString(),
        updatedAt: at(2).toISOString(),
        attempts: 0,
        expiresAt: Math.floor(at(2).getTime() / 1000) + 90 * 86_400,
      });
      const final = await ledger.get(leadId);
      expect(final?.leaseUntil).toBeUndefined();
      expect(final?.dueAt).toBeUndefined();
      expect(final?.nextAttemptAt).toBeUndefined();
      expect((await ledger.listDue(at(7200))).leads).toEqual([]);
    });

    it('accepts the same delivery twice and keeps big ids as strings', async () => {
      // Prepare
      const leadId = await recordClaimed();
      const bigId = '9007199254740993123';

      // Act
      await ledger.markDelivered(leadId, bigId, at(2));
      await ledger.markDelivered(leadId, bigId, at(3));

      // Assess
      expect(await ledger.get(leadId)).toMatchObject({
        idProspect: bigId,
        deliveredAt: at(2).toISOString(),
      });
    });

    it('records a delivery even when the lease was lost meanwhile', async () => {
      // Prepare: the first sender's lease expired and a second sender released the lead.
      const leadId = await recordClaimed();
      await ledger.claim(leadId, V1, LEASE_MS, at(100));
      await ledger.release(leadId, V1 + 1, failure('HTTP 503', at(101)), at(101));

      // Act
      await ledger.markDelivered(leadId, 7, at(102));

      // Assess
      expect(await ledger.get(leadId)).toMatchObject({ status: 'delivered', idProspect: 7 });
    });

    it('throws for an unknown lead', async () => {
      const leadId = newLeadId();
      await expect(ledger.markDelivered(leadId, 1, at(1))).rejects.toMatchObject({
        name: 'LeadStateError',
        status: undefined,
      });
    });
  });

  describe('release, markRejected, markDead, markParked and markTest', () => {
    it('puts a lead back in the queue until its next attempt, counting only failures of its own', async () => {
      // Prepare
      const leadId = await recordClaimed();

      // Act
      const first = await ledger.release(leadId, V1, failure('HTTP 503', at(2), 30), at(2));
      const early = await ledger.claim(leadId, V1, LEASE_MS, at(31));
      const due = await ledger.claim(leadId, V1, LEASE_MS, at(32));
      const second = await ledger.release(
        leadId,
        V1 + 1,
        { nextAttemptAt: at(40), error: 'HTTP 429', counted: false, failed: false },
        at(34),
      );

      // Assess
      expect(first).toMatchObject({
        status: 'queued',
        attempts: 1,
        tries: 1,
        lastError: 'HTTP 503',
        lastFailureAt: at(2).toISOString(),
        nextAttemptAt: at(32).toISOString(),
        dueAt: at(32 + 120).toISOString(),
      });
      expect(first.leaseUntil).toBeUndefined();
      expect(early).toBeUndefined();
      expect(due).toMatchObject({ status: 'sending', version: V1 + 1, tries: 2 });
      expect(second).toMatchObject({
        status: 'queued',
        attempts: 1,
        tries: 2,
        lastError: 'HTTP 429',
        lastFailureAt: at(2).toISOString(),
      });
      await expect(
        ledger.release(leadId, V1 + 1, failure('again', at(5)), at(5)),
      ).rejects.toMatchObject({ name: 'LeadStateError', transition: 'release', status: 'queued' });
    });

    it("refuses every transition from an attempt whose chain is no longer the lead's", async () => {
      // Prepare: the first attempt's lease ran out and a second attempt took the lead.
      const leadId = await recordClaimed();
      await ledger.claim(leadId, V1, LEASE_MS, at(1 + LEASE_MS / 1000 + 1));
      const late = at(100);

      // Act
      const refusals = await Promise.allSettled([
        ledger.release(leadId, V1, failure('late', late), late),
        ledger.markRejected(leadId, V1, ['no'], late),
        ledger.markDead(leadId, V1, 'gave up', late),
        ledger.markParked(leadId, V1, 'missing', late),
        ledger.saveMapping(leadId, V1, { prospect: { name: 'X' } }, late),
      ]);

      // Assess
      for (const refusal of refusals) expect(refusal.status).toBe('rejected');
      expect(await ledger.get(leadId)).toMatchObject({ status: 'sending', version: V1 + 1 });
    });

    it('rejects only a lead being sent, keeping bounded upstream messages and a TTL', async () => {
      // Prepare
      const queued = await ledger.record(newLead({ dedupKey: 'key:q' }));
      const leadId = await recordClaimed();
      const messages = ['E-mail inválido', 'x'.repeat(5000)];

      // Act
      await ledger.markRejected(leadId, V1, messages, at(2));
      const notSending = await ledger
        .markRejected(queued.lead.leadId, 0, ['no'], at(2))
        .catch((error: unknown) => error);

      // Assess
      const rejected = await ledger.get(leadId);
      expect(rejected).toMatchObject({ status: 'rejected', attempts: 0 });
      expect(rejected?.messages?.[0]).toBe('E-mail inválido');
      expect(rejected?.messages?.[1]).toHaveLength(2000);
      expect(rejected?.reason?.startsWith('E-mail inválido; xxx')).toBe(true);
      expect(rejected?.expiresAt).toBeGreaterThan(0);
      expect(rejected?.dueAt).toBeUndefined();
      expect(notSending).toBeInstanceOf(LeadStateError);
    });

    it('marks queued or sending leads dead with no TTL, counting the failure only when told', async () => {
      // Prepare
      const queued = await ledger.record(newLead({ dedupKey: 'key:q' }));
      const sending = await recordClaimed();

      // Act
      await ledger.markDead(queued.lead.leadId, 0, 'past the horizon', at(2));
      await ledger.markDead(sending, V1, 'HTTP 500 ×8', at(2), { counted: true });

      // Assess
      expect(await ledger.get(queued.lead.leadId)).toMatchObject({ status: 'dead', attempts: 0 });
      expect(await ledger.get(sending)).toMatchObject({ status: 'dead', attempts: 1 });
      for (const id of [queued.lead.leadId, sending]) {
        const dead = await ledger.get(id);
        expect(dead?.expiresAt).toBeUndefined();
        expect(dead?.leaseUntil).toBeUndefined();
        expect(dead?.dueAt).toBeUndefined();
      }
    });

    it('parks queued or sending leads with a reason, and keeps test leads as test', async () => {
      // Prepare
      const queued = await ledger.record(newLead({ dedupKey: 'key:q' }));
      const sending = await recordClaimed();
      const testing = await recordClaimed({ dedupKey: 'key:t' });

      // Act
      await ledger.markParked(queued.lead.leadId, 0, 'missing: email', at(2));
      await ledger.markParked(sending, V1, 'meta graph lookup failed', at(2));
      await ledger.markTest(testing, V1, 'Meta testing tool', at(2));

      // Assess
      expect(await ledger.get(queued.lead.leadId)).toMatchObject({
        status: 'parked',
        reason: 'missing: email',
      });
      expect(await ledger.get(sending)).toMatchObject({ status: 'parked' });
      expect(await ledger.get(testing)).toMatchObject({
        status: 'test',
        reason: 'Meta testing tool',
      });
      await expect(ledger.markParked(sending, V1, 'again', at(3))).rejects.toMatchObject({
        status: 'parked',
      });
    });

    it('keeps what an attempt learnt: the completed capture and the mapped Prospect', async () => {
      // Prepare
      const leadId = await recordClaimed();
      const completed = capture({ answers: [{ key: 'full_name', value: 'Maria Graph' }] });

      // Act
      await ledger.saveMapping(
        leadId,
        V1,
        { capture: completed, prospect: { name: 'Maria', lastName: 'Graph' } },
        at(2),
      );

      // Assess
      expect(await ledger.get(leadId)).toMatchObject({
        status: 'sending',
        capture: completed,
        prospect: { name: 'Maria', lastName: 'Graph' },
      });
    });
  });

  describe('requeue', () => {
    it('queues parked, dead, rejected and test leads again as a new chain', async () => {
      // Prepare
      const parked = await ledger.record(newLead({ status: 'parked', reason: 'r', dedupKey: 'p' }));
      const test = await ledger.record(newLead({ status: 'test', dedupKey: 't' }));
      const dead = await recordClaimed({ dedupKey: 'd' });
      await ledger.markDead(dead, V1, 'gave up', at(2), { counted: true });
      const rejected = await recordClaimed({ dedupKey: 'r' });
      await ledger.markRejected(rejected, V1, ['no'], at(2));

      // Act
      const ids = [parked.lead.leadId, test.lead.leadId, dead, rejected];
      const requeued = await Promise.all(ids.map((id) => ledger.requeue(id, at(10))));

      // Assess
      for (const lead of requeued) {
        expect(lead).toMatchObject({
          status: 'queued',
          attempts: 0,
          tries: 0,
          queuedAt: at(10).toISOString(),
          nextAttemptAt: at(10).toISOString(),
          updatedAt: at(10).toISOString(),
        });
        expect(lead?.expiresAt).toBeUndefined();
        expect(lead?.reason).toBeUndefined();
        expect(lead?.messages).toBeUndefined();
      }
      expect(requeued.map((lead) => lead?.version)).toEqual([1, 1, V1 + 1, V1 + 1]);
      expect(requeued[2]?.lastError).toBe('gave up');
      expect(await ledger.claim(dead, V1, LEASE_MS, at(11))).toBeUndefined();
      expect(await ledger.claim(dead, V1 + 1, LEASE_MS, at(11))).toMatchObject({
        status: 'sending',
      });
    });

    it('refuses queued, sending, delivered and unknown leads', async () => {
      // Prepare
      const queued = await ledger.record(newLead({ dedupKey: 'q' }));
      const sending = await recordClaimed({ dedupKey: 's' });
      const delivered = await recordClaimed({ dedupKey: 'd' });
      await ledger.markDelivered(delivered, 1, at(2));

      // Act
      const ids = [queued.lead.leadId, sending, delivered, newLeadId(), 'nonsense'];
      const results = await Promise.all(ids.map((id) => ledger.requeue(id, at(3))));

      // Assess
      expect(results).toEqual([undefined, undefined, undefined, undefined, undefined]);
      expect((await ledger.get(sending))?.status).toBe('sending');
    });
  });

  describe('the due index (listDue, wake, countInFlight)', () => {
    it('lists the leads on their way whose dueAt has passed, most overdue first', async () => {
      // Prepare: a queued lead (due 120 s after it was received), a sending one (due 120 s after
      // its lease ends), a parked one (never due) and a delivered one (no longer due).
      const queued = await ledger.record(newLead({ dedupKey: 'q', receivedAt: at(0) }));
      const sending = await recordClaimed({ dedupKey: 's', receivedAt: at(0) });
      await ledger.record(newLead({ dedupKey: 'p', status: 'parked' }));
      const delivered = await recordClaimed({ dedupKey: 'd' });
      await ledger.markDelivered(delivered, 1, at(2));

      // Act
      const beforeGrace = await ledger.listDue(at(100));
      const afterQueuedGrace = await ledger.listDue(at(121));
      const afterLease = await ledger.listDue(at(1 + LEASE_MS / 1000 + 121));

      // Assess
      expect(beforeGrace.leads).toEqual([]);
      expect(afterQueuedGrace.leads.map((lead) => lead.leadId)).toEqual([queued.lead.leadId]);
      expect(afterLease.leads.map((lead) => lead.leadId)).toEqual([queued.lead.leadId, sending]);
      expect(await ledger.countInFlight()).toBe(2);
    });

    it('notes a wake-up once per due lead and chain, moving its dueAt on', async () => {
      // Prepare
      const { lead } = await ledger.record(newLead());
      const now = at(200);

      // Act
      const woken = await Promise.all(
        Array.from({ length: 5 }, () =>
          ledger.wake(lead.leadId, 0, { dueAt: at(320), now, onlyIfDue: true }),
        ),
      );
      const otherChain = await ledger.wake(lead.leadId, 3, { dueAt: at(320), now });

      // Assess
      expect(woken.filter((w) => w !== undefined)).toHaveLength(1);
      expect(otherChain).toBeUndefined();
      expect(await ledger.get(lead.leadId)).toMatchObject({ dueAt: at(320).toISOString() });
      expect((await ledger.listDue(at(300))).leads).toEqual([]);
    });

    it('makes a waiting lead due now when an operator wakes it', async () => {
      // Prepare
      const leadId = await recordClaimed();
      await ledger.release(leadId, V1, failure('HTTP 500', at(2), 900), at(2));

      // Act
      const woken = await ledger.wake(leadId, V1, {
        dueAt: at(130),
        now: at(10),
        attemptNow: true,
      });
      const claimed = await ledger.claim(leadId, V1, LEASE_MS, at(11));

      // Assess
      expect(woken).toMatchObject({ nextAttemptAt: at(10).toISOString() });
      expect(claimed).toMatchObject({ status: 'sending' });
    });

    it('treats a lead recorded before versions existed as version 0', async () => {
      // Prepare: an item as an earlier release wrote it (no version, tries, queuedAt or dueAt).
      const { lead } = await ledger.record(newLead());
      await doc.update({
        TableName: tableName,
        Key: { pk: `lead#${lead.leadId}` },
        UpdateExpression: 'REMOVE version, tries, queuedAt, nextAttemptAt, dueAt, duepk',
      });

      // Act
      const read = await ledger.get(lead.leadId);
      const claimed = await ledger.claim(lead.leadId, 0, LEASE_MS, at(1));

      // Assess
      expect(read).toMatchObject({ version: 0, tries: 0, queuedAt: T0.toISOString() });
      expect(claimed).toMatchObject({ status: 'sending', version: 1 });
    });
  });

  describe('listByStatus', () => {
    it('pages through one status oldest first', async () => {
      // Prepare
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        const { lead } = await ledger.record(newLead({ dedupKey: `k${i}`, receivedAt: at(i) }));
        ids.push(lead.leadId);
      }
      await ledger.record(newLead({ dedupKey: 'parked', status: 'parked' }));
      await ledger.claim(ids[6] ?? '', 0, LEASE_MS, at(10));

      // Act
      const seen: string[] = [];
      const pages: number[] = [];
      let cursor: string | undefined;
      do {
        const page = await ledger.listByStatus('queued', { limit: 3, ...(cursor && { cursor }) });
        seen.push(...page.leads.map((l) => l.leadId));
        pages.push(page.leads.length);
        cursor = page.cursor;
      } while (cursor);
      const sending = await ledger.listByStatus('sending');

      // Assess
      expect(seen).toEqual(ids.slice(0, 6));
      expect(pages.slice(0, 2)).toEqual([3, 3]);
      expect(sending.leads.map((l) => l.leadId)).toEqual([ids[6]]);
      expect(sending.cursor).toBeUndefined();
      expect((await ledger.listByStatus('parked')).leads).toHaveLength(1);
      expect((await ledger.listByStatus('delivered')).leads).toEqual([]);
    });

    it('refuses a cursor it did not hand out for this status', async () => {
      // Prepare
      for (let i = 0; i < 3; i++) await ledger.record(newLead({ dedupKey: `k${i}` }));
      const { cursor } = await ledger.listByStatus('queued', { limit: 1 });

      // Act / Assess
      expect(cursor).toBeDefined();
      await expect(ledger.listByStatus('dead', { cursor: cursor ?? '' })).rejects.toBeInstanceOf(
        InvalidCursorError,
      );
      await expect(ledger.listByStatus('queued', { cursor: 'bm9wZQ' })).rejects.toBeInstanceOf(
        InvalidCursorError,
      );
    });
  });

  describe('listRecent', () => {
    /** Seven leads one second apart, in several statuses: [queued, parked, queued, test...]. */
    async function leadsOverTime(): Promise<string[]> {
      const statuses = [
        'queued',
        'parked',
        'queued',
        'test',
        'parked',
        'queued',
        'queued',
      ] as const;
      const ids: string[] = [];
      for (const [i, status] of statuses.entries()) {
        const { lead } = await ledger.record(
          newLead({ dedupKey: `r${i}`, receivedAt: at(i), status }),
        );
        ids.push(lead.leadId);
      }
      // One on its way: listed with the others, merged by when it was received.
      await ledger.claim(ids[5] ?? '', 0, LEASE_MS, at(20));
      return ids;
    }

    it('merges the statuses newest first and pages by position without losing a lead', async () => {
      // Prepare
      const ids = await leadsOverTime();
      const statuses = ['queued', 'sending', 'parked', 'test'] as const;

      // Act
      const seen: string[] = [];
      let after: string | undefined;
      let pages = 0;
      do {
        const page = await ledger.listRecent({
          statuses,
          order: 'newest',
          limit: 3,
          ...(after && { after }),
        });
        seen.push(...page.entries.map((e) => e.lead.leadId));
        after = page.more ? page.entries.at(-1)?.position : undefined;
        pages += 1;
      } while (after && pages < 10);

      // Assess
      expect(seen).toEqual([...ids].reverse());
      expect(pages).toBe(3);
    });

    it('reads only the statuses asked for, oldest first, within a period', async () => {
      // Prepare
      const ids = await leadsOverTime();

      // Act
      const parked = await ledger.listRecent({ statuses: ['parked'], order: 'oldest', limit: 10 });
      const window = await ledger.listRecent({
        statuses: ['queued', 'sending', 'parked', 'test'],
        order: 'oldest',
        since: at(2),
        until: at(5),
        limit: 10,
      });

      // Assess
      expect(parked.entries.map((e) => e.lead.leadId)).toEqual([ids[1], ids[4]]);
      expect(parked.more).toBe(false);
      expect(window.entries.map((e) => e.lead.leadId)).toEqual(ids.slice(2, 5));
    });

    it('refuses a position it could not have handed out', async () => {
      await expect(
        ledger.listRecent({ statuses: ['queued'], order: 'newest', limit: 1, after: 'lead#x' }),
      ).rejects.toBeInstanceOf(InvalidCursorError);
      expect(ledger.isPosition('2026-03-02T12:00:00.000Z#ld_01M8475ENDJKM6M7VF566B')).toBe(true);
      expect(ledger.isPosition('nope')).toBe(false);
    });
  });

  describe('findByDedupKey', () => {
    it('finds the lead recorded under a dedup key for its profile, and no other', async () => {
      const { lead } = await ledger.record(newLead({ dedupKey: 'google:abc' }));
      expect((await ledger.findByDedupKey('site', 'google:abc', at(1)))?.leadId).toBe(lead.leadId);
      expect(await ledger.findByDedupKey('other', 'google:abc', at(1))).toBeUndefined();
      expect(await ledger.findByDedupKey('site', 'google:xyz', at(1))).toBeUndefined();
    });
  });

  describe('correct', () => {
    it("keeps an operator's correction on a parked lead, at the version they read", async () => {
      // Prepare
      const { lead } = await ledger.record(
        newLead({ status: 'parked', reason: 'falta o campo obrigatório celular' }),
      );

      // Act
      const corrected = await ledger.correct(
        lead.leadId,
        lead.version,
        {
          correction: { cellphone: '11987654321', ddi: '55' },
          prospect: { ...lead.prospect, cellphone: '11987654321', ddi: '55' },
          by: 'ops',
        },
        at(30),
      );

      // Assess: still parked (a retry sends it), the correction and who made it are kept.
      expect(corrected).toMatchObject({
        status: 'parked',
        correction: { cellphone: '11987654321', ddi: '55' },
        prospect: { email: EMAIL, cellphone: '11987654321' },
        correctedAt: at(30).toISOString(),
        correctedBy: 'ops',
      });
      expect(await ledger.get(lead.leadId)).toMatchObject({ correction: { ddi: '55' } });
    });

    it('refuses a lead on its way, a delivered one, and a version that moved on', async () => {
      // Prepare
      const { lead: queued } = await ledger.record(newLead({ dedupKey: 'q' }));
      const { lead: parked } = await ledger.record(newLead({ dedupKey: 'p', status: 'parked' }));
      const change = { correction: { name: 'Ana' }, prospect: { name: 'Ana' }, by: 'ops' };

      // Act / Assess
      expect(await ledger.correct(queued.leadId, 0, change, at(5))).toBeUndefined();
      expect(await ledger.correct(parked.leadId, 7, change, at(5))).toBeUndefined();
      await ledger.requeue(parked.leadId, at(6));
      expect(await ledger.correct(parked.leadId, 1, change, at(7))).toBeUndefined();
      expect((await ledger.get(parked.leadId))?.correction).toBeUndefined();
    });

    it('keeps the correction when delivery saves what it mapped', async () => {
      // Prepare
      const { lead } = await ledger.record(newLead({ status: 'parked' }));
      const change = { correction: { name: 'Ana' }, prospect: { name: 'Ana' }, by: 'ops' };
      await ledger.correct(lead.leadId, 0, change, at(2));
      const requeued = await ledger.requeue(lead.leadId, at(3));
      const claimed = await ledger.claim(lead.leadId, requeued?.version ?? -1, LEASE_MS, at(4));

      // Act
      await ledger.saveMapping(
        lead.leadId,
        claimed?.version ?? -1,
        { prospect: { name: 'Ana' } },
        at(5),
      );

      // Assess
      expect((await ledger.get(lead.leadId))?.correction).toEqual({ name: 'Ana' });
    });
  });

  describe('publicStatus', () => {
    it('shows a lead being sent as queued', () => {
      expect(publicStatus('sending')).toBe('queued');
      expect(publicStatus('parked')).toBe('parked');
    });
  });
});

describe('startLocalDynamo', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'leads-dynamo-'));
  const children = new Set<ChildProcess>();
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Runs startLocalDynamo in a child process on `dataDir`; resolves with its endpoint. */
  async function startChild(): Promise<{ child: ChildProcess; endpoint: string }> {
    const local = new URL('../../local/dynamodb-local.ts', import.meta.url).href;
    const adapter = new URL('../../functions/ledger/lead-item-dynamodb.ts', import.meta.url).href;
    const script = `
      const { startLocalDynamo } = await import(${JSON.stringify(local)});
      const { LEDGER_TABLE_DEFINITION } = await import(${JSON.stringify(adapter)});
      const local = await startLocalDynamo({
        dataDir: ${JSON.stringify(dataDir)},
        tables: [{ name: 'leads', definition: LEDGER_TABLE_DEFINITION }],
      });
      console.log(JSON.stringify({ endpoint: local.endpoint }));
      setInterval(() => {}, 60_000);
    `;
    const child = spawn(
      process.execPath,
      ['--no-warnings', '--import', 'tsx', '--input-type=module', '-e', script],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.add(child);
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    for await (const line of lines) {
      if (line.startsWith('{')) return { child, endpoint: JSON.parse(line).endpoint as string };
    }
    throw new Error('the local DynamoDB child exited before it was ready');
  }

  async function kill9(child: ChildProcess): Promise<NodeJS.Signals | null> {
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    );
    child.kill('SIGKILL');
    const signal = await exited;
    children.delete(child);
    return signal;
  }

  it('keeps acknowledged writes on disk when its process is killed with SIGKILL', async () => {
    // Prepare
    const first = await startChild();
    const client = createLocalDynamoDb(first.endpoint);
    const ledger = createDynamoLedger({
      erasureSalt: TEST_ERASURE_SALT,
      client,
      tableName: 'leads',
    });
    const { lead } = await ledger.record(newLead());
    const delivered = await ledger.record(newLead({ dedupKey: 'key:delivered' }));
    await ledger.claim(delivered.lead.leadId, 0, LEASE_MS, at(1));
    await ledger.markDelivered(delivered.lead.leadId, 77, at(2));

    // Act
    const signal = await kill9(first.child);
    const second = await startChild();
    const reopened = createLocalDynamoDb(second.endpoint);
    const after = createDynamoLedger({
      erasureSalt: TEST_ERASURE_SALT,
      client: reopened,
      tableName: 'leads',
    });

    // Assess
    expect(signal).toBe('SIGKILL');
    expect(await after.get(lead.leadId)).toEqual(lead);
    expect(await after.get(delivered.lead.leadId)).toMatchObject({
      status: 'delivered',
      idProspect: 77,
    });
    expect((await after.listByStatus('delivered')).leads).toHaveLength(1);
    expect((await after.record(newLead({ receivedAt: at(60) }))).duplicate).toBe(true);
    await kill9(second.child);
  });

  it('refuses a data dir another process is using', async () => {
    // Prepare
    const { child } = await startChild();

    // Act
    const second = startLocalDynamo({ dataDir });

    // Assess
    await expect(second).rejects.toThrow(/in use by another process/);
    await kill9(child);
  });

  it('creates missing tables once and reopens them', async () => {
    // Prepare
    const dir = mkdtempSync(join(tmpdir(), 'leads-dynamo-own-'));
    const tables = [{ name: 'leads', definition: LEDGER_TABLE_DEFINITION }];

    // Act
    const first = await startLocalDynamo({ dataDir: dir, tables });
    const firstLedger = createDynamoLedger({
      erasureSalt: TEST_ERASURE_SALT,
      client: first.client,
      tableName: 'leads',
    });
    const { lead } = await firstLedger.record(newLead());
    await first.close();
    const second = await startLocalDynamo({ dataDir: dir, tables });
    const read = await createDynamoLedger({
      erasureSalt: TEST_ERASURE_SALT,
      client: second.client,
      tableName: 'leads',
    }).get(lead.leadId);
    await second.close();
    rmSync(dir, { recursive: true, force: true });

    // Assess
    expect(first.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(read).toEqual(lead);
  });
});
