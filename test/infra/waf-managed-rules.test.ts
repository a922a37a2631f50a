import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { LeadsApi } from '../../infra/constructs/leads-api.ts';
import { onlyLogicalId, removeTempOutdirs, testStack } from './helpers.ts';

afterAll(removeTempOutdirs);

function aclRules(wafManagedRules: boolean) {
  const stack = testStack();
  const api = new LeadsApi(stack, 'Gateway', {
    stage: 'prod',
    rateLimit: 25,
    burstLimit: 50,
    cloudWatchRole: true,
    waf: true,
    wafManagedRules,
  });
  api.addRoute({ method: 'GET', path: '/health' });
  const template = Template.fromStack(stack);
  const acl = template.findResources('AWS::WAFv2::WebACL')[
    onlyLogicalId(template, 'AWS::WAFv2::WebACL')
  ] as { Properties: { Rules: Array<Record<string, unknown>> } };
  return acl.Properties.Rules;
}

describe("the web ACL's AWS managed rule groups (api.wafManagedRules)", () => {
  it('adds IP reputation, known bad inputs and the common rule set after the rate rule, the 8 KB body limit only counting', () => {
    const rules = aclRules(true);

    expect(rules.map((r) => [r.Name, r.Priority])).toEqual([
      ['RatePerAddress', 0],
      ['AWSManagedRulesAmazonIpReputationList', 1],
      ['AWSManagedRulesKnownBadInputsRuleSet', 2],
      ['AWSManagedRulesCommonRuleSet', 3],
    ]);
    expect(rules[3]).toMatchObject({
      OverrideAction: { None: {} },
      Statement: {
        ManagedRuleGroupStatement: {
          VendorName: 'AWS',
          Name: 'AWSManagedRulesCommonRuleSet',
          RuleActionOverrides: [{ Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } }],
        },
      },
      VisibilityConfig: { CloudWatchMetricsEnabled: true },
    });
  });

  it('keeps only the rate rule when off (the default)', () => {
    expect(aclRules(false).map((r) => r.Name)).toEqual(['RatePerAddress']);
  });
});
