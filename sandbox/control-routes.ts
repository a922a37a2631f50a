/**
 * The sandbox's control routes, `/_sandbox/*`: what a test or a person uses to set the sandbox
 * up and read what it saw. No auth (the sandbox listens on loopback only; never expose it), no
 * stats, no faults. Paths match case-insensitively and with a trailing slash; an unknown path is
 * 404, a method the path lacks 405 with `Allow`. Bodies are JSON (an empty body reads as `{}`
 * where a route has defaults); errors are `{error: {code, message, details}}`.
 *
 * | path                   | GET               | POST                          | DELETE        |
 * |------------------------|-------------------|-------------------------------|---------------|
 * | /_sandbox              | what it serves    |                               |               |
 * | /_sandbox/faults       | faults in force   | set them (faults.ts)          |               |
 * | /_sandbox/prospects    | stored prospects  |                               | forget them   |
 * | /_sandbox/stats        | request stats     |                               | reset them    |
 * | /_sandbox/debtors      | debtors settings  | set them (debtors-route.ts)   |               |
 * | /_sandbox/meta-leads   | registered leads  | register one (meta-leads.ts)  | forget them   |
 * | /_sandbox/tiktok-leads | registered leads  | register one (tiktok-leads.ts)| forget, tasks |
 * | /_sandbox/kommo-leads  | registered leads  | register one (kommo.ts)       | forget them   |
 * | /_sandbox/rate-limit   |                   |                               | empty windows |
 */
import { parseJson } from '../functions/domain/json.ts';
import { configureDebtors } from './debtors-route.ts';
import {
  adminError,
  type Exchange,
  json,
  methodNotAllowed,
  noContent,
  notFound,
  type RequestBody,
  readBody,
} from './exchange.ts';
import { parseFaults, setFaults } from './faults.ts';
import { normaliseMetaLead } from './meta-leads.ts';
import { forgetProspects } from './prospects-route.ts';
import type { SandboxState } from './state.ts';
import { normaliseTikTokLead } from './tiktok-leads.ts';

type ControlRun = (state: SandboxState, ex: Exchange, body: RequestBody) => Promise<void>;

/** Answers a request under `/_sandbox`; `lower` is its path, lower case, no trailing slash. */
export async function routeControl(
  state: SandboxState,
  ex: Exchange,
  lower: string,
): Promise<void> {
  ex.route = undefined;
  const body = await readBody(ex.req);
  if (body.aborted) return;
  const route = Object.hasOwn(CONTROL_ROUTES, lower) ? CONTROL_ROUTES[lower] : undefined;
  const run = route && Object.hasOwn(route, ex.method) ? route[ex.method] : undefined;
  if (!route) return notFound(ex);
  if (!run) return methodNotAllowed(ex, Object.keys(route).join(', '));
  return run(state, ex, body);
}

/** JSON body of a control route; an empty body reads as `emptyAs`. Undefined: answered 4xx. */
async function controlJson(
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

const SANDBOX_INDEX = {
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
};

/** Path → method → handler; the methods' order is the `Allow` header's. */
const CONTROL_ROUTES: Record<string, Record<string, ControlRun>> = {
  '/_sandbox': {
    GET: (_state, ex) => json(ex, 200, SANDBOX_INDEX),
  },
  '/_sandbox/faults': {
    GET: (state, ex) => json(ex, 200, state.faults),
    POST: async (state, ex, body) => {
      const input = await controlJson(ex, body, {});
      if (!input) return;
      const parsed = parseFaults(input.value);
      if (!parsed.ok) {
        return adminError(ex, 400, 'invalid_faults', 'Invalid fault settings.', parsed.details);
      }
      setFaults(state, parsed.faults);
      return json(ex, 200, state.faults);
    },
  },
  '/_sandbox/prospects': {
    GET: (state, ex) => json(ex, 200, state.prospects),
    DELETE: (state, ex) => {
      forgetProspects(state);
      return noContent(ex);
    },
  },
  '/_sandbox/stats': {
    GET: (state, ex) => json(ex, 200, state.stats.snapshot()),
    DELETE: (state, ex) => {
      state.stats.reset();
      return noContent(ex);
    },
  },
  '/_sandbox/debtors': {
    GET: (state, ex) => json(ex, 200, state.debtors.settings),
    POST: async (state, ex, body) => {
      const input = await controlJson(ex, body, {});
      if (!input) return;
      const parsed = configureDebtors(state, input.value);
      if (!parsed.ok) {
        return adminError(ex, 400, 'invalid_debtors', 'Invalid debtors settings.', parsed.details);
      }
      return json(ex, 200, parsed.settings);
    },
  },
  '/_sandbox/meta-leads': {
    GET: (state, ex) => json(ex, 200, [...state.metaLeads.values()]),
    POST: async (state, ex, body) => {
      const input = await controlJson(ex, body, undefined);
      if (!input) return;
      const registration = normaliseMetaLead(input.value, state.now());
      if (!registration.ok) {
        return adminError(ex, 400, 'invalid_meta_lead', 'Invalid Meta lead.', registration.details);
      }
      state.metaLeads.set(registration.lead.id, registration.lead);
      return json(ex, 201, registration.lead);
    },
    DELETE: (state, ex) => {
      state.metaLeads.clear();
      return noContent(ex);
    },
  },
  '/_sandbox/tiktok-leads': {
    GET: (state, ex) => json(ex, 200, [...state.tiktokLeads.values()]),
    POST: async (state, ex, body) => {
      const input = await controlJson(ex, body, undefined);
      if (!input) return;
      const registration = normaliseTikTokLead(input.value, state.now());
      if (!registration.ok) {
        const { details } = registration;
        return adminError(ex, 400, 'invalid_tiktok_lead', 'Invalid TikTok lead.', details);
      }
      state.tiktokLeads.set(registration.lead.lead_id, registration.lead);
      return json(ex, 201, registration.lead);
    },
    DELETE: (state, ex) => {
      state.tiktokLeads.clear();
      state.tiktokTasks.clear();
      return noContent(ex);
    },
  },
  '/_sandbox/kommo-leads': {
    GET: (state, ex) => json(ex, 200, state.kommo.leads()),
    POST: async (state, ex, body) => {
      const input = await controlJson(ex, body, undefined);
      if (!input) return;
      const registration = state.kommo.register(input.value);
      if (!registration.ok) {
        const { details } = registration;
        return adminError(ex, 400, 'invalid_kommo_lead', 'Invalid Kommo lead.', details);
      }
      return json(ex, 201, registration.lead);
    },
    DELETE: (state, ex) => {
      state.kommo.clear();
      return noContent(ex);
    },
  },
  '/_sandbox/rate-limit': {
    DELETE: (state, ex) => {
      state.limiter.reset();
      return noContent(ex);
    },
  },
};
