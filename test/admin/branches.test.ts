/**
 * Branches by name in the admin routes (functions/admin/admin.ts) on a real ledger (dynalite):
 * the preview says which branch a chain form's body would go to and why, a lead's page shows an
 * unknown branch as such (its branch explained, its warnings), and a correction maps with the
 * account's named branches, learned ones included; the branches a correction may choose are the
 * lead's own account's only.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AdminDeps, handleAdmin } from '../../functions/admin/admin.ts';
import { createLocalDlqRedrive } from '../../functions/admin/dlq-redrive-local.ts';
import type { Profile } from '../../functions/config/config-schema.ts';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import type { Client } from '../../functions/kernel/client-schema.ts';
import type { LeadLedger, LeadRecord } from '../../functions/ledger/lead-ledger.ts';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import {
  createLocalLeadQueue,
  LOCAL_QUEUE_TABLE_DEFINITION,
} from '../../functions/ledger/lead-queue-local.ts';
import { initialState } from '../../functions/ledger/record-capture.ts';
import {
  type BranchDirectory,
  createBranchDirectory,
} from '../../functions/upstream/branch-directory.ts';
import { dynamoUpstreamHealth } from '../../functions/upstream/health-dynamodb.ts';
import { ensureTable } from '../../local/dynamodb-local.ts';
import { startTestDynamo, TEST_ERASURE_SALT, type TestDynamo } from '../helpers/dynalite.ts';

const CLIENTS: Client[] = [{ username: 'ops', password: 'ops-secret', roles: ['admin'] }];
const OPS = `Basic ${Buffer.from('ops:ops-secret').toString('base64')}`;
/** A chain's landing page with a default branch, and one without. */
const PROFILES: Record<string, Profile> = {
  rede: { source: 'form', token: 'rede-token', defaults: { idBranch: 1 } } as Profile,
  'rede-sem-padrao': { source: 'form', token: 'rede-token-2' } as Profile,
};
const CONFIGURED = [
  { idBranch: 1, account: 'default', name: 'Centro' },
  { idBranch: 2, account: 'default', name: 'Moema', aliases: ['Unidade Moema'] },
  // Another account's branch: never offered to, nor accepted for, a `default` lead.
  { idBranch: 7, account: 'south', name: 'Savassi Sul' },
];
/** What the debtors report taught: a branch the configuration does not name. */
const LEARNED = { 3: 'Unidade Savassi', 2: 'Unidade Moema SP' };

let dynamo: TestDynamo;
let ledger: LeadLedger;
let deps: AdminDeps;
let seq = 0;
const directory: BranchDirectory = createBranchDirectory({
  configured: async () => CONFIGURED,
  learned: { read: async () => LEARNED, write: async () => undefined },
});

beforeAll(async () => {
  dynamo = await startTestDynamo();
});
afterAll(() => dynamo?.close());

beforeEach(async () => {
  seq += 1;
  const tableName = await dynamo.createLedgerTable();
  const queueTable = `branches-queue-${seq}`;
  await ensureTable(dynamo.admin, LOCAL_QUEUE_TABLE_DEFINITION, queueTable);
  ledger = createDynamoLedger({ erasureSalt: TEST_ERASURE_SALT, client: dynamo.client, tableName });
  const queue = createLocalLeadQueue({
    client: dynamo.client,
    tableName: queueTable,
    maxReceiveCount: 2,
  });
  deps = {
    config: {
      clients: async () => CLIENTS,
      profile: async (name) => PROFILES[name],
      profileSettings: async () => PROFILES,
    },
    ledger,
    queue,
    redrive: createLocalDlqRedrive(queue),
    upstream: dynamoUpstreamHealth({ client: dynamo.client, tableName }),
    branches: directory,
  };
});

async function send(c: {
  method: string;
  resource: string;
  params?: Record<string, string>;
  body?: string;
  contentType?: string;
}) {
  const result = await handleAdmin(
    {
      resource: c.resource,
      pathParameters: c.params ?? null,
      request: {
        method: c.method,
        headers: { authorization: OPS, host: 'leads.example' },
        query: {},
        body: Buffer.from(c.body ?? '', 'utf8'),
        contentType: c.contentType ?? (c.body ? 'application/json' : ''),
        receivedAt: new Date(),
      },
      baseUrl: 'https://leads.example/prod',
    },
    deps,
  );
  // biome-ignore lint/suspicious/noExplicitAny: answers are read as loose JSON here
  return { status: result.statusCode, body: JSON.parse(result.body) as any };
}

const preview = (profile: string, answers: Record<string, string>) =>
  send({
    method: 'POST',
    resource: '/admin/preview/{profile}',
    params: { profile },
    body: new URLSearchParams(answers).toString(),
    contentType: 'application/x-www-form-urlencoded',
  });

const PERSON = { nome: 'Ana Souza', email: 'ana.souza@example.com', celular: '11987654321' };

/** A chain form's lead recorded as the intake records it (with the account's branches). */
async function chainLead(profile: string, answers: Record<string, string>): Promise<LeadRecord> {
  const dedupKey = `hash:${seq}-${randomBytes(4).toString('hex')}`;
  const capture: LeadCapture = {
    source: 'form',
    dedupKey,
    isTest: false,
    answers: Object.entries(answers).map(([key, value]) => ({ key, value })),
    attribution: {},
  };
  const state = initialState(capture, PROFILES[profile] as Profile, await directory('default'));
  const { lead } = await ledger.record({ ...state, profile, receivedAt: new Date() });
  return lead;
}

