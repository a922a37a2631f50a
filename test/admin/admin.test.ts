/**
 * The admin use case (functions/admin/admin.ts) on a real ledger (dynalite) and the local lead
 * queue, with the local dead-letter redrive: every route, auth, retries and their refusals,
 * replay of dead leads with the DLQ redrive, and paging.
 */
import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AdminDeps, type AdminEvents, handleAdmin } from '../../functions/admin/admin.ts';
import { SCRIPT_FILE as CONSOLE_SCRIPT } from '../../functions/admin/browser/dist/console-file.ts';
import type { DlqRedrive } from '../../functions/admin/dlq-redrive.ts';
import { createLocalDlqRedrive } from '../../functions/admin/dlq-redrive-local.ts';
import { PUBLIC_STATUSES } from '../../functions/admin/leads/lead.ts';
import { MAX_LIST_LIMIT } from '../../functions/admin/leads/list.ts';
import type { Profile } from '../../functions/config/config-schema.ts';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { missingFieldsReason } from '../../functions/domain/prospect.ts';
import type { Client } from '../../functions/kernel/client-schema.ts';
import type { HttpRequest } from '../../functions/kernel/http.ts';
import type { LeadLedger, LeadRecord, NewLead } from '../../functions/ledger/lead-ledger.ts';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import {
  createLocalLeadQueue,
  LOCAL_QUEUE_TABLE_DEFINITION,
  type LocalLeadQueue,
} from '../../functions/ledger/lead-queue-local.ts';
import { createDynamoCircuit } from '../../functions/upstream/circuit-dynamodb.ts';
import { dynamoUpstreamHealth } from '../../functions/upstream/health-dynamodb.ts';
import { UPSTREAM_PACER_KEY } from '../../functions/upstream/pacer-dynamodb.ts';
import { ensureTable } from '../../local/dynamodb-local.ts';
import { startTestDynamo, TEST_ERASURE_SALT, type TestDynamo } from '../helpers/dynalite.ts';
import { mapCapture } from '../helpers/map-capture.ts';
import { expectNoInlineScript } from '../helpers/page-scripts.ts';

const CLIENTS: Client[] = [
  { username: 'ops', password: 'ops-secret', roles: ['prospects:write', 'admin'] },
  { username: 'reporter', password: 'reporter-secret', roles: ['report:read'] },
];
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const OPS = basic('ops', 'ops-secret');
const PROFILES: Record<string, Profile> = {
  site: {
    source: 'form',
    token: 'site-token',
    defaults: { idBranch: 3 },
    redirectUrl: 'https://academia.example/obrigado',
  } as Profile,
  native: { source: 'prospect' } as Profile,
};
const MAX_RECEIVE_COUNT = 2;

let dynamo: TestDynamo;
let tables = 0;
beforeAll(async () => {
  dynamo = await startTestDynamo();
});
afterAll(() => dynamo?.close());

interface Harness {
  deps: AdminDeps;
  ledger: LeadLedger;
  ledgerTable: string;
  queue: LocalLeadQueue;
  log: { retried: unknown[]; replayed: unknown[]; refused: unknown[]; failed: unknown[] };
}

let h: Harness;
beforeEach(async () => {
  tables += 1;
  const ledgerTable = await dynamo.createLedgerTable();
  const queueTable = `admin-queue-${tables}`;
  await ensureTable(dynamo.admin, LOCAL_QUEUE_TABLE_DEFINITION, queueTable);
  const ledger = createDynamoLedger({
    erasureSalt: TEST_ERASURE_SALT,
    client: dynamo.client,
    tableName: ledgerTable,
  });
  const queue = createLocalLeadQueue({
    client: dynamo.client,
    tableName: queueTable,
    maxReceiveCount: MAX_RECEIVE_COUNT,
  });
  const log: Harness['log'] = { retried: [], replayed: [], refused: [], failed: [] };
  const events: AdminEvents = {
    retried: (e) => log.retried.push(e),
    replayed: (e) => log.replayed.push(e),
    refused: (e) => log.refused.push(e),
    failed: (e) => log.failed.push(e),
  };
  h = {
    deps: {
      config: {
        clients: async () => CLIENTS,
        profile: async (name) => PROFILES[name],
        profileSettings: async () => PROFILES,
      },
      ledger,
      queue,
      redrive: createLocalDlqRedrive(queue),
      upstream: dynamoUpstreamHealth({ client: dynamo.client, tableName: ledgerTable }),
      events,
    },
    ledger,
    ledgerTable,
    queue,
    log,
  };
});

// ---------------------------------------------------------------------------------------------
// Helpers

function request(
  method: string,
  query: Record<string, string | string[]> = {},
  authorization: string | null = OPS,
): HttpRequest {
  return {
    method,
    headers: authorization === null ? {} : { authorization },
    query: Object.fromEntries(
      Object.entries(query).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]),
    ),
    body: Buffer.alloc(0),
    contentType: '',
    receivedAt: new Date(),
  };
}

interface Call {
  resource: string;
  leadId?: string;
  method?: string;
  query?: Record<string, string | string[]>;
  authorization?: string | undefined;
  deps?: AdminDeps;
}

async function call(
  c: Call,
): Promise<{ status: number; body: unknown; result: APIGatewayProxyResult }> {
  const method =
    c.method ?? (c.resource.endsWith('retry') || c.resource.endsWith('replay') ? 'POST' : 'GET');
  const result = await handleAdmin(
    {
      resource: c.resource,
      pathParameters: c.leadId === undefined ? null : { leadId: c.leadId },
      request: request(method, c.query, 'authorization' in c ? (c.authorization ?? null) : OPS),
    },
    c.deps ?? h.deps,
  );
  return {
    status: result.statusCode,
    body: result.body ? JSON.parse(result.body) : undefined,
    result,
  };
}

const getLead = (leadId: string) => call({ resource: '/admin/leads/{leadId}', leadId });
const retry = (leadId: string, deps?: AdminDeps) =>
  call({ resource: '/admin/leads/{leadId}/retry', leadId, ...(deps && { deps }) });
const replay = (deps?: AdminDeps) => call({ resource: '/admin/replay', ...(deps && { deps }) });
const list = (query: Record<string, string | string[]>) =>
  call({ resource: '/admin/leads', query });

let seq = 0;
const T0 = new Date('2026-03-02T12:00:00.000Z');

function capture(dedupKey: string): LeadCapture {
  return {
    source: 'prospect',
    dedupKey,
    isTest: false,
    answers: [],
    attribution: {},
    prospect: { name: 'Maria', lastName: 'Silva', email: 'maria@example.com' } as never,
  };
}

