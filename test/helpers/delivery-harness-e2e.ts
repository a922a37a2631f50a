/**
 * What the end-to-end delivery suites share (test/e2e/delivery-*.test.ts): a configuration whose
 * upstream limits are fast but below the sandbox's, realistic and distinct form leads posted
 * through `POST /leads/<profile>`, the sandbox's control routes (faults, prospects, stats), the
 * ledger read through the admin API (for a runtime in another process), waits with a deadline,
 * and the one check every scenario makes: each accepted lead is in the sandbox exactly once and
 * `delivered` in the ledger with the sandbox's idProspect.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { ExternalId } from '../../functions/domain/json.ts';
import type { LeadRecord } from '../../functions/ledger/lead-ledger.ts';
import type { StoredProspect } from '../../sandbox/prospects-route.ts';
import type { SandboxStats } from '../../sandbox/stats.ts';
import { basicHeader } from './abuse-kit.ts';
import { DEMO_SECRETS } from './lead-fixtures.ts';
import { TEST_UPSTREAM } from './local-runtime.ts';

// --- configuration ----------------------------------------------------------------------------

/** The sandbox's limits during the suites: ABOVE the configured ones, so no 429 is expected. */
export const SANDBOX_LIMITS = { perSecond: 10, perMinute: 600 } as const;

/** Our own budget: fast, but below SANDBOX_LIMITS (the pacer spaces starts 175 ms apart). */
export const CONFIGURED_LIMITS = { maxPerSecond: 8, maxPerMinute: 400 } as const;

/** The operator the suites read the ledger as (GET /admin/leads). */
export const OPERATOR = { username: 'ops', password: 'ops-e2e-password' } as const;

/** The form profile the suites post to. */
export const PROFILE = 'site';

/**
 * Local-only knobs (functions/delivery/service-local.ts) that make retries take milliseconds
 * instead of minutes (the policy itself is unchanged: same outcomes, same order of steps).
 */
export const FAST_DELIVERY_ENV = {
  LEADS_WORKER_POLL_MS: '50',
  LEADS_RETRY_BASE_MS: '200',
  LEADS_RETRY_CAP_MS: '2000',
  LEADS_SETTLE_MS: '3000',
  LEADS_LOOKUP_DELAY_MS: '200',
  LEADS_PROBE_BASE_MS: '200',
  LEADS_PROBE_CAP_MS: '1000',
  LEADS_SPREAD_MS: '200',
  LEADS_RECONCILE_MS: '500',
  LEADS_WAKE_GRACE_MS: '2000',
} as const;

/** A configuration for the local runtime (the sandbox or UPSTREAM_URL replaces the base URL). */
export function deliveryConfig(upstream: { timeoutMs?: number; baseUrl?: string } = {}) {
  return {
    upstream: { ...TEST_UPSTREAM, ...CONFIGURED_LIMITS, timeoutMs: 5_000, ...upstream },
    clients: [{ ...OPERATOR, roles: ['admin', 'report:read'] }],
    profiles: {
      [PROFILE]: {
        source: 'form',
        token: DEMO_SECRETS.form,
        allowedOrigins: ['https://lp.example.com'],
        defaults: { idBranch: 1, marketingType: 'Site' },
        fieldMap: { qual_seu_cpf: 'cpf' },
      },
    },
    // No report branches: the refresher makes no upstream calls, so every request the sandbox
    // counts is delivery's.
    report: { branches: [], refreshSeconds: 3600 },
  };
}