describe('the preview of a chain form', () => {
  it('says the branch an answer named, and why', async () => {
    const { status, body } = await preview('rede', { ...PERSON, 'Qual unidade?': 'Moema' });
    expect(status).toBe(200);
    expect(body.leads[0].prospect.idBranch).toBe(2);
    expect(body.leads[0].branch).toEqual({
      idBranch: 2,
      name: 'Moema',
      why: 'answer',
      answered: 'Moema',
      text: 'Unidade 2 (Moema): a resposta "Moema" nomeia a unidade.',
      warning: false,
    });
  });

  it('finds a branch by the name the debtors report taught', async () => {
    const { body } = await preview('rede', { ...PERSON, Unidade: 'savassi' });
    expect(body.leads[0].prospect.idBranch).toBe(3);
    expect(body.leads[0].branch).toMatchObject({ name: 'Unidade Savassi', why: 'answer' });
  });

  it('warns of an unknown branch: the default used, or the lead parked for its branch', async () => {
    const withDefault = await preview('rede', { ...PERSON, 'Qual unidade?': 'Tatuapé' });
    const without = await preview('rede-sem-padrao', { ...PERSON, 'Qual unidade?': 'Tatuapé' });
    expect(withDefault.body.leads[0]).toMatchObject({
      prospect: { idBranch: 1 },
      missing: [],
      branch: { idBranch: 1, name: 'Centro', why: 'unknown', warning: true },
    });
    expect(withDefault.body.leads[0].warnings).toContain(
      'Unidade não reconhecida ("Tatuapé"); usada a unidade padrão do perfil (1)',
    );
    expect(without.body.leads[0].missing).toEqual(['idBranch']);
    expect(without.body.leads[0].branch).toMatchObject({ why: 'unknown', warning: true });
    expect(without.body.leads[0].branch.text).toMatch(/^Sem unidade/);
  });
});

describe('a lead’s page and its correction', () => {
  it('shows an unknown branch as such: the branch explained, the warning in its notes and warnings', async () => {
    // Prepare
    const lead = await chainLead('rede', { ...PERSON, 'Qual unidade?': 'Tatuapé' });

    // Act
    const { body } = await send({
      method: 'GET',
      resource: '/admin/leads/{leadId}',
      params: { leadId: lead.leadId },
    });

    // Assess
    expect(body.prospect.idBranch).toBe(1);
    expect(body.prospect.notes).toContain('Unidade não reconhecida ("Tatuapé")');
    expect(body.branch).toMatchObject({ idBranch: 1, why: 'unknown', warning: true });
    expect(body.warnings).toEqual([
      'Unidade não reconhecida ("Tatuapé"); usada a unidade padrão do perfil (1)',
    ]);
  });

  it('maps a correction with the account’s branches: the branch the person named stays', async () => {
    // Prepare: no phone, so parked; the branch was named (Moema).
    const lead = await chainLead('rede-sem-padrao', {
      nome: 'Ana Souza',
      email: 'ana.souza@example.com',
      'Qual unidade?': 'Unid. Moema',
    });

    // Act
    const corrected = await send({
      method: 'PATCH',
      resource: '/admin/leads/{leadId}',
      params: { leadId: lead.leadId },
      body: JSON.stringify({ prospect: { cellphone: '(11) 97777-6666' } }),
    });

    // Assess
    expect(lead.status).toBe('parked');
    expect(lead.prospect?.idBranch).toBe(2);
    expect(corrected.status).toBe(200);
    expect(corrected.body.missing).toEqual([]);
    expect(corrected.body.prospect).toMatchObject({ idBranch: 2, cellphone: '11977776666' });
  });
});

describe('the branches a correction may choose', () => {
  const patch = (leadId: string, prospect: Record<string, unknown>) =>
    send({
      method: 'PATCH',
      resource: '/admin/leads/{leadId}',
      params: { leadId },
      body: JSON.stringify({ prospect }),
    });

  it('lists the lead’s own account’s branches by name, learned ones included, never another account’s', async () => {
    // Prepare
    const lead = await chainLead('rede-sem-padrao', { ...PERSON, 'Qual unidade?': 'Tatuapé' });

    // Act
    const { body } = await send({
      method: 'GET',
      resource: '/admin/leads/{leadId}',
      params: { leadId: lead.leadId },
    });

    // Assess
    expect(body.branchChoices).toEqual([
      { idBranch: 1, name: 'Centro' },
      { idBranch: 2, name: 'Moema' },
      { idBranch: 3, name: 'Unidade Savassi' },
    ]);
  });

  it('refuses a branch of another account, and takes a learned one, then says an operator chose it', async () => {
    // Prepare
    const lead = await chainLead('rede-sem-padrao', { ...PERSON, 'Qual unidade?': 'Tatuapé' });

    // Act
    const other = await patch(lead.leadId, { idBranch: 7 });
    const learned = await patch(lead.leadId, { idBranch: 3 });
    const page = await send({
      method: 'GET',
      resource: '/admin/leads/{leadId}',
      params: { leadId: lead.leadId },
    });

    // Assess
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('unknown_branch');
    expect(other.body.error.details[0].field).toBe('idBranch');
    expect(JSON.stringify(other.body)).not.toContain('south');
    expect((await ledger.get(lead.leadId))?.correction).toEqual({ idBranch: 3 });
    expect(learned.status).toBe(200);
    expect(learned.body.prospect.idBranch).toBe(3);
    expect(page.body.branch).toMatchObject({ idBranch: 3, why: 'given', warning: false });
    expect(page.body.branch.text).toBe(
      'Unidade 3 (Unidade Savassi): escolhida por um operador na correção.',
    );
  });
});
