import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { LeadsSecrets } from '../../infra/constructs/leads-secrets.ts';
import { NodeFunction } from '../../infra/constructs/node-function.ts';
import { deployConfig, removeTempOutdirs, testApp, testStack } from './helpers.ts';

const ENTRY = 'test/fixtures/functions/hello.ts';

function secretsStack() {
  const config = deployConfig();
  const stack = testStack();
  const secrets = new LeadsSecrets(stack, 'Secrets', {
    prefix: config.secretsPrefix,
    settings: config.settings,
  });
  return { config, stack, secrets };
}

interface SecretResource {
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  Properties: {
    Name: string;
    SecretString?: unknown;
    GenerateSecretString: { SecretStringTemplate: string; GenerateStringKey: string };
  };
}

function secretsByName(template: Template): Map<string, SecretResource> {
  const resources = Object.values(
    template.findResources('AWS::SecretsManager::Secret'),
  ) as SecretResource[];
  return new Map(resources.map((r) => [r.Properties.Name, r]));
}

afterAll(removeTempOutdirs);

describe('LeadsSecrets', () => {
  it('creates the upstream, clients and one secret per profile that has keys', () => {
    // Prepare
    const { stack } = secretsStack();

    // Act
    const secrets = secretsByName(Template.fromStack(stack));

    // Assess
    expect([...secrets.keys()].sort()).toEqual([
      'leads/prod/clients',
      'leads/prod/profiles/meta',
      'leads/prod/profiles/site',
      'leads/prod/upstream',
    ]);
  });

  it('names the keys in a template of placeholders: no value is in the template', () => {
    // Prepare
    const { stack } = secretsStack();

    // Act
    const secrets = secretsByName(Template.fromStack(stack));

    // Assess
    const templateOf = (name: string) =>
      JSON.parse(secrets.get(name)?.Properties.GenerateSecretString.SecretStringTemplate ?? '');
    expect(templateOf('leads/prod/upstream')).toEqual({
      username: 'REPLACE_ME',
      password: 'REPLACE_ME',
    });
    expect(templateOf('leads/prod/clients')).toEqual({ clients: 'REPLACE_ME' });
    expect(templateOf('leads/prod/profiles/site')).toEqual({ token: 'REPLACE_ME' });
    expect(templateOf('leads/prod/profiles/meta')).toEqual({
      appSecret: 'REPLACE_ME',
      verifyToken: 'REPLACE_ME',
      pageAccessToken: 'REPLACE_ME',
    });
    for (const secret of secrets.values()) {
      expect(secret.Properties.SecretString).toBeUndefined();
      expect(secret.Properties.GenerateSecretString.GenerateStringKey).toBe('generated');
    }
  });

  it('keeps every secret when the stack is deleted or the secret replaced', () => {
    // Prepare
    const { stack } = secretsStack();

    // Act
    const secrets = secretsByName(Template.fromStack(stack));

    // Assess
    for (const secret of secrets.values()) {
      expect(secret.DeletionPolicy).toBe('Retain');
      expect(secret.UpdateReplacePolicy).toBe('Retain');
    }
  });

  it('grants a function read on the named secrets only, and gives it prefix and settings', () => {
    // Prepare
    const { stack, secrets, config } = secretsStack();
    const fn = new NodeFunction(stack, 'Worker', { entry: ENTRY });

    // Act
    secrets.grantRead(fn, 'upstream');
    const template = Template.fromStack(stack);

    // Assess
    const upstream = stack.getLogicalId(secrets.upstream.node.defaultChild as never);
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
            Effect: 'Allow',
            Resource: { Ref: upstream },
          },
        ]),
      },
    });
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    for (const other of [secrets.clients, ...secrets.profiles.values()]) {
      expect(policies).not.toContain(stack.getLogicalId(other.node.defaultChild as never));
    }
    const variables = Object.values(template.findResources('AWS::Lambda::Function'))[0]?.Properties
      .Environment.Variables as Record<string, string>;
    expect(variables.LEADS_SECRETS_PREFIX).toBe('leads/prod');
    expect(JSON.parse(variables.LEADS_SETTINGS ?? '')).toEqual(config.settings);
  });

  it('grants every profile secret for "profiles"', () => {
    // Prepare
    const { stack, secrets } = secretsStack();
    const fn = new NodeFunction(stack, 'Intake', { entry: ENTRY });

    // Act
    secrets.grantRead(fn, 'profiles');
    const template = Template.fromStack(stack);

    // Assess
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    for (const secret of secrets.profiles.values()) {
      expect(policies).toContain(stack.getLogicalId(secret.node.defaultChild as never));
    }
    expect(policies).not.toContain(stack.getLogicalId(secrets.upstream.node.defaultChild as never));
  });

  it('fails synth with a clear message when the settings would not fit in Lambda 4 KB', () => {
    // Prepare
    const app = testApp();
    const stack = testStack(app);
    const forms = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [`${1_000_000_000 + i}`, { idBranch: i + 1 }]),
    );
    const config = deployConfig({ profiles: { meta: { source: 'meta', forms } } });
    const secrets = new LeadsSecrets(stack, 'Secrets', {
      prefix: config.secretsPrefix,
      settings: config.settings,
    });
    secrets.grantRead(new NodeFunction(stack, 'Intake', { entry: ENTRY }), 'profiles');

    // Act
    const synth = () => app.synth();

    // Assess
    expect(synth).toThrow(/over Lambda's 4096-byte limit \(largest: LEADS_SETTINGS/);
  });
});
