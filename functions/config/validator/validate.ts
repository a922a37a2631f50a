/**
 * The configuration store's validator (use case): AppConfig calls it with a new version of the
 * settings before deploying it (infra/constructs/config-store.ts), and the version is refused
 * unless every check of the configuration passes (config-check.ts, the same checks and words as
 * `npm start` and `npm run config -- validate`): unknown keys, the settings' schema, every
 * profile's name and its source's schema (without its secret keys, which live in Secrets
 * Manager), the accounts' references and the branch rule. No AWS imports.
 */
import * as z from 'zod/mini';
import { type ProfileRules, type Settings, settingsSchema } from '../config-aws.ts';
import { checkConfiguration } from '../config-check.ts';
import { invalidHeading, problemReport } from '../config-messages.ts';

/** A version that must not be deployed; its message lists every problem. */
export class InvalidSettingsError extends Error {
  override readonly name = 'InvalidSettingsError';
}

/** Where the problems are, in the heading of a refused version. */
export const THIS_VERSION = 'nesta versão das configurações';

/** Validates settings JSON text; throws InvalidSettingsError naming each problem. */
export function validateSettingsText(text: string, rules: ProfileRules): Settings {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new InvalidSettingsError('as configurações desta versão não são JSON válido');
  }
  const checked = checkConfiguration(raw, {
    keys: settingsSchema,
    shape: settingsSchema,
    rules,
    secrets: 'elsewhere',
  });
  if (!checked.ok) {
    throw new InvalidSettingsError(problemReport(invalidHeading(THIS_VERSION), checked.problems));
  }
  return checked.value;
}

const appConfigEvent = z.object({ content: z.string() });

/** What AppConfig sends: the version's content, base64-encoded. */
export function settingsTextOf(event: unknown): string {
  const parsed = appConfigEvent.safeParse(event);
  if (!parsed.success) throw new InvalidSettingsError('not an AppConfig validation event');
  return Buffer.from(parsed.data.content, 'base64').toString('utf8');
}
