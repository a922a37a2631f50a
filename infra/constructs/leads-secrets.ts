/**
 * The configuration secrets, created by the stack with placeholder values and filled in by an
 * operator after the first deploy (docs/deploy.md):
 *
 * - `<prefix>/upstream`: `{"username", "password"}` (the gym's DNS and secret key)
 * - `<prefix>/clients`: `[{"username", "passwordHash", "roles"}]` (hashes only)
 * - `<prefix>/profiles/<name>`: that profile's keys (the secret keys of its source);
 *   a `prospect` profile has none, so no secret.
 *
 * The template holds no value: each key starts as the placeholder, and CloudFormation adds a
 * random `generated` key (handy for tokens we choose ourselves: form token, Meta verify token).
 * Secrets are retained when the stack goes, so a redeploy never loses credentials.
 *
 * `grantRead(fn, ...)` gives a function what createAwsConfigSource() needs: read access to the
 * named secrets, their prefix (LEADS_SECRETS_PREFIX) and the non-secret settings (LEADS_SETTINGS).
 */
import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { type Settings, UPSTREAM_SECRET_KEYS } from '../../functions/config/config-aws.ts';
import { SECRET_PLACEHOLDER, secretNames } from '../../functions/config/secrets-aws.ts';
import { ENV } from '../../functions/kernel/env.ts';
import type { ConfigSecret } from '../../functions/kernel/routes.ts';
import { secretKeysOf } from '../../functions/sources/registry.ts';

/** The key CloudFormation fills with a random string at creation. */
export const GENERATED_KEY = 'generated';

export interface LeadsSecretsProps {
  /** `leads/<stage>`. */
  prefix: string;
  /** The non-secret settings functions receive as LEADS_SETTINGS. */
  settings: Settings;
}

export class LeadsSecrets extends Construct {
  readonly prefix: string;
  readonly upstream: Secret;
  readonly clients: Secret;
  /** One secret per profile whose source has keys. */
  readonly profiles: ReadonlyMap<string, Secret>;
  /** The names of every secret, upstream and clients first (known at synth time). */
  readonly names: readonly string[];
  private readonly settingsJson: string;

  constructor(scope: Construct, id: string, props: LeadsSecretsProps) {
    super(scope, id);
    this.prefix = props.prefix;
    this.settingsJson = JSON.stringify(props.settings);
    const names = secretNames(props.prefix);

    this.upstream = this.placeholderSecret(
      'Upstream',
      names.upstream,
      'Upstream Basic credentials: {"username": gym DNS, "password": secret key}',
      UPSTREAM_SECRET_KEYS,
    );
    this.clients = this.placeholderSecret(
      'Clients',
      names.clients,
      'API clients: [{"username", "passwordHash", "roles"}], scrypt hashes only',
      // The value becomes a JSON array; until then this key holds the placeholder.
      ['clients'],
    );
    const profiles = new Map<string, Secret>();
    for (const [name, profile] of Object.entries(props.settings.profiles)) {
      const keys = secretKeysOf(profile.source);
      if (keys.length === 0) continue;
      const secret = this.placeholderSecret(
        `Profile-${name}`,
        names.profile(name),
        `Keys of the ${name} profile (${profile.source}): ${keys.join(', ')}`,
        keys,
      );
      profiles.set(name, secret);
    }
    this.profiles = profiles;
    this.names = [
      names.upstream,
      names.clients,
      ...[...profiles.keys()].map((name) => names.profile(name)),
    ];
  }

  /**
   * Lets `fn` build its configuration: read access to the named secrets (none: settings only),
   * and the LEADS_SECRETS_PREFIX and LEADS_SETTINGS environment variables.
   */
  grantRead(fn: LambdaFunction, ...parts: readonly ConfigSecret[]): void {
    fn.addEnvironment(ENV.secretsPrefix, this.prefix);
    fn.addEnvironment(ENV.settings, this.settingsJson);
    const secrets = new Set<Secret>();
    for (const part of parts) {
      if (part === 'upstream') secrets.add(this.upstream);
      else if (part === 'clients') secrets.add(this.clients);
      else for (const secret of this.profiles.values()) secrets.add(secret);
    }
    for (const secret of secrets) secret.grantRead(fn);
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
