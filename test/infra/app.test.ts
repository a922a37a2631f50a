import { type CfnElement, RemovalPolicy } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../functions/kernel/routes.ts';
import { buildApp, type LeadsApp } from '../../infra/app.ts';
import { LeadsApi } from '../../infra/constructs/leads-api.ts';
import { LeadsSecrets } from '../../infra/constructs/leads-secrets.ts';
import { NodeFunction } from '../../infra/constructs/node-function.ts';
import {
  acknowledgements,
  addNagPacks,
  cdkJsonContext,
  deployConfig,
  removeTempOutdirs,
  synthViolations,
  tempOutdir,
  testApp,
  testStack,
  type Violation,
} from './helpers.ts';

afterAll(removeTempOutdirs);

describe('the CDK app (config/deploy.example.json)', () => {
  let built: LeadsApp;
  let violations: Violation[];

  beforeAll(() => {
    // What `npx cdk synth` does: cdk.json's context, cdk-nag packs, CDK's own validation.
    built = buildApp({
      outdir: tempOutdir(),
      context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] },
      env: {},
    });
    violations = synthViolations(built.app);
    // A whole stack with cdk-nag: as long as the many-profiles one on a loaded machine.
  }, 120_000);

  it('synthesizes with no unacknowledged cdk-nag (or CDK validation) error or warning', () => {
    expect(violations).toEqual([]);
  });

  it('is environment-agnostic and holds the API, the secrets, the ledger, the queues and the outputs', () => {
    // Act
    const template = Template.fromStack(built.stack);

    // Assess
    expect(built.stack.stackName).toBe('leads-example');
    expect(built.stack.environment).toBe('aws://unknown-account/unknown-region');
    template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
    // The packed store's shards (16 for profiles, 4 for accounts), the clients, the erasure salt:
    // the same 22 for any number of profiles and accounts.
    template.resourceCountIs('AWS::SecretsManager::Secret', 22);
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    // The lead queue and the report's refresh queue, each with its dead-letter queue.
    template.resourceCountIs('AWS::SQS::Queue', 4);
    // intake, report, forwarder, the Basic-auth authorizer, the API description, admin, the
    // report refresher, the delivery reconciler and the configuration validator
    // and the quiet-profile watch.
    template.resourceCountIs('AWS::Lambda::Function', 10);
    // The configuration store: its application, environment and profile; its versions come from
    // `npm run deploy` / `config push`, never from the template.
    template.resourceCountIs('AWS::AppConfig::Application', 1);
    template.resourceCountIs('AWS::AppConfig::Environment', 1);
    template.resourceCountIs('AWS::AppConfig::ConfigurationProfile', 1);
    template.resourceCountIs('AWS::AppConfig::HostedConfigurationVersion', 0);
    template.resourceCountIs('AWS::AppConfig::Deployment', 0);
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    template.resourceCountIs('AWS::SNS::Topic', 1);
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    expect(Object.keys(template.findOutputs('*')).sort()).toEqual([
      'AlarmTopicArn',
      'ApiUrl',
      'ConsoleUrl',
      'LeadDeadLetterQueueUrl',
      'LeadQueueUrl',
      'LeadUrlPattern',
      'LedgerTableName',
      'ReportBucketName',
      'ReportRefreshQueueUrl',
      'SecretNames',
      'SecretsPrefix',
    ]);
    template.hasOutput('SecretsPrefix', { Value: 'leads/example' });
    template.hasOutput('SecretNames', {
      Value: Match.stringLikeRegexp(
        '^leads/example/clients,leads/example/store/accounts-0,.*,leads/example/store/profiles-15$',
      ),
    });
  });

  it('gives every acknowledged finding a written reason, also in the template', () => {
    // Act
    const acks = acknowledgements(built.app);
    const bucket = built.stack.getLogicalId(
      built.stack.report.bucket.node.defaultChild as CfnElement,
    );
    const template = Template.fromStack(built.stack).toJSON() as {
      Resources: Record<string, { Metadata?: { cdk_nag?: { rules_to_suppress: unknown[] } } }>;
    };

    // Assess
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) {
      expect(ack.reason.length, `${ack.id} at ${ack.path}`).toBeGreaterThanOrEqual(40);
    }
    const ids = new Set(acks.map((a) => a.id));
    expect(ids).toEqual(
      new Set([
        'AwsSolutions-SMG4',
        'AwsSolutions-APIG4',
        'AwsSolutions-COG4',
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        // The functions: X-Ray's wildcard, and no async DLQ behind a synchronous route or
        // behind the authorizer (API Gateway calls both synchronously).
        'AwsSolutions-IAM5[Resource::*]',
        'Serverless-LambdaDLQ',
        // Accounts added without a deploy: their report objects (their secrets are entries of
        // the shards, granted by ARN).
        `AwsSolutions-IAM5[Resource::<${bucket}.Arn>/debtors/accounts/*/checkpoint.json]`,
        `AwsSolutions-IAM5[Resource::<${bucket}.Arn>/debtors/accounts/*/current.json]`,
        `AwsSolutions-IAM5[Resource::<${bucket}.Arn>/debtors/accounts/*/status.json]`,
        // Behind a synchronous invoker, and the scheduled functions' dropped events.
        'Serverless-LambdaAsyncFailureDestination',
        // CodeDeploy's service role for the canaries: the AWS managed policy for it.
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
        // The alarm e-mail's subscription (alarmEmail): SNS retries e-mail itself.
        'Serverless-SNSRedrivePolicy',
        // The lead queue's DLQ has no redrive policy of its own.
        'Serverless-SQSRedrivePolicy',
        // The forwarder and the report refresher: SQS event sources take no failure destination.
        'Serverless-LambdaEventSourceMappingDestination',
        // The report bucket's access-log bucket: no access logs of its own.
        'AwsSolutions-S1',
      ]),
    );
    // Acknowledged on the narrowest construct: never the app or the stack.
    // (A function is a direct child of the stack, so `<stack>/<fn>` is narrow enough.)
    for (const ack of acks) {
      expect(ack.path, ack.id).not.toBe(built.app.node.path);
      expect(ack.path, ack.id).not.toBe(built.stack.node.path);
    }
    // APIG4 (no authorization) is acknowledged on exactly the routes without `auth: 'basic'`
    // (webhooks and /health); the Basic routes satisfy it with the authorizer.
    const methodOf = (path: string) => {
      const parts = path.replace(`${built.stack.node.path}/Gateway/Api/Default`, '').split('/');
      return `${parts.pop()} ${parts.join('/')}`;
    };
    const apig4 = acks.filter((a) => a.id === 'AwsSolutions-APIG4').map((a) => methodOf(a.path));
    expect(apig4.sort()).toEqual(
      ROUTES.filter((r) => r.auth !== 'basic')
        .map((r) => `${r.method} ${r.path}`)
        .sort(),
    );
    // The API description is open for its own reason, not a webhook's.
    expect(
      acks.find((a) => a.id === 'AwsSolutions-APIG4' && methodOf(a.path) === 'GET /openapi.json')
        ?.reason,
    ).toContain('The API description is public');
    const cog4 = acks.filter((a) => a.id === 'AwsSolutions-COG4').map((a) => methodOf(a.path));
    expect(cog4.sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    const audited = Object.values(template.Resources).flatMap(
      (r) => r.Metadata?.cdk_nag?.rules_to_suppress ?? [],
    );
    expect(audited).toContainEqual({
      id: 'AwsSolutions-SMG4',
      reason: expect.stringContaining('rotate them by hand'),
    });
  });
});

