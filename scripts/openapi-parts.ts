/**
 * The building blocks of the OpenAPI document's operations (scripts/openapi-document.ts): schema
 * references, answers, parameters and the refusals every Basic route shares.
 */
import * as z from 'zod/mini';
import { components, errorSchema } from './openapi-schemas.ts';

export type Json = Record<string, unknown>;

/** `#/components/schemas/<Name>` of a named schema. */
export function ref(schema: z.core.$ZodType): Json {
  const meta = components.get(schema);
  if (!meta) throw new Error('schema has no component name (scripts/openapi-schemas.ts)');
  return { $ref: `#/components/schemas/${meta.id}` };
}

/** An inline schema (parameters, small bodies), without the `$schema` keyword. */
export function inline(schema: z.core.$ZodType): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { unrepresentable: 'any' }) as Json;
  return rest;
}

export const JSON_TYPE = 'application/json';
export const URLENCODED = 'application/x-www-form-urlencoded';

export function jsonContent(schema: Json): Json {
  return { [JSON_TYPE]: { schema } };
}

export function answer(description: string, schema?: Json, headers?: Json): Json {
  return {
    description,
    ...(schema && { content: jsonContent(schema) }),
    ...(headers && { headers }),
  };
}

export const problem = (description: string) => answer(description, ref(errorSchema));
export const RETRY_AFTER = { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } };

// ---------------------------------------------------------------------------------------------
// Parameters

export function query(
  name: string,
  description: string,
  schema: z.core.$ZodType,
  required = false,
): Json {
  return { name, in: 'query', required, description, schema: inline(schema) };
}

export function pathParameter(name: string, description: string): Json {
  return { name, in: 'path', required: true, description, schema: { type: 'string' } };
}

export const PROFILE = pathParameter(
  'profile',
  'The profile name of the configuration (`profiles.<name>`): which source, which keys, which defaults.',
);
export const LEAD_ID = pathParameter('leadId', 'A lead id: `ld_` followed by 22 characters.');
const SCRIPT_FILE = pathParameter(
  'file',
  'The script’s name with its content hash (`console.<16 hex>.js`), as the page links it.',
);
/** A page's script (kernel/script-asset.ts): the hashed name the page links, cached a year. */
export function pageScript(operationId: string, page: string, tag: string): Operation {
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

export interface Operation {
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
export const BASIC_REFUSALS: Record<string, Json> = {
  '401': { $ref: '#/components/responses/Unauthorized' },
  '403': problem('The client lacks the route’s role (`forbidden`).'),
  '429': { $ref: '#/components/responses/TooManyRequests' },
};

/** The guard's refusal of a body that is not JSON, on the routes that read JSON (`body: 'json'`). */
export const NOT_JSON = problem(
  'The body is not labelled JSON: send `Content-Type: application/json` (or another `application/*+json` type; `charset=utf-8` or none) (`unsupported_media_type`).',
);

export const SERVICE_UNAVAILABLE = answer(
  'A dependency (store, queue) could not be reached: try again after Retry-After.',
  ref(errorSchema),
  RETRY_AFTER,
);
