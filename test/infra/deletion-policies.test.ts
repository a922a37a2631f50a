/**
 * What a failed first create and a stack deletion leave behind, walked over the whole `prod`
 * template: each retained resource is `RetainExceptOnCreate` (kept when the stack goes or the
 * resource is replaced; a failed first create deletes it, so the rollback ends clean and a
 * retry starts from nothing), and nothing stops that rollback: no deletion protection on the
 * table in the template, no hosted configuration version (the deploy script creates those,
 * and `npm run destroy` deletes them first).
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { LeadsStack } from '../../infra/leads-stack.ts';
import { deployConfig, testApp } from './helpers.ts';

type Resources = Record<
  string,
  { Type: string; DeletionPolicy?: string; UpdateReplacePolicy?: string; Properties?: object }
>;

/** The types whose resources outlive the stack (data, audit trail, credentials). */
const RETAINED = new Set([
  'AWS::DynamoDB::Table',
  'AWS::S3::Bucket',
  'AWS::SecretsManager::Secret',
  'AWS::Logs::LogGroup',
  // API Gateway's Region-wide logging role and its account setting.
  'AWS::IAM::Role',
  'AWS::ApiGateway::Account',
]);

let resources: Resources;

beforeAll(() => {
  const stack = new LeadsStack(testApp(), 'leads-prod', {
    config: deployConfig({ alarmEmail: 'alarmes@example.com' }),
  });
  resources = Template.fromStack(stack).toJSON().Resources as Resources;
}, 120_000);

describe('deletion policies of the prod template', () => {
  it('retains only data, logs, secrets and the API logging role, and each of them except on a failed create', () => {
    const retained = Object.entries(resources).filter(
      ([, r]) => r.DeletionPolicy !== undefined && r.DeletionPolicy !== 'Delete',
    );
    expect(retained.length).toBeGreaterThan(0);
    for (const [id, r] of retained) {
      expect(RETAINED.has(r.Type), `${id} (${r.Type}) is retained`).toBe(true);
      expect(r.DeletionPolicy, `${id} (${r.Type})`).toBe('RetainExceptOnCreate');
      expect(r.UpdateReplacePolicy, `${id} (${r.Type})`).toBe('Retain');
    }
    // The data stores are among them.
    for (const type of ['AWS::DynamoDB::Table', 'AWS::S3::Bucket', 'AWS::SecretsManager::Secret']) {
      expect(
        retained.some(([, r]) => r.Type === type),
        type,
      ).toBe(true);
    }
  });

  it('holds nothing a rollback or a deletion cannot delete', () => {
    const types = new Set(Object.values(resources).map((r) => r.Type));
    // Created by the deploy script; deleted by `npm run destroy` before CloudFormation runs.
    expect(types.has('AWS::AppConfig::HostedConfigurationVersion')).toBe(false);
    for (const [id, r] of Object.entries(resources)) {
      expect(
        (r.Properties as { DeletionProtectionEnabled?: unknown } | undefined)
          ?.DeletionProtectionEnabled,
        `${id} (${r.Type}) has deletion protection in the template`,
      ).toBeUndefined();
    }
  });
});
