/**
 * AWS Control Tower's proactive controls (cfn-guard rules from @cdklabs/cdk-validator-cfnguard,
 * run as CDK's policy-validation plugin) over the `prod` stack: every finding is either fixed
 * or acknowledged with its reason (infra/constructs/control-tower.ts).
 *
 * The stack gets an account and a Region here: cfn-guard reads the template as written, where
 * `{"Ref": "AWS::AccountId"}` is not a string, while Control Tower's hook sees the values
 * resolved at deploy time. With an environment the template carries them as literals, as the
 * hook would see them.
 */
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../functions/kernel/routes.ts';
import { CONTROL_TOWER_PLUGIN } from '../../infra/constructs/control-tower.ts';
import { LeadsStack } from '../../infra/leads-stack.ts';
import {
  acknowledgements,
  deployConfig,
  removeTempOutdirs,
  synthViolations,
  testApp,
  type Violation,
} from './helpers.ts';

afterAll(removeTempOutdirs);

const ENVIRONMENT = { account: '123456789012', region: 'sa-east-1' };

function controlTowerApp() {
  const app = testApp();
  Validations.of(app).addPlugins(new CfnGuardValidator());
  return app;
}

describe('Control Tower proactive controls on the prod stack', () => {
  let violations: Violation[];
  let acks: ReturnType<typeof acknowledgements>;
  let template: Template;

  beforeAll(() => {
    const app = controlTowerApp();
    const stack = new LeadsStack(app, 'leads-prod', {
      env: ENVIRONMENT,
      config: deployConfig({ alarmEmail: 'alarmes@example.com' }),
    });
    template = Template.fromStack(stack);
    violations = synthViolations(app).filter((v) => v.plugin === CONTROL_TOWER_PLUGIN);
    acks = acknowledgements(app, CONTROL_TOWER_PLUGIN);
  }, 120_000);

  it('passes every rule that is not acknowledged', () => {
    expect(violations).toEqual([]);
  });

  it('acknowledges only the accepted controls, each with a written reason', () => {
    const rules = new Set(acks.map((a) => a.id.replace(`${CONTROL_TOWER_PLUGIN}::`, '')));
    expect(rules).toEqual(
      new Set([
        'cloudwatch_log_group_retention_period_check',
        'cloudwatch_log_group_encrypted_check',
        'lambda_inside_vpc_check',
        'cloudwatch_alarm_action_check',
        's3_bucket_object_lock_enabled_check',
        's3_event_notifications_enabled_check',
        // The access-log bucket of the debtors bucket only (see the next test).
        's3_bucket_logging_enabled_check',
        's3_bucket_default_encryption_kms_check',
        's3_bucket_versioning_enabled_check',
      ]),
    );
    for (const ack of acks) {
      expect(ack.reason.length, `${ack.id} at ${ack.path}`).toBeGreaterThanOrEqual(60);
    }
  });

  it('fixes the KMS grant, Lambda permission, SQS and debtors-bucket rules instead of acknowledging them', () => {
    const fixed = [
      'kms_create_grant_aws_service_check',
      'lambda_function_public_access_prohibited_check',
      'sqs_dlq_check',
    ];
    expect(acks.filter((a) => fixed.some((rule) => a.id.endsWith(`::${rule}`)))).toEqual([]);
    const bucketAcks = acks.filter(
      (a) => a.path === 'leads-prod/DebtorsReport/Bucket' && /logging|encryption/.test(a.id),
    );
    expect(bucketAcks).toEqual([]);
  });
  it("lets API Gateway invoke a function only for this account, each method on the API's stage", () => {
    const permissions = Object.values(
      template.findResources('AWS::Lambda::Permission', {
        Properties: { Principal: 'apigateway.amazonaws.com' },
      }),
    ) as Array<{ Properties: { SourceAccount: string; SourceArn: unknown } }>;
    const arns = permissions.map((p) => JSON.stringify(p.Properties.SourceArn));
    for (const p of permissions) expect(p.Properties.SourceAccount).toBe(ENVIRONMENT.account);
    // One per route with a function, plus the authorizer's (its own ARN).
    const methods = arns.filter((arn) => !arn.includes('/authorizers/'));
    expect(methods.length).toBe(ROUTES.filter((r) => r.fn !== undefined).length);
    expect(arns.filter((arn) => arn.includes('/authorizers/'))).toHaveLength(1);
    // `<api>/<the stage resource>/<METHOD>/<path, parameters as *>`: no wildcard stage or method.
    for (const arn of methods)
      expect(arn).toMatch(
        /\{"Ref":"GatewayApiDeploymentStage\w+"\},"\/(GET|POST|PUT|PATCH|DELETE|OPTIONS)\/[^*"]/,
      );
    expect(arns.some((arn) => arn.includes('/*/*/*'))).toBe(false);
  });
});

describe('the Control Tower check', () => {
  it('fails a new resource that breaks a rule (a queue without a dead-letter queue)', () => {
    const app = controlTowerApp();
    new Queue(new Stack(app, 'probe', { env: ENVIRONMENT }), 'Orphan');
    const found = synthViolations(app).filter((v) => v.plugin === CONTROL_TOWER_PLUGIN);
    expect(found).toContainEqual(
      expect.objectContaining({ rule: 'sqs_dlq_check', paths: ['probe/Orphan/Resource'] }),
    );
  }, 60_000);
});
