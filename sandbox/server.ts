/**
 * The sandbox upstream: a local stand-in for the production upstream (ABC EVO) and for Meta's
 * Graph lead lookup, on node:http alone. Production has no test environment; this one behaves
 * like it where it is known (docs/upstream.md) and can be made to misbehave on purpose
 * (`POST /_sandbox/faults`).
 *
 * Routes (paths under /api match case-insensitively and with a trailing slash, like ASP.NET):
 * - `POST /api/v1/prospects`, `GET /api/v1/prospects` (lookup: prospect-lookup.ts),
 *   `GET /api/v1/receivables/debtors`: Basic auth, rate limits, faults.
 * - `GET /graph/{leadgenId}`, `GET /graph/v{NN}.0/{leadgenId}`: Meta Graph lead lookup;
 *   `GET /graph/{formId}/leads`: a form's leads (backfill), `filtering` on `time_created`, paged.
 * - `POST /tiktok/open_api/v1.3/page/lead/task/`, `GET .../page/lead/task/download/`: the TikTok
 *   API for Business lead download (tiktok-leads.ts).
 * - `GET /kommo/api/v4/leads/{id}`, `GET /kommo/api/v4/contacts/{id}`: Kommo's API (kommo.ts).
 * - `/_sandbox/*`: control routes without auth. The sandbox is meant to listen on loopback only
 *   (the default host is 127.0.0.1); never expose it.
 *
 * The answer to any input is an HTTP answer: the handler never throws out of the server.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import * as z from 'zod/mini';
import { parseDebtorsQuery, queryDebtors } from '../functions/domain/debtors-query.ts';
import { describeIssues, parseJson } from '../functions/domain/json.ts';
import { basicCredentials } from '../functions/kernel/http.ts';
import {
  DEFAULT_DEBTORS_SETTINGS,
  type DemoDebtor,
  type DemoDebtorsSettings,
  generateDebtors,
  MAX_DEMO_DEBTORS,
  mulberry32,
} from './debtors-data.ts';
import {
  adminError,
  Delays,
  destroy,
  type Exchange,
  JSON_TYPE,
  json,
  noContent,
  type Outlet,
  type RequestBody,
  readBody,
  send,
} from './exchange.ts';
import { DEFAULT_FAULTS, parseFaults, type SandboxFaults } from './faults.ts';
import { createKommoStore, KOMMO_PATH } from './kommo.ts';
import {
  graphError,
  graphFormLeadsAnswer,
  graphLeadAnswer,
  type MetaLead,
  normaliseMetaLead,
} from './meta-leads.ts';
import { lookupProspects } from './prospect-lookup.ts';
import { validateProspectBody } from './prospect-validation.ts';
import { SlidingWindowRateLimiter } from './rate-limit.ts';
import { RequestStats } from './stats.ts';
import {
  leadsCsv,
  normaliseTikTokLead,
  type TikTokSandboxLead,
  TikTokTasks,
  tiktokAnswer,
} from './tiktok-leads.ts';

export interface SandboxOptions {
  /** Default 0 (an ephemeral port). */
  port?: number;
  /** Default '127.0.0.1'. */
  host?: string;
  /** Basic auth user, default 'demo'. */
  username?: string;
  /** Basic auth password, default 'demo'. */
  password?: string;
  /**
   * More accepted credentials (the other upstream accounts of a local configuration). Each user
   * has its own rate-limit windows, as each EVO key has upstream.
   */
  users?: readonly { username: string; password: string }[];
  /** Demo debtors; default 180 rows over branches [1, 2, 3], seed 42. */
  debtors?: { count?: number; branches?: number[]; seed?: number };
  /**
   * Clock for dates: debtors' dates and daysLate, prospects' receivedAt, Meta leads' default
   * created_time. Default real time. Rate limits, latency and stats always use real time.
   */
  now?: () => Date;
}

export interface Sandbox {
  url: string;
  port: number;
  /** Replaces the extra credentials (`users`) accepted besides `username`/`password`. */
  acceptUsers(users: readonly { username: string; password: string }[]): void;
  close(): Promise<void>;
}

