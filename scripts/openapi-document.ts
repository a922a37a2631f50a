/**
 * The gateway's OpenAPI 3.1 document, built from the route table (functions/kernel/routes.ts)
 * and the zod schemas of scripts/openapi-schemas.ts (zod's own JSON Schema output). Every route
 * of the table needs an entry in OPERATIONS and every entry a route: a route added to the table
 * without its description makes `buildOpenApiDocument()` throw (and `npm run openapi` and the
 * tests fail) until it has one. The lead sources need nothing here: `POST /leads/{profile}` gets
 * each source's authentication, body schemas, answer and security schemes from its own `docs`
 * (functions/sources/docs.ts), for every source of the registry. `npm run openapi` writes
 * docs/openapi.json, which `GET /openapi.json` serves.
 */
import * as z from 'zod/mini';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT, PUBLIC_STATUSES } from '../functions/admin/admin.ts';
import { DEBT_STATUS, MAX_DEBTORS_PAGE, MEMBER_STATUS } from '../functions/domain/debtors.ts';
import { BASIC_AUTH, ROUTES, type RouteSpec } from '../functions/kernel/routes.ts';
import {
  DEFAULT_REPORT_TAKE,
  MAX_REPORT_TAKE,
  SORT_FIELDS,
} from '../functions/report/serve/report-json.ts';
import type { BodySchema, SourceApiDoc, Json as SourceJson } from '../functions/sources/docs.ts';
import { SOURCES } from '../functions/sources/registry.ts';
import type { Source } from '../functions/sources/source.ts';
import pkg from '../package.json' with { type: 'json' };
import {
  adminLeadDetailSchema,
  backfillRequest,
  backfillResultSchema,
  type ComponentMeta,
  components,
  debtorsListComponent,
  debtorsReportSchema,
  erasureRequestSchema,
  erasureResultSchema,
  errorSchema,
  healthSchema,
  leadAcceptedSchema,
  leadCorrectionSchema,
  leadListSchema,
  leadPreviewSchema,
  leadRequeuedSchema,
  namedSchemas,
  prospectCreatedAnswer,
  prospectErasedSchema,
  prospectPendingSchema,
  prospectRejectedSchema,
  prospectRequestSchema,
  refreshRequestedSchema,
  replayResultSchema,
  setupKitSchema,
  testLeadSchema,
  upstreamHealthSchema,
} from './openapi-schemas.ts';

type Json = Record<string, unknown>;

/** `#/components/schemas/<Name>` of a named schema. */
function ref(schema: z.core.$ZodType): Json {
  const meta = components.get(schema);
  if (!meta) throw new Error('schema has no component name (scripts/openapi-schemas.ts)');
  return { $ref: `#/components/schemas/${meta.id}` };
}

/** An inline schema (parameters, small bodies), without the `$schema` keyword. */
function inline(schema: z.core.$ZodType): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { unrepresentable: 'any' }) as Json;
  return rest;
}

const JSON_TYPE = 'application/json';

function jsonContent(schema: Json): Json {
  return { [JSON_TYPE]: { schema } };
}

function answer(description: string, schema?: Json, headers?: Json): Json {
  return {
    description,
    ...(schema && { content: jsonContent(schema) }),
    ...(headers && { headers }),
  };
}

const problem = (description: string) => answer(description, ref(errorSchema));
const RETRY_AFTER = { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } };

// ---------------------------------------------------------------------------------------------
// Parameters

function query(name: string, description: string, schema: z.core.$ZodType, required = false): Json {
  return { name, in: 'query', required, description, schema: inline(schema) };
}

function pathParameter(name: string, description: string): Json {
  return { name, in: 'path', required: true, description, schema: { type: 'string' } };
}

const PROFILE = pathParameter(
  'profile',
  'The profile name of the configuration (`profiles.<name>`): which source, which keys, which defaults.',
);
const LEAD_ID = pathParameter('leadId', 'A lead id: `ld_` followed by 22 characters.');
const SCRIPT_FILE = pathParameter(
  'file',
  'The script’s name with its content hash (`console.<16 hex>.js`), as the page links it.',
);
/** A page's script (kernel/script-asset.ts): the hashed name the page links, cached a year. */
function pageScript(operationId: string, page: string, tag: string): Operation {
  return {
    operationId,
    summary: `The script of ${page} (no data: code, by its hashed name)`,
    description:
      'Cached for a year (`Cache-Control: public, max-age=31536000, immutable`): the name changes with the text. Any other name is a 404.',
    tags: [tag],
    parameters: [SCRIPT_FILE],
    responses: {
      '200': {
        description: 'The script.',
        content: { 'text/javascript': { schema: { type: 'string' } } },
      },
      '404': problem('No script of that name in this release (`not_found`).'),
    },
  };
}
const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'The ETag of an earlier answer: 304 while the snapshot and the query are the same.',
  schema: { type: 'string' },
};

