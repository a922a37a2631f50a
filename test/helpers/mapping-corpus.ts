/**
 * The mapping corpus (test/fixtures/mapping-corpus/*.json): real-shape lead payloads of every
 * source, each with the Prospect a careful person would have produced from it. Used by the
 * source tests (in process), the end-to-end test (through the gateway, test/e2e/) and the bench
 * (bench/mapping.ts), so it imports nothing from vitest.
 *
 * An entry:
 * ```json
 * { "description": "...",
 *   "shape": "documented" | "brazilian",   // the platform's documented payload, or a real-shape
 *                                           // Brazilian capture
 *   "source": "elementor",
 *   "profile": { "fieldMap": {...} },       // settings beyond the source's demo ones (optional)
 *   "request": { "contentType": "...", "body": "raw text" | "json": {...} },
 *   "graphLead": {...},                     // Meta only: what Graph answers for the lead
 *   "expected": { "outcome": "deliver" | "park" | "test",
 *                 "prospect": { "name", "lastName", "email", "ddi", "cellphone", "cpf",
 *                               "birthday", "gender" },   // exactly these; absent = absent
 *                 "notesInclude": [...], "notesExclude": [...] } }
 * ```
 * Requests are authenticated here the way each platform does it (demo secrets only): the token
 * in the URL, Meta's and Typeform's signatures, Webflow's timestamped signature (or the token of
 * a dashboard hook), Google's key inside the body, Basic auth for the Prospect API.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseConfig } from '../../functions/config/config-local.ts';
import type { Profile } from '../../functions/config/config-schema.ts';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import type { Prospect } from '../../functions/domain/prospect.ts';
import { completeKommoCapture } from '../../functions/sources/kommo.ts';
import { readGraphLead } from '../../functions/sources/meta/graph.ts';
import { completeMetaCapture } from '../../functions/sources/meta/index.ts';
import { adapterFor } from '../../functions/sources/registry.ts';
import type { IntakeRequest } from '../../functions/sources/source.ts';
import { basicHeader } from './abuse-kit.ts';
import { DEMO_CLIENTS, DEMO_SECRETS, mediaType, signWebflow } from './lead-fixtures.ts';
import { mapCapture } from './map-capture.ts';
import {
  googleFormsSignature,
  hubspotHeaders,
  MORE_SECRETS,
  tallySignatureOf,
} from './more-sources.ts';
import { metaSignature, PLATFORM_SECRETS, typeformSignature } from './platform-fixtures.ts';

/** The Prospect fields that come from the person: the ones the corpus states exactly. */
export const PERSON_FIELDS = [
  'name',
  'lastName',
  'email',
  'ddi',
  'cellphone',
  'cpf',
  'birthday',
  'gender',
] as const;
export type PersonFieldName = (typeof PERSON_FIELDS)[number];

export type Outcome = 'deliver' | 'park' | 'test';

export interface CorpusEntry {
  /** The file name without `.json`; also the entry's profile name. */
  id: string;
  description: string;
  shape: 'documented' | 'brazilian';
  source: Profile['source'];
  profile?: Record<string, unknown>;
  request: {
    contentType?: string;
    headers?: Record<string, string>;
    body?: string;
    json?: unknown;
  };
  graphLead?: Record<string, unknown>;
  /** Kommo only: what Kommo's API answers for the lead (its `id` is the webhook's) and its contact. */
  kommo?: { lead: Record<string, unknown>; contacts?: Record<string, unknown>[] };
  expected: {
    outcome: Outcome;
    prospect: Partial<Record<PersonFieldName, string>>;
    notesInclude?: string[];
    notesExclude?: string[];
  };
}

const ROOT = new URL('../fixtures/mapping-corpus/', import.meta.url);

/** Every corpus entry, by file name. */
export function loadCorpus(): CorpusEntry[] {
  return readdirSync(ROOT)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      id: file.slice(0, -'.json'.length),
      ...(JSON.parse(readFileSync(new URL(file, ROOT), 'utf8')) as Omit<CorpusEntry, 'id'>),
    }));
}

