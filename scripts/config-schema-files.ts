/**
 * The JSON Schemas shipped in config/ for editors (`"$schema": "./schema.json"`), generated from
 * the zod schemas the code validates with: `npm run config -- schema` writes them, and a test
 * fails when a shipped file is not what the code generates.
 */
import * as z from 'zod/mini';
import { configFileJsonSchema } from '../functions/config/config-json-schema.ts';
import { deployConfigSchema } from '../infra/config.ts';

/** The local configuration file (LEADS_CONFIG) and the deploy configuration. */
export function schemaFiles(): Record<string, unknown> {
  const deploy = z.toJSONSchema(deployConfigSchema, { io: 'input', unrepresentable: 'any' });
  return {
    'config/schema.json': configFileJsonSchema(),
    'config/deploy.schema.json': {
      ...deploy,
      title: 'Leads gateway deploy configuration',
      description:
        'The stack (stage, secrets prefix, API) and its settings without secret values; profiles are checked in full by npm run config -- validate (docs/configuration.md)',
    },
  };
}
