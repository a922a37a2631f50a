/**
 * The configuration store: the non-secret settings (accounts, profiles, delivery, report) as one
 * AWS AppConfig hosted configuration, so that a stack holds hundreds of profiles (no 4 KB
 * environment variable) and a change takes effect within a minute without a deploy
 * (docs/configuration.md).
 *
 * - Application `leads-<stage>`, environment `<stage>`, configuration profile `settings`
 *   (freeform JSON). AppConfig keeps every version: `npm run config -- rollback` deploys the
 *   previous one.
 * - Two validators run before any version is deployed: a JSON Schema (the settings' shape,
 *   generated from the zod schema: functions/config/config-json-schema.ts) and the
 *   configuration validator function (FUNCTIONS['config-validator'], its `live` alias), which
 *   runs exactly the checks the functions run (every profile against its source's schema,
 *   unknown keys, the accounts' references). A version either passes both or is never seen.
 *   AppConfig may invoke the validator only from this account (the permission's SourceAccount),
 *   and the stack's deployment of the first version waits for that permission (DependsOn):
 *   without it CloudFormation may start the deployment first, the validator's invocation is
 *   refused, the validation fails and the whole stack rolls back.
 * - The deploy configuration's settings are deployed as a version when they change, all at once
 *   (no canary: a configuration is either valid or refused), without bake time.
 * - Functions read it through the AppConfig data API (Powertools' provider, cached 45 s):
 *   `grantRead` sets the three names they need and allows StartConfigurationSession and
 *   GetLatestConfiguration on this one configuration profile.
 */
import { Arn, Duration, Stack, Validations } from 'aws-cdk-lib';
import {
  Application,
  CfnDeployment,
  ConfigurationContent,
  DeploymentStrategy,
  Environment,
  HostedConfiguration,
  JsonSchemaValidator,
  RolloutStrategy,
  ValidatorType,
} from 'aws-cdk-lib/aws-appconfig';
import { Grant, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { CfnPermission, Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { Settings } from '../../functions/config/config-aws.ts';
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
  /** The settings to deploy (the deploy configuration's). */
  settings: Settings;
  /** Validates a version with the functions' own rules before it is deployed (its `live` alias). */
  validator: NodeFunction;
}

export class ConfigStore extends Construct {
  readonly application: Application;
  readonly environment: Environment;
  readonly configuration: HostedConfiguration;

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
    const strategy = new DeploymentStrategy(this, 'AllAtOnce', {
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
    const permission = validator.permissionsNode.findChild('AppConfigPermission') as CfnPermission;
    this.configuration = new HostedConfiguration(this, 'Settings', {
      application: this.application,
      name: names.profile,
      description:
        'Accounts, profiles, delivery and report settings; secrets stay in Secrets Manager',
      content: ConfigurationContent.fromInlineJson(JSON.stringify(props.settings)),
      validators: [
        JsonSchemaValidator.fromInline(JSON.stringify(settingsStoreJsonSchema())),
        { type: ValidatorType.LAMBDA, content: validator.functionArn },
      ],
      deploymentStrategy: strategy,
      deployTo: [this.environment],
    });
    // The deployment runs the validator: only once AppConfig may invoke it (module comment).
    for (const child of this.node.findAll()) {
      if (child instanceof CfnDeployment) child.node.addDependency(permission);
    }
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
    fn.addEnvironment(ENV.appConfigProfile, this.configuration.configurationProfileId);
    Grant.addToPrincipal({
      grantee: fn,
      actions: ['appconfig:StartConfigurationSession', 'appconfig:GetLatestConfiguration'],
      resourceArns: [
        Arn.format(
          {
            service: 'appconfig',
            resource: 'application',
            resourceName: `${this.application.applicationId}/environment/${this.environment.environmentId}/configuration/${this.configuration.configurationProfileId}`,
          },
          Stack.of(this),
        ),
      ],
    });
  }
}
