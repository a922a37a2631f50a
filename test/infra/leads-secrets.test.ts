import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import { afterAll, describe, expect, it } from 'vitest';
import { LeadsSecrets } from '../../infra/constructs/leads-secrets.ts';
import { NodeFunction } from '../../infra/constructs/node-function.ts';
import {
  acknowledgements,
  addNagPacks,
  deployConfig,
  environmentOf,
  removeTempOutdirs,
  roleStatements,
  secretNamesGranted,
  synthViolations,
  testApp,
  testStack,
} from './helpers.ts';

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

/** A secret's ARN in the stack's account and region, `name` with its suffix or wildcard. */
function secretArn(name: string) {
  return {
    'Fn::Join': [
      '',
      [
        'arn:',
        { Ref: 'AWS::Partition' },
        ':secretsmanager:',
        { Ref: 'AWS::Region' },
        ':',
        { Ref: 'AWS::AccountId' },
        `:secret:${name}`,
      ],
    ],
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
  it('creates the upstream, clients, one secret per profile that has keys, and the erasure salt', () => {
    // Prepare
    const { stack } = secretsStack();

    // Act
    const secrets = secretsByName(Template.fromStack(stack));

    // Assess
    expect([...secrets.keys()].sort()).toEqual([
      'leads/prod/clients',
      'leads/prod/erasure-salt',
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
    for (const [name, secret] of secrets) {
      expect(secret.Properties.SecretString).toBeUndefined();
      if (name === 'leads/prod/erasure-salt') continue;
      expect(secret.Properties.GenerateSecretString.GenerateStringKey).toBe('generated');
    }
  });

  it('generates the erasure salt whole (64 letters and digits under "salt"), keeps it, never lists it to be filled in, and says why it is never rotated', () => {
    // Prepare
    const app = testApp();
    addNagPacks(app);
    const stack = testStack(app);
    const config = deployConfig();
    const secrets = new LeadsSecrets(stack, 'Secrets', {
      prefix: config.secretsPrefix,
      settings: config.settings,
    });

    // Act
    const salt = secretsByName(Template.fromStack(stack)).get('leads/prod/erasure-salt');
    const found = synthViolations(app);

    // Assess
    expect(salt?.Properties.SecretString).toBeUndefined();
    expect(salt?.Properties.GenerateSecretString).toMatchObject({
      SecretStringTemplate: '{}',
      GenerateStringKey: 'salt',
      PasswordLength: 64,
      ExcludePunctuation: true,
    });
    expect(salt).toMatchObject({
      DeletionPolicy: 'RetainExceptOnCreate',
      UpdateReplacePolicy: 'Retain',
    });
    expect(secrets.names).not.toContain('leads/prod/erasure-salt');
    expect(found.filter((v) => v.rule.startsWith('AwsSolutions-SMG'))).toEqual([]);
    const smg4 = acknowledgements(app).find(
      (a) => a.id === 'AwsSolutions-SMG4' && a.path.endsWith('/ErasureSalt'),
    );
    expect(smg4?.reason).toMatch(/never change.*tombstone/s);
  });

  it("grants 'erasure-salt' as that one secret by name, nothing else", () => {
    // Prepare
    const { stack, secrets } = secretsStack();
    const fn = new NodeFunction(stack, 'Intake', { entry: ENTRY });

    // Act
    secrets.grantRead(fn, 'erasure-salt');
    const template = Template.fromStack(stack);

    // Assess
    const role = stack.getLogicalId(fn.role?.node.defaultChild as CfnRole);
    const statements = roleStatements(template, role);
    expect(secretNamesGranted(statements)).toEqual(['leads/prod/erasure-salt-??????']);
    expect(secretNamesGranted(statements, 'secretsmanager:DescribeSecret')).toEqual([]);
  });

  it('keeps every secret when the stack is deleted or the secret replaced, but not after a failed first create (its fixed name would block the retry)', () => {
    // Prepare
    const { stack } = secretsStack();

    // Act
    const secrets = secretsByName(Template.fromStack(stack));

    // Assess
    for (const secret of secrets.values()) {
      expect(secret.DeletionPolicy).toBe('RetainExceptOnCreate');
      expect(secret.UpdateReplacePolicy).toBe('Retain');
    }
  });

  it('creates one secret per upstream account: <prefix>/upstream for default, <prefix>/upstreams/<name> for the others', () => {
    // Prepare
    const config = deployConfig({
      upstreams: {
        south: { baseUrl: 'https://south.example.com', maxPerSecond: 2, maxPerMinute: 20 },
      },
    });
    const stack = testStack();

    // Act
    const secrets = new LeadsSecrets(stack, 'Secrets', {
      prefix: config.secretsPrefix,
      settings: config.settings,
    });
    const byName = secretsByName(Template.fromStack(stack));

    // Assess
    expect([...secrets.upstreams.keys()]).toEqual(['default', 'south']);
    const template = byName.get('leads/prod/upstreams/south')?.Properties.GenerateSecretString;
    expect(JSON.parse(template?.SecretStringTemplate ?? '')).toEqual({
      username: 'REPLACE_ME',
      password: 'REPLACE_ME',
    });
    expect(secrets.names.slice(0, 3)).toEqual([
      'leads/prod/upstream',
      'leads/prod/upstreams/south',
      'leads/prod/clients',
    ]);
  });

  it('creates one profile secret per distinct secretName, holding the keys of every profile that shares it', () => {
    // Prepare
    const config = deployConfig({
      profiles: {
        'lp-a': { source: 'form', secretName: 'forms', defaults: { idBranch: 1 } },
        'lp-b': { source: 'form', secretName: 'forms', defaults: { idBranch: 2 } },
        site: { source: 'form', defaults: { idBranch: 1 } },
        native: { source: 'prospect' },
      },
    });
    const stack = testStack();

    // Act
    new LeadsSecrets(stack, 'Secrets', { prefix: config.secretsPrefix, settings: config.settings });
    const byName = secretsByName(Template.fromStack(stack));

    // Assess
    expect([...byName.keys()].sort()).toEqual([
      'leads/prod/clients',
      'leads/prod/erasure-salt',
      'leads/prod/profiles/forms',
      'leads/prod/profiles/site',
      'leads/prod/upstream',
    ]);
    const forms = byName.get('leads/prod/profiles/forms')?.Properties.GenerateSecretString;
    expect(JSON.parse(forms?.SecretStringTemplate ?? '')).toEqual({ token: 'REPLACE_ME' });
  });

  it("grants 'upstream' as default's secret by name and the other accounts' by pattern, and gives the prefix, no settings", () => {
    // Prepare
    const { stack, secrets } = secretsStack();
    const fn = new NodeFunction(stack, 'Worker', { entry: ENTRY });

    // Act
    secrets.grantRead(fn, 'upstream');
    const template = Template.fromStack(stack);

    // Assess: Secrets Manager appends `-` and six characters to a secret's ARN.
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            // The functions read values, never a secret's metadata: no DescribeSecret.
            Action: 'secretsmanager:GetSecretValue',
            Effect: 'Allow',
            Resource: [
              secretArn('leads/prod/upstream-??????'),
              secretArn('leads/prod/upstreams/*'),
            ],
          },
        ]),
      },
    });
    const role = stack.getLogicalId(fn.role?.node.defaultChild as CfnRole);
    expect(secretNamesGranted(roleStatements(template, role))).toEqual([
      'leads/prod/upstream-??????',
      'leads/prod/upstreams/*',
    ]);
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    for (const other of [secrets.clients, ...secrets.profiles.values()]) {
      expect(policies).not.toContain(stack.getLogicalId(other.node.defaultChild as never));
    }
    expect(policies).not.toContain('/clients');
    expect(policies).not.toContain('/profiles');
    const variables = environmentOf(template, stack.getLogicalId(fn.node.defaultChild as never));
    expect(variables.LEADS_SECRETS_PREFIX).toBe('leads/prod');
    // The settings live in the configuration store (config-store.test.ts), not in a variable.
    expect(variables).not.toHaveProperty('LEADS_SETTINGS');
  });

  it("grants 'profiles' as the pattern <prefix>/profiles/*, and 'clients' by name", () => {
    // Prepare
    const { stack, secrets } = secretsStack();
    const fn = new NodeFunction(stack, 'Intake', { entry: ENTRY });

    // Act
    secrets.grantRead(fn, 'clients', 'profiles');
    const template = Template.fromStack(stack);

    // Assess
    const role = stack.getLogicalId(fn.role?.node.defaultChild as CfnRole);
    const statements = roleStatements(template, role);
    expect(secretNamesGranted(statements)).toEqual([
      'leads/prod/clients-??????',
      'leads/prod/profiles/*',
    ]);
    expect(secretNamesGranted(statements, 'secretsmanager:DescribeSecret')).toEqual([]);
    expect(JSON.stringify(statements)).not.toContain('/upstream');
  });

  it('acknowledges IAM5 for exactly the two name patterns, with a reason: no IAM finding is left', () => {
    // Prepare
    const app = testApp();
    addNagPacks(app);
    const stack = testStack(app);
    const config = deployConfig();
    const secrets = new LeadsSecrets(stack, 'Secrets', {
      prefix: config.secretsPrefix,
      settings: config.settings,
    });
    const fn = new NodeFunction(stack, 'Worker', { entry: ENTRY });
    secrets.grantRead(fn, 'upstream', 'clients', 'profiles');

    // Act
    const found = synthViolations(app);

    // Assess: no IAM finding left (the bare function's missing DLQ is not this construct's).
    expect(found.filter((v) => v.rule.startsWith('AwsSolutions-IAM'))).toEqual([]);
    expect(found.map((v) => v.rule)).toEqual(['Serverless-LambdaDLQ']);
    const iam5 = acknowledgements(app).filter(
      (a) => a.path === 'test/WorkerRole/DefaultPolicy' && a.id.startsWith('AwsSolutions-IAM5'),
    );
    const arn = 'arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:';
    expect(iam5.map((a) => a.id).sort()).toEqual([
      'AwsSolutions-IAM5[Resource::*]',
      `AwsSolutions-IAM5[Resource::${arn}leads/prod/profiles/*]`,
      `AwsSolutions-IAM5[Resource::${arn}leads/prod/upstreams/*]`,
    ]);
    for (const ack of iam5) expect(ack.reason.length).toBeGreaterThanOrEqual(40);
  });

  it('synthesizes with settings far over 4 KB: they are no longer in any function environment', () => {
    // Prepare: 200 Meta forms, the configuration that used to fail synth (LEADS_SETTINGS > 4 KB).
    const app = testApp();
    const stack = testStack(app);
    const forms = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [`${1_000_000_000 + i}`, { idBranch: i + 1 }]),
    );
    const config = deployConfig({ profiles: { meta: { source: 'meta', forms } } });
    expect(JSON.stringify(config.settings).length).toBeGreaterThan(4096);
    const secrets = new LeadsSecrets(stack, 'Secrets', {
      prefix: config.secretsPrefix,
      settings: config.settings,
    });
    const fn = new NodeFunction(stack, 'Intake', { entry: ENTRY });
    secrets.grantRead(fn, 'profiles');

    // Act
    const synth = () => app.synth();

    // Assess
    expect(synth).not.toThrow();
    const variables = environmentOf(
      Template.fromStack(stack),
      stack.getLogicalId(fn.node.defaultChild as never),
    );
    expect(JSON.stringify(variables).length).toBeLessThan(1024);
    expect(JSON.stringify(variables)).not.toContain('1000000000');
  });
});
