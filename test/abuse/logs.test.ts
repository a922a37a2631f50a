/**
 * No personal data and no secret in the local runtime's output. `npm start`'s entry runs as a
 * child process (worker on, sandbox on, log level DEBUG so every line a module can write is
 * written); real-looking leads go in through several sources, are delivered, an operator uses
 * the admin and report routes, the runtime stops; then every captured line of stdout and stderr
 * is searched for each lead's email, phone (several formats), CPF (with and without mask), full
 * name, surname, birthday, and for every secret of the configuration (client passwords, profile
 * tokens and secrets, the upstream password, the Basic headers' base64).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ABUSE_SECRETS,
  abuseConfig,
  basicHeader,
  CLIENTS,
  cpfFrom,
  forbiddenSecrets,
  hmacHex,
  maskCpf,
  sandboxProspects,
  waitFor,
} from '../helpers/abuse-kit.ts';
import { freePort, type LocalProcess, startLocal } from '../helpers/gateway-process.ts';

interface Person {
  first: string;
  last: string;
  email: string;
  /** Brazilian mobile: DDD + 9 digits. */
  ddd: string;
  mobile: string;
  cpf: string;
  birthday: string; // dd/mm/yyyy
}

const PEOPLE: Person[] = [
  [
    'Conceição',
    'Araújo Brandão',
    'conceicao.brandao.q7@exemplo.com.br',
    '11',
    '973418265',
    '631482097',
    '14/03/1987',
  ],
  [
    'Joaquim',
    'Gonçalves Peçanha',
    'joaquim.pecanha.x3@exemplo.com',
    '21',
    '986274153',
    '274915386',
    '02/11/1979',
  ],
  [
    'Thaís',
    'Müller Lourenço',
    'thais.lourenco.k9@exemplo.net',
    '31',
    '991827364',
    '358260147',
    '29/07/1995',
  ],
  [
    'Rafaela',
    'Simões Quintão',
    'rafaela.quintao.m2@exemplo.org',
    '41',
    '984736251',
    '419573862',
    '08/01/2001',
  ],
  [
    'Ângelo',
    'Ribeiro Falcão',
    'angelo.falcao.p5@exemplo.com.br',
    '51',
    '997162843',
    '582036419',
    '17/09/1968',
  ],
  [
    'Inês',
    'Capistrano Vasconcelos',
    'ines.vasconcelos.t4@exemplo.com',
    '61',
    '982615374',
    '706341928',
    '23/06/1990',
  ],
].map(([first, last, email, ddd, mobile, cpf9, birthday]) => ({
  first: first as string,
  last: last as string,
  email: email as string,
  ddd: ddd as string,
  mobile: mobile as string,
  cpf: cpfFrom(cpf9 as string),
  birthday: birthday as string,
}));

const phoneMasked = (p: Person) => `(${p.ddd}) ${p.mobile.slice(0, 5)}-${p.mobile.slice(5)}`;
const isoBirthday = (p: Person) => p.birthday.split('/').reverse().join('-');

/** Every way a person's data could show up in a log line. */
function personalNeedles(p: Person): { label: string; value: string }[] {
  const full = `${p.first} ${p.last}`;
  return [
    { label: 'email', value: p.email },
    { label: 'phone digits', value: `${p.ddd}${p.mobile}` },
    { label: 'phone +55', value: `55${p.ddd}${p.mobile}` },
    { label: 'phone masked', value: phoneMasked(p) },
    { label: 'phone local part', value: `${p.mobile.slice(0, 5)}-${p.mobile.slice(5)}` },
    { label: 'phone 9 digits', value: p.mobile },
    { label: 'CPF', value: p.cpf },
    { label: 'CPF masked', value: maskCpf(p.cpf) },
    { label: 'full name', value: full },
    { label: 'full name (JSON-escaped)', value: JSON.stringify(full).slice(1, -1) },
    { label: 'surname', value: p.last },
    { label: 'birthday', value: p.birthday },
    { label: 'birthday ISO', value: isoBirthday(p) },
  ];
}

let dataDir: string;
let local: LocalProcess | undefined;
let output = '';

const ops = basicHeader(CLIENTS.ops.username, CLIENTS.ops.password);
const writer = basicHeader(CLIENTS.writer.username, CLIENTS.writer.password);

function person(i: number): Person {
  return PEOPLE[i] as Person;
}

async function post(
  path: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  if (!local) throw new Error('not started');
  const res = await fetch(new URL(path, local.gatewayUrl), { method: 'POST', body, headers });
  return { status: res.status, text: await res.text() };
}