/** The profile the Prospect API answers with: the configuration's one `prospect` profile. */
export const PROSPECT_PROFILE = 'api';
/** Where the Meta profile's Graph lookups go: the local runtime points it at its sandbox. */
export const GRAPH_BASE_URL = 'http://127.0.0.1:4010/graph';
/** Where the Kommo profiles' API calls go: likewise the sandbox. */
export const KOMMO_API_BASE_URL = 'http://127.0.0.1:4010/kommo';
/** The URL HubSpot signs: the entry's own, on the gateway's default address. */
const hubspotUrl = (id: string) => `http://127.0.0.1:3000/leads/${id}`;
const KOMMO_ACCOUNT = { id: '30123456', subdomain: 'academiamovimento' };
const META_PAGE_ID = '153125381133';

/** The demo settings of a profile of that source. */
function sourceSettings(source: Profile['source'], id: string): Record<string, unknown> {
  switch (source) {
    case 'googleforms':
    case 'tally':
      return { secret: MORE_SECRETS[source] };
    case 'jotform':
    case 'wix':
      return { token: MORE_SECRETS[source] };
    case 'wordpress':
      return { token: MORE_SECRETS.wordpress, plugin: 'contact-form-7' };
    case 'hotmart':
      return { hottok: MORE_SECRETS.hotmart };
    case 'hubspot':
      return { secret: MORE_SECRETS.hubspot, url: hubspotUrl(id) };
    case 'kommo':
      return {
        token: MORE_SECRETS.kommo,
        accessToken: MORE_SECRETS.kommoAccessToken,
        apiBaseUrl: KOMMO_API_BASE_URL,
      };
    case 'form':
    case 'unbounce':
    case 'elementor':
      return { token: DEMO_SECRETS[source] };
    case 'rdstation':
      return { token: PLATFORM_SECRETS.rdstation };
    case 'webflow':
      return { secret: DEMO_SECRETS.webflow };
    case 'typeform':
      return { secret: PLATFORM_SECRETS.typeform };
    case 'google':
      return { key: PLATFORM_SECRETS.google };
    case 'meta':
      return {
        appSecret: PLATFORM_SECRETS.metaAppSecret,
        verifyToken: PLATFORM_SECRETS.metaVerifyToken,
        pageAccessToken: PLATFORM_SECRETS.metaPageToken,
        graphBaseUrl: GRAPH_BASE_URL,
      };
    default:
      return {};
  }
}

/** The name of an entry's profile (the Prospect API has one profile for every entry). */
export function profileName(entry: CorpusEntry): string {
  return entry.source === 'prospect' ? PROSPECT_PROFILE : entry.id;
}

/** A configuration with one profile per entry, for the local runtime or `parseConfig`. */
export function corpusConfig(
  entries: readonly CorpusEntry[],
  upstream: { maxPerSecond: number; maxPerMinute: number } = {
    maxPerSecond: 10,
    maxPerMinute: 600,
  },
) {
  const profiles: Record<string, unknown> = {};
  for (const entry of entries) {
    profiles[profileName(entry)] = {
      source: entry.source,
      ...sourceSettings(entry.source, entry.id),
      defaults: { idBranch: 1 },
      ...entry.profile,
    };
  }
  return {
    upstream: {
      baseUrl: 'http://127.0.0.1:4010',
      username: 'demo',
      password: 'demo',
      timeoutMs: 5000,
      partnerTokenField: 'tokenPartner',
      ...upstream,
    },
    clients: DEMO_CLIENTS.map((client) => ({ ...client, roles: [...client.roles] })),
    profiles,
  };
}