/** Records a lead and moves it to `status` through the ledger's own transitions. */
async function leadIn(
  status: 'queued' | 'sending' | 'parked' | 'test' | 'dead' | 'rejected' | 'delivered',
): Promise<LeadRecord> {
  seq += 1;
  const dedupKey = `key:${seq}-${randomBytes(4).toString('hex')}`;
  const initial = status === 'parked' || status === 'test' ? status : 'queued';
  const receivedAt = new Date(T0.getTime() + seq * 1000);
  const lead: NewLead = {
    profile: 'native',
    source: 'prospect',
    dedupKey,
    capture: capture(dedupKey),
    status: initial,
    ...(initial === 'parked' && { reason: 'falta o campo obrigatório sobrenome' }),
    receivedAt,
  };
  const { lead: record } = await h.ledger.record(lead);
  const id = record.leadId;
  const now = new Date();
  const claim = async () => {
    const claimed = await h.ledger.claim(id, record.version, 60_000, now);
    if (!claimed) throw new Error('the claim should have succeeded');
    return claimed;
  };
  switch (status) {
    case 'sending':
      await claim();
      break;
    case 'dead':
      await h.ledger.markDead(id, (await claim()).version, 'upstream 500 eight times', now, {
        counted: true,
      });
      break;
    case 'rejected':
      await h.ledger.markRejected(
        id,
        (await claim()).version,
        ['CPF inválido', 'E-mail inválido'],
        now,
      );
      break;
    case 'delivered':
      await claim();
      await h.ledger.markDelivered(id, 4321, now);
      break;
    default:
      break;
  }
  return (await h.ledger.get(id)) as LeadRecord;
}

/** Every message waiting in the main queue (received with a long visibility). */
async function queuedMessages(queue: LocalLeadQueue = h.queue): Promise<string[]> {
  return (await queuedVersions(queue)).map(([leadId]) => leadId);
}

/** Every message waiting in the main queue as [leadId, version]. */
async function queuedVersions(
  queue: LocalLeadQueue = h.queue,
): Promise<[string, number | undefined][]> {
  const messages = await queue.receive({ max: 10_000, visibilityMs: 600_000 });
  return messages
    .map((m): [string, number | undefined] => [m.leadId, m.version])
    .sort(([a], [b]) => a.localeCompare(b));
}

/** Puts a message for `leadId` into the dead-letter queue, as SQS would after its receives. */
async function deadLetter(leadId: string): Promise<void> {
  await h.queue.send(leadId);
  let now = Date.now();
  for (let i = 0; i <= MAX_RECEIVE_COUNT; i++) {
    now += 10;
    await h.queue.receive({ max: 10_000, visibilityMs: 1, now });
  }
}

// ---------------------------------------------------------------------------------------------

describe('admin auth', () => {
  it.each([
    '/admin/leads/{leadId}',
    '/admin/leads',
    '/admin/leads/{leadId}/retry',
    '/admin/replay',
  ])(
    '%s answers 401 with a Basic challenge without or with wrong credentials',
    async (resource) => {
      const lead = await leadIn('dead');
      for (const authorization of [undefined, basic('ops', 'wrong'), 'Bearer xyz']) {
        const { status, body, result } = await call({
          resource,
          leadId: lead.leadId,
          query: { status: 'dead' },
          authorization,
        });
        expect(status).toBe(401);
        expect(result.headers?.['www-authenticate']).toMatch(/^Basic realm=/);
        expect(body).toMatchObject({
          error: { code: 'unauthorized', message: expect.any(String) },
        });
      }
      // Nothing was done on the way.
      expect((await h.ledger.get(lead.leadId))?.status).toBe('dead');
      expect(await queuedMessages()).toEqual([]);
    },
  );

  it('answers 403 to a client without the admin role, and changes nothing', async () => {
    const lead = await leadIn('parked');
    const { status, body, result } = await call({
      resource: '/admin/leads/{leadId}/retry',
      leadId: lead.leadId,
      authorization: basic('reporter', 'reporter-secret'),
    });
    expect(status).toBe(403);
    expect(result.headers?.['www-authenticate']).toBeUndefined();
    expect(body).toMatchObject({ error: { code: 'forbidden' } });
    expect((await h.ledger.get(lead.leadId))?.status).toBe('parked');
  });

  it('answers 404 for an unknown resource and 405 for the wrong method', async () => {
    expect((await call({ resource: '/admin/nothing' })).status).toBe(404);
    const wrong = await call({ resource: '/admin/replay', method: 'GET' });
    expect(wrong.status).toBe(405);
    expect(wrong.result.headers?.allow).toBe('POST');
  });
});

describe('GET /admin/leads/{leadId}', () => {
  it('answers the contract body of a delivered lead', async () => {
    const lead = await leadIn('delivered');
    const { status, body, result } = await getLead(lead.leadId);
    expect(status).toBe(200);
    expect(result.headers?.['cache-control']).toBe('no-store');
    expect(body).toEqual({
      leadId: lead.leadId,
      profile: 'native',
      status: 'delivered',
      idProspect: 4321,
      attempts: 0,
      tries: 1,
      // The one count the console's timeline shows: one send, no failure.
      triesText: 'Tentativas de entrega: 1',
      receivedAt: lead.receivedAt,
      deliveredAt: lead.deliveredAt,
      timeZone: 'America/Sao_Paulo',
      receivedAtLocal: expect.stringMatching(/^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}$/),
      contact: { name: 'Maria Silva', email: 'maria@example.com' },
      submitted: expect.objectContaining({ prospect: expect.objectContaining({ name: 'Maria' }) }),
      correctable: false,
    });
  });

  it('says one delivery count: the sends, and the failures counted against the lead', async () => {
    const dead = await leadIn('dead');
    const fresh = await leadIn('queued');

    const failed = (await getLead(dead.leadId)).body as { triesText?: string };
    const waiting = (await getLead(fresh.leadId)).body as { triesText?: string };

    expect(failed).toMatchObject({ attempts: 1, tries: 1 });
    expect(failed.triesText).toBe('Tentativas de entrega: 1 (1 falha deste lead)');
    expect(waiting).toMatchObject({ attempts: 0, tries: 0 });
    expect(waiting.triesText).toBeUndefined();
  });

  it('shows a lead being sent as queued', async () => {
    const lead = await leadIn('sending');
    expect((await getLead(lead.leadId)).body).toMatchObject({ status: 'queued' });
  });

  it('shows a parked lead with its reason and a rejected one with the upstream messages', async () => {
    const parked = await leadIn('parked');
    expect((await getLead(parked.leadId)).body).toMatchObject({
      status: 'parked',
      reason: 'falta o campo obrigatório sobrenome',
    });
    const rejected = await leadIn('rejected');
    expect((await getLead(rejected.leadId)).body).toMatchObject({
      status: 'rejected',
      reason: 'CPF inválido; E-mail inválido',
      messages: ['CPF inválido', 'E-mail inválido'],
    });
  });

  it('shows a dead lead with its attempts, last error, and what the person sent', async () => {
    const lead = await leadIn('dead');
    const { body } = await getLead(lead.leadId);
    expect(body).toMatchObject({
      status: 'dead',
      attempts: 1,
      lastError: 'upstream 500 eight times',
      submitted: { prospect: { name: 'Maria', lastName: 'Silva' } },
      correctable: true,
    });
  });

  it('answers 400 for a malformed id and 404 for an unknown one', async () => {
    const malformed = await getLead('not-a-lead');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ error: { code: 'invalid_lead_id' } });
    const unknown = await getLead('ld_0000000000000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: 'lead_not_found' } });
    // Only the Lambda proxy result's own keys: API Gateway answers 502 to anything more.
    expect(Object.keys(unknown.result).sort()).toEqual(['body', 'headers', 'statusCode']);
  });
});

