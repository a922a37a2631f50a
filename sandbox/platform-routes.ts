/**
 * The lead platforms' APIs the sources call at delivery and backfill, over the leads registered
 * with the control routes (control-routes.ts), without Basic auth, rate limits or faults:
 * - Meta Graph: `GET /graph/{leadgenId}` and `GET /graph/v{NN}.0/{leadgenId}` (a lead, with the
 *   optional `fields` selection), `GET /graph/{formId}/leads` (a form's leads, `filtering` on
 *   `time_created`, paged); Graph's errors (meta-leads.ts);
 * - TikTok API for Business: the lead download task and the CSV download (tiktok-leads.ts);
 * - Kommo API v4: `GET /kommo/api/v4/leads/{id}[?with=contacts]`, `GET .../contacts/{id}`
 *   (kommo.ts).
 * Anything else outside `/api` and `/_sandbox` is 404.
 */
import { parseJson } from '../functions/domain/json.ts';
import {
  type Exchange,
  json,
  methodNotAllowed,
  notFound,
  type RequestBody,
  readBody,
  send,
} from './exchange.ts';
import { KOMMO_PATH, type KommoStore } from './kommo.ts';
import { graphError, graphFormLeadsAnswer, graphLeadAnswer, type MetaLead } from './meta-leads.ts';
import {
  leadsCsv,
  type TikTokSandboxLead,
  type TikTokTasks,
  tiktokAnswer,
} from './tiktok-leads.ts';

/** The platforms' leads, by id. */
export interface PlatformRoom {
  readonly metaLeads: Map<string, MetaLead>;
  readonly tiktokLeads: Map<string, TikTokSandboxLead>;
  readonly tiktokTasks: TikTokTasks;
  readonly kommo: KommoStore;
}

const GRAPH_PATH = /^\/graph(?:\/v\d+\.\d+)?\/([^/]+)$/i;
const GRAPH_FORM_LEADS_PATH = /^\/graph(?:\/v\d+\.\d+)?\/([^/]+)\/leads$/i;
const TIKTOK_TASK_PATH = '/tiktok/open_api/v1.3/page/lead/task';
const TIKTOK_DOWNLOAD_PATH = '/tiktok/open_api/v1.3/page/lead/task/download';

/**
 * Answers a request outside `/api` and `/_sandbox`; `path` has no trailing slash, `lower` is it
 * in lower case.
 */
export async function routePlatform(
  room: PlatformRoom,
  ex: Exchange,
  url: URL,
  path: string,
  lower: string,
): Promise<void> {
  const body = await readBody(ex.req);
  if (body.aborted) return;
  const { method } = ex;
  if (lower === TIKTOK_TASK_PATH || lower === TIKTOK_DOWNLOAD_PATH) {
    ex.route = `${method} ${lower}/`;
    return tiktokLeadApi(room, ex, url, body, lower === TIKTOK_DOWNLOAD_PATH);
  }
  const formLeads = GRAPH_FORM_LEADS_PATH.exec(path);
  if (formLeads?.[1]) {
    ex.route = `${method} /graph/{formId}/leads`;
    return graphFormLeads(room, ex, url, formLeads[1]);
  }
  const kommoPath = KOMMO_PATH.exec(path);
  if (kommoPath?.[1] && kommoPath[2]) {
    const entity = kommoPath[1].toLowerCase() as 'leads' | 'contacts';
    ex.route = `${method} /kommo/api/v4/${entity}/{id}`;
    return kommoLookup(room, ex, url, entity, kommoPath[2]);
  }
  const graph = GRAPH_PATH.exec(path);
  if (graph?.[1]) {
    ex.route = `${method} /graph/{id}`;
    return graphLookup(room, ex, url, graph[1]);
  }
  return notFound(ex);
}

// --- Meta Graph ---------------------------------------------------------------------------

function graphJson(ex: Exchange, status: number, value: unknown): Promise<void> {
  return send(ex, status, JSON.stringify(value), {
    'content-type': 'application/json; charset=UTF-8',
  });
}

