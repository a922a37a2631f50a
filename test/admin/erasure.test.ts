import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminDeps, handleAdmin } from '../../functions/admin/admin.ts';
import { createLocalDlqRedrive } from '../../functions/admin/dlq-redrive-local.ts';
import type { Client } from '../../functions/config/config-schema.ts';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import type { LeadLedger, NewLead } from '../../functions/ledger/lead-ledger.ts';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import {
  createLocalLeadQueue,
  LOCAL_QUEUE_TABLE_DEFINITION,
} from '../../functions/ledger/lead-queue-local.ts';
import { dynamoUpstreamHealth } from '../../functions/upstream/health-dynamodb.ts';
import { ensureTable } from '../../local/dynamodb-local.ts';
import { startTestDynamo, type TestDynamo } from '../helpers/dynalite.ts';

const CLIENTS: Client[] = [
  { username: 'ops', password: 'ops-secret', roles: ['admin'] },
  { username: 'reporter', password: 'reporter-secret', roles: ['report:read'] },
];
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const T0 = new Date('2026-05-04T10:00:00.000Z');

// Ana's data, as three sources would carry it; Bia is someone else.
const ANA = { name: 'Ana Erasmo', email: 'ana.erasmo@example.com', cpf: '529.982.247-25' };
const ANA_PHONE_DIGITS = '11987650001';

let dynamo: TestDynamo;
let ledger: LeadLedger;
let ledgerTable: string;
let deps: AdminDeps;

beforeAll(async () => {
  dynamo = await startTestDynamo();
  ledgerTable = await dynamo.createLedgerTable();
  await ensureTable(dynamo.admin, LOCAL_QUEUE_TABLE_DEFINITION, 'erasure-queue');
  ledger = createDynamoLedger({ client: dynamo.client, tableName: ledgerTable });
  const queue = createLocalLeadQueue({
    client: dynamo.client,
    tableName: 'erasure-queue',
    maxReceiveCount: 2,
  });
  deps = {
    config: {
      clients: async () => CLIENTS,
      profile: async () => undefined,
      profileSettings: async () => ({}),
    },
    ledger,
    queue,
    redrive: createLocalDlqRedrive(queue),
    upstream: dynamoUpstreamHealth({ client: dynamo.client, tableName: ledgerTable }),
    now: () => new Date(T0.getTime() + 3_600_000),
  };
});
afterAll(() => dynamo?.close());

function capture(answers: Record<string, string>, dedupKey: string): LeadCapture {
  return {
    source: 'form',
    dedupKey,
    isTest: false,
    answers: Object.entries(answers).map(([key, value]) => ({ key, value })),
    attribution: { utm_source: 'instagram', fbclid: `fb-click-${dedupKey}` },
  };
}

function lead(answers: Record<string, string>, dedupKey: string, status: NewLead['status']) {
  return {
    profile: 'site',
    source: 'form',
    dedupKey,
    capture: capture(answers, dedupKey),
    status,
    ...(status === 'parked' && { reason: 'missing: lastName' }),
    receivedAt: T0,
  } satisfies NewLead;
}

async function call(
  method: string,
  resource: string,
  options: { body?: unknown; leadId?: string; query?: Record<string, string>; auth?: string } = {},
) {
  const result = await handleAdmin(
    {
      resource,
      pathParameters: options.leadId ? { leadId: options.leadId } : null,
      request: {
        method,
        headers: { authorization: options.auth ?? basic('ops', 'ops-secret') },
        query: Object.fromEntries(Object.entries(options.query ?? {}).map(([k, v]) => [k, [v]])),
        body: Buffer.from(
          options.body === undefined
            ? ''
            : typeof options.body === 'string'
              ? options.body
              : JSON.stringify(options.body),
        ),
        contentType: 'application/json',
        receivedAt: new Date(),
      },
    },
    deps,
  );
  return { status: result.statusCode, body: JSON.parse(result.body || 'null') };
}

/** Everything in the ledger table, as text (payloads that are JSON text included). */
async function tableText(): Promise<string> {
  const out = await dynamo.client.scan({ TableName: ledgerTable });
  return JSON.stringify(out.Items ?? [], (_k, v) =>
    v instanceof Set ? [...v] : v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : v,
  );
}