export { BODY_LIMIT_BYTES } from './exchange.ts';
export type { SandboxFaults } from './faults.ts';
export { type RequestRecord, type SandboxStats, STATS_CAPACITY } from './stats.ts';

export interface StoredProspect {
  idProspect: number;
  /** ISO 8601, from the sandbox's clock. */
  receivedAt: string;
  /** The body as received (field names as sent). */
  body: unknown;
}

/** First id handed out by `POST /api/v1/prospects`. */
export const FIRST_PROSPECT_ID = 100_001;

const UNAUTHORIZED = { status: 401, error: 'Unauthorized' };
const WWW_AUTHENTICATE = 'Basic realm="Evo-integracao"';
const ROUTE_PROSPECTS = '/api/v1/prospects';
const ROUTE_DEBTORS = '/api/v1/receivables/debtors';
const GRAPH_PATH = /^\/graph(?:\/v\d+\.\d+)?\/([^/]+)$/i;
const TIKTOK_TASK_PATH = '/tiktok/open_api/v1.3/page/lead/task';
const TIKTOK_DOWNLOAD_PATH = '/tiktok/open_api/v1.3/page/lead/task/download';
const GRAPH_FORM_LEADS_PATH = /^\/graph(?:\/v\d+\.\d+)?\/([^/]+)\/leads$/i;
const DAY_MS = 86_400_000;

