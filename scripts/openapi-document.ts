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
import { BASIC_AUTH, ROUTES, type RouteSpec } from '../functions/kernel/routes.ts';
import { SOURCES } from '../functions/sources/registry.ts';
import pkg from '../package.json' with { type: 'json' };
import {
  componentRegistry,
  type DocumentedSource,
  LEAD_ROUTE,
  leadBodies,
  leadSecurity,
  type SourceRow,
  securitySchemes,
  sourceRows,
  sourceTable,
} from './openapi-lead-sources.ts';
import { ADMIN_OPERATIONS } from './openapi-operations-admin.ts';
import { INTAKE_OPERATIONS } from './openapi-operations-intake.ts';
import { REPORT_OPERATIONS } from './openapi-operations-report.ts';
import {
  answer,
  BASIC_REFUSALS,
  type Json,
  NOT_JSON,
  type Operation,
  problem,
  ref,
} from './openapi-parts.ts';
import { type ComponentMeta, errorSchema } from './openapi-schemas.ts';

/** One description per route of the table, by `METHOD /path`. */
const OPERATIONS: Record<string, Operation> = {
  ...INTAKE_OPERATIONS,
  ...REPORT_OPERATIONS,
  ...ADMIN_OPERATIONS,
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
      .map(
        (key) => `route ${key} has no description in OPERATIONS (scripts/openapi-operations-*.ts)`,
      ),
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