const statusCodes = (vocabulary: Record<string, number>) =>
  Object.entries(vocabulary)
    .map(([name, code]) => `${code} or ${name}`)
    .join(', ');

const REPORT_FILTERS: Json[] = [
  query('branch', 'Branch ids, comma-separated or repeated.', z.string()),
  query('debtStatus', 'Status names, comma-separated or repeated.', z.string()),
  query('memberStatus', 'Status names, comma-separated or repeated.', z.string()),
  query('daysOverdueMin', 'Open debts at least this many days past due.', z.int()),
  query('daysOverdueMax', 'Open debts at most this many days past due.', z.int()),
  query('dueFrom', 'Due on or after this day (`YYYY-MM-DD`).', z.iso.date()),
  query('dueTo', 'Due on or before this day (`YYYY-MM-DD`).', z.iso.date()),
  query('q', 'Name search: every word must appear, ignoring case and accents.', z.string()),
  query(
    'sort',
    `Comma-separated fields, \`-\` first for descending: ${SORT_FIELDS.join(', ')}.`,
    z.string(),
  ),
];

// ---------------------------------------------------------------------------------------------
// Lead sources: each declares its row of POST /leads/{profile} (`docs` in defineSource,
// functions/sources/docs.ts); the document is built from the registry's list alone.

const LEAD_ROUTE = 'POST /leads/{profile}';
const URLENCODED = 'application/x-www-form-urlencoded';

/** A source as the document reads it (a `Source` of the registry). */
export type DocumentedSource = Pick<Source, 'name' | 'label' | 'docs'>;

interface SourceRow {
  name: string;
  label: string;
  api: SourceApiDoc;
}

function sourceRows(sources: readonly DocumentedSource[]): SourceRow[] {
  return sources.map((source) => ({
    name: source.name,
    label: source.label,
    api: source.docs().api,
  }));
}

/** A body's schema: a reference to its component, or the JSON Schema the source wrote inline. */
function bodyJson(body: BodySchema): Json {
  return 'inline' in body ? { ...body.inline } : { $ref: `#/components/schemas/${body.id}` };
}

function sourceTable(rows: readonly SourceRow[]): string {
  const lines = rows.map(
    ({ name, label, api }) =>
      `| \`${name}\` (${label}) | ${api.authentication} | ${Object.keys(api.bodies).join(', ')} | ${api.answer} |`,
  );
  return ['| source | authentication | body | answer |', '|---|---|---|---|', ...lines].join('\n');
}

/** The request body of `POST /leads/{profile}`: every source's, by media type. */
function leadBodies(rows: readonly SourceRow[]): Json {
  const byType = new Map<string, Json[]>();
  for (const { api } of rows) {
    for (const [type, body] of Object.entries(api.bodies)) {
      const schema = bodyJson(body);
      const list = byType.get(type) ?? [];
      if (!list.some((known) => JSON.stringify(known) === JSON.stringify(schema))) {
        list.push(schema);
      }
      byType.set(type, list);
    }
  }
  return Object.fromEntries(
    [...byType].map(([type, schemas]) => [
      type,
      { schema: schemas.length === 1 ? schemas[0] : { anyOf: schemas } },
    ]),
  );
}

function leadSecurity(rows: readonly SourceRow[]): Json[] {
  const schemes = [...new Set(rows.flatMap(({ api }) => api.security))];
  const keyInBody = rows.some(({ api }) => api.security.length === 0);
  // `{}`: a source whose key travels in the body (Google) needs no scheme OpenAPI can express.
  return [...schemes.map((scheme) => ({ [scheme]: [] })), ...(keyInBody ? [{}] : [])];
}

/** The gateway's own security scheme; the sources declare theirs. */
const GATEWAY_SCHEMES: Record<string, SourceJson> = {
  basicAuth: {
    type: 'http',
    scheme: 'basic',
    description: 'An API client of the configuration (`clients`) with the route’s role.',
  },
};

/**
 * The gateway's scheme and the sources', in the registry's order. Throws when a source uses a
 * scheme it does not declare, or declares one unlike another source's of the same name.
 */
function securitySchemes(rows: readonly SourceRow[]): Json {
  const schemes: Record<string, SourceJson> = { ...GATEWAY_SCHEMES };
  for (const { name, api } of rows) {
    for (const [scheme, definition] of Object.entries(api.schemes ?? {})) {
      const known = schemes[scheme];
      if (known && JSON.stringify(known) !== JSON.stringify(definition)) {
        throw new Error(`source ${name} declares the security scheme ${scheme} unlike before`);
      }
      schemes[scheme] = definition;
    }
    for (const scheme of api.security) {
      if (!(scheme in GATEWAY_SCHEMES) && !api.schemes?.[scheme]) {
        throw new Error(
          `source ${name} uses the security scheme ${scheme} but does not declare it`,
        );
      }
    }
  }
  return schemes;
}

