import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { WAF_BLOCKS_THRESHOLD } from '../../infra/constructs/platform-alarms.ts';
import { LeadsStack } from '../../infra/leads-stack.ts';
import { deployConfig, testApp } from './helpers.ts';

type Alarm = {
  Properties: {
    MetricName?: string;
    Namespace?: string;
    Threshold: number;
    Dimensions?: Array<{ Name: string; Value: unknown }>;
    AlarmActions?: unknown[];
  };
};

let alarms: Alarm[];
let functions: Record<string, { Properties: { FunctionName?: string } }>;

beforeAll(() => {
  const stack = new LeadsStack(testApp(), 'leads-prod', {
    config: deployConfig({ alarmEmail: 'alarmes@example.com' }),
  });
  const template = Template.fromStack(stack);
  alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Alarm[];
  functions = template.findResources('AWS::Lambda::Function') as typeof functions;
}, 120_000);

/** The alarms on `metric` of the function named `leads-prod-<name>`. */
function alarmsOn(metric: string, name: string): Alarm[] {
  const id = Object.keys(functions).find(
    (k) => functions[k]?.Properties.FunctionName === `leads-prod-${name}`,
  );
  expect(id, name).toBeDefined();
  return alarms.filter(
    (a) =>
      a.Properties.MetricName === metric &&
      JSON.stringify(a.Properties.Dimensions).includes(`"${id}"`),
  );
}

describe('the alarms added for issue 37', () => {
  it('alarm on forwarder throttles and on OpenAPI and settings-validator errors, notifying the topic', () => {
    for (const [metric, name] of [
      ['Throttles', 'forwarder'],
      ['Errors', 'openapi'],
      ['Errors', 'config-validator'],
    ] as const) {
      const found = alarmsOn(metric, name);
      expect(found, `${metric} of ${name}`).toHaveLength(1);
      expect(found[0]?.Properties.Threshold).toBe(1);
      expect(found[0]?.Properties.AlarmActions).toHaveLength(1);
    }
  });

  it("alarm on the web ACL's blocked requests (a flood or a scan, not one request)", () => {
    const waf = alarms.filter(
      (a) =>
        a.Properties.Namespace === 'AWS/WAFV2' && a.Properties.MetricName === 'BlockedRequests',
    );
    expect(waf).toHaveLength(1);
    expect(waf[0]?.Properties.Threshold).toBe(WAF_BLOCKS_THRESHOLD);
    expect(waf[0]?.Properties.Dimensions).toContainEqual({ Name: 'WebACL', Value: 'leads-prod' });
  });
});
