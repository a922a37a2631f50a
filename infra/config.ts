/**
 * The deploy configuration: the same shape as the local configuration file (LEADS_CONFIG, see
 * functions/config/config-schema.ts) WITHOUT any secret value, plus what only a deployment
 * needs (stage, secret names, API throttling). Secret values live in Secrets Manager under
 * `secretsPrefix` (docs/deploy.md); a file that still holds one is refused.
 *
 * Path: context `-c config=path`, else env `LEADS_DEPLOY_CONFIG`. Without either, the app builds
 * the example (config/deploy.example.json, stage `example`) for offline checks only: a stack of
 * stage `example` is never deployable (infra/app.ts). Every file must name its `stage`, and
 * every stage but the example says who hears its alarms: `alarmEmail`, or `noAlarmEmail` with
 * the reason nobody is e-mailed (the alarm topic is subscribed some other way).
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import * as z from 'zod/mini';
import { type Settings, settingsSchema } from '../functions/config/config-aws.ts';
import { unknownKeyProblems } from '../functions/config/config-keys.ts';
import { accountProblems, PROFILE_NAME, profileSchema } from '../functions/config/config-schema.ts';
import { describeConfigIssue } from '../functions/config/secrets-aws.ts';
import { issuePath } from '../functions/domain/json.ts';
import { SOURCE_NAMES, type SourceName, secretKeysOf } from '../functions/sources/registry.ts';

export const REPO_ROOT = join(import.meta.dirname, '..');
export const DEFAULT_DEPLOY_CONFIG = join(REPO_ROOT, 'config', 'deploy.example.json');
/** Context key and environment variable naming the deploy config file. */
export const CONFIG_CONTEXT_KEY = 'config';
export const CONFIG_ENV = 'LEADS_DEPLOY_CONFIG';
/** The example's stage: a stack of this stage is synthesized for checks and cannot be deployed. */
export const EXAMPLE_STAGE = 'example';

const positive = z.number().check(z.positive('must be greater than 0'));
const positiveInt = z.int().check(z.positive('must be greater than 0'));

const apiSchema = z.strictObject({
  /** Stage-wide steady requests per second (token bucket refill). */
  rateLimit: z._default(positive, 25),
  /** Stage-wide burst (bucket size). */
  burstLimit: z._default(positiveInt, 50),
  /** A regional WAFv2 web ACL of your own to associate with the stage (instead of `waf`'s). */
  webAclArn: z.optional(z.string().check(z.regex(/^arn:aws[a-z-]*:wafv2:/, 'must be a WAFv2 ARN'))),
  /**
   * Create a regional WAFv2 web ACL for the stage with a rate-based rule (per source address),
   * on by default. Off (`false`) saves its monthly fee (docs/deploy.md); ignored with webAclArn.
   */
  waf: z._default(z.boolean(), true),
  /** The rate-based rule: requests one address may send in any 5 minutes before WAF blocks it. */
  wafRateLimit: z._default(
    z.int().check(z.gte(100, 'must be at least 100'), z.lte(2_000_000_000, 'too large')),
    1000,
  ),
  /**
   * Create API Gateway's account-wide CloudWatch Logs role (needed once per account and
   * Region for execution logs). Set false when the account already has one.
   */
  cloudWatchRole: z._default(z.boolean(), true),
});