describe('cdk-nag on the house constructs', () => {
  it('passes a function behind a route that reads a secret', () => {
    // Prepare
    const app = testApp({ builtinCloudFormationValidation: true });
    addNagPacks(app);
    const stack = testStack(app);
    const config = deployConfig();
    const secrets = new LeadsSecrets(stack, 'Secrets', { prefix: config.secretsPrefix });
    const api = new LeadsApi(stack, 'Gateway', {
      stage: 'test',
      rateLimit: 10,
      burstLimit: 20,
      cloudWatchRole: true,
    });
    const fn = new NodeFunction(stack, 'Intake', { entry: 'test/fixtures/functions/hello.ts' });
    secrets.grantRead(fn, 'upstream', 'profiles');
    api.addRoute({ method: 'GET', path: '/health' });
    // As the stack routes: to the function's live alias.
    api.addRoute({ method: 'POST', path: '/leads/{profile}' }, fn.live);

    // Act
    const found = synthViolations(app);

    // Assess
    expect(found).toEqual([]);
    const acks = acknowledgements(app);
    expect(acks).toContainEqual(
      expect.objectContaining({
        path: 'test/IntakeRole/DefaultPolicy',
        id: 'AwsSolutions-IAM5[Resource::*]',
      }),
    );
    expect(acks).toContainEqual(
      expect.objectContaining({ path: 'test/Intake', id: 'Serverless-LambdaDLQ' }),
    );
  });

  it('reports an unacknowledged finding (the check is not vacuous)', () => {
    // Prepare
    const app = testApp();
    addNagPacks(app);
    new Secret(testStack(app), 'Bare', { removalPolicy: RemovalPolicy.DESTROY });

    // Act
    const found = synthViolations(app);

    // Assess
    expect(found).toContainEqual(
      expect.objectContaining({
        rule: 'AwsSolutions-SMG4',
        severity: 'error',
        paths: ['test/Bare/Resource'],
      }),
    );
  });
});
