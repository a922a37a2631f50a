/**
 * The stack as a first deploy and every release meet it (docs/deploy.md): what a failed create
 * leaves behind, the order CloudFormation must keep, who may assume or use what, how scheduled
 * invocations are retried, recursive loops, the alarms, and versions behind `live` aliases with
 * the intake's and the authorizer's canaries rolling back by themselves.
 */
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTIONS } from '../../functions/kernel/routes.ts';
import { REFRESHER_LOOP_REASON } from '../../infra/constructs/debtors-report.ts';
import { INTAKE_KEYED_ACTIONS } from '../../infra/constructs/lead-store.ts';
import { intakeServerErrorPattern } from '../../infra/constructs/platform-alarms.ts';
import { CANARY_FUNCTIONS, LeadsStack, RECURSIVE_LOOPS } from '../../infra/leads-stack.ts';
import { deployConfig, liveAliasOf, removeTempOutdirs, testApp } from './helpers.ts';

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  DependsOn?: string[];
  UpdatePolicy?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
}

interface TrustStatement {
  Principal?: { Service?: string };
  Condition: { StringEquals: Record<string, unknown> };
}

let stack: LeadsStack;
let template: Template;
let resources: Record<string, Resource>;

/** The logical id of a function of the table (or the refresher). */
function fnId(name: string): string {
  const fn = name === 'refresher' ? stack.report.refresher : stack.functions.get(name);
  if (!fn) throw new Error(`no function ${name}`);
  return stack.getLogicalId(fn.node.defaultChild as CfnFunction);
}

/** The names a resource gives itself: every string property whose key ends in `Name`. */
function fixedNames(resource: Resource): string[] {
  return Object.entries(resource.Properties ?? {})
    .filter(([key, value]) => /Name$/.test(key) && typeof value === 'string')
    .map(([key]) => key);
}

beforeAll(() => {
  stack = new LeadsStack(testApp(), 'leads-test', {
    config: deployConfig({ alarmEmail: 'ops@example.com' }),
  });
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources as Record<string, Resource>;
});
afterAll(removeTempOutdirs);