/** The leads, one per source (several sources, as platforms post them). */
async function postLeads(): Promise<void> {
  const s = ABUSE_SECRETS;
  // 1. A landing-page form, token in the URL as such pages do, urlencoded with accents.
  const p0 = person(0);
  const form = new URLSearchParams({
    nome: `${p0.first} ${p0.last}`,
    email: p0.email,
    celular: phoneMasked(p0),
    qual_seu_cpf: maskCpf(p0.cpf),
    data_nascimento: p0.birthday,
    utm_source: 'google',
  }).toString();
  const r0 = await post(`/leads/site?token=${encodeURIComponent(s.siteToken)}`, form, {
    'content-type': 'application/x-www-form-urlencoded',
    origin: 'https://lp.example.com',
  });
  expect(r0.status, r0.text).toBe(202);

  // 2. A Zapier-style JSON hook, token in the X-Lead-Token header.
  const p1 = person(1);
  const zap = JSON.stringify({
    name: `${p1.first} ${p1.last}`,
    email: p1.email,
    phone: `+55${p1.ddd}${p1.mobile}`,
    cpf: p1.cpf,
    birthday: p1.birthday,
  });
  const r1 = await post('/leads/site', zap, {
    'content-type': 'application/json',
    'x-lead-token': s.siteToken,
  });
  expect(r1.status, r1.text).toBe(202);

  // 3. The Prospect API with Basic credentials.
  const p2 = person(2);
  const prospect = JSON.stringify({
    name: p2.first,
    lastName: p2.last,
    email: p2.email,
    idBranch: 1,
    ddi: '55',
    cellphone: `${p2.ddd}${p2.mobile}`,
    cpf: p2.cpf,
    birthday: `${isoBirthday(p2)}T00:00:00Z`,
    gender: 'F',
  });
  const r2 = await post('/api/v1/prospects', prospect, {
    'content-type': 'application/json-patch+json',
    authorization: writer,
  });
  expect([200, 202], r2.text).toContain(r2.status);

  // 4. Google Ads lead form: the key in the body.
  const p3 = person(3);
  const google = JSON.stringify({
    lead_id: 'LogsTest-google-0001',
    api_version: '1.0',
    form_id: 1234,
    google_key: s.googleKey,
    is_test: false,
    user_column_data: [
      { column_name: 'Full Name', string_value: `${p3.first} ${p3.last}`, column_id: 'FULL_NAME' },
      { column_name: 'Email', string_value: p3.email, column_id: 'EMAIL' },
      {
        column_name: 'Phone',
        string_value: `+55 ${p3.ddd} ${p3.mobile}`,
        column_id: 'PHONE_NUMBER',
      },
      { column_name: 'CPF', string_value: maskCpf(p3.cpf), column_id: 'cpf' },
      {
        column_name: 'Data de nascimento',
        string_value: p3.birthday,
        column_id: 'data_nascimento',
      },
    ],
  });
  const r3 = await post('/leads/google', google, { 'content-type': 'application/json' });
  expect(r3.status, r3.text).toBe(200);

  // 5. Typeform, signed.
  const p4 = person(4);
  const typeform = JSON.stringify({
    event_id: 'LOGSTEST0001',
    event_type: 'form_response',
    form_response: {
      form_id: 'abc123',
      token: 'logs-test-typeform-token-0001',
      submitted_at: '2025-05-02T13:10:02Z',
      hidden: { utm_source: 'instagram' },
      definition: {
        id: 'abc123',
        title: 'Cadastro',
        fields: [
          { id: 'f1', title: 'Seu nome?', type: 'short_text', ref: 'nome' },
          { id: 'f2', title: 'E-mail', type: 'email', ref: 'email' },
          { id: 'f3', title: 'WhatsApp', type: 'phone_number', ref: 'celular' },
          { id: 'f4', title: 'CPF', type: 'short_text', ref: 'cpf' },
          { id: 'f5', title: 'Nascimento', type: 'date', ref: 'data_nascimento' },
        ],
      },
      answers: [
        {
          type: 'text',
          text: `${p4.first} ${p4.last}`,
          field: { id: 'f1', type: 'short_text', ref: 'nome' },
        },
        { type: 'email', email: p4.email, field: { id: 'f2', type: 'email', ref: 'email' } },
        {
          type: 'phone_number',
          phone_number: `+55${p4.ddd}${p4.mobile}`,
          field: { id: 'f3', type: 'phone_number', ref: 'celular' },
        },
        {
          type: 'text',
          text: maskCpf(p4.cpf),
          field: { id: 'f4', type: 'short_text', ref: 'cpf' },
        },
        {
          type: 'date',
          date: isoBirthday(p4),
          field: { id: 'f5', type: 'date', ref: 'data_nascimento' },
        },
      ],
    },
  });
  const signature = `sha256=${Buffer.from(hmacHex('sha256', s.typeformSecret, typeform), 'hex').toString('base64')}`;
  const r4 = await post('/leads/typeform', typeform, {
    'content-type': 'application/json',
    'typeform-signature': signature,
  });
  expect(r4.status, r4.text).toBe(200);

  // 6. RD Station, token in the URL (RD signs nothing).
  const p5 = person(5);
  const rd = JSON.stringify({
    event_type: 'WEBHOOK.CONVERTED',
    entity_type: 'CONTACT',
    event_identifier: 'aula-experimental',
    timestamp: '2025-05-02T13:10:05.114Z',
    contact: {
      uuid: 'logs-test-rd-0001',
      email: p5.email,
      name: `${p5.first} ${p5.last}`,
      mobile_phone: phoneMasked(p5),
      cf_cpf: maskCpf(p5.cpf),
      cf_data_de_nascimento: p5.birthday,
    },
  });
  const r5 = await post(`/leads/rd?token=${encodeURIComponent(s.rdToken)}`, rd, {
    'content-type': 'application/json',
  });
  expect(r5.status, r5.text).toBe(200);
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'leads-logs-'));
  const configPath = join(dataDir, 'config.json');
  writeFileSync(configPath, JSON.stringify(abuseConfig()));
  local = await startLocal(
    {
      PORT: String(await freePort()),
      SANDBOX_PORT: String(await freePort()),
      LEADS_CONFIG: configPath,
      DATA_DIR: join(dataDir, 'data'),
      LEADS_WORKER: 'on',
      POWERTOOLS_LOG_LEVEL: 'DEBUG',
      POWERTOOLS_DEV: 'false',
    },
    { timeoutMs: 25_000 },
  );
}, 30_000);