/** Sets environment variables for the duration of `run` (read once by startLocalDelivery). */
export async function withEnv<T>(vars: Record<string, string>, run: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((key) => [key, process.env[key]]));
  Object.assign(process.env, vars);
  try {
    return await run();
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

// --- leads ------------------------------------------------------------------------------------

export interface TestLead {
  /** Lower case: how the Prospect (and the sandbox) carries it. */
  email: string;
  /** The urlencoded form body, as a browser posts it. */
  body: string;
}

export interface AcceptedLead {
  leadId: string;
  email: string;
  /** The gateway's answer status (2xx). */
  status: number;
}

const FIRST = [
  'Maria',
  'João',
  'Ana',
  'Pedro',
  'Juliana',
  'Lucas',
  'Fernanda',
  'Rafael',
  'Beatriz',
];
const LAST = ['Silva', 'Souza', 'Oliveira', 'Pereira', 'Conceição', 'Araújo', 'Gonçalves', 'Lima'];
const GOALS = ['Emagrecer', 'Hipertrofia', 'Condicionamento', 'Saúde'];
const UNITS = ['Paulista', 'Pinheiros', 'Moema', 'Barra da Tijuca'];

function ascii(text: string): string {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
}

/** A valid CPF (check digits computed) from 9 base digits. */
export function cpfFrom(base: string): string {
  const digits = base.split('').map(Number);
  for (const length of [9, 10]) {
    const sum = digits.slice(0, length).reduce((acc, d, i) => acc + d * (length + 1 - i), 0);
    const rest = (sum * 10) % 11;
    digits.push(rest === 10 ? 0 : rest);
  }
  const text = digits.join('');
  return `${text.slice(0, 3)}.${text.slice(3, 6)}.${text.slice(6, 9)}-${text.slice(9)}`;
}

/**
 * `count` distinct leads as a landing page's <form> posts them: accents, masked phone and CPF,
 * a birthday, UTM fields and the empty honeypot. Every lead has its own e-mail, cellphone and
 * CPF; `tag` (plus a random run id) keeps them apart from other scenarios and runs.
 */
export function realisticLeads(count: number, tag: string): TestLead[] {
  const run = randomBytes(3).toString('hex');
  const phoneBase = 10_000_000 + (Number.parseInt(run, 16) % 80_000_000);
  return Array.from({ length: count }, (_, i) => {
    const first = FIRST[i % FIRST.length] as string;
    const last = LAST[(i * 7 + 3) % LAST.length] as string;
    const email = `${ascii(first)}.${ascii(last)}.${tag}-${run}-${i}@exemplo.com.br`.toLowerCase();
    const phone = String(phoneBase + i * 7919).padStart(8, '0');
    const cpfBase = String(
      100_000_000 + ((Number.parseInt(run, 16) * 31 + i * 104_729) % 899_999_999),
    );
    const fields: [string, string][] = [
      ['nome', `${first} ${last}`],
      ['email', email.replace(/^./, (c) => c.toUpperCase())],
      ['celular', `(11) 9${phone.slice(0, 4)}-${phone.slice(4)}`],
      ['qual_seu_cpf', cpfFrom(cpfBase)],
      [
        'data_nascimento',
        `${String((i % 28) + 1).padStart(2, '0')}/0${(i % 9) + 1}/19${70 + (i % 30)}`,
      ],
      ['sexo', i % 2 === 0 ? 'Feminino' : 'Masculino'],
      ['objetivo[]', GOALS[i % GOALS.length] as string],
      ['mensagem', `Quero conhecer a unidade ${UNITS[i % UNITS.length]}`],
      ['utm_source', 'google'],
      ['utm_medium', 'cpc'],
      ['utm_campaign', `e2e-${tag}`],
      ['utm_content', ''],
      ['page_url', `https://lp.example.com/matricula?utm_source=google&lead=${i}`],
      ['_hp', ''],
    ];
    return { email, body: new URLSearchParams(fields).toString() };
  });
}

/** Posts each lead to `/leads/<profile>` as a browser would; throws unless the answer is 2xx. */
export async function postLeads(
  gatewayUrl: string,
  leads: readonly TestLead[],
  profile = PROFILE,
): Promise<AcceptedLead[]> {
  const accepted: AcceptedLead[] = [];
  for (const lead of leads) {
    const response = await fetch(
      new URL(`/leads/${profile}?token=${DEMO_SECRETS.form}`, gatewayUrl),
      {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: 'https://lp.example.com',
          referer: 'https://lp.example.com/matricula',
        },
        body: lead.body,
      },
    );
    const text = await response.text();
    if (response.status < 200 || response.status > 299) {
      throw new Error(`lead ${lead.email} not accepted: ${response.status} ${text}`);
    }
    const { leadId } = JSON.parse(text) as { leadId?: string };
    if (!leadId) throw new Error(`no leadId in the answer for ${lead.email}: ${text}`);
    accepted.push({ leadId, email: lead.email, status: response.status });
  }
  return accepted;
}

// --- the sandbox ------------------------------------------------------------------------------

export interface SandboxControl {
  /** Replaces the whole fault set; the limits default to SANDBOX_LIMITS unless given. */
  setFaults(faults: Record<string, unknown>): Promise<void>;
  prospects(): Promise<StoredProspect[]>;
  stats(): Promise<SandboxStats>;
  /** Forgets prospects, stats and the rate limiter's log, and restores SANDBOX_LIMITS. */
  reset(): Promise<void>;
}

