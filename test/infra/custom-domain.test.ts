/**
 * The deploy config's `customDomain` (infra/constructs/api-domain.ts): a REGIONAL API Gateway
 * domain name with TLS 1.2 mapped at its root to the stage; with a hosted zone its alias record
 * (and a DNS-validated certificate when no ARN is given); without one, the CNAME target as an
 * output. The outputs and the admin function's kit URL follow the domain. Both variants pass
 * cdk-nag and Control Tower's cfn-guard rules with no new acknowledgement.
 */
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnStage } from 'aws-cdk-lib/aws-apigateway';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../functions/kernel/env.ts';
import { DeployConfigError } from '../../infra/config.ts';
import { CONTROL_TOWER_PLUGIN } from '../../infra/constructs/control-tower.ts';
import { LeadsStack } from '../../infra/leads-stack.ts';
import {
  acknowledgements,
  addNagPacks,
  deployConfig,
  environmentOf,
  removeTempOutdirs,
  synthViolations,
  testApp,
  type Violation,
} from './helpers.ts';

afterAll(removeTempOutdirs);

const ENVIRONMENT = { account: '123456789012', region: 'sa-east-1' };
const CERTIFICATE =
  'arn:aws:acm:sa-east-1:123456789012:certificate/0f1e2d3c-aaaa-bbbb-cccc-123456789abc';

function adminEnv(stack: LeadsStack): Record<string, unknown> {
  const admin = stack.functions.get('admin');
  if (!admin) throw new Error('no admin function');
  return environmentOf(
    Template.fromStack(stack),
    stack.getLogicalId(admin.node.defaultChild as CfnFunction),
  );
}

