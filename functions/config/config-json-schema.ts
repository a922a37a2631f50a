/**
 * JSON Schemas of the configuration, generated from the zod schemas the functions validate with
 * (so they never drift): the configuration file's (`config/schema.json`, for editors through
 * `"$schema"`, and what `npm run config` takes) and the settings the configuration store holds
 * (its JSON Schema validator; AppConfig takes at most 32 KB there, so profiles are checked by
 * their `source` and account only, and fully by the configuration validator function). Never
 * imported by a deployed function.
 */
import * as z from 'zod/mini';
import { settingsSchema } from './config-aws.ts';
import { configSchema } from './config-schema.ts';

type Json = Record<string, unknown>;

function isJsonObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Objects that list their properties refuse others, as the configuration loader does. */
function closeObjects(node: unknown): void {
  if (Array.isArray(node)) {
    for (const child of node) closeObjects(child);
    return;
  }
  if (!isJsonObject(node)) return;
  if (isJsonObject(node.properties) && !('additionalProperties' in node)) {
    node.additionalProperties = false;
  }
  for (const child of Object.values(node)) closeObjects(child);
}

/** The configuration file (LEADS_CONFIG locally; what `npm run config -- push` takes). */
export function configFileJsonSchema(): Json {
  const schema = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as Json;
  closeObjects(schema);
  const properties = schema.properties as Json;
  schema.properties = {
    $schema: { type: 'string', description: 'Where editors find this schema' },
    ...properties,
  };
  return {
    ...schema,
    title: 'Leads gateway configuration',
    description:
      'Upstream accounts, API clients, lead source profiles, delivery and report settings (docs/configuration.md)',
  };
}

/**
 * What the configuration store's JSON Schema validator checks (under 32 KB). AppConfig's
 * validator takes JSON Schema draft-04, so this one is written in that draft.
 */
export function settingsStoreJsonSchema(): Json {
  const schema = z.toJSONSchema(settingsSchema, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-4',
  }) as Json;
  closeObjects(schema);
  return { ...schema, title: 'Leads gateway settings (the configuration store)' };
}