describe('GET /admin/leads?status=', () => {
  it('lists the leads in one status, oldest first, as summaries', async () => {
    const a = await leadIn('dead');
    await leadIn('parked');
    const b = await leadIn('dead');
    const { status, body } = await list({ status: 'dead' });
    expect(status).toBe(200);
    expect(body).toEqual({
      leads: [
        expect.objectContaining({ leadId: a.leadId, status: 'dead', attempts: 1 }),
        expect.objectContaining({ leadId: b.leadId, status: 'dead' }),
      ],
    });
  });

  it('lists queued and sending leads under queued, and pages through both', async () => {
    const q1 = await leadIn('queued');
    const s1 = await leadIn('sending');
    const q2 = await leadIn('queued');
    const s2 = await leadIn('sending');
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { status, body } = await list({
        status: 'queued',
        limit: '3',
        ...(cursor && { cursor }),
      });
      expect(status).toBe(200);
      const page = body as { leads: { leadId: string; status: string }[]; cursor?: string };
      expect(page.leads.length).toBeLessThanOrEqual(3);
      for (const lead of page.leads) expect(lead.status).toBe('queued');
      seen.push(...page.leads.map((l) => l.leadId));
      cursor = page.cursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(seen).toEqual([q1.leadId, q2.leadId, s1.leadId, s2.leadId]);
    expect(pages).toBeGreaterThanOrEqual(2);
  });

  it('pages with limit and cursor without repeating or losing a lead', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await leadIn('test')).leadId);
    const first = (await list({ status: 'test', limit: '2' })).body as {
      leads: { leadId: string }[];
      cursor?: string;
    };
    expect(first.leads.map((l) => l.leadId)).toEqual(ids.slice(0, 2));
    expect(first.cursor).toEqual(expect.any(String));
    const rest: string[] = [];
    let cursor = first.cursor;
    while (cursor) {
      const page = (await list({ status: 'test', limit: '2', cursor })).body as {
        leads: { leadId: string }[];
        cursor?: string;
      };
      rest.push(...page.leads.map((l) => l.leadId));
      cursor = page.cursor;
    }
    expect(rest).toEqual(ids.slice(2));
  });

  it('answers an empty list for a status without leads', async () => {
    expect((await list({ status: 'rejected' })).body).toEqual({ leads: [] });
  });

  it('refuses a missing or unknown status with 400 listing the valid ones', async () => {
    for (const query of [
      { status: 'sending' },
      { status: 'lost' },
      { status: ['dead', 'test'] },
    ] as Record<string, string | string[]>[]) {
      const { status, body } = await list(query);
      expect(status).toBe(400);
      const error = (body as { error: { code: string; message: string; details: string[] } }).error;
      if (!Array.isArray(query.status)) {
        expect(error.code).toBe('invalid_status');
        expect(error.details).toEqual([...PUBLIC_STATUSES]);
        for (const s of PUBLIC_STATUSES) expect(error.message).toContain(s);
      }
    }
  });

  it('refuses a bad limit or a foreign cursor with 400', async () => {
    for (const limit of ['0', '-1', 'ten', '1.5', String(MAX_LIST_LIMIT + 1)]) {
      const { status, body } = await list({ status: 'dead', limit });
      expect(status).toBe(400);
      expect(body).toMatchObject({ error: { code: 'invalid_limit' } });
    }
    for (let i = 0; i < 3; i++) await leadIn('test');
    const page = (await list({ status: 'test', limit: '1' })).body as { cursor: string };
    for (const cursor of [
      page.cursor,
      'garbage',
      Buffer.from('{"s":"test","c":"x"}').toString('base64url'),
    ]) {
      const { status, body } = await list({ status: 'dead', cursor });
      expect(status).toBe(400);
      expect(body).toMatchObject({ error: { code: 'invalid_cursor' } });
    }
  });
});

describe('POST /admin/leads/{leadId}/retry', () => {
  it.each(['parked', 'dead', 'rejected', 'test'] as const)(
    'requeues a %s lead, resets its attempts and sends it: 202 queued',
    async (from) => {
      const lead = await leadIn(from);
      const { status, body } = await retry(lead.leadId);
      expect(status).toBe(202);
      expect(body).toEqual({ leadId: lead.leadId, status: 'queued' });
      const after = await h.ledger.get(lead.leadId);
      expect(after).toMatchObject({ status: 'queued', attempts: 0 });
      expect(after?.reason).toBeUndefined();
      expect(await queuedMessages()).toEqual([lead.leadId]);
      expect(h.log.retried).toEqual([{ leadId: lead.leadId, from, client: 'ops' }]);
    },
  );

  it('answers 409 already_delivered for a delivered lead, and sends nothing', async () => {
    const lead = await leadIn('delivered');
    const { status, body } = await retry(lead.leadId);
    expect(status).toBe(409);
    expect(body).toMatchObject({ error: { code: 'already_delivered' } });
    expect((body as { error: { message: string } }).error.message).toContain('4321');
    expect((await h.ledger.get(lead.leadId))?.status).toBe('delivered');
    expect(await queuedMessages()).toEqual([]);
  });

  it.each(['queued', 'sending'] as const)(
    'wakes a %s lead: its next attempt is due now, on a message of its own chain',
    async (from) => {
      const lead = await leadIn(from);
      const { status, body } = await retry(lead.leadId);
      expect(status).toBe(202);
      expect(body).toEqual({ leadId: lead.leadId, status: 'queued' });
      const after = await h.ledger.get(lead.leadId);
      expect(after).toMatchObject({ status: from, version: lead.version });
      expect(Date.parse(after?.nextAttemptAt ?? '')).toBeLessThanOrEqual(Date.now());
      expect(await queuedVersions()).toEqual([[lead.leadId, lead.version]]);
    },
  );

  it('starts one new chain when a dead lead is retried twice', async () => {
    const lead = await leadIn('dead');
    expect((await retry(lead.leadId)).status).toBe(202);
    expect((await retry(lead.leadId)).status).toBe(202);
    const after = await h.ledger.get(lead.leadId);
    // The second retry woke the chain the first started: both messages are for it, so only
    // one of them can claim the lead.
    expect(after).toMatchObject({ status: 'queued', version: lead.version + 1 });
    expect(await queuedVersions()).toEqual([
      [lead.leadId, lead.version + 1],
      [lead.leadId, lead.version + 1],
    ]);
  });

  it('answers 202 with a note when the wake-up message cannot be sent: the reconciler sends it', async () => {
    const lead = await leadIn('queued');
    const failing: AdminDeps = {
      ...h.deps,
      queue: { send: async () => Promise.reject(new Error('SQS is down')) },
    };
    const { status, body } = await retry(lead.leadId, failing);
    expect(status).toBe(202);
    expect(body).toMatchObject({
      status: 'queued',
      note: expect.stringContaining('reconciliador'),
    });
    // Due now in the ledger: the reconciler finds it without a message.
    const after = await h.ledger.get(lead.leadId);
    expect(Date.parse(after?.nextAttemptAt ?? '')).toBeLessThanOrEqual(Date.now());
  });

  it('answers 400 for a malformed id and 404 for an unknown one', async () => {
    expect((await retry('ld_short')).status).toBe(400);
    expect((await retry('ld_0000000000000000000000')).status).toBe(404);
  });

  it('keeps a retried lead queued when the queue refuses the message: the reconciler sends it', async () => {
    const parked = await leadIn('parked');
    const failing: AdminDeps = {
      ...h.deps,
      queue: { send: async () => Promise.reject(new Error('SQS is down')) },
    };
    const { status, body } = await retry(parked.leadId, failing);
    expect(status).toBe(202);
    expect(body).toMatchObject({
      status: 'queued',
      note: expect.stringContaining('reconciliador'),
    });
    const after = await h.ledger.get(parked.leadId);
    expect(after).toMatchObject({ status: 'queued', version: parked.version + 1 });
    expect(after?.reason).toBeUndefined();
  });
});

