/**
 * The configuration store's validator (use case): AppConfig calls it with a new version of the
 * settings before deploying it (infra/constructs/config-store.ts), and the version is refused
 * unless every check the functions make passes: the settings' schema, unknown keys, the
 * accounts' references, and every profile against its source's schema (without its secret keys,
 * which live in Secrets Manager). No AWS imports.
 */
import * as z from 'zod/mini';
import { issuePath } from '../../domain/json.ts';
import { type ProfileRules, parseSettings, type Settings } from '../config-aws.ts';
import { AwsConfigError, describeConfigIssue } from '../secrets-aws.ts';

/** A version that must not be deployed; its message lists every problem. */
export class InvalidSettingsError extends Error {
  override readonly name = 'InvalidSettingsError';
}

/** Validates settings JSON text; throws InvalidSettingsError naming each problem. */
export function validateSettingsText(text: string, rules: ProfileRules): Settings {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new InvalidSettingsError('the settings are not valid JSON');
  }
  let settings: Settings;
  try {
    settings = parseSettings(raw, 'this version', rules.profileSchema);
  } catch (error) {
    if (error instanceof AwsConfigError) throw new InvalidSettingsError(error.message);
    throw error;
  }
  const problems: string[] = [];
  for (const [name, profile] of Object.entries(settings.profiles)) {
    const secretKeys = rules.secretKeysOf(profile.source);
    // Secret keys are checked where they live (Secrets Manager); here only their absence is fine.
    const stand = Object.fromEntries(secretKeys.map((key) => [key, 'secret']));
    const result = rules.profileSchema.safeParse({ ...profile, ...stand }, { reportInput: true });
    if (result.success) continue;
    for (const issue of result.error.issues) {
      if (typeof issue.path[0] === 'string' && secretKeys.includes(issue.path[0])) continue;
      problems.push(`  profiles.${name}.${issuePath(issue.path)}: ${describeConfigIssue(issue)}`);
    }
  }
  if (problems.length > 0) {
    throw new InvalidSettingsError(
      ['this version holds invalid profiles:', ...problems].join('\n'),
    );
  }
  return settings;
}

const appConfigEvent = z.object({ content: z.string() });

/** What AppConfig sends: the version's content, base64-encoded. */
export function settingsTextOf(event: unknown): string {
  const parsed = appConfigEvent.safeParse(event);
  if (!parsed.success) throw new InvalidSettingsError('not an AppConfig validation event');
  return Buffer.from(parsed.data.content, 'base64').toString('utf8');
}