function graphNoToken(ex: Exchange): Promise<void> {
  return graphJson(
    ex,
    400,
    graphError('An access token is required to request this resource.', 'OAuthException', 104),
  );
}

/** `GET /graph/{leadgenId}`: the token as `access_token` or a Bearer header. */
async function graphLookup(room: PlatformRoom, ex: Exchange, url: URL, rawId: string) {
  let id = rawId;
  try {
    id = decodeURIComponent(rawId);
  } catch {
    // Keep the raw segment; it cannot name a lead anyway.
  }
  const bearer = /^Bearer\s+(\S+)$/i.exec(ex.req.headers.authorization ?? '')?.[1];
  const token = url.searchParams.get('access_token') || bearer;
  if (!token) return graphNoToken(ex);
  const lead = ex.method === 'GET' ? room.metaLeads.get(id) : undefined;
  if (!lead) {
    return graphJson(
      ex,
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
  return graphJson(ex, answer.status, answer.body);
}

/** `GET /graph/{formId}/leads`: a form's leads, filtered by time and paged (meta-leads.ts). */
async function graphFormLeads(room: PlatformRoom, ex: Exchange, url: URL, formId: string) {
  if (!url.searchParams.get('access_token')) return graphNoToken(ex);
  if (ex.method !== 'GET') {
    return graphJson(ex, 400, graphError('Unsupported request.', 'GraphMethodException', 100));
  }
  const answer = graphFormLeadsAnswer([...room.metaLeads.values()], formId, url);
  return graphJson(ex, answer.status, answer.body);
}

// --- TikTok API for Business --------------------------------------------------------------

/** The lead download task and the download (tiktok-leads.ts). */
async function tiktokLeadApi(
  room: PlatformRoom,
  ex: Exchange,
  url: URL,
  body: RequestBody,
  download: boolean,
) {
  const answer = (value: unknown) => json(ex, 200, value);
  const token = ex.req.headers['access-token'];
  if (typeof token !== 'string' || !token.trim()) {
    return answer(tiktokAnswer(40105, 'Access token is incorrect or has been revoked.'));
  }
  if (download) {
    if (ex.method !== 'GET') return methodNotAllowed(ex);
    const task = room.tiktokTasks.get(url.searchParams.get('task_id') ?? '');
    if (!task || task.advertiserId !== url.searchParams.get('advertiser_id')) {
      return answer(tiktokAnswer(40002, 'task_id: the task does not exist.'));
    }
    const leads = [...room.tiktokLeads.values()].filter(
      (lead) => lead.page_id === task.pageId && lead.advertiser_id === task.advertiserId,
    );
    return send(ex, 200, leadsCsv(leads), { 'content-type': 'text/csv; charset=utf-8' });
  }
  if (ex.method !== 'POST') return methodNotAllowed(ex);
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
  if (given !== undefined && !room.tiktokTasks.get(given)) {
    return answer(tiktokAnswer(40002, 'task_id: the task does not exist.'));
  }
  const taskId = given ?? room.tiktokTasks.create(pageId, advertiserId);
  return answer(tiktokAnswer(0, 'OK', { task_id: taskId, status: 'SUCCEED' }));
}

// --- Kommo API v4 -------------------------------------------------------------------------

/** `GET /kommo/api/v4/{leads|contacts}/{id}`: Kommo's JSON (HAL), problem+json or 204. */
async function kommoLookup(
  room: PlatformRoom,
  ex: Exchange,
  url: URL,
  entity: 'leads' | 'contacts',
  id: string,
) {
  if (ex.method !== 'GET') return methodNotAllowed(ex);
  const withContacts = (url.searchParams.get('with') ?? '').split(',').includes('contacts');
  const answer = room.kommo.get(entity, id, withContacts, ex.req.headers.authorization);
  if (answer.body === undefined) return send(ex, answer.status, undefined);
  return send(ex, answer.status, JSON.stringify(answer.body), {
    'content-type': answer.status === 200 ? 'application/hal+json' : 'application/problem+json',
  });
}