/**
 * The components of one document: the schemas named in openapi-schemas.ts, then the sources'
 * bodies. Sources that share a body (the form fields) name it alike; a name given to two
 * different descriptions throws.
 */
function componentRegistry(rows: readonly SourceRow[]): z.core.$ZodRegistry<ComponentMeta> {
  const registry = z.registry<ComponentMeta>();
  const described = new Map<string, string>();
  const add = (schema: z.core.$ZodType, meta: ComponentMeta, by: string) => {
    const known = described.get(meta.id);
    if (known === undefined) {
      registry.add(schema, meta);
      described.set(meta.id, meta.description);
    } else if (known !== meta.description) {
      throw new Error(`${by} names a schema ${meta.id}, but another has that name`);
    }
  };
  for (const schema of namedSchemas) {
    add(schema, components.get(schema) as ComponentMeta, 'scripts/openapi-schemas.ts');
  }
  for (const { name, api } of rows) {
    for (const body of Object.values(api.bodies)) {
      if ('id' in body) add(body.schema, body, `source ${name}`);
    }
  }
  return registry;
}

// ---------------------------------------------------------------------------------------------
// One description per route of the table

interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: Json[];
  requestBody?: Json;
  responses: Record<string, Json>;
  /** Routes without `auth`: who may call it (`[]`: anyone). Basic routes get basicAuth. */
  security?: Json[];
}

/** The gateway's own refusals on the Basic routes, added to each of them. */
const BASIC_REFUSALS: Record<string, Json> = {
  '401': { $ref: '#/components/responses/Unauthorized' },
  '403': problem('The client lacks the route’s role (`forbidden`).'),
  '429': { $ref: '#/components/responses/TooManyRequests' },
};

/** The guard's refusal of a body that is not JSON, on the routes that read JSON (`body: 'json'`). */
const NOT_JSON = problem(
  'The body is not labelled JSON: send `Content-Type: application/json` (or another `application/*+json` type; `charset=utf-8` or none) (`unsupported_media_type`).',
);

const SERVICE_UNAVAILABLE = answer(
  'A dependency (store, queue) could not be reached: try again after Retry-After.',
  ref(errorSchema),
  RETRY_AFTER,
);

