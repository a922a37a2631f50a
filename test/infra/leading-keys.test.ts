/**
 * Least privilege by key: every DynamoDB grant of every function of the stack on the ledger
 * table carries a `dynamodb:LeadingKeys` condition, so no function can read or write items of
 * a kind it does not use; the only unconditioned DynamoDB grants are Query on the two indexes
 * (docs/privacy.md), and X-Ray's writes are the only `*`.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { LeadsStack } from '../../infra/leads-stack.ts';
import { deployConfig, onlyLogicalId, testApp } from './helpers.ts';

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: { 'ForAllValues:StringLike'?: { 'dynamodb:LeadingKeys'?: string[] } };
}

let template: Template;
let table: string;
let functions: Record<string, string>;

/** The statements of the policies attached to the role of the function `fnId`. */
function statementsOf(fnId: string): Statement[] {
  const fn = template.findResources('AWS::Lambda::Function')[fnId] as {
    Properties: { Role: { 'Fn::GetAtt': [string, string] } };
  };
  const role = fn.Properties.Role['Fn::GetAtt'][0];
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Array<{
    Properties: { Roles: unknown[]; PolicyDocument: { Statement: Statement[] } };
  }>;
  return policies
    .filter((p) => JSON.stringify(p.Properties.Roles).includes(`"${role}"`))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}

beforeAll(() => {
  const stack = new LeadsStack(testApp(), 'leads-prod', {
    config: deployConfig({ alarmEmail: 'alarmes@example.com' }),
  });
  template = Template.fromStack(stack);
  table = onlyLogicalId(template, 'AWS::DynamoDB::Table');
  const fns = template.findResources('AWS::Lambda::Function') as Record<
    string,
    { Properties: { FunctionName?: string } }
  >;
  functions = Object.fromEntries(
    Object.entries(fns).map(([id, fn]) => [fn.Properties.FunctionName ?? id, id]),
  );
}, 120_000);

describe('DynamoDB grants by key', () => {
  it('covers every function of the stack, and the table users among them', () => {
    const users = Object.keys(functions).filter((name) =>
      statementsOf(functions[name] as string).some((s) =>
        [s.Action].flat().some((a) => a.startsWith('dynamodb:')),
      ),
    );
    // intake, forwarder, reconciler, watch, authorizer, admin, the report refresher.
    expect(users.length).toBeGreaterThanOrEqual(7);
  });

  for (const role of ['intake', 'forwarder', 'reconciler', 'admin', 'authorizer', 'watch']) {
    it(`${role}: no DynamoDB grant on the table without a LeadingKeys condition`, () => {
      const name = Object.keys(functions).find((n) => n.endsWith(`-${role}`));
      expect(name, `the ${role} function`).toBeDefined();
      checkFunction(name as string);
    });
  }

  it('the report refresher: no DynamoDB grant on the table without a LeadingKeys condition', () => {
    checkFunction(Object.keys(functions).find((n) => n.endsWith('-report-refresher')) as string);
  });

  it('gives no function a DynamoDB action on the whole table or on `*`', () => {
    for (const name of Object.keys(functions)) checkFunction(name);
  });
});

/**
 * Each DynamoDB statement of the function: on the table ARN with LeadingKeys patterns (none of
 * them `*` alone), or Query on an index ARN; `*` only for X-Ray.
 */
function checkFunction(name: string): void {
  for (const statement of statementsOf(functions[name] as string)) {
    const actions = [statement.Action].flat();
    const resources = [statement.Resource].flat().map((r) => JSON.stringify(r));
    if (resources.includes('"*"')) {
      expect(
        actions.every((a) => a.startsWith('xray:')),
        `${name}: ${actions}`,
      ).toBe(true);
    }
    const dynamo = actions.filter((a) => a.startsWith('dynamodb:'));
    if (dynamo.length === 0) continue;
    const onIndexes = resources.every((r) => r.includes('/index/'));
    if (onIndexes) {
      expect(dynamo, `${name} on the indexes`).toEqual(['dynamodb:Query']);
      continue;
    }
    expect(resources, `${name}: ${dynamo}`).toEqual([
      JSON.stringify({ 'Fn::GetAtt': [table, 'Arn'] }),
    ]);
    const keys = statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
    expect(keys, `${name}: ${dynamo} without LeadingKeys`).toBeDefined();
    expect(keys?.length).toBeGreaterThan(0);
    for (const key of keys ?? []) expect(key, `${name}: ${dynamo}`).not.toBe('*');
  }
}