describe('a first deploy that works', () => {
  it('retains no named resource after a failed create: a retry would find the name taken', () => {
    // Act
    const retainedOnCreate = Object.entries(resources).filter(
      ([, r]) => r.DeletionPolicy === 'Retain',
    );

    // Assess: what Retain keeps (CDK's API Gateway logging role, AppConfig's versions) has no
    // name of its own; everything named that must outlive the stack is RetainExceptOnCreate.
    for (const [id, resource] of retainedOnCreate) {
      expect(fixedNames(resource), `${id} (${resource.Type})`).toEqual([]);
    }
    const kept = (type: string) =>
      Object.values(resources).filter((r) => r.Type === type && r.DeletionPolicy !== 'Delete');
    for (const type of [
      'AWS::SecretsManager::Secret',
      'AWS::DynamoDB::Table',
      'AWS::S3::Bucket',
      'AWS::Logs::LogGroup',
    ]) {
      expect(kept(type).length, type).toBeGreaterThan(0);
      for (const resource of kept(type)) {
        expect(resource.DeletionPolicy, type).toBe('RetainExceptOnCreate');
        expect(resource.UpdateReplacePolicy, type).toBe('Retain');
      }
    }
    // The fixed-name secrets are the ones a retried create would trip on.
    const secrets = Object.values(resources).filter(
      (r) => r.Type === 'AWS::SecretsManager::Secret',
    );
    expect(secrets.every((s) => String(s.Properties.Name).startsWith('leads/prod/'))).toBe(true);
    // Eleven log groups: one per function and the API's access log.
    expect(kept('AWS::Logs::LogGroup')).toHaveLength(Object.keys(FUNCTIONS).length + 2);
  });

  it("keeps the intake's ledger writes off the circuit, pacer, sign-in and lease items (dynamodb:LeadingKeys)", () => {
    // Act
    const patterns = INTAKE_KEYED_ACTIONS.flatMap((grant) => grant.keys as readonly string[]);
    const matches = (pattern: string, key: string) =>
      pattern.endsWith('*') ? key.startsWith(pattern.slice(0, -1)) : key === pattern;

    // Assess
    for (const key of [
      'circuit#upstream',
      'circuit#upstream#south',
      'pacer#upstream',
      'pacer#upstream#south',
      'authfail#user#ops',
      'authfail#seen#ops#127.0.0.1',
      'lease#report-refresh',
    ]) {
      expect(
        patterns.filter((p) => matches(p, key)),
        key,
      ).toEqual([]);
    }
  });

  it('lets Scheduler assume its roles only for schedules of this account (aws:SourceAccount, aws:SourceArn)', () => {
    // Act
    const trusts = Object.values(resources)
      .filter((r) => r.Type === 'AWS::IAM::Role')
      .map((r) => r.Properties.AssumeRolePolicyDocument as { Statement: TrustStatement[] })
      .flatMap((doc) => doc.Statement)
      .filter((s) => s.Principal?.Service === 'scheduler.amazonaws.com');

    // Assess: the reconciler's, the watch's and the report ticks'.
    expect(trusts).toHaveLength(3);
    for (const trust of trusts) {
      expect(Object.keys(trust.Condition.StringEquals).sort()).toEqual([
        'aws:SourceAccount',
        'aws:SourceArn',
      ]);
      expect(JSON.stringify(trust.Condition.StringEquals['aws:SourceArn'])).toContain(
        ':schedule-group/default',
      );
    }
  });

  it("sets Lambda's retries of scheduled invocations as the nag reasons say: none for the reconciler, two for the watch", () => {
    // Assess
    template.resourceCountIs('AWS::Lambda::EventInvokeConfig', 2);
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: fnId('reconciler') },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: fnId('watch') },
      MaximumRetryAttempts: 2,
      MaximumEventAgeInSeconds: 900,
    });
  });

  it('lets the functions that send to their own queue on purpose loop (with the reason), and stops every other', () => {
    // Act
    const loops = Object.fromEntries(
      [...Object.keys(FUNCTIONS), 'refresher'].map((name) => {
        const fn = resources[fnId(name)] as Resource;
        return [name, [fn.Properties.RecursiveLoop, fn.Metadata?.RecursiveLoopReason]];
      }),
    );

    // Assess
    for (const [name, [loop, reason]] of Object.entries(loops)) {
      if (name === 'forwarder' || name === 'refresher') {
        expect(loop, name).toBe('Allow');
        expect(reason, name).toBe(
          name === 'forwarder' ? RECURSIVE_LOOPS.forwarder : REFRESHER_LOOP_REASON,
        );
      } else {
        expect(loop, name).toBe('Terminate');
        expect(reason, name).toBeUndefined();
      }
    }
  });

  it('alarms on API 5XX, the intake 5XX, the authorizer, admin and report errors, intake throttles and DynamoDB throttling', () => {
    // Act
    const alarms = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
    const byMetric = (name: string, dimension?: string) =>
      alarms.filter(
        (a) =>
          a.Properties.MetricName === name &&
          (dimension === undefined || JSON.stringify(a.Properties.Dimensions).includes(dimension)),
      );

    // Assess
    expect(byMetric('5XXError', '"ApiName"')).toHaveLength(1);
    expect(byMetric('IntakeServerErrors')).toHaveLength(1);
    for (const name of ['authorizer', 'admin', 'report']) {
      expect(byMetric('Errors', `"${fnId(name)}"`), name).toHaveLength(1);
    }
    expect(byMetric('Throttles', `"${fnId('intake')}"`)).toHaveLength(1);
    const throttling = alarms.filter((a) =>
      JSON.stringify(a.Properties.Metrics ?? []).includes('ThrottledRequests'),
    );
    expect(throttling).toHaveLength(1);
    // The intake's 5xx come from the access log: its routes, any 5xx status.
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: intakeServerErrorPattern(),
      MetricTransformations: [
        Match.objectLike({ MetricName: 'IntakeServerErrors', MetricValue: '1' }),
      ],
    });
    expect(intakeServerErrorPattern()).toBe(
      '{ ($.status = "5*") && ($.resourcePath = "/leads/{profile}" || $.resourcePath = "/api/v1/prospects") }',
    );
  });
});