describe('POST /admin/replay', () => {
  it('requeues and sends every dead lead, leaves the others, and redrives the DLQ', async () => {
    const dead = [await leadIn('dead'), await leadIn('dead'), await leadIn('dead')];
    const parked = await leadIn('parked');
    const delivered = await leadIn('delivered');
    const stuck = await leadIn('queued'); // its message ended in the DLQ
    await deadLetter(stuck.leadId);
    expect(await h.queue.depth()).toMatchObject({ dead: 1 });

    const { status, body } = await replay();
    expect(status).toBe(202);
    expect(body).toEqual({
      requeued: 3,
      skipped: 0,
      more: false,
      redrive: { status: 'moved', moved: 1 },
    });
    for (const lead of dead) {
      expect(await h.ledger.get(lead.leadId)).toMatchObject({ status: 'queued', attempts: 0 });
    }
    expect((await h.ledger.get(parked.leadId))?.status).toBe('parked');
    expect((await h.ledger.get(delivered.leadId))?.status).toBe('delivered');
    expect(await h.queue.depth()).toMatchObject({ dead: 0 });
    expect(await queuedMessages()).toEqual([...dead.map((l) => l.leadId), stuck.leadId].sort());
    expect(h.log.replayed).toEqual([
      { requeued: 3, skipped: 0, more: false, redrive: 'moved', client: 'ops' },
    ]);
  });

  it('is safe to run twice: the second run requeues and sends nothing', async () => {
    const dead = [await leadIn('dead'), await leadIn('dead')];
    expect((await replay()).body).toMatchObject({ requeued: 2 });
    expect((await replay()).body).toEqual({
      requeued: 0,
      skipped: 0,
      more: false,
      redrive: { status: 'moved', moved: 0 },
    });
    expect(await queuedMessages()).toEqual(dead.map((l) => l.leadId).sort());
  });

  it('sends each dead lead once when two replays run at the same time', async () => {
    const dead: string[] = [];
    for (let i = 0; i < 12; i++) dead.push((await leadIn('dead')).leadId);
    const [a, b] = await Promise.all([replay(), replay()]);
    const total = (r: typeof a) => (r.body as { requeued: number }).requeued;
    expect(total(a) + total(b)).toBe(12);
    expect(await queuedMessages()).toEqual(dead.sort());
  });

  it('pages through more dead leads than one listing page holds', async () => {
    const dead: string[] = [];
    const leads = await Promise.all(Array.from({ length: 130 }, () => leadIn('dead')));
    dead.push(...leads.map((l) => l.leadId));
    const { body } = await replay();
    expect(body).toMatchObject({ requeued: 130, more: false });
    expect(await queuedMessages()).toEqual(dead.sort());
    expect((await list({ status: 'dead' })).body).toEqual({ leads: [] });
  });

  it('answers 202 with nothing to do when there are no dead leads', async () => {
    expect((await replay()).body).toEqual({
      requeued: 0,
      skipped: 0,
      more: false,
      redrive: { status: 'moved', moved: 0 },
    });
  });

  it('reports a redrive that SQS runs asynchronously as it is', async () => {
    await leadIn('dead');
    const redrive: DlqRedrive = {
      redrive: async () => ({ status: 'started', taskHandle: 'task-1' }),
    };
    expect((await replay({ ...h.deps, redrive })).body).toEqual({
      requeued: 1,
      skipped: 0,
      more: false,
      redrive: { status: 'started', taskHandle: 'task-1' },
    });
  });

  it('requeues the dead leads even when the queue fails: the reconciler sends them', async () => {
    const lead = await leadIn('dead');
    const failing: AdminDeps = {
      ...h.deps,
      queue: { send: async () => Promise.reject(new Error('SQS is down')) },
    };
    const { status, body } = await replay(failing);
    expect(status).toBe(202);
    expect(body).toMatchObject({
      requeued: 1,
      unsent: 1,
      note: expect.stringContaining('reconciliador'),
    });
    expect(await h.ledger.get(lead.leadId)).toMatchObject({ status: 'queued', attempts: 0 });
    expect(h.log.failed).toHaveLength(1);
    // Nothing left for a second run.
    expect((await replay()).body).toMatchObject({ requeued: 0 });
  });

  it('answers 503 when the redrive fails, after requeueing the dead leads', async () => {
    const lead = await leadIn('dead');
    const redrive: DlqRedrive = {
      redrive: async () => {
        throw new Error('AccessDenied');
      },
    };
    const { status, body } = await replay({ ...h.deps, redrive });
    expect(status).toBe(503);
    expect(body).toMatchObject({ error: { code: 'redrive_failed' } });
    expect((body as { error: { message: string } }).error.message).toContain(
      'leads esgotados de volta à fila: 1;',
    );
    expect((await h.ledger.get(lead.leadId))?.status).toBe('queued');
  });

  it('stops early with more: true when the invocation is running out of time', async () => {
    await leadIn('dead');
    const result = await handleAdmin(
      { resource: '/admin/replay', pathParameters: null, request: request('POST') },
      h.deps,
      { remainingMs: () => 1000 },
    );
    expect(result.statusCode).toBe(202);
    expect(JSON.parse(result.body)).toMatchObject({ requeued: 0, more: true });
  });
});

describe('GET /admin/upstream', () => {
  const health = () => call({ resource: '/admin/upstream' });
  const circuit = () => createDynamoCircuit({ client: dynamo.client, tableName: h.ledgerTable });

  it('answers a closed circuit, no pacer wait and the backlog while the upstream is fine', async () => {
    await leadIn('queued');
    await leadIn('sending');
    await leadIn('delivered');
    const { status, body, result } = await health();
    expect(status).toBe(200);
    expect(result.headers?.['cache-control']).toBe('no-store');
    expect(body).toEqual({ circuit: { state: 'closed', failures: 0 }, pacer: {}, backlog: 2 });
  });

  it('says when the circuit opened, why, and when the next probe goes; a queued lead says it too', async () => {
    const now = Date.now();
    await circuit().failed(now, { immediate: true, reason: 'unavailable', probe: false });
    await new PacerSlot(h.ledgerTable).book(now + 30_000);
    const lead = await leadIn('queued');

    const { body } = await health();
    const shown = await getLead(lead.leadId);

    expect(body).toEqual({
      circuit: {
        state: 'open',
        failures: 1,
        reason: 'o sistema da academia não respondeu',
        reasonCode: 'unavailable',
        openedAt: new Date(now).toISOString(),
        nextProbeAt: expect.any(String),
        lastFailureAt: new Date(now).toISOString(),
      },
      pacer: { nextSlotAt: new Date(now + 30_000).toISOString() },
      backlog: 1,
    });
    expect(shown.body).toMatchObject({
      status: 'queued',
      upstream: { circuit: { state: 'open', reason: 'o sistema da academia não respondeu' } },
    });
  });

  it('shows no upstream health on a settled lead', async () => {
    const lead = await leadIn('delivered');
    expect((await getLead(lead.leadId)).body).not.toHaveProperty('upstream');
  });
});