/** An HTTP request of an entry, for the gateway (`path` with its query) or in process. */
export interface CorpusRequest {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** Meta's `leadgen` webhook for the entry's Graph lead: ids only, as Meta sends it. */
function metaWebhook(graphLead: Record<string, unknown>, now: number): string {
  return JSON.stringify({
    object: 'page',
    entry: [
      {
        id: META_PAGE_ID,
        time: Math.floor(now / 1000),
        changes: [
          {
            field: 'leadgen',
            value: {
              leadgen_id: graphLead.id,
              page_id: META_PAGE_ID,
              form_id: graphLead.form_id,
              created_time: Math.floor(now / 1000),
            },
          },
        ],
      },
    ],
  });
}

/** Kommo's `leads[add]` webhook for the entry's lead: ids only, as Kommo sends it. */
function kommoWebhook(lead: Record<string, unknown>): string {
  const form = new URLSearchParams();
  form.set('leads[add][0][id]', String(lead.id));
  if (lead.status_id !== undefined) form.set('leads[add][0][status_id]', String(lead.status_id));
  if (lead.pipeline_id !== undefined)
    form.set('leads[add][0][pipeline_id]', String(lead.pipeline_id));
  form.set('account[id]', KOMMO_ACCOUNT.id);
  form.set('account[subdomain]', KOMMO_ACCOUNT.subdomain);
  return form.toString();
}

/** The request of an entry, authenticated as its platform does it, at time `now` (ms). */
export function corpusRequest(entry: CorpusEntry, now: number = Date.now()): CorpusRequest {
  const { request } = entry;
  const text =
    entry.source === 'meta'
      ? metaWebhook(entry.graphLead ?? {}, now)
      : entry.source === 'kommo' && entry.kommo
        ? kommoWebhook(entry.kommo.lead)
        : (request.body ?? JSON.stringify(request.json));
  const body = Buffer.from(text, 'utf8');
  const headers: Record<string, string> = {
    'content-type':
      request.contentType ??
      (entry.source === 'kommo' ? 'application/x-www-form-urlencoded' : 'application/json'),
    ...request.headers,
  };
  const token = (value: string) => `/leads/${entry.id}?${new URLSearchParams({ token: value })}`;
  switch (entry.source) {
    case 'form':
    case 'unbounce':
    case 'elementor':
      return { path: token(DEMO_SECRETS[entry.source]), headers, body };
    case 'rdstation':
      return { path: token(PLATFORM_SECRETS.rdstation), headers, body };
    case 'jotform':
    case 'kommo':
    case 'wordpress':
    case 'wix':
      return { path: token(MORE_SECRETS[entry.source]), headers, body };
    case 'googleforms':
      headers['x-lead-signature'] = googleFormsSignature(body);
      return { path: `/leads/${entry.id}`, headers, body };
    case 'tally':
      headers['tally-signature'] = tallySignatureOf(body);
      return { path: `/leads/${entry.id}`, headers, body };
    case 'hotmart':
      headers['x-hotmart-hottok'] = MORE_SECRETS.hotmart;
      return { path: `/leads/${entry.id}`, headers, body };
    case 'hubspot':
      Object.assign(headers, hubspotHeaders(body, hubspotUrl(entry.id), now));
      return { path: `/leads/${entry.id}`, headers, body };
    case 'webflow': {
      if (entry.profile?.auth === 'token')
        return { path: token(DEMO_SECRETS.webflow), headers, body };
      const signed = signWebflow(
        { method: 'POST', headers, query: {}, body, contentType: '', receivedAt: new Date(now) },
        DEMO_SECRETS.webflow,
        now,
      );
      return { path: `/leads/${entry.id}`, headers: signed.headers, body };
    }
    case 'typeform':
      headers['typeform-signature'] = typeformSignature(body, PLATFORM_SECRETS.typeform);
      return { path: `/leads/${entry.id}`, headers, body };
    case 'meta':
      headers['x-hub-signature-256'] = metaSignature(
        body,
        PLATFORM_SECRETS.metaAppSecret,
        'sha256',
      );
      return { path: `/leads/${entry.id}`, headers, body };
    case 'prospect': {
      const [client] = DEMO_CLIENTS;
      headers.authorization = basicHeader(client.username, client.password);
      return { path: '/api/v1/prospects', headers, body };
    }
    default:
      return { path: `/leads/${entry.id}`, headers, body };
  }
}

/** A corpus request as the intake sees it (what the gateway builds from the HTTP request). */
export function intakeRequestOf(request: CorpusRequest, receivedAt: Date): IntakeRequest {
  const url = new URL(request.path, 'http://127.0.0.1');
  const query: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) query[name] = [...(query[name] ?? []), value];
  return {
    method: 'POST',
    headers: request.headers,
    query,
    body: request.body,
    contentType: mediaType(request.headers['content-type']),
    receivedAt,
  };
}

