import { Template } from 'aws-cdk-lib/assertions';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import { afterAll, describe, expect, it } from 'vitest';
import { shardNames } from '../../functions/config/secret-shards.ts';
import { LeadsSecrets, profileSecretsOf } from '../../infra/constructs/leads-secrets.ts';
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
const PROFILE_SHARDS = shardNames('leads/prod', 'profiles');
const ACCOUNT_SHARDS = shardNames('leads/prod', 'accounts');

function secretsStack(app = testApp()) {
  const config = deployConfig();
  const stack = testStack(app);
  const secrets = new LeadsSecrets(stack, 'Secrets', { prefix: config.secretsPrefix });
  return { config, stack, secrets };
}

interface SecretResource {
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  Properties: {
    Name: string;
    SecretString?: unknown;
    GenerateSecretString?: { SecretStringTemplate: string; GenerateStringKey: string };
  };
}

function secretsByName(template: Template): Map<string, SecretResource> {
  const resources = Object.values(
    template.findResources('AWS::SecretsManager::Secret'),
  ) as SecretResource[];
  return new Map(resources.map((r) => [r.Properties.Name, r]));
}

function grantedTo(stack: ReturnType<typeof testStack>, fn: NodeFunction, action?: string) {
  const template = Template.fromStack(stack);
  const role = stack.getLogicalId(fn.role?.node.defaultChild as CfnRole);
  return secretNamesGranted(roleStatements(template, role), action, template);
}

afterAll(removeTempOutdirs);