export const deployConfigSchema = z.strictObject({
  /** JSON editors' schema hint; ignored. */
  $schema: z.optional(z.string()),
  /**
   * Names the stack (`leads-<stage>`), the API stage and, by default, the secrets. Required: a
   * deployment says which one it is (`example` is the example's, never deployable).
   */
  stage: z.string().check(z.regex(/^[a-z][a-z0-9-]{0,23}$/, 'lower-case letters, digits and -')),
  /** Secrets are `<secretsPrefix>/upstream`, `/clients`, `/profiles/<name>`; default `leads/<stage>`. */
  secretsPrefix: z.optional(
    z
      .string()
      .check(
        z.regex(/^[A-Za-z0-9_+=.@-]+(\/[A-Za-z0-9_+=.@-]+)*$/, 'letters, digits, /_+=.@- only'),
      ),
  ),
  /** Pin the stack to one account and Region; omitted, the stack is environment-agnostic. */
  account: z.optional(z.string().check(z.regex(/^\d{12}$/, 'must be a 12-digit account id'))),
  region: z.optional(z.string().check(z.regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be a Region'))),
  api: z.prefault(apiSchema, {}),
  /** Subscribed to the alarm topic (SNS asks the address to confirm once). */
  alarmEmail: z.optional(z.email('must be an email address')),
  /**
   * Instead of alarmEmail: why nobody is e-mailed (say, the AlarmTopicArn output is subscribed
   * to a chat or a pager by hand). One of the two is required for every stage but the example.
   */
  noAlarmEmail: z.optional(
    z.string().check(z.minLength(10, 'say in a few words why no address gets the alarms')),
  ),
  upstream: settingsSchema.shape.upstream,
  /** More upstream accounts by name (their credentials in `<secretsPrefix>/upstreams/<name>`). */
  upstreams: settingsSchema.shape.upstreams,
  profiles: z.record(
    z
      .string()
      .check(z.regex(PROFILE_NAME, 'profile names are lower-case letters, digits, - and _')),
    z.looseObject({ source: z.enum(SOURCE_NAMES) }),
  ),
  delivery: settingsSchema.shape.delivery,
  report: settingsSchema.shape.report,
});

export type ApiConfig = z.infer<typeof apiSchema>;

export interface DeployConfig {
  stage: string;
  secretsPrefix: string;
  account?: string;
  region?: string;
  api: ApiConfig;
  /** Where alarm notifications are emailed; none: subscribe to the AlarmTopicArn output. */
  alarmEmail?: string;
  /** Why no address gets the alarms (instead of alarmEmail). */
  noAlarmEmail?: string;
  /**
   * The settings the stack stores as the configuration store's first version (AppConfig): the
   * accounts, profiles, delivery and report, no secrets. Later versions: `npm run config -- push`.
   */
  settings: Settings;
}

/** A deploy configuration that cannot be used; one problem a line. */
export class DeployConfigError extends Error {
  override readonly name = 'DeployConfigError';

  constructor(
    readonly file: string,
    readonly problems: readonly string[],
    summary = 'invalid deploy configuration',
  ) {
    super([`${summary} in ${file}:`, ...problems.map((p) => `  ${p}`)].join('\n'));
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSource(value: unknown): value is SourceName {
  return (SOURCE_NAMES as readonly unknown[]).includes(value);
}

/** Paths of secret values the file must not hold. */
function secretValuesIn(raw: Record<string, unknown>): string[] {
  const found: string[] = [];
  if ('clients' in raw) found.push('clients');
  if (isObject(raw.upstream)) {
    for (const key of ['username', 'password']) {
      if (key in raw.upstream) found.push(`upstream.${key}`);
    }
  }
  if (isObject(raw.upstreams)) {
    for (const [name, account] of Object.entries(raw.upstreams)) {
      if (!isObject(account)) continue;
      for (const key of ['username', 'password']) {
        if (key in account) found.push(`upstreams.${name}.${key}`);
      }
    }
  }
  if (isObject(raw.profiles)) {
    for (const [name, profile] of Object.entries(raw.profiles)) {
      if (!isObject(profile) || !isSource(profile.source)) continue;
      for (const key of secretKeysOf(profile.source)) {
        if (key in profile) found.push(`profiles.${name}.${key}`);
      }
    }
  }
  return found;
}

/**
 * Checks a profile's non-secret fields with the full profile schema, the secret keys standing
 * in as placeholders, and returns the normalised profile without them.
 */
function checkProfile(
  name: string,
  profile: { source: SourceName } & Record<string, unknown>,
  problems: string[],
): Settings['profiles'][string] | undefined {
  const keys = secretKeysOf(profile.source);
  const standIns = Object.fromEntries(keys.map((key) => [key, 'stand-in']));
  const result = profileSchema.safeParse({ ...profile, ...standIns }, { reportInput: true });
  if (!result.success) {
    for (const issue of result.error.issues) {
      problems.push(`profiles.${name}.${issuePath(issue.path)}: ${describeConfigIssue(issue)}`);
    }
    return undefined;
  }
  const settings: Record<string, unknown> = { ...result.data };
  for (const key of keys) delete settings[key];
  return settings as Settings['profiles'][string];
}

/**
 * Who hears the alarms: a real stage names an address (alarmEmail) or says why none
 * (noAlarmEmail), never both; without either its alarms would go to a topic nobody reads.
 */
function alarmRecipientProblems(config: {
  stage: string;
  alarmEmail?: string | undefined;
  noAlarmEmail?: string | undefined;
}): string[] {
  if (config.alarmEmail !== undefined && config.noAlarmEmail !== undefined) {
    return ['noAlarmEmail: give alarmEmail or noAlarmEmail, not both'];
  }
  if (config.stage === EXAMPLE_STAGE || config.alarmEmail !== undefined) return [];
  if (config.noAlarmEmail !== undefined) return [];
  return [
    `alarmEmail: required for stage "${config.stage}": the address that gets the alarms (SNS asks it to confirm once), or set noAlarmEmail to the reason nobody is e-mailed (you subscribe the AlarmTopicArn output yourself)`,
  ];
}

/** Validates an already-parsed deploy configuration; `file` only names the source in errors. */
export function parseDeployConfig(raw: unknown, file = 'deploy configuration'): DeployConfig {
  if (!isObject(raw)) throw new DeployConfigError(file, ['must be a JSON object']);
  const secrets = secretValuesIn(raw);
  if (secrets.length > 0) {
    throw new DeployConfigError(
      file,
      secrets.map(
        (path) =>
          `${path}: secret values do not belong in a deploy configuration; the stack reads them from Secrets Manager (docs/deploy.md)`,
      ),
      'secret values',
    );
  }
  const result = deployConfigSchema.safeParse(raw, { reportInput: true });
  if (!result.success) {
    throw new DeployConfigError(
      file,
      result.error.issues.map(
        (i) => `${issuePath(i.path) || '(top level)'}: ${describeConfigIssue(i)}`,
      ),
    );
  }
  const config = result.data;
  // Keys no part of the code reads (a `default` typo for `defaults`), with the closest known one.
  const problems: string[] = unknownKeyProblems(
    settingsSchema,
    { upstream: raw.upstream, upstreams: raw.upstreams, profiles: raw.profiles },
    { profileSchema },
  ).map((p) => `${p.field}: ${p.message}`);
  const profiles: Settings['profiles'] = {};
  for (const [name, profile] of Object.entries(config.profiles)) {
    const checked = checkProfile(name, profile, problems);
    if (checked) profiles[name] = checked;
  }
  for (const problem of accountProblems({ ...config, profiles })) {
    problems.push(`${problem.field}: ${problem.message}`);
  }
  problems.push(...alarmRecipientProblems(config));
  if (problems.length > 0) throw new DeployConfigError(file, problems);
  return {
    stage: config.stage,
    secretsPrefix: config.secretsPrefix ?? `leads/${config.stage}`,
    ...(config.account !== undefined && { account: config.account }),
    ...(config.region !== undefined && { region: config.region }),
    api: config.api,
    ...(config.alarmEmail !== undefined && { alarmEmail: config.alarmEmail }),
    ...(config.noAlarmEmail !== undefined && { noAlarmEmail: config.noAlarmEmail }),
    settings: {
      upstream: config.upstream,
      ...(config.upstreams !== undefined && { upstreams: config.upstreams }),
      profiles,
      delivery: config.delivery,
      report: config.report,
    },
  };
}

/** Reads and validates a deploy configuration file. */
export function loadDeployConfig(path: string): DeployConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new DeployConfigError(
      path,
      [`cannot read the file (${code})`],
      'no deploy configuration',
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new DeployConfigError(path, [(error as Error).message], 'invalid JSON');
  }
  return parseDeployConfig(raw, path);
}

/**
 * The deploy config path the caller chose: the context value, else LEADS_DEPLOY_CONFIG;
 * undefined when neither is given (the app then builds the example, never deployable).
 */
export function deployConfigPath(
  contextValue: unknown,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const chosen =
    typeof contextValue === 'string' && contextValue.trim() ? contextValue : env[CONFIG_ENV];
  if (!chosen?.trim()) return undefined;
  return isAbsolute(chosen) ? chosen : resolve(process.cwd(), chosen);
}

/** What to pass to deploy: said by every refusal and by the example's notice. */
export const HOW_TO_CHOOSE_A_CONFIG =
  'pass your deploy configuration: npx cdk deploy -c config=config/deploy.<stage>.json ' +
  '(a copy of config/deploy.example.json with your own "stage", account and profiles), ' +
  `or set ${CONFIG_ENV}; see docs/deploy.md`;
