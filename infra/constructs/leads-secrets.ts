/**
 * The configuration secrets, created by the stack with placeholder values and filled in by an
 * operator after the first deploy (docs/deploy.md, docs/configuration.md):
 *
 * - `<prefix>/upstream`: `{"username", "password"}` of the account `default` (the gym's DNS and
 *   secret key); `<prefix>/upstreams/<name>` for each named account;
 * - `<prefix>/clients`: `[{"username", "passwordHash", "roles", ...}]` (hashes only);
 * - `<prefix>/profiles/<secret>`: a profile's keys (the secret keys of its source), one secret
 *   per `secretName` (the profile's own name by default, so profiles may share one); a profile
 *   whose source has no keys needs none.
 *
 * The template holds no value: each key starts as the placeholder, and CloudFormation adds a
 * random `generated` key (handy for tokens we choose ourselves: form token, Meta verify token).
 * Secrets are retained when the stack goes, so a redeploy never loses credentials.
 *
 * Accounts and profiles added later through the configuration store (no deploy) get their
 * secrets from `npm run config -- push`, under the same names, so reading grants cover the
 * name patterns `<prefix>/upstreams/*` and `<prefix>/profiles/*` rather than the secrets the
 * stack created.
 */
import { Arn, ArnFormat, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Grant } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { type Settings, UPSTREAM_SECRET_KEYS } from '../../functions/config/config-aws.ts';
import { SECRET_PLACEHOLDER, secretNames } from '../../functions/config/secrets-aws.ts';
import { DEFAULT_ACCOUNT } from '../../functions/kernel/accounts.ts';
import { ENV } from '../../functions/kernel/env.ts';
import type { ConfigSecret } from '../../functions/kernel/routes.ts';
import { secretKeysOf } from '../../functions/sources/registry.ts';
import { acknowledgeWildcards } from './nag.ts';

/** The key CloudFormation fills with a random string at creation. */
export const GENERATED_KEY = 'generated';

export interface LeadsSecretsProps {
  /** `leads/<stage>`. */
  prefix: string;
  /** The deploy configuration's settings (its accounts and profiles). */
  settings: Settings;
}

/** The profile secrets the settings need: secret name → the source keys it holds. */
export function profileSecretsOf(
  settings: Settings,
): Map<string, { source: string; keys: readonly string[] }> {
  const secrets = new Map<string, { source: string; keys: readonly string[] }>();
  for (const [name, profile] of Object.entries(settings.profiles)) {
    const keys = secretKeysOf(profile.source);
    if (keys.length === 0) continue;
    const secretName = profile.secretName ?? name;
    const seen = secrets.get(secretName);
    secrets.set(secretName, {
      source: seen?.source ?? profile.source,
      keys: [...new Set([...(seen?.keys ?? []), ...keys])],
    });
  }
  return secrets;
}

export class LeadsSecrets extends Construct {
  readonly prefix: string;
  /** Each account's secret by account name (`default` first). */
  readonly upstreams: ReadonlyMap<string, Secret>;
  readonly clients: Secret;
  /** One secret per profile secret name whose source has keys. */
  readonly profiles: ReadonlyMap<string, Secret>;

  constructor(scope: Construct, id: string, props: LeadsSecretsProps) {
    super(scope, id);
    this.prefix = props.prefix;
    const names = secretNames(props.prefix);

    const upstreams = new Map<string, Secret>();
    for (const account of [DEFAULT_ACCOUNT, ...Object.keys(props.settings.upstreams ?? {})]) {
      upstreams.set(
        account,
        this.placeholderSecret(
          account === DEFAULT_ACCOUNT ? 'Upstream' : `Upstream-${account}`,
          names.upstream(account),
          `Upstream Basic credentials of the account ${account}: {"username": gym DNS, "password": secret key}`,
          UPSTREAM_SECRET_KEYS,
        ),
      );
    }
    this.upstreams = upstreams;
    this.clients = this.placeholderSecret(
      'Clients',
      names.clients,
      'API clients: [{"username", "passwordHash", "roles"}], scrypt hashes only',
      // The value becomes a JSON array; until then this key holds the placeholder.
      ['clients'],
    );
    const profiles = new Map<string, Secret>();
    for (const [secretName, { source, keys }] of profileSecretsOf(props.settings)) {
      profiles.set(
        secretName,
        this.placeholderSecret(
          `Profile-${secretName}`,
          names.profile(secretName),
          `Keys of the profile secret ${secretName} (${source}): ${keys.join(', ')}`,
          keys,
        ),
      );
    }
    this.profiles = profiles;
  }

  /** The account `default`'s secret. */
  get upstream(): Secret {
    return this.upstreams.get(DEFAULT_ACCOUNT) as Secret;
  }

  /** The names of the secrets the stack created (accounts, clients, then profiles). */
  get names(): string[] {
    const names = secretNames(this.prefix);
    return [
      ...[...this.upstreams.keys()].map((account) => names.upstream(account)),
      names.clients,
      ...[...this.profiles.keys()].map((secret) => names.profile(secret)),
    ];
  }

  /**
   * Lets `fn` read the named parts: `upstream` (every account's credentials), `clients`,
   * `profiles` (every profile's keys). Accounts and profiles may be added without a deploy, so
   * the grant covers their name patterns; LEADS_SECRETS_PREFIX tells the function where to look.
   */
  grantRead(fn: LambdaFunction, ...parts: readonly ConfigSecret[]): void {
    fn.addEnvironment(ENV.secretsPrefix, this.prefix);
    if (parts.length === 0) return;
    const names = secretNames(this.prefix);
    const stack = Stack.of(this);
    // Secrets Manager appends `-` and 6 random characters to a secret's ARN.
    const arnOf = (name: string) =>
      Arn.format(
        {
          service: 'secretsmanager',
          resource: 'secret',
          resourceName: name,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        },
        stack,
      );
    const arns: string[] = [];
    for (const part of new Set(parts)) {
      if (part === 'upstream') {
        arns.push(
          arnOf(`${names.upstream(DEFAULT_ACCOUNT)}-??????`),
          arnOf(names.upstreamsPattern),
        );
      } else if (part === 'clients') arns.push(arnOf(`${names.clients}-??????`));
      else arns.push(arnOf(names.profilesPattern));
    }
    Grant.addToPrincipal({
      grantee: fn,
      actions: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
      resourceArns: arns,
    });
    acknowledgeWildcards(
      fn,
      arns.filter((arn) => arn.endsWith('/*')),
      "Read-only access to one name prefix of this stack's secrets (`<prefix>/upstreams/*` or `<prefix>/profiles/*`): upstream accounts and profile secrets are added with `npm run config -- push` without a deploy, so their names cannot be listed in the policy beforehand. No other secret of the account matches.",
    );
  }

  private placeholderSecret(
    id: string,
    secretName: string,
    description: string,
    keys: readonly string[],
  ): Secret {
    // CloudFormation regenerates the value whenever GenerateSecretString changes (template,
    // length, character set): keep these stable, or filled-in secrets reset to placeholders.
    const template = Object.fromEntries(keys.map((key) => [key, SECRET_PLACEHOLDER]));
    const secret = new Secret(this, id, {
      secretName,
      description,
      generateSecretString: {
        secretStringTemplate: JSON.stringify(template),
        generateStringKey: GENERATED_KEY,
        passwordLength: 40,
        excludePunctuation: true,
      },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Holds third-party credentials (the upstream key issued by the gym system, platform app secrets and tokens, client password hashes) that no rotation Lambda can renew; operators rotate them by hand (docs/deploy.md).',
    });
    return secret;
  }
}
