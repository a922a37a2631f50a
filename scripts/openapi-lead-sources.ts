/**
 * The lead sources in the OpenAPI document: each declares its row of `POST /leads/{profile}`
 * (`docs` in defineSource, functions/sources/docs.ts); the document is built from the registry's
 * list alone: the sources' table, their bodies by media type, their security schemes.
 */
import * as z from 'zod/mini';
import type { BodySchema, SourceApiDoc, Json as SourceJson } from '../functions/sources/docs.ts';
import type { Source } from '../functions/sources/source.ts';
import type { Json } from './openapi-parts.ts';
import { type ComponentMeta, components, namedSchemas } from './openapi-schemas.ts';

export const LEAD_ROUTE = 'POST /leads/{profile}';

/** A source as the document reads it (a `Source` of the registry). */
export type DocumentedSource = Pick<Source, 'name' | 'label' | 'docs'>;

export interface SourceRow {
  name: string;
  label: string;
  api: SourceApiDoc;
}

export function sourceRows(sources: readonly DocumentedSource[]): SourceRow[] {
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

export function sourceTable(rows: readonly SourceRow[]): string {
  const lines = rows.map(
    ({ name, label, api }) =>
      `| \`${name}\` (${label}) | ${api.authentication} | ${Object.keys(api.bodies).join(', ')} | ${api.answer} |`,
  );
  return ['| source | authentication | body | answer |', '|---|---|---|---|', ...lines].join('\n');
}

/** The request body of `POST /leads/{profile}`: every source's, by media type. */
export function leadBodies(rows: readonly SourceRow[]): Json {
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

export function leadSecurity(rows: readonly SourceRow[]): Json[] {
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
export function securitySchemes(rows: readonly SourceRow[]): Json {
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
export function componentRegistry(rows: readonly SourceRow[]): z.core.$ZodRegistry<ComponentMeta> {
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
