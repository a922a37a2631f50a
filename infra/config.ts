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
import { checkConfiguration } from '../functions/config/config-check.ts';
import {
  type ConfigProblem,
  INVALID_JSON_HEADING,
  inFile,
  invalidHeading,
  jsonSyntaxMessage,
  NOT_AN_OBJECT,
  problemLine,
  SECRET_IN_DEPLOY_FILE,
  UNREADABLE_HEADING,
  unreadableReason,
} from '../functions/config/config-messages.ts';
import { PROFILE_NAME, profileEntrySchema } from '../functions/config/config-parts.ts';
import { PROFILE_RULES } from '../functions/config/profile-rules.ts';
import { parseJson } from '../functions/domain/json.ts';
import { SOURCE_NAMES, type SourceName, secretKeysOf } from '../functions/sources/registry.ts';
import type { CustomDomainConfig } from './constructs/api-domain.ts';

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
   * Add AWS's managed rule groups to the stack's web ACL (Common rule set, Known bad inputs,
   * Amazon IP reputation list): about 3 USD a month more (docs/deploy.md). Off by default: a
   * managed rule answers 403, and an ad platform drops a lead it gets a 4xx for.
   */
  wafManagedRules: z._default(z.boolean(), false),
  /**
   * Create API Gateway's account-wide CloudWatch Logs role (needed once per account and
   * Region for execution logs). Set false when the account already has one.
   */
  cloudWatchRole: z._default(z.boolean(), true),
});

/**
 * The API under a domain of your own (infra/constructs/api-domain.ts): URLs given to the ad
 * platforms that survive the stack's recreation. A certificate ARN, a hosted zone, or both.
 */
const customDomainSchema = z
  .strictObject({
    /** The host name: `leads.academia.com.br`. */
    name: z
      .string()
      .check(
        z.regex(
          /^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
          'um nome de host em minúsculas, como leads.academia.com.br',
        ),
      ),
    /** An ACM certificate in the stack's Region that covers `name`. */
    certificateArn: z.optional(
      z
        .string()
        .check(
          z.regex(
            /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[A-Za-z0-9-]+$/,
            'deve ser o ARN de um certificado do ACM (arn:aws:acm:<região>:<conta>:certificate/...)',
          ),
        ),
    ),
    /** The Route 53 hosted zone of `name`: the alias record, and the certificate when none is given. */
    hostedZoneId: z.optional(
      z
        .string()
        .check(z.regex(/^Z[A-Z0-9]{1,31}$/, 'deve ser o id de uma zona do Route 53 (Z...)')),
    ),
  })
  .check(
    z.refine((domain) => domain.certificateArn !== undefined || domain.hostedZoneId !== undefined, {
      message:
        'dê certificateArn (um certificado do ACM na região da pilha) ou hostedZoneId (a pilha pede um certificado validado por DNS nessa zona)',
    }),
  );

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
  /**
   * Reserve the forwarder's and the report refresher's concurrency (ReservedConcurrentExecutions,
   * as many as each event source's MaximumConcurrency). Off by default, so that a new account
   * (a quota of 10 concurrent executions) can create the stack: Lambda refuses any reservation
   * that leaves fewer than 100 unreserved. Off, the event sources' MaximumConcurrency alone caps
   * both functions, and the shared pacer keeps the upstream's rate either way (docs/deploy.md,
   * "Reserved concurrency").
   */
  reserveConcurrency: z._default(z.boolean(), false),
  /** The webhooks' own domain (customDomainSchema); omitted, the URLs are API Gateway's. */
  customDomain: z.optional(customDomainSchema),
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
  /** Reserve the forwarder's and the refresher's concurrency (see the schema); default false. */
  reserveConcurrency: boolean;
  /** The API under a domain of your own (docs/deploy.md, "A domain of your own"). */
  customDomain?: CustomDomainConfig;
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

/**
 * A deploy configuration that cannot be used; one problem a line. The validation's refusals
 * carry their heading (`heading`, worded by functions/config/config-messages.ts as every check
 * of the configuration is); the others read `<summary> in <file>:`.
 */
export class DeployConfigError extends Error {
  override readonly name = 'DeployConfigError';

  constructor(
    readonly file: string,
    readonly problems: readonly string[],
    summary = 'invalid deploy configuration',
    heading = `${summary} in ${file}:`,
  ) {
    super([heading, ...problems.map((p) => `  ${p}`)].join('\n'));
  }

  /** The validation's refusal: the same lines as every check of the configuration. */
  static of(file: string, problems: readonly ConfigProblem[], heading: string): DeployConfigError {
    const lines = problems.map((p) => problemLine(p).slice(2));
    return new DeployConfigError(file, lines, undefined, heading);
  }
}