/** Writes the shared pacer's item as the pacer would (its next free slot). */
class PacerSlot {
  constructor(private readonly tableName: string) {}
  async book(next: number): Promise<void> {
    await dynamo.client.put({ TableName: this.tableName, Item: { pk: UPSTREAM_PACER_KEY, next } });
  }
}

describe('dependency failures', () => {
  it('answers 503 when the ledger cannot be read', async () => {
    const broken: AdminDeps = {
      ...h.deps,
      ledger: {
        ...h.ledger,
        get: async () => {
          throw new Error('ECONNREFUSED');
        },
      },
    };
    const { status, body, result } = await call({
      resource: '/admin/leads/{leadId}',
      leadId: 'ld_0000000000000000000000',
      deps: broken,
    });
    expect(status).toBe(503);
    expect(result.headers?.['retry-after']).toBe('5');
    expect(body).toMatchObject({ error: { code: 'unavailable' } });
  });
});

// ---------------------------------------------------------------------------------------------
// Backfill

describe('POST /admin/backfill/{profile}', () => {
  const FORM = '9234567890123457';
  const META = {
    source: 'meta',
    appSecret: 'demo-meta-app-secret',
    verifyToken: 'demo-meta-verify-token',
    pageAccessToken: 'demo-meta-page-token-SECRET',
    graphBaseUrl: 'https://graph.example.test/v21.0',
    defaults: { idBranch: 2 },
    forms: { [FORM]: {} },
  } as const;
  const PERIOD = { since: '2026-03-01T00:00:00Z', until: '2026-03-02T00:00:00Z' };

  /** A Graph stand-in: answers `answer(url)` and remembers the URLs asked. */
  function graph(answer: (url: URL) => { status: number; body: unknown }) {
    const asked: URL[] = [];
    const fetchStub = (async (input: string | URL | Request) => {
      const url = new URL(String(input));
      asked.push(url);
      const { status, body } = answer(url);
      return new Response(JSON.stringify(body), {
        status,
        headers: { 'content-type': 'application/json' },
      });
    }) as typeof fetch;
    return { asked, fetch: fetchStub };
  }

  const graphLead = (id: string, email: string) => ({
    id,
    created_time: '2026-03-01T10:00:00+0000',
    form_id: FORM,
    field_data: [
      { name: 'full_name', values: ['Maria Souza'] },
      { name: 'email', values: [email] },
      { name: 'phone_number', values: ['+5511987654321'] },
    ],
  });

  function backfill(
    stub: { fetch: typeof fetch },
    body: unknown = PERIOD,
    remainingMs: () => number = () => 20_000,
  ) {
    const deps: AdminDeps = {
      ...h.deps,
      config: {
        clients: async () => CLIENTS,
        profile: async () => META as never,
        profileSettings: async () => ({ meta: META as never }),
      },
      lookups: { fetch: stub.fetch },
      now: () => new Date('2026-03-02T12:00:00Z'),
    };
    return handleAdmin(
      {
        resource: '/admin/backfill/{profile}',
        pathParameters: { profile: 'meta' },
        request: {
          ...request('POST'),
          body: Buffer.from(JSON.stringify(body)),
          contentType: 'application/json',
        },
      },
      deps,
      { remainingMs },
    );
  }

  it('follows Graph’s pages with the period’s time_created filter and records every lead', async () => {
    // Prepare: two pages of one lead each.
    const stub = graph((url) =>
      url.searchParams.get('after') === 'page2'
        ? { status: 200, body: { data: [graphLead('9000000000000002', 'b@example.com')] } }
        : {
            status: 200,
            body: {
              data: [graphLead('9000000000000001', 'a@example.com')],
              paging: { cursors: { after: 'page2' }, next: 'https://graph.example.test/next' },
            },
          },
    );

    // Act
    const result = await backfill(stub);

    // Assess
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ found: 2, alreadyKnown: 0, new: 2 });
    expect(stub.asked.map((url) => url.pathname)).toEqual([
      `/v21.0/${FORM}/leads`,
      `/v21.0/${FORM}/leads`,
    ]);
    const filtering = JSON.parse(stub.asked[0]?.searchParams.get('filtering') ?? '[]');
    expect(filtering).toEqual([
      { field: 'time_created', operator: 'GREATER_THAN', value: 1772323199 },
      { field: 'time_created', operator: 'LESS_THAN', value: 1772409600 },
    ]);
    const recorded = await h.ledger.listByStatus('queued', { limit: 10 });
    expect(recorded.leads.map((lead) => lead.dedupKey).sort()).toEqual([
      'meta:9000000000000001',
      'meta:9000000000000002',
    ]);
  });

  it("does not bring back a lead erased at its person's request: counted as erased, not recorded", async () => {
    // Prepare: both leads recorded by a first backfill, then one person erased
    const stub = graph(() => ({
      status: 200,
      body: {
        data: [
          graphLead('9000000000000011', 'erased.person@example.com'),
          graphLead('9000000000000012', 'kept.person@example.com'),
        ],
      },
    }));
    await backfill(stub);
    const [erasedId] = await h.ledger.findBySubjects(['email:erased.person@example.com']);
    await h.ledger.redact(erasedId ?? '', {
      reason: 'erasure',
      now: new Date('2026-03-02T12:00:00Z'),
    });
    const events: unknown[] = [];
    h.deps.events = { ...(h.deps.events as AdminEvents), backfilled: (e) => events.push(e) };

    // Act: the period listed again (Meta keeps its leads 90 days)
    const result = await backfill(stub);

    // Assess
    expect(JSON.parse(result.body)).toMatchObject({ found: 2, alreadyKnown: 1, new: 0, erased: 1 });
    expect(events).toEqual([expect.objectContaining({ erased: 1, new: 0, alreadyKnown: 1 })]);
    expect(await h.ledger.findBySubjects(['email:erased.person@example.com'])).toEqual([]);
    const queued = await h.ledger.listByStatus('queued', { limit: 10 });
    expect(queued.leads.map((lead) => lead.dedupKey)).toEqual(['meta:9000000000000012']);
  });

  it('answers 502 when Graph refuses the token, without the token, and records nothing', async () => {
    // Prepare
    const stub = graph(() => ({
      status: 400,
      body: {
        error: { message: 'Invalid OAuth access token.', type: 'OAuthException', code: 190 },
      },
    }));

    // Act
    const result = await backfill(stub);

    // Assess
    expect(result.statusCode).toBe(502);
    expect(JSON.parse(result.body)).toMatchObject({ error: { code: 'platform_refused' } });
    expect(result.body).not.toContain('SECRET');
    expect((await h.ledger.listByStatus('queued', { limit: 10 })).leads).toEqual([]);
  });

  it('answers 503 with Retry-After when Graph is rate-limited', async () => {
    // Prepare
    const stub = graph(() => ({
      status: 400,
      body: { error: { message: 'User request limit reached', type: 'OAuthException', code: 17 } },
    }));

    // Act
    const result = await backfill(stub);

    // Assess
    expect(result.statusCode).toBe(503);
    expect(JSON.parse(result.body)).toMatchObject({ error: { code: 'platform_unavailable' } });
    expect(result.headers?.['retry-after']).toMatch(/^\d+$/);
  });

  it('says more: true and records nothing further when the request’s time runs out', async () => {
    // Prepare: time enough to list, then none left to record.
    const stub = graph(() => ({
      status: 200,
      body: { data: [graphLead('9000000000000003', 'c@example.com')] },
    }));
    let calls = 0;
    const remainingMs = () => {
      calls += 1;
      return calls === 1 ? 20_000 : 1000;
    };

    // Act
    const result = await backfill(stub, PERIOD, remainingMs);

    // Assess
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ found: 1, new: 0, more: true });
  });

  it('refuses an until in the future and a period longer than Meta keeps, before asking Graph', async () => {
    // Prepare
    const stub = graph(() => ({ status: 200, body: { data: [] } }));

    // Act
    const future = await backfill(stub, { since: PERIOD.since, until: '2026-03-09T00:00:00Z' });
    const long = await backfill(stub, { since: '2025-11-01T00:00:00Z', until: PERIOD.until });

    // Assess
    expect(JSON.parse(future.body)).toMatchObject({ error: { code: 'invalid_period' } });
    expect(JSON.parse(long.body)).toMatchObject({ error: { code: 'period_too_long' } });
    expect(stub.asked).toEqual([]);
  });

  it('cuts a period that began before what Meta keeps, saying so in Portuguese, and refuses one that ended before', async () => {
    // Prepare: on 2026-03-02 12:00 UTC Meta keeps leads from 2025-12-02 12:00 UTC (09:00 in São Paulo).
    const stub = graph(() => ({ status: 200, body: { data: [] } }));

    // Act
    const cut = await backfill(stub, {
      since: '2025-12-01T00:00:00Z',
      until: '2026-01-15T00:00:00Z',
    });
    const asked = stub.asked.length;
    const gone = await backfill(stub, {
      since: '2025-11-01T00:00:00Z',
      until: '2025-12-01T00:00:00Z',
    });

    // Assess
    expect(cut.statusCode).toBe(200);
    expect(JSON.parse(cut.body)).toMatchObject({
      since: '2025-12-02T12:00:00.000Z',
      found: 0,
      notice:
        'A Meta guarda os leads por 90 dias: o período antes de 02/12/2025 09:00:00 não pode mais ser recuperado; foram buscados os leads de 02/12/2025 09:00:00 em diante',
    });
    expect(asked).toBeGreaterThan(0);
    expect(gone.statusCode).toBe(400);
    expect(JSON.parse(gone.body).error).toMatchObject({
      code: 'period_not_kept',
      message: expect.stringMatching(
        /^A Meta guarda os leads por 90 dias: o período pedido acabou antes de 02\/12\/2025 09:00:00/,
      ),
    });
    expect(stub.asked).toHaveLength(asked);
  });
});