/** What the mapping of an entry gave. */
export interface MappedEntry {
  outcome: Outcome | 'refused' | 'unreadable';
  prospect?: Prospect;
  detail?: string;
}

let profiles: Record<string, Profile> | undefined;
function profileOf(entry: CorpusEntry): Profile {
  profiles ??= parseConfig(corpusConfig(loadCorpus())).profiles;
  const profile = profiles[profileName(entry)];
  if (!profile) throw new Error(`no corpus profile for ${entry.id}`);
  return profile;
}

/**
 * An entry through its source and the mapping, in process, as intake and delivery do it: the
 * request authenticated and captured, Meta's capture completed with its Graph lead, the capture
 * mapped with the entry's profile; the outcome as the lead's first status would say it.
 */
export async function mapInProcess(
  entry: CorpusEntry,
  now: Date = new Date(),
): Promise<MappedEntry> {
  const profile = profileOf(entry);
  const adapter = adapterFor(profile);
  const request = intakeRequestOf(corpusRequest(entry, now.getTime()), now);
  const auth = adapter.authenticate(request, profile);
  if (!auth.ok) return { outcome: 'refused', detail: auth.code };
  const captured = await adapter.capture(request, profile);
  if ('problem' in captured) return { outcome: 'unreadable', detail: captured.problem };
  const [first] = captured.leads;
  if (!first || captured.leads.length !== 1) {
    return { outcome: 'unreadable', detail: `${captured.leads.length} leads` };
  }
  let capture: LeadCapture = first;
  if (capture.pending && entry.source === 'kommo') {
    if (!entry.kommo) return { outcome: 'unreadable', detail: 'a Kommo entry needs kommo' };
    const [contact] = entry.kommo.contacts ?? [];
    capture = completeKommoCapture(capture, {
      lead: entry.kommo.lead,
      ...(contact && { contact }),
    });
  } else if (capture.pending) {
    const graphLead = readGraphLead(entry.graphLead);
    if (!graphLead) return { outcome: 'unreadable', detail: 'graphLead is not a Graph lead' };
    capture = completeMetaCapture(capture, graphLead);
  }
  const mapped = mapCapture(capture, profile);
  const outcome: Outcome =
    capture.isTest && !profile.deliverTestLeads
      ? 'test'
      : mapped.missing.length
        ? 'park'
        : 'deliver';
  return { outcome, prospect: mapped.prospect };
}

/**
 * How a mapping differs from the entry's expectation: the outcome, each person field (exactly:
 * one the entry leaves out must be absent), and the notes fragments. Empty when it is exact.
 */
export function differences(
  entry: CorpusEntry,
  outcome: string,
  prospect: Record<string, unknown> | undefined,
): string[] {
  const found: string[] = [];
  const { expected } = entry;
  if (outcome !== expected.outcome) found.push(`outcome ${outcome}, expected ${expected.outcome}`);
  for (const field of PERSON_FIELDS) {
    const actual = prospect?.[field] ?? undefined;
    const wanted = expected.prospect[field];
    if ((actual ?? null) !== (wanted ?? null)) {
      found.push(`${field} ${JSON.stringify(actual)}, expected ${JSON.stringify(wanted)}`);
    }
  }
  const notes = typeof prospect?.notes === 'string' ? prospect.notes : '';
  for (const fragment of expected.notesInclude ?? []) {
    if (!notes.includes(fragment)) found.push(`notes lack ${JSON.stringify(fragment)}`);
  }
  for (const fragment of expected.notesExclude ?? []) {
    if (notes.includes(fragment)) found.push(`notes contain ${JSON.stringify(fragment)}`);
  }
  return found;
}