describe('versions, aliases and a canary', () => {
  it('publishes every function as a version behind a live alias', () => {
    // Act
    const functions = Object.keys(resources).filter(
      (id) => resources[id]?.Type === 'AWS::Lambda::Function',
    );

    // Assess
    expect(functions).toHaveLength(Object.keys(FUNCTIONS).length + 1);
    for (const fn of functions) {
      const alias = resources[liveAliasOf(template, fn)] as Resource;
      const version = alias.Properties.FunctionVersion as { 'Fn::GetAtt': [string, string] };
      expect(resources[version['Fn::GetAtt'][0]]?.Type, fn).toBe('AWS::Lambda::Version');
    }
  });

  it('shifts the intake and the authorizer by canary (10% for 5 minutes), rolled back by the named alarms', () => {
    // Act
    const groups = Object.entries(resources).filter(
      ([, r]) => r.Type === 'AWS::CodeDeploy::DeploymentGroup',
    );
    const alarmIds = (alarms: readonly { node: { defaultChild?: unknown } }[]) =>
      alarms.map((a) => ({ Name: { Ref: stack.getLogicalId(a.node.defaultChild as never) } }));
    const rollback = alarmIds([
      stack.alarms.alarms.intakeServerErrors,
      stack.observability.alarms.intakeErrors,
      stack.alarms.alarms.authorizerErrors,
      stack.observability.alarms.forwarderErrors,
      stack.releases.deadLettersGrew,
    ]);

    // Assess
    expect(groups).toHaveLength(CANARY_FUNCTIONS.length);
    for (const name of CANARY_FUNCTIONS) {
      const alias = resources[liveAliasOf(template, fnId(name))] as Resource;
      const update = alias.UpdatePolicy?.CodeDeployLambdaAliasUpdate as {
        DeploymentGroupName: { Ref: string };
      };
      const group = resources[update.DeploymentGroupName.Ref] as Resource;
      expect(group.Properties, name).toMatchObject({
        DeploymentConfigName: 'CodeDeployDefault.LambdaCanary10Percent5Minutes',
        AlarmConfiguration: { Enabled: true, Alarms: rollback },
        AutoRollbackConfiguration: {
          Enabled: true,
          Events: expect.arrayContaining(['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM']),
        },
      });
      // The new forwarder runs before the canary starts, so its 5 minutes watch it too.
      expect(alias.DependsOn, name).toEqual([liveAliasOf(template, fnId('forwarder'))]);
    }
    // The workers move all at once: CloudFormation updates their alias, no deployment group.
    for (const name of ['forwarder', 'reconciler', 'watch', 'admin', 'report', 'refresher']) {
      expect(resources[liveAliasOf(template, fnId(name))]?.UpdatePolicy, name).toBeUndefined();
    }
  });

  it('rolls back on dead letters added during the release, not on the ones already waiting for a redrive', () => {
    // Act
    const alarm = resources[
      stack.getLogicalId(stack.releases.deadLettersGrew.node.defaultChild as never)
    ] as Resource;

    // Assess: the growth of the DLQ within a period; no e-mail (DeadLetterAlarm says it).
    const metrics = alarm.Properties.Metrics as Array<{ Expression?: string }>;
    expect(metrics.find((m) => m.Expression)?.Expression).toBe('DIFF(dlq)');
    expect(alarm.Properties.AlarmActions).toBeUndefined();
  });

  it('turns the alarm check off for one deploy with -c rollbackAlarms=off', () => {
    // Act
    const off = new LeadsStack(testApp({ context: { rollbackAlarms: 'off' } }), 'leads-test', {
      config: deployConfig(),
    });

    // Assess: the canaries still run and roll back on a failure, but no alarm stops them.
    const groups = Object.values(
      Template.fromStack(off).findResources('AWS::CodeDeploy::DeploymentGroup'),
    ) as Resource[];
    expect(groups).toHaveLength(2);
    for (const group of groups) {
      expect(group.Properties.AlarmConfiguration).toMatchObject({ Enabled: false });
      expect(group.Properties.DeploymentConfigName).toBe(
        'CodeDeployDefault.LambdaCanary10Percent5Minutes',
      );
    }
  });

  it('points the event sources, the schedules, the API integrations and the AppConfig validator at the aliases', () => {
    // Act
    const aliases = new Set(
      Object.keys(resources).filter((id) => resources[id]?.Type === 'AWS::Lambda::Alias'),
    );
    const functions = Object.keys(resources).filter(
      (id) => resources[id]?.Type === 'AWS::Lambda::Function',
    );
    const targets = (type: string, pick: (r: Resource) => unknown) =>
      Object.values(resources)
        .filter((r) => r.Type === type)
        .map((r) => JSON.stringify(pick(r)));
    const names = (refs: string[]) => (text: string) =>
      refs.filter((id) => text.includes(`"${id}"`));

    // Assess: every invoker names an alias, and no invoker names a function itself.
    const invokers = [
      ...targets('AWS::Lambda::EventSourceMapping', (r) => r.Properties.FunctionName),
      ...targets('AWS::Scheduler::Schedule', (r) => (r.Properties.Target as { Arn: unknown }).Arn),
      ...targets('AWS::ApiGateway::Method', (r) => r.Properties.Integration),
      ...targets('AWS::ApiGateway::Authorizer', (r) => r.Properties.AuthorizerUri),
      ...targets('AWS::Lambda::Permission', (r) => r.Properties.FunctionName),
      ...targets('AWS::AppConfig::ConfigurationProfile', (r) => r.Properties.Validators),
    ];
    const lambdaInvokers = invokers.filter((text) => names([...aliases])(text).length > 0);
    expect(lambdaInvokers.length).toBeGreaterThanOrEqual(2 + 3 + 20 + 1 + 1);
    for (const text of invokers) expect(names(functions)(text), text).toEqual([]);
  });
});