// ---------------------------------------------------------------------------------------------
// The console's routes

interface Send {
  method: string;
  resource: string;
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
  deps?: AdminDeps;
}

async function send(c: Send) {
  const base = request(c.method, c.query ?? {});
  const result = await handleAdmin(
    {
      resource: c.resource,
      pathParameters: c.params ?? null,
      request: {
        ...base,
        headers: { ...base.headers, host: 'leads.example', ...c.headers },
        body: Buffer.from(c.body ?? '', 'utf8'),
        contentType: c.contentType ?? (c.body ? 'application/json' : ''),
      },
      baseUrl: 'https://leads.example/prod',
    },
    c.deps ?? h.deps,
  );
  const type = String(result.headers?.['content-type'] ?? '');
  return {
    status: result.statusCode,
    // biome-ignore lint/suspicious/noExplicitAny: answers are read as loose JSON here
    body: (type.startsWith('application/json') ? JSON.parse(result.body) : result.body) as any,
    result,
  };
}

/** A form lead as the intake records it: what the person typed, mapped with profile `site`. */
async function formLead(
  answers: Record<string, string>,
  receivedAt: Date,
  profile = 'site',
  storedReason?: string,
): Promise<LeadRecord> {
  seq += 1;
  const dedupKey = `hash:${seq}-${randomBytes(4).toString('hex')}`;
  const leadCapture: LeadCapture = {
    source: 'form',
    dedupKey,
    isTest: false,
    answers: Object.entries(answers).map(([key, value]) => ({ key, value })),
    attribution: { utm_source: 'instagram' },
  };
  const mapped = mapCapture(leadCapture, PROFILES.site as Profile);
  const missing = mapped.missing.length > 0;
  const { lead } = await h.ledger.record({
    profile,
    source: 'form',
    dedupKey,
    capture: leadCapture,
    prospect: mapped.prospect,
    status: missing ? 'parked' : 'queued',
    ...(missing && { reason: storedReason ?? missingFieldsReason(mapped.missing) }),
    receivedAt,
  });
  return lead;
}

const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

describe('GET /admin/leads without status: the newest first, with filters', () => {
  it('merges every status newest first, and narrows by profile, search and period', async () => {
    // Prepare
    const ana = await formLead({ nome: 'Ana Souza', email: 'ana@example.com' }, at(1));
    const joao = await formLead(
      { nome: 'João Pereira', email: 'joao@example.com', celular: '(11) 98888-7777' },
      at(2),
    );
    const other = await formLead({ nome: 'Bia Lima', email: 'bia@example.com' }, at(3), 'native');
    // Act
    const all = await send({ method: 'GET', resource: '/admin/leads' });
    const bySearch = await send({ method: 'GET', resource: '/admin/leads', query: { q: 'joao' } });
    const byPhone = await send({
      method: 'GET',
      resource: '/admin/leads',
      query: { q: '98888-7777' },
    });
    const byProfile = await send({
      method: 'GET',
      resource: '/admin/leads',
      query: { profile: 'site', status: 'parked' },
    });
    const byPeriod = await send({
      method: 'GET',
      resource: '/admin/leads',
      query: { since: at(2).toISOString(), until: at(3).toISOString() },
    });
    // Assess
    const ids = (body: { leads: { leadId: string }[] }) => body.leads.map((lead) => lead.leadId);
    expect(ids(all.body)).toEqual([other.leadId, joao.leadId, ana.leadId]);
    expect(all.body.leads[1]).toMatchObject({
      status: 'queued',
      contact: { name: 'João Pereira' },
    });
    expect(all.body.leads[2]).toMatchObject({
      status: 'parked',
      reason: 'falta o campo obrigatório celular',
    });
    expect(ids(bySearch.body)).toEqual([joao.leadId]);
    expect(ids(byPhone.body)).toEqual([joao.leadId]);
    expect(ids(byProfile.body)).toEqual([ana.leadId]);
    expect(ids(byPeriod.body)).toEqual([joao.leadId]);
  });

  it('pages with a cursor and refuses a bad date, order or cursor with 400', async () => {
    for (let i = 0; i < 3; i += 1)
      await formLead({ nome: `Pessoa ${i}`, email: `p${i}@example.com` }, at(i));
    const first = await send({ method: 'GET', resource: '/admin/leads', query: { limit: '2' } });
    const second = await send({
      method: 'GET',
      resource: '/admin/leads',
      query: { limit: '2', cursor: first.body.cursor },
    });
    expect(first.body.leads).toHaveLength(2);
    expect(second.body.leads).toHaveLength(1);
    expect(second.body.cursor).toBeUndefined();
    for (const query of [{ since: 'yesterday' }, { order: 'random' }, { cursor: 'nope' }] as Record<
      string,
      string
    >[]) {
      expect((await send({ method: 'GET', resource: '/admin/leads', query })).status).toBe(400);
    }
  });
});