describe('customDomain in the deploy config', () => {
  let zoned: LeadsStack;
  let cnamed: LeadsStack;
  let plain: LeadsStack;
  let violations: Violation[];
  let acks: { withDomain: number; without: number };

  beforeAll(() => {
    const app = testApp();
    addNagPacks(app);
    Validations.of(app).addPlugins(new CfnGuardValidator());
    zoned = new LeadsStack(app, 'leads-zoned', {
      env: ENVIRONMENT,
      config: deployConfig({
        customDomain: { name: 'leads.academia.com.br', hostedZoneId: 'Z0123456789ABCDEFGHIJ' },
      }),
    });
    cnamed = new LeadsStack(app, 'leads-cnamed', {
      env: ENVIRONMENT,
      config: deployConfig({
        customDomain: { name: 'leads.academia.com.br', certificateArn: CERTIFICATE },
      }),
    });
    plain = new LeadsStack(app, 'leads-plain', { env: ENVIRONMENT, config: deployConfig() });
    violations = synthViolations(app);
    const count = (stack: string) =>
      acknowledgements(app).filter((a) => a.path.startsWith(`${stack}/`)).length +
      acknowledgements(app, CONTROL_TOWER_PLUGIN).filter((a) => a.path.startsWith(`${stack}/`))
        .length;
    acks = { withDomain: count('leads-zoned'), without: count('leads-plain') };
  }, 240_000);

  it('with a hosted zone: a REGIONAL TLS 1.2 domain, its DNS-validated certificate, the root mapped to the stage, the alias record', () => {
    const template = Template.fromStack(zoned);

    template.hasResourceProperties('AWS::CertificateManager::Certificate', {
      DomainName: 'leads.academia.com.br',
      ValidationMethod: 'DNS',
      DomainValidationOptions: [
        { DomainName: 'leads.academia.com.br', HostedZoneId: 'Z0123456789ABCDEFGHIJ' },
      ],
    });
    template.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'leads.academia.com.br',
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
      RegionalCertificateArn: { Ref: Match.anyValue() },
    });
    const mappings = template.findResources('AWS::ApiGateway::BasePathMapping');
    expect(Object.values(mappings)).toHaveLength(1);
    const mapping = Object.values(mappings)[0] as { Properties: Record<string, unknown> };
    // No base path: the domain's root is the stage (`https://leads.academia.com.br/leads/site`).
    expect(mapping.Properties.BasePath).toBeUndefined();
    const stage = zoned.api.api.deploymentStage.node.defaultChild as CfnStage;
    expect(mapping.Properties.Stage).toEqual({ Ref: zoned.getLogicalId(stage) });
    template.hasResourceProperties('AWS::Route53::RecordSet', {
      Name: 'leads.academia.com.br.',
      Type: 'A',
      HostedZoneId: 'Z0123456789ABCDEFGHIJ',
      AliasTarget: {
        DNSName: { 'Fn::GetAtt': [Match.anyValue(), 'RegionalDomainName'] },
        HostedZoneId: { 'Fn::GetAtt': [Match.anyValue(), 'RegionalHostedZoneId'] },
      },
    });
  });

  it('with a certificate ARN and no zone: that certificate, no record, and the CNAME target as an output', () => {
    const template = Template.fromStack(cnamed);

    template.resourceCountIs('AWS::CertificateManager::Certificate', 0);
    template.resourceCountIs('AWS::Route53::RecordSet', 0);
    template.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'leads.academia.com.br',
      RegionalCertificateArn: CERTIFICATE,
      SecurityPolicy: 'TLS_1_2',
    });
    template.hasOutput('CustomDomainTarget', {
      Value: { 'Fn::GetAtt': [Match.anyValue(), 'RegionalDomainName'] },
      Description: Match.stringLikeRegexp('CNAME'),
    });
  });

  it('points the lead URL pattern, the console and the kit (the admin function) at the domain', () => {
    for (const stack of [zoned, cnamed]) {
      const outputs = Template.fromStack(stack).findOutputs('*');
      expect(outputs.LeadUrlPattern?.Value).toBe('https://leads.academia.com.br/leads/{profile}');
      expect(outputs.ConsoleUrl?.Value).toBe('https://leads.academia.com.br/admin/');
      expect(outputs.CustomDomainUrl?.Value).toBe('https://leads.academia.com.br/');
      expect(adminEnv(stack)[ENV.publicUrl]).toBe('https://leads.academia.com.br');
    }
  });

  it('without customDomain: no domain, no output of it, the kit at the API as reached', () => {
    const template = Template.fromStack(plain);
    template.resourceCountIs('AWS::ApiGateway::DomainName', 0);
    template.resourceCountIs('AWS::ApiGateway::BasePathMapping', 0);
    expect(template.findOutputs('CustomDomainTarget')).toEqual({});
    expect(adminEnv(plain)[ENV.publicUrl]).toBeUndefined();
  });

  it('passes cdk-nag and Control Tower with no acknowledgement of its own', () => {
    expect(violations).toEqual([]);
    expect(acks.withDomain).toBe(acks.without);
  });

  it('refuses a domain with neither a certificate nor a hosted zone, and a name that is no host', () => {
    expect(() => deployConfig({ customDomain: { name: 'leads.academia.com.br' } })).toThrow(
      /customDomain.*certificateArn .*hostedZoneId/s,
    );
    expect(() =>
      deployConfig({ customDomain: { name: 'https://Leads.x', certificateArn: CERTIFICATE } }),
    ).toThrow(DeployConfigError);
  });

  it("refuses a certificate of another Region than the stack's", () => {
    const usEast = CERTIFICATE.replace('sa-east-1', 'us-east-1');
    expect(() =>
      deployConfig({
        region: 'sa-east-1',
        customDomain: { name: 'leads.academia.com.br', certificateArn: usEast },
      }),
    ).toThrow(/customDomain\.certificateArn.*us-east-1.*sa-east-1/s);
    expect(
      deployConfig({
        region: 'sa-east-1',
        customDomain: { name: 'leads.academia.com.br', certificateArn: CERTIFICATE },
      }).customDomain,
    ).toEqual({ name: 'leads.academia.com.br', certificateArn: CERTIFICATE });
  });
});