export function sandboxControl(sandboxUrl: string): SandboxControl {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(new URL(path, sandboxUrl), {
      method,
      ...(body !== undefined && {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  };
  const control: SandboxControl = {
    async setFaults(faults) {
      await call('POST', '/_sandbox/faults', { ...SANDBOX_LIMITS, ...faults });
    },
    async prospects() {
      return (await call('GET', '/_sandbox/prospects')) as StoredProspect[];
    },
    async stats() {
      return (await call('GET', '/_sandbox/stats')) as SandboxStats;
    },
    async reset() {
      await control.setFaults({});
      await call('DELETE', '/_sandbox/prospects');
      await call('DELETE', '/_sandbox/stats');
      await call('DELETE', '/_sandbox/rate-limit');
    },
  };
  return control;
}

/** How many requests the sandbox answered `status` (every API route, or one route). */
export function answered(stats: SandboxStats, status: number, route?: string): number {
  return Object.entries(stats.byRoute)
    .filter(([name]) => route === undefined || name === route)
    .reduce((sum, [, counts]) => sum + (counts[String(status)] ?? 0), 0);
}

/** A short summary of the sandbox's answers: `{"POST /api/v1/prospects": {"200": 20, ...}}`. */
export function statsSummary(stats: SandboxStats): string {
  return JSON.stringify(stats.byRoute);
}

// --- the ledger -------------------------------------------------------------------------------

/** What the checks read of a lead, from the ledger itself or through the admin API. */
export interface LedgerLead {
  leadId: string;
  status: string;
  idProspect?: ExternalId;
  attempts: number;
  ambiguousSince?: string;
  lastError?: string;
}

/** A ledger lead as the e2e tests compare it. */
export function asLedgerLead(lead: LeadRecord): LedgerLead {
  return {
    leadId: lead.leadId,
    status: lead.status,
    attempts: lead.attempts,
    ...(lead.idProspect !== undefined && { idProspect: lead.idProspect }),
    ...(lead.ambiguousSince !== undefined && { ambiguousSince: lead.ambiguousSince }),
    ...(lead.lastError !== undefined && { lastError: lead.lastError }),
  };
}

/** The accepted leads as the ledger holds them now (those it has: a lead not yet written is left out). */
export async function readLedger(
  ledger: { get(leadId: string): Promise<LeadRecord | undefined> },
  accepted: readonly AcceptedLead[],
): Promise<LedgerLead[]> {
  const leads = await Promise.all(accepted.map(({ leadId }) => ledger.get(leadId)));
  return leads.flatMap((lead) => (lead ? [asLedgerLead(lead)] : []));
}

const ADMIN_STATUSES = ['queued', 'delivered', 'rejected', 'dead', 'test', 'parked'] as const;

/** Every lead of every status through `GET /admin/leads` (pages followed). */
export async function adminLeads(gatewayUrl: string): Promise<LedgerLead[]> {
  const authorization = basicHeader(OPERATOR.username, OPERATOR.password);
  const found: LedgerLead[] = [];
  for (const status of ADMIN_STATUSES) {
    let cursor: string | undefined;
    do {
      const url = new URL('/admin/leads', gatewayUrl);
      url.searchParams.set('status', status);
      url.searchParams.set('limit', '500');
      if (cursor) url.searchParams.set('cursor', cursor);
      const response = await fetch(url, { headers: { authorization } });
      const text = await response.text();
      if (!response.ok)
        throw new Error(`GET ${url.pathname}${url.search}: ${response.status} ${text}`);
      const page = JSON.parse(text) as { leads: LedgerLead[]; cursor?: string };
      found.push(...page.leads);
      cursor = page.cursor;
    } while (cursor);
  }
  return found;
}

// --- waiting and checking ---------------------------------------------------------------------

/**
 * Polls `probe` until `done` holds; throws after `timeoutMs` with `describe` of the last value,
 * so a scenario that does not converge fails saying where it stood.
 */
export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  {
    timeoutMs,
    intervalMs = 250,
    describe = (value: T) => JSON.stringify(value),
  }: {
    timeoutMs: number;
    intervalMs?: number;
    describe?: (value: T) => string;
  },
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastError: unknown;
  for (;;) {
    try {
      last = await probe();
      lastError = undefined;
      if (done(last)) return last;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) break;
    await delay(intervalMs);
  }
  const where =
    lastError !== undefined
      ? `last error: ${String(lastError)}`
      : `last: ${last === undefined ? '-' : describe(last)}`;
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; ${where}`);
}

/** Leads per status among `accepted`: `{delivered: 18, queued: 2}`. */
export function statusCounts(
  accepted: readonly AcceptedLead[],
  ledger: readonly LedgerLead[],
): Record<string, number> {
  const byId = new Map(ledger.map((lead) => [lead.leadId, lead]));
  const counts: Record<string, number> = {};
  for (const { leadId } of accepted) {
    const status = byId.get(leadId)?.status ?? 'missing';
    counts[status] = (counts[status] ?? 0) + 1;
  }
  return counts;
}

export function allDelivered(accepted: readonly AcceptedLead[], ledger: readonly LedgerLead[]) {
  return statusCounts(accepted, ledger).delivered === accepted.length;
}

export interface DeliveryCheck {
  /** Accepted leads of which the sandbox holds no prospect. */
  missing: string[];
  /** Accepted leads the sandbox holds more than once, with how many times. */
  duplicated: { email: string; count: number }[];
  /** Prospects the sandbox holds that no accepted lead explains. */
  unexpected: string[];
  /** Accepted leads not `delivered` in the ledger. */
  notDelivered: { leadId: string; email: string; status: string }[];
  /** Delivered leads whose idProspect is not the one the sandbox gave their prospect. */
  wrongId: { leadId: string; email: string; ledger: string; sandbox: string }[];
}

/**
 * The scenarios' acceptance: each accepted lead is in the sandbox exactly once (matched by
 * e-mail, ignoring case), the sandbox holds nothing else, and the ledger says `delivered` with
 * the sandbox's idProspect. Every list of the answer is empty when all holds.
 */
export function checkExactlyOnce(
  accepted: readonly AcceptedLead[],
  ledger: readonly LedgerLead[],
  prospects: readonly StoredProspect[],
): DeliveryCheck {
  const byEmail = new Map<string, StoredProspect[]>();
  for (const prospect of prospects) {
    const raw = (prospect.body as { email?: unknown } | null)?.email;
    const email =
      typeof raw === 'string' ? raw.trim().toLowerCase() : `(no e-mail #${prospect.idProspect})`;
    byEmail.set(email, [...(byEmail.get(email) ?? []), prospect]);
  }
  const wanted = new Set(accepted.map((lead) => lead.email));
  const byId = new Map(ledger.map((lead) => [lead.leadId, lead]));
  const check: DeliveryCheck = {
    missing: [],
    duplicated: [],
    unexpected: [...byEmail.keys()].filter((email) => !wanted.has(email)),
    notDelivered: [],
    wrongId: [],
  };
  for (const { leadId, email } of accepted) {
    const stored = byEmail.get(email) ?? [];
    if (stored.length === 0) check.missing.push(email);
    if (stored.length > 1) check.duplicated.push({ email, count: stored.length });
    const lead = byId.get(leadId);
    if (lead?.status !== 'delivered') {
      check.notDelivered.push({ leadId, email, status: lead?.status ?? 'missing' });
      continue;
    }
    const [only] = stored;
    if (stored.length === 1 && only && String(only.idProspect) !== String(lead.idProspect)) {
      check.wrongId.push({
        leadId,
        email,
        ledger: String(lead.idProspect),
        sandbox: String(only.idProspect),
      });
    }
  }
  return check;
}

export const ALL_GOOD: DeliveryCheck = {
  missing: [],
  duplicated: [],
  unexpected: [],
  notDelivered: [],
  wrongId: [],
};

// --- a runtime in another process (test/helpers/gateway-process.ts) -------------------------

/** One `lead delivery attempt` line of a child's log (Powertools JSON on stdout). */
export interface AttemptLine {
  leadId: string;
  outcome: string;
  reason: string;
  note?: string;
  status?: string;
}

/** The `lead delivery attempt` lines in a process's output (needs POWERTOOLS_LOG_LEVEL=INFO). */
export function attemptLines(output: string): AttemptLine[] {
  return output.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      const entry = JSON.parse(line) as { message?: string } & AttemptLine;
      return entry.message === 'lead delivery attempt' ? [entry] : [];
    } catch {
      return [];
    }
  });
}

/** Log lines (any level) of a process whose message contains `text`. */
export function logMessages(output: string, text: string): string[] {
  return output.split('\n').filter((line) => {
    if (!line.startsWith('{')) return false;
    try {
      return String((JSON.parse(line) as { message?: unknown }).message).includes(text);
    } catch {
      return false;
    }
  });
}
