/**
 * The configuration store: the non-secret settings (accounts, profiles, delivery, report) as
 * AWS AppConfig hosted configuration versions, so that a stack holds thousands of profiles (no
 * 4 KB environment variable, no 1 MB template) and a change takes effect within a minute without
 * a deploy (docs/configuration.md).
 *
 * - Application `leads-<stage>`, environment `<stage>`, configuration profile `settings`
 *   (freeform JSON, hosted). AppConfig keeps every version: `npm run config -- rollback` deploys
 *   the previous one.
 * - The template holds no setting. Versions are stored by `npm run config -- push`, and
 *   `npm run deploy` pushes the deploy file's settings right after CloudFormation finishes
 *   (scripts/cdk.ts) when they differ from the deployed version: the same path, the same
 *   validators, the same history. Why not an S3-backed profile fed by a BucketDeployment: AppConfig
 *   reads at most 1 MB from S3 against 2 MB hosted, and it would add a bucket, a custom resource
 *   function and its role to every stack; why not inline (the stack's first design): the template
 *   grew with every profile and passes CloudFormation's 1 MB at a few thousand.
 * - Two validators run before any version is deployed: a JSON Schema (the settings' shape,
 *   generated from the zod schema: functions/config/config-json-schema.ts) and the
 *   configuration validator function (FUNCTIONS['config-validator'], its `live` alias), which
 *   runs exactly the checks the functions run (every profile against its source's schema,
 *   unknown keys, the accounts' references). A version either passes both or is never seen.
 *   AppConfig may invoke the validator only from this account (the permission's SourceAccount).
 * - Deployments are all at once (no canary: a configuration is either valid or refused), without
 *   bake time.
 * - Functions read it through the AppConfig data API (Powertools' provider, cached 45 s):
 *   `grantRead` sets the three names they need and allows StartConfigurationSession and
 *   GetLatestConfiguration on this one configuration profile.
 */
import { Arn, Duration, Stack, Validations } from 'aws-cdk-lib';
import {
  Application,
  CfnConfigurationProfile,
  DeploymentStrategy,
  Environment,
  RolloutStrategy,
  ValidatorType,
} from 'aws-cdk-lib/aws-appconfig';
import { Grant, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { settingsStoreJsonSchema } from '../../functions/config/config-json-schema.ts';
import { ENV } from '../../functions/kernel/env.ts';
import type { NodeFunction } from './node-function.ts';

/** The configuration profile's name (the CLI finds it by name). */
export const SETTINGS_PROFILE = 'settings';

/** The names `npm run config` finds the store by: the application, environment and strategy. */
export function configStoreNames(stage: string) {
  return {
    application: `leads-${stage}`,
    environment: stage,
    profile: SETTINGS_PROFILE,
    strategy: `leads-${stage}-all-at-once`,
  } as const;
}

export interface ConfigStoreProps {
  stage: string;
  /** Validates a version with the functions' own rules before it is deployed (its `live` alias). */
  validator: NodeFunction;
}

export class ConfigStore extends Construct {
  readonly application: Application;
  readonly environment: Environment;
  /** The `settings` configuration profile (hosted); its versions come from `config push`. */
  readonly configuration: CfnConfigurationProfile;
  readonly strategy: DeploymentStrategy;

  constructor(scope: Construct, id: string, props: ConfigStoreProps) {
    super(scope, id);
    const names = configStoreNames(props.stage);
    this.application = new Application(this, 'Application', {
      applicationName: names.application,
      description: 'Leads gateway settings (docs/configuration.md)',
    });
    this.environment = new Environment(this, 'Environment', {
      application: this.application,
      environmentName: names.environment,
    });
    this.strategy = new DeploymentStrategy(this, 'AllAtOnce', {
      deploymentStrategyName: names.strategy,
      description: 'Every function sees a validated version at once, within a minute',
      rolloutStrategy: RolloutStrategy.linear({
        growthFactor: 100,
        deploymentDuration: Duration.minutes(0),
        finalBakeTime: Duration.minutes(0),
      }),
    });
    const validator = props.validator.live;
    // Only AppConfig in this account may invoke the validator.
    validator.addPermission('AppConfigPermission', {
      principal: new ServicePrincipal('appconfig.amazonaws.com'),
      sourceAccount: Stack.of(this).account,
    });
    // Same construct path as the first design's HostedConfiguration: the profile (and the id the
    // functions hold) survives the move of its versions out of the template.
    const settings = new Construct(this, 'Settings');
    this.configuration = new CfnConfigurationProfile(settings, 'ConfigurationProfile', {
      applicationId: this.application.applicationId,
      name: names.profile,
      // No Type (freeform by default), as the first design's: changing it would replace the profile.
      locationUri: 'hosted',
      description:
        'Accounts, profiles, delivery and report settings; secrets stay in Secrets Manager. Versions: npm run config -- push',
      validators: [
        { type: ValidatorType.JSON_SCHEMA, content: JSON.stringify(settingsStoreJsonSchema()) },
        { type: ValidatorType.LAMBDA, content: validator.functionArn },
      ],
    });
    Validations.of(props.validator).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'AppConfig calls the validator synchronously while it checks a new version and refuses the version when the call fails: there is no asynchronous invocation to retry or dead-letter.',
    });
  }

  /** Lets `fn` read the settings: the names it needs and the two data-plane actions. */
  grantRead(fn: LambdaFunction): void {
    fn.addEnvironment(ENV.appConfigApplication, this.application.applicationId);
    fn.addEnvironment(ENV.appConfigEnvironment, this.environment.environmentId);
    fn.addEnvironment(ENV.appConfigProfile, this.configuration.ref);
    Grant.addToPrincipal({
      grantee: fn,
      actions: ['appconfig:StartConfigurationSession', 'appconfig:GetLatestConfiguration'],
      resourceArns: [
        Arn.format(
          {
            service: 'appconfig',
            resource: 'application',
            resourceName: `${this.application.applicationId}/environment/${this.environment.environmentId}/configuration/${this.configuration.ref}`,
          },
          Stack.of(this),
        ),
      ],
    });
  }
}