afterAll(async () => {
  if (local && local.child.exitCode === null && local.child.signalCode === null) {
    await local.stop('SIGKILL');
  }
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Each forbidden value found: the line (number, module guess) where it appears. */
function findLeaks(text: string, needles: { label: string; value: string }[]): string[] {
  const lines = text.split('\n');
  const found: string[] = [];
  for (const needle of needles) {
    const wanted = needle.value.toLowerCase();
    lines.forEach((line, index) => {
      if (!line.toLowerCase().includes(wanted)) return;
      let origin = line.startsWith('[gateway]')
        ? 'local/gateway.ts request log (via local/start.ts)'
        : 'unknown';
      try {
        const parsed = JSON.parse(line) as { service?: string; message?: string };
        origin = `Powertools logger "${parsed.message}"`;
      } catch {}
      found.push(
        `${needle.label} (${needle.value}) in line ${index + 1} [${origin}]: ${line.slice(0, 300)}`,
      );
    });
  }
  return found;
}

describe('logs: no personal data, no secret', () => {
  it('keeps every lead field and every secret out of stdout and stderr', async () => {
    if (!local) throw new Error('not started');
    const gateway = local.gatewayUrl;
    const sandboxUrl = local.sandboxUrl ?? '';

    // Meta's subscription handshake, as Meta sends it (the verify token in the query).
    const handshake = await fetch(
      `${gateway}/leads/meta?hub.mode=subscribe&hub.verify_token=${encodeURIComponent(ABUSE_SECRETS.metaVerifyToken)}&hub.challenge=1158201444`,
    );
    expect(handshake.status).toBe(200);

    await postLeads();

    // Delivered: every email upstream.
    await waitFor(
      'every lead delivered to the sandbox',
      async () => {
        const emails = new Set(
          (await sandboxProspects(sandboxUrl)).map((p) => String(p.body.email ?? '').toLowerCase()),
        );
        return PEOPLE.every((p) => emails.has(p.email.toLowerCase())) ? true : undefined;
      },
      30_000,
      300,
    );

    // An operator looks around.
    const auth = { authorization: ops };
    const delivered = await fetch(`${gateway}/admin/leads?status=delivered`, { headers: auth });
    expect(delivered.status).toBe(200);
    const { leads } = (await delivered.json()) as { leads: { leadId: string }[] };
    expect(leads.length).toBeGreaterThanOrEqual(PEOPLE.length);
    for (const lead of leads) {
      const one = await fetch(`${gateway}/admin/leads/${lead.leadId}`, { headers: auth });
      expect(one.status).toBe(200);
      await one.text();
    }
    const retry = await fetch(`${gateway}/admin/leads/${leads[0]?.leadId}/retry`, {
      method: 'POST',
      headers: auth,
    });
    expect(retry.status).toBe(409);
    await retry.text();
    const replay = await fetch(`${gateway}/admin/replay`, { method: 'POST', headers: auth });
    expect(replay.status).toBe(202);
    await replay.text();
    const refused = await fetch(`${gateway}/admin/leads?status=queued`, {
      headers: { authorization: basicHeader(CLIENTS.ops.username, 'wrong-password') },
    });
    expect(refused.status).toBe(401);
    await refused.text();
    for (const path of [
      '/reports/debtors',
      '/reports/debtors.csv',
      '/api/v1/receivables/debtors',
    ]) {
      const res = await fetch(`${gateway}${path}`, { headers: auth });
      expect([200, 503]).toContain(res.status);
      await res.text();
    }

    // Stop it the way a user does, so that shutdown lines are captured too.
    const code = await local.stop('SIGTERM');
    expect(code).toBe(0);
    output = `${local.stdout()}\n${local.stderr()}`;
    // Sanity: the logger did write JSON lines (an empty capture would prove nothing).
    expect(output).toContain('lead accepted');

    const leaks = [
      ...PEOPLE.flatMap((p) => findLeaks(output, personalNeedles(p))),
      ...findLeaks(output, forbiddenSecrets()),
    ];
    expect(leaks, `personal data or secrets in the runtime's output:\n${leaks.join('\n')}`).toEqual(
      [],
    );
  }, 58_000);
});
