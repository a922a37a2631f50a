import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminDeps, handleAdmin } from '../../functions/admin/admin.ts';
import { createLocalDlqRedrive } from '../../functions/admin/dlq-redrive-local.ts';
import type { Profile } from '../../functions/config/config-schema.ts';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import type { Client } from '../../functions/kernel/client-schema.ts';
import { subjectKey } from '../../functions/ledger/erasure-dynamodb.ts';
import {
  ErasedLeadError,
  type LeadLedger,
  type NewLead,
} from '../../functions/ledger/lead-ledger.ts';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import {
  createLocalLeadQueue,
  LOCAL_QUEUE_TABLE_DEFINITION,
} from '../../functions/ledger/lead-queue-local.ts';
import { dynamoUpstreamHealth } from '../../functions/upstream/health-dynamodb.ts';
import { ensureTable } from '../../local/dynamodb-local.ts';
import { startTestDynamo, TEST_ERASURE_SALT, type TestDynamo } from '../helpers/dynalite.ts';

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
const SITE = { source: 'form', token: 'site-token', defaults: { idBranch: 1 } } as Profile;

let dynamo: TestDynamo;
let ledger: LeadLedger;
let ledgerTable: string;
let deps: AdminDeps;

beforeAll(async () => {
  dynamo = await startTestDynamo();
  ledgerTable = await dynamo.createLedgerTable();
  await ensureTable(dynamo.admin, LOCAL_QUEUE_TABLE_DEFINITION, 'erasure-queue');
  ledger = createDynamoLedger({
    erasureSalt: TEST_ERASURE_SALT,
    client: dynamo.client,
    tableName: ledgerTable,
  });
  const queue = createLocalLeadQueue({
    client: dynamo.client,
    tableName: 'erasure-queue',
    maxReceiveCount: 2,
  });
  deps = {
    config: {
      clients: async () => CLIENTS,
      profile: async (name) => (name === 'site' ? SITE : undefined),
      profileSettings: async () => ({ site: SITE }),
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
    expect(answer.body.upstream.action).toMatch(/prospects 700123: ele não tem como apagar/);
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

    // Assess: an erased lead can be neither retried nor corrected, and says so
    const retry = await call('POST', '/admin/leads/{leadId}/retry', {
      leadId: parked.lead.leadId,
    });
    expect(retry).toMatchObject({
      status: 409,
      body: { error: { code: 'personal_data_removed' } },
    });
    const patch = await call('PATCH', '/admin/leads/{leadId}', {
      leadId: parked.lead.leadId,
      body: { prospect: { cellphone: '11987650001', email: ANA.email } },
    });
    expect(patch).toMatchObject({
      status: 409,
      body: { error: { code: 'personal_data_removed' } },
    });
    expect(patch.body.error.message).toMatch(
      /apagados a pedido da pessoa em 04\/05\/2026 08:00:00/,
    );
    const view = await call('GET', '/admin/leads/{leadId}', { leadId: parked.lead.leadId });
    expect(view.body.correctable).toBe(false);
    expect(JSON.stringify((await ledger.get(parked.lead.leadId))?.capture)).not.toMatch(/98765/);

    // Assess: the same lead sent again is refused by the ledger, and leaves nothing
    const before = await tableText();
    await expect(
      ledger.record(lead({ nome: ANA.name, whatsapp: '(11) 98765-0001' }, 'hash:ana-2', 'parked')),
    ).rejects.toBeInstanceOf(ErasedLeadError);
    expect(await tableText()).toBe(before);

    // Act: the same request again finds nothing more, and does not claim the upstream holds nothing
    const second = await call('POST', '/admin/erasure', { body: { email: ANA.email } });
    expect(second.body).toMatchObject({ found: 0, erased: [], upstream: { idProspects: [] } });
    expect(second.body.upstream.action).toMatch(/pedido anterior/);
  });

  it('finds a lead by what an operator typed, and names the prospect it became', async () => {
    // Prepare: Caio left no phone and no e-mail; an operator typed both, then it was delivered.
    const capture: LeadCapture = {
      source: 'form',
      dedupKey: 'hash:caio',
      isTest: false,
      answers: [{ key: 'nome', value: 'Caio Operado' }],
      attribution: {},
    };
    const { lead: parked } = await ledger.record({
      profile: 'site',
      source: 'form',
      dedupKey: 'hash:caio',
      capture,
      status: 'parked',
      reason: 'faltam os campos obrigatórios e-mail e celular',
      receivedAt: T0,
    });
    const corrected = await call('PATCH', '/admin/leads/{leadId}', {
      leadId: parked.leadId,
      body: { prospect: { cellphone: '(21) 99876-0002', email: 'Caio.Operado@Example.com' } },
    });
    expect(corrected.status).toBe(200);
    expect(corrected.body.correctable).toBe(true);
    const queued = await ledger.requeue(parked.leadId, T0);
    const claimed = await ledger.claim(parked.leadId, queued?.version ?? -1, 60_000, T0);
    expect(claimed?.status).toBe('sending');
    await ledger.markDelivered(parked.leadId, 100061, T0);

    // Act: by the phone the operator typed, written another way
    const answer = await call('POST', '/admin/erasure', { body: { phone: '+55 21 99876-0002' } });

    // Assess
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      found: 1,
      erased: [{ leadId: parked.leadId, status: 'delivered', idProspect: 100061 }],
      upstream: { idProspects: [100061] },
    });
    const erased = await ledger.get(parked.leadId);
    expect(erased?.correction).toBeUndefined();
    expect(erased?.prospect).toBeUndefined();
    expect(await tableText()).not.toMatch(/caio|99876/i);
    // Nothing left to find it by: neither the e-mail the operator typed nor the phone.
    expect(await ledger.findBySubjects(['email:caio.operado@example.com'])).toEqual([]);
  });

  it('finds every phone an operator ever typed, not only the last one', async () => {
    // Prepare: a parked lead corrected twice (a wrong phone, then the right one).
    const { lead: parked } = await ledger.record({
      profile: 'site',
      source: 'form',
      dedupKey: 'hash:duda',
      capture: {
        source: 'form',
        dedupKey: 'hash:duda',
        isTest: false,
        answers: [{ key: 'nome', value: 'Duda Duas' }],
        attribution: {},
      },
      status: 'parked',
      reason: 'falta o campo obrigatório celular',
      receivedAt: T0,
    });
    for (const cellphone of ['11911110003', '11922220003']) {
      const read = await ledger.get(parked.leadId);
      const patch = await call('PATCH', '/admin/leads/{leadId}', {
        leadId: parked.leadId,
        body: { prospect: { cellphone } },
      });
      expect(patch.status, `${cellphone} at version ${read?.version}`).toBe(200);
    }

    // Act: by the first phone, which the lead no longer holds
    const answer = await call('POST', '/admin/erasure', { body: { phone: '11911110003' } });

    // Assess: found, and its other subject item (the second phone) no longer points at it
    expect(answer.body.found).toBe(1);
    expect(await ledger.findBySubjects(['phone:+5511922220003'])).toEqual([]);
    expect(await ledger.findBySubjects(['phone:+5511911110003'])).toEqual([]);
  });

  it('lists a lead erased earlier and found again with its prospect, and takes it off the items asked for', async () => {
    // Prepare: a delivered lead erased once; a subject item that still points at it (left by
    // a version that did not keep what an operator typed).
    const { lead: delivered } = await ledger.record(
      lead({ nome: 'Eva Antiga', email: 'eva.antiga@example.com' }, 'hash:eva', 'queued'),
    );
    await ledger.markDelivered(delivered.leadId, 100099, T0);
    await call('POST', '/admin/erasure', { body: { email: 'eva.antiga@example.com' } });
    await dynamo.client.update({
      TableName: ledgerTable,
      Key: { pk: subjectKey('phone:+5511933330004') },
      UpdateExpression: 'ADD leadIds :ids SET kind = :kind',
      ExpressionAttributeValues: { ':ids': new Set([delivered.leadId]), ':kind': 'subject' },
    });

    // Act
    const answer = await call('POST', '/admin/erasure', { body: { phone: '11933330004' } });
    const again = await call('POST', '/admin/erasure', { body: { phone: '11933330004' } });

    // Assess: named with the prospect the upstream still holds; the pointer is gone after it
    expect(answer.body).toMatchObject({
      found: 1,
      erased: [{ leadId: delivered.leadId, idProspect: 100099 }],
      upstream: { idProspects: [100099] },
    });
    expect(answer.body.upstream.action).toMatch(/100099/);
    expect(again.body.found).toBe(0);
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