describe('LeadsSecrets', () => {
  it('creates the 16 profile shards, the 4 account shards, the clients and the erasure salt: nothing per profile or account', () => {
    const { stack } = secretsStack();
    const secrets = secretsByName(Template.fromStack(stack));
    expect([...secrets.keys()].sort()).toEqual(
      [
        'leads/prod/clients',
        'leads/prod/erasure-salt',
        ...ACCOUNT_SHARDS,
        ...PROFILE_SHARDS,
      ].sort(),
    );
    expect(PROFILE_SHARDS[0]).toBe('leads/prod/store/profiles-00');
    expect(ACCOUNT_SHARDS[3]).toBe('leads/prod/store/accounts-3');
  });

  it('starts each shard as {} and the clients as a placeholder: no value is in the template', () => {
    const { stack } = secretsStack();
    const secrets = secretsByName(Template.fromStack(stack));
    for (const name of [...PROFILE_SHARDS, ...ACCOUNT_SHARDS]) {
      expect(secrets.get(name)?.Properties.SecretString, name).toBe('{}');
      expect(secrets.get(name)?.Properties.GenerateSecretString, name).toBeUndefined();
    }
    const clients = secrets.get('leads/prod/clients')?.Properties.GenerateSecretString;
    expect(JSON.parse(clients?.SecretStringTemplate ?? '')).toEqual({ clients: 'REPLACE_ME' });
    expect(clients?.GenerateStringKey).toBe('generated');
  });

  it('lists the clients and the shards to fill in, never the erasure salt', () => {
    const { secrets } = secretsStack();
    expect(secrets.names).toEqual(['leads/prod/clients', ...ACCOUNT_SHARDS, ...PROFILE_SHARDS]);
  });

  it('generates the erasure salt whole (64 letters and digits under "salt"), keeps it, and says why it is never rotated', () => {
    const app = testApp();
    addNagPacks(app);
    const { stack } = secretsStack(app);
    const salt = secretsByName(Template.fromStack(stack)).get('leads/prod/erasure-salt');
    const found = synthViolations(app);
    expect(salt?.Properties.SecretString).toBeUndefined();
    expect(salt?.Properties.GenerateSecretString).toMatchObject({
      SecretStringTemplate: '{}',
      GenerateStringKey: 'salt',
      PasswordLength: 64,
      ExcludePunctuation: true,
    });
    expect(found.filter((v) => v.rule.startsWith('AwsSolutions-SMG'))).toEqual([]);
    const smg4 = acknowledgements(app).find(
      (a) => a.id === 'AwsSolutions-SMG4' && a.path.endsWith('/ErasureSalt'),
    );
    expect(smg4?.reason).toMatch(/never change.*tombstone/s);
  });

  it('keeps every secret when the stack is deleted or the secret replaced, but not after a failed first create (its fixed name would block the retry)', () => {
    const { stack } = secretsStack();
    for (const secret of secretsByName(Template.fromStack(stack)).values()) {
      expect(secret.DeletionPolicy).toBe('RetainExceptOnCreate');
      expect(secret.UpdateReplacePolicy).toBe('Retain');
    }
  });

  it('needs one profile entry per distinct secretName, holding the keys of every profile that shares it', () => {
    const config = deployConfig({
      profiles: {
        'lp-a': { source: 'form', secretName: 'forms', defaults: { idBranch: 1 } },
        'lp-b': { source: 'form', secretName: 'forms', defaults: { idBranch: 2 } },
        site: { source: 'form', defaults: { idBranch: 1 } },
        meta: { source: 'meta', defaults: { idBranch: 1 } },
        native: { source: 'prospect' },
      },
    });
    const entries = profileSecretsOf(config.settings);
    expect([...entries.keys()].sort()).toEqual(['forms', 'meta', 'site']);
    expect(entries.get('forms')?.keys).toEqual(['token']);
    expect(entries.get('meta')?.keys).toEqual(['appSecret', 'verifyToken', 'pageAccessToken']);
  });

  it("grants 'upstream' as the account shards by ARN, and gives the prefix, no settings", () => {
    const { stack, secrets } = secretsStack();
    const fn = new NodeFunction(stack, 'Worker', { entry: ENTRY });
    secrets.grantRead(fn, 'upstream');
    expect(grantedTo(stack, fn)).toEqual(ACCOUNT_SHARDS);
    // The functions read values, never a secret's metadata: no DescribeSecret.
    expect(grantedTo(stack, fn, 'secretsmanager:DescribeSecret')).toEqual([]);
    const template = Template.fromStack(stack);
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    for (const other of [secrets.clients, ...secrets.profileShards]) {
      expect(policies).not.toContain(stack.getLogicalId(other.node.defaultChild as never));
    }
    const variables = environmentOf(template, stack.getLogicalId(fn.node.defaultChild as never));
    expect(variables.LEADS_SECRETS_PREFIX).toBe('leads/prod');
    expect(variables).not.toHaveProperty('LEADS_SETTINGS');
  });

  it("grants 'profiles' as the profile shards and 'clients' and 'erasure-salt' as their secret, nothing else", () => {
    const { stack, secrets } = secretsStack();
    const fn = new NodeFunction(stack, 'Intake', { entry: ENTRY });
    secrets.grantRead(fn, 'clients', 'profiles', 'erasure-salt');
    expect(grantedTo(stack, fn)).toEqual(
      ['leads/prod/clients', 'leads/prod/erasure-salt', ...PROFILE_SHARDS].sort(),
    );
  });

  it('grants rotation (PutSecretValue) on the profile shards only', () => {
    const { stack, secrets } = secretsStack();
    const fn = new NodeFunction(stack, 'Admin', { entry: ENTRY });
    secrets.grantRotateProfiles(fn);
    expect(grantedTo(stack, fn, 'secretsmanager:PutSecretValue')).toEqual(PROFILE_SHARDS);
  });

  it('needs no IAM5 acknowledgement: no grant has a wildcard', () => {
    const app = testApp();
    addNagPacks(app);
    const { stack, secrets } = secretsStack(app);
    const fn = new NodeFunction(stack, 'Worker', { entry: ENTRY });
    secrets.grantRead(fn, 'upstream', 'clients', 'profiles');
    secrets.grantRotateProfiles(fn);
    const found = synthViolations(app);
    expect(found.filter((v) => v.rule.startsWith('AwsSolutions-IAM'))).toEqual([]);
    expect(found.map((v) => v.rule)).toEqual(['Serverless-LambdaDLQ']);
    const iam5 = acknowledgements(app).filter(
      (a) => a.path === 'test/WorkerRole/DefaultPolicy' && a.id.startsWith('AwsSolutions-IAM5'),
    );
    // X-Ray's, the house construct's; none for secrets.
    expect(iam5.map((a) => a.id)).toEqual(['AwsSolutions-IAM5[Resource::*]']);
  });
});