/** The heading of a deploy file refused for the secret values it holds. */
export const SECRET_VALUES_HEADING = (file: string) => `Valores secretos ${inFile(file)}:`;

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
 * The deploy file as the validation reads its top level (functions/config/config-check.ts): its
 * own keys, each profile as an object with a source (then checked alone, as everywhere).
 */
const deployFileSchema = z.object({
  ...deployConfigSchema.shape,
  profiles: z.record(z.string(), profileEntrySchema),
});

/**
 * Who hears the alarms: a real stage names an address (alarmEmail) or says why none
 * (noAlarmEmail), never both; without either its alarms would go to a topic nobody reads.
 * Read from the file as written, so that it is said beside the file's other problems.
 */
function alarmRecipientProblems(raw: Record<string, unknown>): ConfigProblem[] {
  if (raw.alarmEmail !== undefined && raw.noAlarmEmail !== undefined) {
    return [{ field: 'noAlarmEmail', message: 'dê alarmEmail ou noAlarmEmail, não os dois' }];
  }
  if (typeof raw.stage !== 'string' || raw.stage === EXAMPLE_STAGE) return [];
  if (raw.alarmEmail !== undefined || raw.noAlarmEmail !== undefined) return [];
  return [
    {
      field: 'alarmEmail',
      message: `é obrigatório no stage "${raw.stage}": o endereço que recebe os alarmes (o SNS pede a confirmação uma vez), ou então noAlarmEmail com o motivo de ninguém receber e-mail (a saída AlarmTopicArn assinada de outro jeito)`,
    },
  ];
}

/**
 * A REGIONAL custom domain takes a certificate of the stack's own Region: a `certificateArn` of
 * another Region (us-east-1's, as CloudFront's) would fail only at deploy time. Checked when the
 * file pins the Region.
 */
function customDomainProblems(raw: Record<string, unknown>): ConfigProblem[] {
  const domain = isObject(raw.customDomain) ? raw.customDomain : undefined;
  const arn = typeof domain?.certificateArn === 'string' ? domain.certificateArn : undefined;
  const certRegion = arn?.split(':')[3];
  if (typeof raw.region !== 'string' || !certRegion || certRegion === raw.region) return [];
  return [
    {
      field: 'customDomain.certificateArn',
      message: `o certificado é da região ${certRegion}, e um domínio regional do API Gateway precisa de um certificado do ACM na região da pilha (${raw.region}); peça ou importe um lá, ou dê só hostedZoneId`,
    },
  ];
}

/**
 * Validates an already-parsed deploy configuration: no secret value, then every check of the
 * configuration (the same as the functions' and `npm start`'s) and who hears the alarms.
 * `file` names it in errors.
 */
export function parseDeployConfig(raw: unknown, file = 'configuração de deploy'): DeployConfig {
  const heading = invalidHeading(inFile(file));
  if (!isObject(raw))
    throw DeployConfigError.of(file, [{ field: '', message: NOT_AN_OBJECT }], heading);
  const secrets = secretValuesIn(raw);
  if (secrets.length > 0) {
    const problems = secrets.map((field) => ({ field, message: SECRET_IN_DEPLOY_FILE }));
    throw DeployConfigError.of(file, problems, SECRET_VALUES_HEADING(file));
  }
  const checked = checkConfiguration(raw, {
    keys: deployConfigSchema,
    shape: deployFileSchema,
    rules: PROFILE_RULES,
    secrets: 'elsewhere',
  });
  const alarms = [...alarmRecipientProblems(raw), ...customDomainProblems(raw)];
  if (!checked.ok || alarms.length > 0) {
    const problems = [...(checked.ok ? [] : checked.problems), ...alarms];
    throw DeployConfigError.of(file, problems, heading);
  }
  const config = checked.value;
  return {
    stage: config.stage,
    secretsPrefix: config.secretsPrefix ?? `leads/${config.stage}`,
    ...(config.account !== undefined && { account: config.account }),
    ...(config.region !== undefined && { region: config.region }),
    api: config.api,
    reserveConcurrency: config.reserveConcurrency,
    ...(config.customDomain !== undefined && { customDomain: config.customDomain }),
    ...(config.alarmEmail !== undefined && { alarmEmail: config.alarmEmail }),
    ...(config.noAlarmEmail !== undefined && { noAlarmEmail: config.noAlarmEmail }),
    settings: {
      upstream: config.upstream,
      ...(config.upstreams !== undefined && { upstreams: config.upstreams }),
      profiles: checked.profiles as Settings['profiles'],
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
    const problem = { field: '', message: unreadableReason(error) };
    throw DeployConfigError.of(path, [problem], UNREADABLE_HEADING(path));
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // The local file's parser words the same mistake the same way (line, column).
    let message = 'não é JSON';
    try {
      parseJson(text);
    } catch (error) {
      message = jsonSyntaxMessage(text, error);
    }
    throw DeployConfigError.of(path, [{ field: '', message }], INVALID_JSON_HEADING(path));
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