/** The `email` of a JSON body, lower case; undefined when there is none. */
function emailIn(bytes: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(bytes.toString('utf8')) as { email?: unknown };
    return typeof parsed?.email === 'string' ? parsed.email.trim().toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

const debtorsSettingsSchema = z.strictObject({
  count: z.optional(z.int().check(z.gte(0), z.lte(MAX_DEMO_DEBTORS))),
  branches: z.optional(
    z.array(z.int().check(z.gte(1), z.lte(1_000_000))).check(z.minLength(1), z.maxLength(1_000)),
  ),
  seed: z.optional(z.int()),
});

function debtorsSettings(
  input: z.infer<typeof debtorsSettingsSchema>,
  base: Readonly<DemoDebtorsSettings>,
): DemoDebtorsSettings {
  return {
    count: input.count ?? base.count,
    branches: [...new Set(input.branches ?? base.branches)],
    seed: input.seed ?? base.seed,
  };
}

/** The media type of a Content-Type header, lower-cased, without parameters. */
function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Production's accepted request types: application/json, text/json, application/*+json. */
function isJsonMediaType(media: string): boolean {
  return (
    media === 'application/json' ||
    media === 'text/json' ||
    /^application\/[a-z0-9!#$&^_.-]+\+json$/.test(media)
  );
}

function sameSecret(actual: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(actual), digest(expected));
}

export async function createSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const username = options.username ?? 'demo';
  const password = options.password ?? 'demo';
  let users = [{ username, password }, ...(options.users ?? [])];
  const host = options.host ?? '127.0.0.1';
  const clock = options.now ?? (() => new Date());
  /** The configured clock, falling back to real time if it ever gives an invalid date. */
  const now = () => {
    const date = clock();
    return date instanceof Date && Number.isFinite(date.getTime()) ? date : new Date();
  };
  const initialSettings = debtorsSettingsSchema.safeParse(options.debtors ?? {});
  if (!initialSettings.success) {
    const details = describeIssues(initialSettings.error.issues, options.debtors);
    throw new Error(
      `Invalid sandbox debtors options: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`,
    );
  }
  const baseSettings = debtorsSettings(initialSettings.data, DEFAULT_DEBTORS_SETTINGS);

  // State.
  let faults: SandboxFaults = { ...DEFAULT_FAULTS };
  // Deterministic draws for errorRate; restarted whenever the faults are set.
  let errorDraw = mulberry32(1);
  const limiter = new SlidingWindowRateLimiter();
  const stats = new RequestStats();
  const delays = new Delays();
  const outlet: Outlet = { stats, delays };
  let prospects: StoredProspect[] = [];
  let takenCpfs = new Set<string>();
  let nextProspectId = FIRST_PROSPECT_ID;
  const metaLeads = new Map<string, MetaLead>();
  const tiktokLeads = new Map<string, TikTokSandboxLead>();
  const tiktokTasks = new TikTokTasks();
  const kommo = createKommoStore();
  let settings = baseSettings;
  let rowsCache: { day: number; rows: DemoDebtor[] } | undefined;

  function currentRows(): DemoDebtor[] {
    const at = now();
    const day = Math.floor(at.getTime() / DAY_MS);
    if (!rowsCache || rowsCache.day !== day) {
      // Regenerated once per day so that dates and daysLate stay relative to today.
      rowsCache = { day, rows: generateDebtors(settings, at) };
    }
    return rowsCache.rows;
  }

  // --- API routes -------------------------------------------------------------------------

  /** Auth, rate limit and the error fault; true when the request may proceed. */
  async function admit(ex: Exchange): Promise<boolean> {
    const credentials = basicCredentials(ex.req.headers.authorization);
    const valid =
      credentials !== undefined &&
      users
        .map(
          (user) =>
            sameSecret(credentials.username, user.username) &&
            sameSecret(credentials.password, user.password),
        )
        .includes(true);
    if (!credentials || !valid) {
      await json(ex, 401, UNAUTHORIZED, { 'www-authenticate': WWW_AUTHENTICATE });
      return false;
    }
    const admission = limiter.tryAcquire(credentials.username, performance.now(), faults);
    if (!admission.admitted) {
      await send(ex, 429, admission.message, {
        'content-type': 'text/plain',
        'retry-after': String(Math.max(1, Math.ceil(admission.retryAfterMs / 1000))),
      });
      return false;
    }
    if (faults.errorRate > 0 && errorDraw() < faults.errorRate) {
      await send(ex, faults.errorStatus, undefined);
      return false;
    }
    return true;
  }

  async function createProspect(ex: Exchange, body: RequestBody): Promise<void> {
    const email = emailIn(body.bytes);
    if (email !== undefined) ex.email = email;
    if (faults.postStatus !== null) {
      const status = faults.postStatus;
      // A blip of postCount POSTs: the last one restores normal answers.
      if (faults.postCount !== null) {
        faults.postCount -= 1;
        if (faults.postCount <= 0) faults = { ...faults, postStatus: null, postCount: null };
      }
      return send(ex, status, undefined);
    }
    if (body.tooLarge) {
      return json(ex, 413, { mensagens: ['O corpo da requisição excede o limite de 1 MB.'] });
    }
    const media = mediaType(ex.req.headers['content-type']);
    if (!isJsonMediaType(media)) {
      const shown = media ? `'${media.slice(0, 100)}'` : 'ausente';
      return json(ex, 415, {
        mensagens: [
          `Content-Type ${shown} não suportado: use application/json ou application/json-patch+json.`,
        ],
      });
    }
    const text = body.bytes.toString('utf8').replace(/^\uFEFF/, '');
    if (!text.trim()) {
      return json(ex, 400, {
        mensagens: ['O corpo da requisição é obrigatório (Prospect em JSON).'],
      });
    }
    let parsed: unknown;
    try {
      parsed = parseJson(text);
    } catch {
      return json(ex, 400, { mensagens: ['O corpo da requisição não é um JSON válido.'] });
    }
    const check = validateProspectBody(parsed, (cpf) => takenCpfs.has(cpf));
    if (check.messages.length) return json(ex, 400, { mensagens: check.messages });

    const idProspect = nextProspectId;
    nextProspectId += 1;
    prospects.push({ idProspect, receivedAt: now().toISOString(), body: parsed });
    if (check.cpfDigits) takenCpfs.add(check.cpfDigits);
    return faults.bareId ? json(ex, 200, idProspect) : json(ex, 200, { idProspect });
  }

  async function listDebtors(ex: Exchange, url: URL): Promise<void> {
    const query = parseDebtorsQuery(url.searchParams);
    if (!query.ok) return json(ex, 400, { mensagens: query.messages });
    return json(ex, 200, queryDebtors(currentRows(), query.query));
  }

  async function findProspects(ex: Exchange, url: URL): Promise<void> {
    if (faults.lookupForbidden) {
      return json(ex, 403, { status: 403, error: 'Forbidden' });
    }
    const found = lookupProspects(prospects, url.searchParams);
    if (!found.ok) return json(ex, 400, { mensagens: found.messages });
    return json(ex, 200, found.prospects);
  }

  type ApiRun = (ex: Exchange, url: URL, body: RequestBody) => Promise<void>;
  /** Path → method → handler. */
  const API_ROUTES = new Map<string, Record<string, ApiRun>>([
    [
      ROUTE_PROSPECTS,
      {
        POST: (ex, _url, body) => createProspect(ex, body),
        GET: (ex, url) => findProspects(ex, url),
      },
    ],
    [ROUTE_DEBTORS, { GET: (ex, url) => listDebtors(ex, url) }],
  ]);

  // --- Meta Graph -------------------------------------------------------------------------

  async function graphLookup(ex: Exchange, url: URL, rawId: string): Promise<void> {
    const graphJson = (status: number, value: unknown) =>
      send(ex, status, JSON.stringify(value), {
        'content-type': 'application/json; charset=UTF-8',
      });
    let id = rawId;
    try {
      id = decodeURIComponent(rawId);
    } catch {
      // Keep the raw segment; it cannot name a lead anyway.
    }
    const bearer = /^Bearer\s+(\S+)$/i.exec(ex.req.headers.authorization ?? '')?.[1];
    const token = url.searchParams.get('access_token') || bearer;
    if (!token) {
      return graphJson(
        400,
        graphError('An access token is required to request this resource.', 'OAuthException', 104),
      );
    }
    const lead = ex.method === 'GET' ? metaLeads.get(id) : undefined;
    if (!lead) {
      return graphJson(
        400,
        graphError(
          `Unsupported ${ex.method.toLowerCase()} request. Object with ID '${id}' does not exist, ` +
            'cannot be loaded due to missing permissions, or does not support this operation.',
          'GraphMethodException',
          100,
          33,
        ),
      );
    }
    const answer = graphLeadAnswer(lead, url.searchParams.get('fields'));
    return graphJson(answer.status, answer.body);
  }

  /** `GET /graph/{formId}/leads`: a form's leads, filtered by time and paged (meta-leads.ts). */
  async function graphFormLeads(ex: Exchange, url: URL, formId: string): Promise<void> {
    const graphJson = (status: number, value: unknown) =>
      send(ex, status, JSON.stringify(value), {
        'content-type': 'application/json; charset=UTF-8',
      });
    if (!url.searchParams.get('access_token')) {
      return graphJson(
        400,
        graphError('An access token is required to request this resource.', 'OAuthException', 104),
      );
    }
    if (ex.method !== 'GET') {
      return graphJson(400, graphError('Unsupported request.', 'GraphMethodException', 100));
    }
    const answer = graphFormLeadsAnswer([...metaLeads.values()], formId, url);
    return graphJson(answer.status, answer.body);
  }

  // --- TikTok API for Business -------------------------------------------------------------

  /** The lead download task and the download (tiktok-leads.ts). */
  async function tiktokLeadApi(ex: Exchange, url: URL, body: RequestBody, download: boolean) {
    const answer = (value: unknown) => json(ex, 200, value);
    const token = ex.req.headers['access-token'];
    if (typeof token !== 'string' || !token.trim()) {
      return answer(tiktokAnswer(40105, 'Access token is incorrect or has been revoked.'));
    }
    if (download) {
      if (ex.method !== 'GET') return json(ex, 405, { status: 405, error: 'Method Not Allowed' });
      const task = tiktokTasks.get(url.searchParams.get('task_id') ?? '');
      if (!task || task.advertiserId !== url.searchParams.get('advertiser_id')) {
        return answer(tiktokAnswer(40002, 'task_id: the task does not exist.'));
      }
      const leads = [...tiktokLeads.values()].filter(
        (lead) => lead.page_id === task.pageId && lead.advertiser_id === task.advertiserId,
      );
      return send(ex, 200, leadsCsv(leads), { 'content-type': 'text/csv; charset=utf-8' });
    }
    if (ex.method !== 'POST') return json(ex, 405, { status: 405, error: 'Method Not Allowed' });
    let input: unknown;
    try {
      input = parseJson(body.bytes.toString('utf8'));
    } catch {
      input = undefined;
    }
    const fields =
      typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
    const advertiserId = typeof fields.advertiser_id === 'string' ? fields.advertiser_id : '';
    const pageId = typeof fields.page_id === 'string' ? fields.page_id : '';
    if (!/^\d+$/.test(advertiserId) || !/^\d+$/.test(pageId)) {
      return answer(tiktokAnswer(40002, 'advertiser_id and page_id are required.'));
    }
    const given = typeof fields.task_id === 'string' ? fields.task_id : undefined;
    if (given !== undefined && !tiktokTasks.get(given)) {
      return answer(tiktokAnswer(40002, 'task_id: the task does not exist.'));
    }
    const taskId = given ?? tiktokTasks.create(pageId, advertiserId);
    return answer(tiktokAnswer(0, 'OK', { task_id: taskId, status: 'SUCCEED' }));
  }

  // --- /_sandbox control routes -------------------------------------------------------------

  /** JSON body of a control route; an empty body reads as `emptyAs`. */
  async function adminJson(
    ex: Exchange,
    body: RequestBody,
    emptyAs: unknown,
  ): Promise<{ value: unknown } | undefined> {
    if (body.tooLarge) {
      await adminError(ex, 413, 'payload_too_large', 'The body exceeds 1 MB.');
      return undefined;
    }
    const text = body.bytes.toString('utf8').replace(/^\uFEFF/, '');
    if (!text.trim()) return { value: emptyAs };
    try {
      return { value: parseJson(text) };
    } catch {
      await adminError(ex, 400, 'invalid_json', 'The body is not valid JSON.');
      return undefined;
    }
  }

  const ADMIN_ROUTES: Record<
    string,
    Record<string, (ex: Exchange, body: RequestBody) => Promise<void>>
  > = {
    '/_sandbox': {
      GET: (ex) =>
        json(ex, 200, {
          name: 'EVO sandbox upstream',
          auth: 'HTTP Basic on /api/* (default demo/demo); none on /_sandbox/* and /graph/*',
          routes: [
            'POST /api/v1/prospects',
            'GET /api/v1/prospects?email&cellphone&cpf&registerDateStart&take&skip',
            'GET /api/v1/receivables/debtors?take&skip&idBranch&debtStatus&memberStatus',
            'GET /graph/{leadgenId}?access_token&fields',
            'GET /graph/{formId}/leads?access_token&fields&filtering&limit&after',
            'GET /kommo/api/v4/leads/{id}?with=contacts, GET /kommo/api/v4/contacts/{id} (Bearer)',
            'GET|POST /_sandbox/faults',
            'GET|DELETE /_sandbox/prospects',
            'GET|DELETE /_sandbox/stats',
            'GET|POST /_sandbox/debtors',
            'GET|POST|DELETE /_sandbox/meta-leads',
            'POST /tiktok/open_api/v1.3/page/lead/task/ (Access-Token)',
            'GET /tiktok/open_api/v1.3/page/lead/task/download/?advertiser_id&task_id (Access-Token)',
            'GET|POST|DELETE /_sandbox/tiktok-leads',
            'GET|POST|DELETE /_sandbox/kommo-leads',
            'DELETE /_sandbox/rate-limit',
          ],
        }),
    },
    '/_sandbox/faults': {
      GET: (ex) => json(ex, 200, faults),
      POST: async (ex, body) => {
        const input = await adminJson(ex, body, {});
        if (!input) return;
        const parsed = parseFaults(input.value);
        if (!parsed.ok) {
          return adminError(ex, 400, 'invalid_faults', 'Invalid fault settings.', parsed.details);
        }
        faults = parsed.faults;
        errorDraw = mulberry32(1);
        return json(ex, 200, faults);
      },
    },
    '/_sandbox/prospects': {
      GET: (ex) => json(ex, 200, prospects),
      DELETE: (ex) => {
        // Ids keep counting up: a forgotten prospect's id is never handed out again.
        prospects = [];
        takenCpfs = new Set();
        return noContent(ex);
      },
    },
    '/_sandbox/stats': {
      GET: (ex) => json(ex, 200, stats.snapshot()),
      DELETE: (ex) => {
        stats.reset();
        return noContent(ex);
      },
    },
    '/_sandbox/debtors': {
      GET: (ex) => json(ex, 200, settings),
      POST: async (ex, body) => {
        const input = await adminJson(ex, body, {});
        if (!input) return;
        const parsed = debtorsSettingsSchema.safeParse(input.value);
        if (!parsed.success) {
          const details = describeIssues(parsed.error.issues, input.value);
          return adminError(ex, 400, 'invalid_debtors', 'Invalid debtors settings.', details);
        }
        // Keys left out fall back to the sandbox's initial settings.
        settings = debtorsSettings(parsed.data, baseSettings);
        rowsCache = undefined;
        currentRows();
        return json(ex, 200, settings);
      },
    },
    '/_sandbox/meta-leads': {
      GET: (ex) => json(ex, 200, [...metaLeads.values()]),
      POST: async (ex, body) => {
        const input = await adminJson(ex, body, undefined);
        if (!input) return;
        const registration = normaliseMetaLead(input.value, now());
        if (!registration.ok) {
          return adminError(
            ex,
            400,
            'invalid_meta_lead',
            'Invalid Meta lead.',
            registration.details,
          );
        }
        metaLeads.set(registration.lead.id, registration.lead);
        return json(ex, 201, registration.lead);
      },
      DELETE: (ex) => {
        metaLeads.clear();
        return noContent(ex);
      },
    },
    '/_sandbox/tiktok-leads': {
      GET: (ex) => json(ex, 200, [...tiktokLeads.values()]),
      POST: async (ex, body) => {
        const input = await adminJson(ex, body, undefined);
        if (!input) return;
        const registration = normaliseTikTokLead(input.value, now());
        if (!registration.ok) {
          return adminError(
            ex,
            400,
            'invalid_tiktok_lead',
            'Invalid TikTok lead.',
            registration.details,
          );
        }
        tiktokLeads.set(registration.lead.lead_id, registration.lead);
        return json(ex, 201, registration.lead);
      },
      DELETE: (ex) => {
        tiktokLeads.clear();
        tiktokTasks.clear();
        return noContent(ex);
      },
    },
    '/_sandbox/kommo-leads': {
      GET: (ex) => json(ex, 200, kommo.leads()),
      POST: async (ex, body) => {
        const input = await adminJson(ex, body, undefined);
        if (!input) return;
        const registration = kommo.register(input.value);
        if (!registration.ok) {
          return adminError(
            ex,
            400,
            'invalid_kommo_lead',
            'Invalid Kommo lead.',
            registration.details,
          );
        }
        return json(ex, 201, registration.lead);
      },
      DELETE: (ex) => {
        kommo.clear();
        return noContent(ex);
      },
    },
    '/_sandbox/rate-limit': {
      DELETE: (ex) => {
        limiter.reset();
        return noContent(ex);
      },
    },
  };

  // --- dispatch ---------------------------------------------------------------------------

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const ex: Exchange = {
      req,
      res,
      outlet,
      method,
      route: `${method} (unmatched)`,
      arrivedAt: Date.now(),
      latencyMs: 0,
      answered: false,
    };

    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    } catch {
      const body = await readBody(req);
      if (body.aborted) return;
      return json(ex, 400, { status: 400, error: 'Bad Request' }, { connection: 'close' });
    }
    const path = url.pathname.length > 1 ? url.pathname.replace(/\/$/, '') : url.pathname;
    const lower = path.toLowerCase();

    if (lower === '/_sandbox' || lower.startsWith('/_sandbox/')) {
      ex.route = undefined;
      const body = await readBody(req);
      if (body.aborted) return;
      const route = Object.hasOwn(ADMIN_ROUTES, lower) ? ADMIN_ROUTES[lower] : undefined;
      const run = route && Object.hasOwn(route, method) ? route[method] : undefined;
      if (!route) return json(ex, 404, { status: 404, error: 'Not Found' });
      if (!run) {
        return json(
          ex,
          405,
          { status: 405, error: 'Method Not Allowed' },
          {
            allow: Object.keys(route).join(', '),
          },
        );
      }
      return run(ex, body);
    }

    const api = lower.startsWith('/api/');
    if (api) {
      const known = API_ROUTES.get(lower);
      if (known) ex.route = `${method} ${lower}`;
      if (faults.outage) return destroy(ex);
      ex.latencyMs = faults.latencyMs;
      const body = await readBody(req);
      if (body.aborted) return;
      if (body.overflow) {
        return json(
          ex,
          413,
          { mensagens: ['O corpo da requisição excede o limite de 1 MB.'] },
          {
            connection: 'close',
          },
        );
      }
      if (!known) return json(ex, 404, { status: 404, error: 'Not Found' });
      const run = Object.hasOwn(known, method) ? known[method] : undefined;
      if (!run) {
        const allow = Object.keys(known).sort().join(', ');
        return json(ex, 405, { status: 405, error: 'Method Not Allowed' }, { allow });
      }
      if (!(await admit(ex))) return;
      return run(ex, url, body);
    }

    const body = await readBody(req);
    if (body.aborted) return;
    if (lower === TIKTOK_TASK_PATH || lower === TIKTOK_DOWNLOAD_PATH) {
      ex.route = `${method} ${lower}/`;
      return tiktokLeadApi(ex, url, body, lower === TIKTOK_DOWNLOAD_PATH);
    }
    const formLeads = GRAPH_FORM_LEADS_PATH.exec(path);
    if (formLeads?.[1]) {
      ex.route = `${method} /graph/{formId}/leads`;
      return graphFormLeads(ex, url, formLeads[1]);
    }
    const kommoPath = KOMMO_PATH.exec(path);
    if (kommoPath?.[1] && kommoPath[2]) {
      const entity = kommoPath[1].toLowerCase() as 'leads' | 'contacts';
      ex.route = `${method} /kommo/api/v4/${entity}/{id}`;
      if (method !== 'GET') return json(ex, 405, { status: 405, error: 'Method Not Allowed' });
      const withContacts = (url.searchParams.get('with') ?? '').split(',').includes('contacts');
      const answer = kommo.get(entity, kommoPath[2], withContacts, ex.req.headers.authorization);
      if (answer.body === undefined) return send(ex, answer.status, undefined);
      return send(ex, answer.status, JSON.stringify(answer.body), {
        'content-type': answer.status === 200 ? 'application/hal+json' : 'application/problem+json',
      });
    }
    const graph = GRAPH_PATH.exec(path);
    if (graph?.[1]) {
      ex.route = `${method} /graph/{id}`;
      return graphLookup(ex, url, graph[1]);
    }
    return json(ex, 404, { status: 404, error: 'Not Found' });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('[sandbox] unexpected error', error);
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': JSON_TYPE });
        res.end(JSON.stringify({ status: 500, error: 'Internal Server Error' }));
      }
    });
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code !== 'ECONNRESET' && socket.writable) {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    } else {
      socket.destroy();
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    acceptUsers(extra) {
      users = [{ username, password }, ...extra];
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        delays.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