const OPERATIONS: Record<string, Operation> = {
  'GET /health': {
    operationId: 'health',
    summary: 'Whether the gateway is up',
    description: 'Answered by API Gateway itself; for probes and monitors.',
    tags: ['gateway'],
    security: [],
    responses: {
      '200': answer('Up.', ref(healthSchema)),
      '503': answer('Starting (local runtime only).', ref(healthSchema)),
    },
  },
  'GET /openapi.json': {
    operationId: 'openapi',
    summary: 'This document',
    tags: ['gateway'],
    security: [],
    responses: {
      '200': answer('The OpenAPI 3.1 document of this API.', { type: 'object' }),
    },
  },
  [LEAD_ROUTE]: {
    operationId: 'postLead',
    summary: 'Receive leads from a form, a form builder or an ad platform',
    // The sources' table, their bodies and their security are added per document (leadOperation).
    description:
      'The profile’s source decides how the request is authenticated, read and answered (docs/sources.md). Each lead is recorded before the answer and delivered to the upstream later; a redelivery of the same lead answers with the same lead id. Bodies up to 256 KB.',
    tags: ['intake'],
    parameters: [
      PROFILE,
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: 'Forms and the Prospect API: the same key is the same lead (24 hours).',
        schema: { type: 'string', maxLength: 255 },
      },
    ],
    requestBody: { required: true, content: {} },
    security: [],
    responses: {
      '200': answer('Accepted (ad platforms and form builders).', {
        anyOf: [ref(leadAcceptedSchema), { type: 'object', maxProperties: 0 }],
      }),
      '202': answer('Accepted (forms, the Prospect source).', ref(leadAcceptedSchema)),
      '303': answer('A plain HTML form of a profile with `redirectUrl`: go there.', undefined, {
        Location: { schema: { type: 'string', format: 'uri' } },
      }),
      '400': problem('The body cannot be read as this source’s payload (`invalid_body`).'),
      '401': problem('No credentials (`missing_token`, `missing_signature`, `missing_key`...).'),
      '403': problem('Wrong credentials (`invalid_token`, `invalid_signature`...).'),
      '404': problem('No such profile (`unknown_profile`).'),
      '413': problem('The body is over 256 KB (`body_too_large`).'),
      '429': { $ref: '#/components/responses/TooManyRequests' },
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'GET /leads/{profile}': {
    operationId: 'leadHandshake',
    summary: 'Meta’s webhook subscription handshake',
    description:
      'Only for a profile of source `meta`: echoes `hub.challenge` when `hub.verify_token` is the profile’s verify token. Other sources answer 405.',
    tags: ['intake'],
    security: [],
    parameters: [
      PROFILE,
      query('hub.mode', 'Always `subscribe`.', z.literal('subscribe'), true),
      query('hub.verify_token', 'The profile’s `verifyToken`.', z.string(), true),
      query('hub.challenge', 'Echoed back.', z.string(), true),
    ],
    responses: {
      '200': {
        description: 'The challenge, as text.',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
      '403': problem('The verify token or the mode is wrong.'),
      '404': problem('No such profile.'),
      '405': problem('The profile’s source has no handshake.'),
    },
  },
  'OPTIONS /leads/{profile}': {
    operationId: 'leadPreflight',
    summary: 'CORS preflight of a landing page',
    tags: ['intake'],
    security: [],
    parameters: [
      PROFILE,
      {
        name: 'Origin',
        in: 'header',
        required: true,
        description: 'One of the profile’s `allowedOrigins`.',
        schema: { type: 'string' },
      },
    ],
    responses: {
      '204': {
        description: 'Allowed: `Access-Control-Allow-Origin`, `-Methods`, `-Headers`, `-Max-Age`.',
      },
      '403': problem('The origin is not one of the profile’s (`origin_not_allowed`).'),
      '404': problem('No such profile.'),
    },
  },
  'POST /api/v1/prospects': {
    operationId: 'createProspect',
    summary: 'Create a prospect, as the upstream’s own operation',
    description:
      'The upstream’s create-prospect body. The lead is recorded, then the answer waits up to 8 seconds for its delivery: 200 with the upstream’s id when delivered in time, else 202 (it is still delivered). A retry with the same body (or `Idempotency-Key`) from the same client is the same lead; keys and bodies are scoped to the client that sent them, and a key is bound to its body.',
    tags: ['intake'],
    parameters: [
      query(
        'upstream',
        'The account the Prospect goes to (default: the client’s only account, else `default`).',
        z.string(),
      ),
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'The same key from the same client with the same body is the same prospect (24 hours); with another body it is refused (422 `idempotency_key_reused`). Another client’s key is unrelated.',
        schema: { type: 'string', maxLength: 255 },
      },
    ],
    requestBody: {
      required: true,
      content: {
        [JSON_TYPE]: { schema: ref(prospectRequestSchema) },
        'application/json-patch+json': { schema: ref(prospectRequestSchema) },
      },
    },
    responses: {
      '200': answer(
        'Delivered: the upstream’s prospect id; or a person erased on request (`personal_data_erased`): nothing stored or created.',
        { anyOf: [ref(prospectCreatedAnswer), ref(prospectErasedSchema)] },
      ),
      '202': answer(
        'Recorded, not delivered within the wait (or parked, dead, test).',
        ref(prospectPendingSchema),
      ),
      '400': answer(
        'The body is not a Prospect (`invalid_body`), the upstream refused it (`rejected_upstream`, with the lead id), `?upstream=` names no account this client may post to (`unknown_upstream`, the same for an account that does not exist), or the client sees several accounts and named none (`upstream_required`).',
        { anyOf: [ref(errorSchema), ref(prospectRejectedSchema)] },
      ),
      '404': problem(
        'The chosen account has no profile of source `prospect` (`no_prospect_profile`).',
      ),
      '413': problem('The body is over 256 KB.'),
      '422': problem(
        'This client already used the `Idempotency-Key` for a different Prospect within 24 hours (`idempotency_key_reused`); nothing was stored.',
      ),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'GET /api/v1/receivables/debtors': {
    operationId: 'listDebtors',
    summary: 'The debtors list, as the upstream’s own operation, from the stored snapshot',
    description:
      'The upstream’s parameters with its meaning (names case-insensitive, empty values absent, `take` above 50 clamped to 50), answered from the snapshot: never a call upstream.',
    tags: ['report'],
    parameters: [
      query('idBranch', 'A branch id.', z.int()),
      query('debtStatus', `${statusCodes(DEBT_STATUS)}.`, z.string()),
      query('memberStatus', `${statusCodes(MEMBER_STATUS)}.`, z.string()),
      query('take', `Page size, at most ${MAX_DEBTORS_PAGE}.`, z.int().check(z.nonnegative())),
      query('skip', 'Rows to skip.', z.int().check(z.nonnegative())),
      IF_NONE_MATCH,
    ],
    responses: {
      '200': answer('One page of the filtered debtors.', ref(debtorsListComponent)),
      '304': { description: 'Not modified (If-None-Match).' },
      '400': problem('An invalid parameter (`invalid_query`), or an answer too large.'),
      '503': answer(
        'No snapshot yet (`report_not_ready`) or the store failed: retry after Retry-After.',
        ref(errorSchema),
        RETRY_AFTER,
      ),
    },
  },
  'GET /reports/debtors': {
    operationId: 'debtorsReport',
    summary: 'The debtors report as JSON',
    tags: ['report'],
    parameters: [
      ...REPORT_FILTERS,
      query(
        'take',
        `Rows per page (default ${DEFAULT_REPORT_TAKE}, at most ${MAX_REPORT_TAKE}).`,
        z.int().check(z.minimum(0), z.maximum(MAX_REPORT_TAKE)),
      ),
      query('skip', 'Rows to skip.', z.int().check(z.nonnegative())),
      IF_NONE_MATCH,
    ],
    responses: {
      '200': answer('The report.', ref(debtorsReportSchema)),
      '304': { description: 'Not modified (If-None-Match).' },
      '400': problem('An unknown or invalid parameter (`invalid_query`), one detail per field.'),
      '503': answer('No snapshot yet, or the store failed.', ref(errorSchema), RETRY_AFTER),
    },
  },
  'GET /reports/debtors.csv': {
    operationId: 'debtorsCsv',
    summary: 'The debtors report as CSV',
    tags: ['report'],
    parameters: [
      ...REPORT_FILTERS,
      query('take', 'Rows per file; the whole report when absent.', z.int().check(z.nonnegative())),
      query('skip', 'Rows to skip.', z.int().check(z.nonnegative())),
      query(
        'dialect',
        '`br` (`;`, decimal comma; default) or `intl` (`,`, decimal point).',
        z.enum(['br', 'intl']),
      ),
      IF_NONE_MATCH,
    ],
    responses: {
      '200': {
        description: 'The CSV file (`Content-Disposition: attachment`, `X-Total-Count`).',
        content: { 'text/csv': { schema: { type: 'string' } } },
      },
      '304': { description: 'Not modified (If-None-Match).' },
      '400': problem('An invalid parameter, or a CSV too large for one answer (`csv_too_large`).'),
      '503': answer('No snapshot yet, or the store failed.', ref(errorSchema), RETRY_AFTER),
    },
  },
  'GET /reports/debtors.html': {
    operationId: 'debtorsDashboard',
    summary: 'The debtors dashboard, a page for people',
    tags: ['report'],
    parameters: [IF_NONE_MATCH],
    responses: {
      '200': {
        description: 'The dashboard.',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
      '304': { description: 'Not modified (If-None-Match).' },
      '503': answer('No snapshot yet, or the store failed.', ref(errorSchema), RETRY_AFTER),
    },
  },
  'GET /reports/assets/{file}': pageScript('dashboardScript', 'the debtors dashboard', 'report'),
  'POST /admin/reports/debtors/refresh': {
    operationId: 'refreshDebtors',
    summary: 'Ask for a refresh of the debtors snapshot now',
    tags: ['admin'],
    responses: {
      '202': answer('Queued.', ref(refreshRequestedSchema)),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'GET /admin/leads/{leadId}': {
    operationId: 'getLead',
    summary: 'One lead: its status and why, what the person sent, the Prospect it became',
    tags: ['admin'],
    parameters: [LEAD_ID],
    responses: {
      '200': answer('The lead.', ref(adminLeadDetailSchema)),
      '400': problem('Not a lead id (`invalid_lead_id`).'),
      '404': problem('No such lead (`lead_not_found`).'),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'GET /admin/leads': {
    operationId: 'listLeads',
    summary: 'Leads: the most recent first, or those of a status oldest first',
    description:
      'Without `status`, or with any of `profile`, `q`, `since`, `until`, `order`: every status merged, newest first (the console’s list), narrowed by profile, period and a search over name, e-mail and phone. With `status` alone: that status, oldest first.',
    tags: ['admin'],
    parameters: [
      query('status', 'Which leads.', z.enum(PUBLIC_STATUSES as [string, ...string[]])),
      query('profile', 'Only this profile’s leads.', z.string()),
      query('q', 'Search: words of a name or e-mail, or a phone’s digits.', z.string()),
      query('since', 'Received at or after (a date or an ISO 8601 instant).', z.string()),
      query(
        'until',
        'Received before (an ISO 8601 instant; a date includes that day).',
        z.string(),
      ),
      query('order', '`newest` (default) or `oldest` first.', z.enum(['newest', 'oldest'])),
      query(
        'limit',
        `Leads per page (default ${DEFAULT_LIST_LIMIT}).`,
        z.int().check(z.minimum(1), z.maximum(MAX_LIST_LIMIT)),
      ),
      query('cursor', 'The previous page’s `cursor`.', z.string()),
    ],
    responses: {
      '200': answer('One page.', ref(leadListSchema)),
      '400': problem(
        'An invalid parameter (`invalid_status`, `invalid_limit`, `invalid_query`...).',
      ),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'PATCH /admin/leads/{leadId}': {
    operationId: 'correctLead',
    summary:
      'Correct a parked, rejected, dead or test lead’s fields (then retry it), or move a lead to another profile',
    description:
      'A browser must send the console’s `X-CSRF-Token` and come from this site (docs/operations.md).',
    tags: ['admin'],
    parameters: [LEAD_ID],
    requestBody: { required: true, content: jsonContent(ref(leadCorrectionSchema)) },
    responses: {
      '200': answer(
        'The lead as corrected; `missing`: what it still lacks.',
        ref(adminLeadDetailSchema),
      ),
      '400': problem(
        'Not JSON, or fields that cannot be used (`invalid_prospect`, one detail each).',
      ),
      '403': problem(
        'A browser request from another site or without the token (`cross_site_refused`); a branch or profile outside the scoped operator’s scope (`outside_scope`, nothing changed).',
      ),
      '404': problem('No such lead.'),
      '409': problem(
        'Not correctable now (`not_correctable`), its profile is gone (`unknown_profile`: move it), the profile named has another source (`other_source`), or it changed meanwhile (`conflict`).',
      ),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'GET /admin/leads.csv': {
    operationId: 'exportLeads',
    summary: 'Leads of a status (parked by default) as a CSV for a sales team',
    tags: ['admin'],
    parameters: [
      query(
        'status',
        'Which leads (default `parked`).',
        z.enum(PUBLIC_STATUSES as [string, ...string[]]),
      ),
      query('profile', 'Only this profile’s leads.', z.string()),
      query('since', 'Received at or after.', z.string()),
      query('until', 'Received before.', z.string()),
    ],
    responses: {
      '200': {
        description: 'The CSV (`;`, UTF-8 with BOM, Portuguese headers: Excel-ready).',
        content: { 'text/csv': { schema: { type: 'string' } } },
      },
      '400': problem('An invalid parameter.'),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'GET /admin': {
    operationId: 'operatorConsole',
    summary: 'The operator console, a page for people (also at /admin/)',
    tags: ['admin'],
    responses: {
      '200': {
        description: 'The console.',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
    },
  },
  'GET /admin/assets/{file}': pageScript('consoleScript', 'the operator console', 'admin'),
  'POST /admin/preview/{profile}': {
    operationId: 'previewLead',
    summary: 'Map a body as the profile’s platform would send it; store and deliver nothing',
    tags: ['admin'],
    parameters: [PROFILE],
    requestBody: {
      required: true,
      content: { [JSON_TYPE]: { schema: {} }, [URLENCODED]: { schema: { type: 'object' } } },
    },
    responses: {
      '200': answer('What it would become.', ref(leadPreviewSchema)),
      '400': problem('A body the source cannot read (`unreadable_body`).'),
      '404': problem('No such profile (`unknown_profile`).'),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'POST /admin/test-lead/{profile}': {
    operationId: 'sendTestLead',
    summary: 'Send the profile’s sample lead through the real path, signed as its platform would',
    description:
      'The lead is real: it is recorded and delivered upstream (the person is “Ana Teste”).',
    tags: ['admin'],
    parameters: [PROFILE],
    responses: {
      '200': answer('What the intake answered.', ref(testLeadSchema)),
      '404': problem('No such profile.'),
      '409': problem('No sample for this source (`no_sample`).'),
      '502': problem('The intake could not be reached (`test_lead_failed`).'),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'GET /admin/setup': {
    operationId: 'setupKit',
    summary:
      'How to connect each profile’s platform: URL, where to paste it, secrets, a curl, an HTML form',
    tags: ['admin'],
    responses: {
      '200': answer('Every profile’s kit.', ref(setupKitSchema)),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'POST /admin/setup/{profile}/reveal': {
    operationId: 'revealProfileSecrets',
    summary: 'The profile’s secret values, the URL to paste with its token, which keys rotate',
    description:
      'Audited (who, which keys; never a value) and never cached. Replaced values still accepted are listed by key and end of grace, not shown.',
    tags: ['admin'],
    parameters: [PROFILE],
    responses: {
      '200': answer('The secrets.', {
        type: 'object',
        required: ['profile', 'url', 'secrets', 'previous'],
        properties: {
          profile: { type: 'string' },
          url: { type: 'string' },
          secrets: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                key: { type: 'string' },
                value: { type: ['string', 'null'] },
                rotatable: { type: 'boolean' },
              },
            },
          },
          previous: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                key: { type: 'string' },
                until: { type: 'string', format: 'date-time' },
              },
            },
          },
        },
      }),
      '404': problem('No such profile (`unknown_profile`).'),
      '409': problem('A profile without secrets (`no_secrets`).'),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'POST /admin/setup/{profile}/rotate': {
    operationId: 'rotateProfileSecret',
    summary:
      'A new random value for a key the platform is given (a token); the old one stays valid 7 days',
    tags: ['admin'],
    parameters: [PROFILE],
    requestBody: {
      required: true,
      content: {
        [JSON_TYPE]: {
          schema: { type: 'object', required: ['key'], properties: { key: { type: 'string' } } },
        },
      },
    },
    responses: {
      '200': answer('The new value and the URL to paste.', {
        type: 'object',
        properties: {
          profile: { type: 'string' },
          key: { type: 'string' },
          value: { type: 'string' },
          url: { type: 'string' },
          previousUntil: { type: ['string', 'null'], format: 'date-time' },
        },
      }),
      '400': problem('No key, or a key the profile does not have (`invalid_body`).'),
      '404': problem('No such profile (`unknown_profile`).'),
      '409': problem('A key the platform issues (`not_rotatable`), or no secrets (`no_secrets`).'),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'POST /admin/leads/{leadId}/retry': {
    operationId: 'retryLead',
    summary: 'Queue a parked, dead, rejected or test lead again, or try a queued one now',
    description:
      'A final lead starts a new delivery chain with its attempts reset; a queued lead is woken: its next attempt is due now.',
    tags: ['admin'],
    parameters: [LEAD_ID],
    responses: {
      '202': answer('Queued for delivery now.', ref(leadRequeuedSchema)),
      '400': problem('Not a lead id.'),
      '404': problem('No such lead.'),
      '409': problem(
        'Already delivered (`already_delivered`), or it changed meanwhile (`conflict`).',
      ),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'GET /admin/upstream': {
    operationId: 'getUpstreamHealth',
    summary: 'The upstream as delivery sees it: circuit, pacer, backlog',
    tags: ['admin'],
    responses: {
      '200': answer('The upstream’s health.', ref(upstreamHealthSchema)),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'POST /admin/replay': {
    operationId: 'replayDeadLeads',
    summary: 'Queue every dead lead again and redrive the dead-letter queue',
    description: 'Safe to run twice, or twice at once: nothing is sent twice.',
    tags: ['admin'],
    responses: {
      '202': answer('What was requeued.', ref(replayResultSchema)),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'POST /admin/backfill/{profile}': {
    operationId: 'backfillLeads',
    summary: 'Recover the leads a platform kept for a period (Meta, TikTok)',
    description:
      'Lists the leads the profile’s platform kept for the period on the profile’s forms (its `forms` keys) and records each one the ledger does not have, as the webhook would have (same dedup key), then wakes it for delivery. Leads that did arrive are counted as already known and not posted again. Safe to run twice.',
    tags: ['admin'],
    parameters: [PROFILE],
    requestBody: { required: true, content: jsonContent(ref(backfillRequest)) },
    responses: {
      '200': answer('What the platform listed and what was recorded.', ref(backfillResultSchema)),
      '400': problem(
        'A bad body or period (`invalid_body`, `invalid_period`, `period_too_long`), or a period that ended before the days the platform keeps (`period_not_kept`; one that began before them is cut there and the answer’s `notice` says so).',
      ),
      '404': problem('No such profile (`unknown_profile`).'),
      '409': problem(
        'The profile’s source keeps no leads to list (`backfill_unsupported`), or it names no forms (`no_forms`).',
      ),
      '502': problem('The platform refused the listing (`platform_refused`: a token, a form id).'),
      '503': answer(
        'The platform or the lead store is unavailable, or too slow: try again (nothing is posted twice).',
        ref(errorSchema),
        RETRY_AFTER,
      ),
    },
  },
  'POST /admin/erasure': {
    operationId: 'erasePerson',
    summary: 'Erase a person’s personal data (LGPD) from the gateway',
    description:
      'Finds the leads naming this e-mail, phone or CPF (what the person sent or an operator typed), removes their personal data (an anonymous record that each lead existed and was erased stays; a lead still queued is stopped, dead), leaves salted tombstones so that a platform sending the same lead again, or a backfill, is acknowledged and dropped, and says which upstream prospects hold the person’s data (leads erased earlier and found again included): the upstream has no delete operation, so erase those there. An erased lead can be neither retried nor corrected (409 `personal_data_removed`). Safe to repeat. docs/privacy.md.',
    tags: ['admin'],
    requestBody: {
      required: true,
      content: { [JSON_TYPE]: { schema: ref(erasureRequestSchema) } },
    },
    responses: {
      '200': answer(
        'What was erased, and what the upstream still holds.',
        ref(erasureResultSchema),
      ),
      '400': problem(
        'The body is not JSON naming a valid e-mail, phone or CPF (`invalid_body`, `invalid_subject`).',
      ),
      '503': SERVICE_UNAVAILABLE,
    },
  },
};

/** `METHOD /path`: how OPERATIONS names a route. */
export function routeKey(route: Pick<RouteSpec, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}

/** The routes of the table without an entry in OPERATIONS, and entries without a route. */
export function coverageProblems(routes: readonly RouteSpec[] = ROUTES): string[] {
  const keys = new Set(routes.map(routeKey));
  return [
    ...[...keys]
      .filter((key) => !(key in OPERATIONS))
      .map((key) => `route ${key} has no description in OPERATIONS (scripts/openapi-document.ts)`),
    ...Object.keys(OPERATIONS)
      .filter((key) => !keys.has(key))
      .map((key) => `OPERATIONS describes ${key}, which is not in the route table`),
  ];
}

/** `POST /leads/{profile}` with the sources' table, bodies and security added. */
function leadOperation(spec: Operation, rows: readonly SourceRow[]): Operation {
  return {
    ...spec,
    description: [spec.description, '', sourceTable(rows)].join('\n'),
    requestBody: { required: true, content: leadBodies(rows) },
    security: leadSecurity(rows),
  };
}

function operationFor(route: RouteSpec, rows: readonly SourceRow[]): Json {
  const key = routeKey(route);
  const described = OPERATIONS[key] as Operation;
  const spec = key === LEAD_ROUTE ? leadOperation(described, rows) : described;
  const basic = route.auth === 'basic';
  const { security, responses, ...rest } = spec;
  return {
    ...rest,
    ...(basic && {
      description: [
        spec.description,
        `Basic credentials of an API client with the \`${route.role}\` role.`,
      ]
        .filter(Boolean)
        .join('\n\n'),
    }),
    security: basic ? [{ basicAuth: [] }] : (security ?? []),
    responses: basic
      ? { ...BASIC_REFUSALS, ...(route.body === 'json' && { '415': NOT_JSON }), ...responses }
      : responses,
    ...(route.throttle && {
      'x-throttle': { rateLimit: route.throttle.rateLimit, burstLimit: route.throttle.burstLimit },
    }),
  };
}

function componentSchemas(registry: z.core.$ZodRegistry<ComponentMeta>): Json {
  const { schemas } = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    unrepresentable: 'any',
  }) as { schemas: Record<string, Json> };
  return Object.fromEntries(
    Object.entries(schemas)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([id, { $schema: _, $id: __, ...schema }]) => [id, schema]),
  );
}

/**
 * The whole document, from the route table and the lead sources (the registry's by default);
 * throws when the route table and OPERATIONS disagree, or a source's docs do not hold together.
 */
export function buildOpenApiDocument(
  routes: readonly RouteSpec[] = ROUTES,
  sources: readonly DocumentedSource[] = SOURCES,
): Json {
  const problems = coverageProblems(routes);
  if (problems.length > 0) throw new Error(problems.join('\n'));
  const rows = sourceRows(sources);
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const item = paths[route.path] ?? {};
    item[route.method.toLowerCase()] = operationFor(route, rows);
    paths[route.path] = item;
  }
  const { unauthorized } = BASIC_AUTH;
  return {
    openapi: '3.1.0',
    info: {
      title: 'Leads gateway',
      version: pkg.version,
      description:
        'Lead intake from forms, form builders and ad platforms, delivered to the gym’s management system (the upstream); the upstream’s own prospect and debtors operations; a cached debtors report; operator routes. Errors are `{"error": {"code", "message", "details"}}`. Generated by `npm run openapi` from the route table and the handlers’ schemas.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      { url: './', description: 'Where this document is served from (the API stage).' },
      { url: 'http://127.0.0.1:3000', description: '`npm start`' },
    ],
    tags: [
      { name: 'intake', description: 'Leads in: webhooks, forms and the Prospect API.' },
      { name: 'report', description: 'The debtors report, from the stored snapshot.' },
      { name: 'admin', description: 'Operators: leads and the report refresh.' },
      { name: 'gateway', description: 'Answered without credentials.' },
    ],
    paths,
    components: {
      schemas: componentSchemas(componentRegistry(rows)),
      responses: {
        Unauthorized: answer(
          'No or wrong Basic credentials; answered by the gateway with a Basic challenge.',
          ref(errorSchema),
          {
            'WWW-Authenticate': {
              schema: { type: 'string', example: unauthorized.headers['WWW-Authenticate'] },
            },
          },
        ),
        TooManyRequests: problem(
          'Throttled by the gateway (stage- or route-wide limits), or too many failed sign-ins for this user name or from this address, or too many wrong tokens for a profile from this address (`too_many_failures`; Retry-After says when to try again, growing with each failure; a right token is never throttled).',
        ),
      },
      headers: {
        RetryAfter: {
          description: 'Seconds to wait before trying again.',
          schema: { type: 'integer' },
        },
      },
      securitySchemes: securitySchemes(rows),
    },
  };
}

/** The document as committed in docs/openapi.json. */
export function openApiText(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