describe('correcting a lead: PATCH /admin/leads/{leadId}, then retry', () => {
  const patch = (leadId: string, body: unknown, headers: Record<string, string> = {}) =>
    send({
      method: 'PATCH',
      resource: '/admin/leads/{leadId}',
      params: { leadId },
      body: JSON.stringify(body),
      headers,
    });

  it('shows what the person typed, takes the missing phone, and retries with it', async () => {
    // Prepare
    const lead = await formLead({ nome: 'Ana Souza', email: 'ana@example.com' }, at(1));
    const before = await send({
      method: 'GET',
      resource: '/admin/leads/{leadId}',
      params: { leadId: lead.leadId },
    });
    // Act
    const corrected = await patch(lead.leadId, { prospect: { cellphone: '(11) 97777-6666' } });
    const retried = await retry(lead.leadId);
    // Assess
    expect(before.body).toMatchObject({
      status: 'parked',
      submitted: {
        answers: [
          { key: 'nome', value: 'Ana Souza' },
          { key: 'email', value: 'ana@example.com' },
        ],
      },
      prospect: { name: 'Ana', lastName: 'Souza', email: 'ana@example.com', idBranch: 3 },
    });
    expect(corrected.status).toBe(200);
    expect(corrected.body).toMatchObject({
      missing: [],
      correction: { ddi: '55', cellphone: '11977776666' },
      correctedBy: 'ops',
      prospect: { name: 'Ana', ddi: '55', cellphone: '11977776666', idBranch: 3 },
    });
    expect(retried.status).toBe(202);
    expect((await h.ledger.get(lead.leadId))?.status).toBe('queued');
  });

  it('refuses unknown or malformed fields with a detail each, and a lead that is not parked', async () => {
    const parked = await formLead({ nome: 'Ana Souza', email: 'ana@example.com' }, at(1));
    const queued = await formLead(
      { nome: 'Bia Lima', email: 'bia@example.com', celular: '11988887777' },
      at(2),
    );
    const bad = await patch(parked.leadId, {
      prospect: { celular: '1', email: 'not-an-email', idBranch: 'x' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'celular',
      'idBranch',
    ]);
    expect((await patch(parked.leadId, { cellphone: '11977776666' })).status).toBe(400);
    expect((await patch(queued.leadId, { prospect: { cpf: '1' } })).status).toBe(409);
    expect((await h.ledger.get(parked.leadId))?.correction).toBeUndefined();
  });

  it('refuses a change sent by a browser from another site or without the console token', async () => {
    // Prepare
    const lead = await formLead({ nome: 'Ana Souza', email: 'ana@example.com' }, at(1));
    const page = await send({ method: 'GET', resource: '/admin' });
    const token = /name="csrf-token" content="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const change = { prospect: { cellphone: '11977776666' } };
    // Act
    const crossSite = await patch(lead.leadId, change, {
      origin: 'https://evil.example',
      'sec-fetch-site': 'cross-site',
      'x-csrf-token': token,
    });
    const noToken = await patch(lead.leadId, change, {
      origin: 'https://leads.example',
      'sec-fetch-site': 'same-origin',
    });
    const retryFromElsewhere = await send({
      method: 'POST',
      resource: '/admin/leads/{leadId}/retry',
      params: { leadId: lead.leadId },
      headers: { origin: 'https://evil.example' },
    });
    const fromConsole = await patch(lead.leadId, change, {
      origin: 'https://leads.example',
      'sec-fetch-site': 'same-origin',
      'x-csrf-token': token,
    });
    // Assess
    expect(token).not.toBe('');
    expect([crossSite.status, noToken.status, retryFromElsewhere.status]).toEqual([403, 403, 403]);
    expect(crossSite.body.error.code).toBe('cross_site_refused');
    expect(fromConsole.status).toBe(200);
    expect((await h.ledger.get(lead.leadId))?.status).toBe('parked');
  });
});

describe('the console page, previews, the set-up kit, test leads and the CSV', () => {
  it('serves the console with a strict CSP, no caching, and the profiles to filter by', async () => {
    const { status, body, result } = await send({ method: 'GET', resource: '/admin' });
    expect(status).toBe(200);
    const csp = result.headers?.['content-security-policy'] as string;
    expect(csp).toMatch(/default-src 'none'.*script-src 'self'/);
    expect(expectNoInlineScript(csp, body, 'the console')).toEqual([
      `/prod/admin/assets/${CONSOLE_SCRIPT}`,
    ]);
    expect(result.headers?.['cache-control']).toBe('no-store');
    expect(body).toContain('["site","native"]');
  });

  it('serves the console’s script by its hashed name for a year, behind the admin role', async () => {
    // Act
    const script = await send({
      method: 'GET',
      resource: '/admin/assets/{file}',
      params: { file: CONSOLE_SCRIPT },
    });
    const stale = await send({
      method: 'GET',
      resource: '/admin/assets/{file}',
      params: { file: 'console.0123456789abcdef.js' },
    });
    const reader = await send({
      method: 'GET',
      resource: '/admin/assets/{file}',
      params: { file: CONSOLE_SCRIPT },
      headers: { authorization: basic('reporter', 'reporter-secret') },
    });

    // Assess
    expect(script.status).toBe(200);
    expect(script.result.headers).toMatchObject({
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'public, max-age=31536000, immutable',
    });
    expect(script.body).toContain('csrf-token');
    expect(stale.status).toBe(404);
    expect(stale.result.headers?.['cache-control']).toBe('no-store');
    expect(reader.status).toBe(403);
  });

  it('previews a body as the platform sends it, and stores nothing', async () => {
    const { status, body } = await send({
      method: 'POST',
      resource: '/admin/preview/{profile}',
      params: { profile: 'site' },
      body: 'nome=Carla+Dias&email=carla%40example.com',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(status).toBe(200);
    expect(body.leads[0]).toMatchObject({
      prospect: { name: 'Carla', lastName: 'Dias', email: 'carla@example.com', idBranch: 3 },
      missing: ['cellphone'],
      reason: 'falta o campo obrigatório celular',
    });
    expect((await send({ method: 'GET', resource: '/admin/leads' })).body.leads).toEqual([]);
    const unknown = await send({
      method: 'POST',
      resource: '/admin/preview/{profile}',
      params: { profile: 'nope' },
      body: '{}',
    });
    expect(unknown.status).toBe(404);
  });

  it('previews the shapes a chatbot or a widget sends: a root list of fields, labelled phones', async () => {
    // Act: what used to be a 400 (a body whose root is an array).
    const { status, body } = await send({
      method: 'POST',
      resource: '/admin/preview/{profile}',
      params: { profile: 'site' },
      body: JSON.stringify([
        { id: 'f1', name: 'Nome', value: 'Carla Dias', type: 'text' },
        { id: 'f2', name: 'E-mail', value: 'carla@example.com', type: 'email' },
        { id: 'f3', name: 'Qual seu objetivo?', value: 'Pilates', type: 'select' },
      ]),
      contentType: 'application/json',
    });
    const phones = await send({
      method: 'POST',
      resource: '/admin/preview/{profile}',
      params: { profile: 'site' },
      body: JSON.stringify({
        name: 'Carla Dias',
        email: 'carla@example.com',
        phones: [
          { value: '(11) 3456-7890', label: 'work', primary: true },
          { value: '(11) 98765-4321', label: 'mobile' },
        ],
      }),
      contentType: 'application/json',
    });

    // Assess
    expect(status).toBe(200);
    expect(body.leads[0]).toMatchObject({
      prospect: { name: 'Carla', lastName: 'Dias', email: 'carla@example.com' },
    });
    expect(body.leads[0].prospect.notes).toContain('Qual seu objetivo?: Pilates');
    expect(phones.status).toBe(200);
    expect(phones.body.leads[0].prospect).toMatchObject({ cellphone: '11987654321' });
    expect(phones.body.leads[0].prospect.notes).toContain('Telefone (trabalho): (11) 3456-7890');
  });

  it('gives each profile its kit, and sends a test lead signed as the platform would', async () => {
    // Prepare
    const sent: { url: string; init: RequestInit }[] = [];
    const fakeSend = (async (url: string, init: RequestInit) => {
      sent.push({ url, init });
      return new Response(
        JSON.stringify({ leadId: 'ld_0123456789012345678901', status: 'queued' }),
        {
          status: 202,
        },
      );
    }) as typeof fetch;
    const deps: AdminDeps = {
      ...h.deps,
      send: fakeSend,
      kit: { secretsWhere: () => 'the file', secretValues: 'inline' },
    };
    // Act
    const kit = await send({ method: 'GET', resource: '/admin/setup', deps });
    const test = await send({
      method: 'POST',
      resource: '/admin/test-lead/{profile}',
      params: { profile: 'site' },
      deps,
    });
    // Assess
    const site = kit.body.profiles.find((p: { profile: string }) => p.profile === 'site');
    expect(kit.body.urlPattern).toBe('https://leads.example/prod/leads/{profile}');
    expect(site.url).toBe('https://leads.example/prod/leads/site');
    expect(site.curl).toContain("TOKEN='site-token'");
    expect(site.htmlForm).toContain(
      'action="https://leads.example/prod/leads/site?token=site-token"',
    );
    expect(test.body).toMatchObject({ status: 202, leadIds: ['ld_0123456789012345678901'] });
    expect(sent[0]?.url).toBe('https://leads.example/prod/leads/site');
    expect((sent[0]?.init.headers as Record<string, string> | undefined)?.['x-lead-token']).toBe(
      'site-token',
    );
  });

  it('never prints a deployed secret in the kit', async () => {
    const deps: AdminDeps = {
      ...h.deps,
      kit: {
        secretsWhere: (p) => `Secrets Manager, secret leads/profiles/${p}`,
        secretValues: { secretId: (p) => `leads/profiles/${p}` },
      },
    };
    const kit = await send({ method: 'GET', resource: '/admin/setup', deps });
    expect(JSON.stringify(kit.body)).not.toContain('site-token');
    expect(JSON.stringify(kit.body)).toContain('leads/profiles/site');
  });

  it('exports the parked leads as a Portuguese CSV for a sales team, in São Paulo time', async () => {
    await formLead({ nome: 'Ana Souza', email: 'ana@example.com' }, at(1));
    await formLead({ nome: '=HYPERLINK("x")', email: 'x@example.com' }, at(2));
    await formLead({ nome: 'Bia Lima', email: 'bia@example.com', celular: '11988887777' }, at(3));
    const { status, body, result } = await send({ method: 'GET', resource: '/admin/leads.csv' });
    expect(status).toBe(200);
    expect(result.headers?.['content-disposition']).toMatch(/leads-parado-\d{4}-\d{2}-\d{2}\.csv/);
    const lines = String(body)
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe(
      '"Recebido em";"Fuso horário";"Perfil";"Situação";"Motivo";"Nome";"E-mail";"Telefone";"Lead"',
    );
    expect(lines).toHaveLength(3);
    // 12:01 UTC is 09:01 in São Paulo; the status and the reason as a person reads them.
    const ana = lines.find((line) => line.includes('ana@example.com'));
    expect(ana).toMatch(
      /^"02\/03\/2026 09:01:00";"America\/Sao_Paulo";"site";"Parado";"falta o campo obrigatório celular";"Ana Souza"/,
    );
    expect(body).not.toContain('parked');
    expect(body).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    expect(body).not.toContain('bia@example.com');
    expect(body).not.toMatch(/";"=HYPERLINK/);
  });

  it("writes each lead's time in its account's time zone, and an English reason stored before in Portuguese", async () => {
    await formLead({ nome: 'Ana Souza', email: 'ana@example.com' }, at(1));
    // A reason stored in English before the console spoke Portuguese.
    const legacy = 'required fields missing: lastName, cellphone';
    await formLead({ nome: 'Caio', email: 'caio@example.com' }, at(2), 'site', legacy);
    const deps: AdminDeps = {
      ...h.deps,
      config: {
        ...h.deps.config,
        accountOf: async () => 'norte',
        report: async (account) => ({
          branches: [],
          refreshSeconds: 900,
          timeZone: account === 'norte' ? 'America/Manaus' : 'America/Sao_Paulo',
        }),
      },
    };
    const csv = await send({ method: 'GET', resource: '/admin/leads.csv', deps });
    expect(String(csv.body)).toContain('"02/03/2026 08:01:00";"America/Manaus"');
    expect(String(csv.body)).toContain('"faltam os campos obrigatórios sobrenome e celular"');

    const listed = await send({
      method: 'GET',
      resource: '/admin/leads',
      query: { q: 'caio' },
      deps,
    });
    const [lead] = (listed.body as { leads: Record<string, unknown>[] }).leads;
    expect(lead).toMatchObject({
      receivedAt: at(2).toISOString(),
      timeZone: 'America/Manaus',
      receivedAtLocal: '02/03/2026 08:02:00',
      reason: 'faltam os campos obrigatórios sobrenome e celular',
    });
  });
});