describe('POST /admin/erasure', () => {
  it("removes a person's data from every admin answer and the ledger, and says what the upstream keeps", async () => {
    // Prepare: Ana sent three leads (by e-mail, by phone, by CPF); one was delivered, one is
    // parked, one still queued. Bia's lead must not be touched.
    const delivered = await ledger.record(
      lead({ nome: ANA.name, email: ANA.email.toUpperCase() }, 'hash:ana-1', 'queued'),
    );
    await ledger.markDelivered(delivered.lead.leadId, 700123, T0);
    const parked = await ledger.record(
      lead({ nome: ANA.name, whatsapp: `(11) 98765-0001` }, 'hash:ana-2', 'parked'),
    );
    const queued = await ledger.record(
      lead({ nome: ANA.name, documento: ANA.cpf }, 'hash:ana-3', 'queued'),
    );
    const bia = await ledger.record(
      lead({ nome: 'Bia Lima', email: 'bia.lima@example.com' }, 'hash:bia', 'parked'),
    );
    const anaIds = [delivered, parked, queued].map((r) => r.lead.leadId).sort();

    // Act: one request naming her by all three
    const answer = await call('POST', '/admin/erasure', {
      body: { email: ANA.email, phone: `+55${ANA_PHONE_DIGITS}`, cpf: '52998224725' },
    });

    // Assess: what was found and what the upstream still holds
    expect(answer.status).toBe(200);
    expect(answer.body.found).toBe(3);
    expect(answer.body.erased.map((l: { leadId: string }) => l.leadId).sort()).toEqual(anaIds);
    expect(answer.body.upstream.idProspects).toEqual([700123]);
    expect(answer.body.upstream.action).toMatch(/no delete operation.*700123|700123.*erase/s);
    // the queued lead will never be delivered: it is dead, in a new chain
    const stopped = answer.body.erased.find(
      (l: { leadId: string }) => l.leadId === queued.lead.leadId,
    );
    expect(stopped.status).toBe('dead');

    // Assess: no admin answer shows her anything, the anonymous trace stays
    const views = await Promise.all([
      ...anaIds.map((leadId) => call('GET', '/admin/leads/{leadId}', { leadId })),
      ...['delivered', 'parked', 'dead', 'queued'].map((status) =>
        call('GET', '/admin/leads', { query: { status } }),
      ),
    ]);
    for (const view of views) expect(view.status).toBe(200);
    const shown = JSON.stringify(views.map((v) => v.body));
    expect(shown).not.toMatch(/erasmo|98765|529\.?982|fb-click-hash:ana/i);
    expect(shown).toContain(bia.lead.leadId);
    for (const leadId of anaIds) expect(shown).toContain(leadId);

    // Assess: the ledger keeps nothing of her (lead items, dedup and subject items)
    const stored = await tableText();
    expect(stored).not.toMatch(/erasmo|98765|529\.?982|fb-click-hash:ana/i);
    expect(stored).toContain('bia.lima@example.com');
    expect(await ledger.findBySubjects([`email:${ANA.email}`])).toEqual([]);
    const after = await ledger.get(parked.lead.leadId);
    expect(after).toMatchObject({ status: 'parked', redaction: 'erasure' });
    expect(after?.capture.answers).toEqual([]);

    // Assess: an erased lead cannot be retried, and a redelivery is a new lead
    const retry = await call('POST', '/admin/leads/{leadId}/retry', {
      leadId: parked.lead.leadId,
    });
    expect(retry).toMatchObject({
      status: 409,
      body: { error: { code: 'personal_data_removed' } },
    });
    const again = await ledger.record(lead({ nome: 'x' }, 'hash:ana-2', 'parked'));
    expect(again.duplicate).toBe(false);

    // Act: the same request again finds nothing more
    const second = await call('POST', '/admin/erasure', { body: { email: ANA.email } });
    expect(second.body).toMatchObject({ found: 0, erased: [] });
  });

  it.each([
    ['no field at all', {}, 'invalid_subject'],
    ['an address that is no e-mail', { email: 'not-an-email' }, 'invalid_subject'],
    ['a CPF with wrong check digits', { cpf: '123.456.789-00' }, 'invalid_subject'],
    ['an unknown field', { name: 'Ana' }, 'invalid_body'],
    ['a number for a phone', { phone: 11987650001 }, 'invalid_body'],
    ['an array body', [], 'invalid_body'],
    ['text that is not JSON', 'email=ana', 'invalid_body'],
  ])('answers 400 for %s, naming the problem', async (_what, body, code) => {
    const answer = await call('POST', '/admin/erasure', { body });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(code);
    expect(answer.body.error.message.length).toBeGreaterThan(10);
  });

  it('is for the admin role only', async () => {
    const answer = await call('POST', '/admin/erasure', {
      body: { email: ANA.email },
      auth: basic('reporter', 'reporter-secret'),
    });
    expect(answer.status).toBe(403);
  });
});
