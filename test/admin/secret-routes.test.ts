/**
 * The set-up kit's secrets (functions/admin/secret-routes.ts): revealed to an admin on request,
 * rotated where the gateway chooses the value, audited without values; over the AWS adapter
 * (Secrets Manager mocked with aws-sdk-client-mock): the profile's entry in its profiles' shard
 * (config/secret-shards.ts) keeps the old value under `previous` for the grace, which the
 * intake's check then accepts (sources/rotation.ts); the shard's other entries are kept.
 */
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AdminDeps, type AdminEvents, handleAdmin } from '../../functions/admin/admin.ts';
import { awsProfileSecrets } from '../../functions/admin/profile-secrets-aws.ts';
import type { Profile } from '../../functions/config/config-schema.ts';
import {
  formerProfiles,
  previousFromSecret,
  withPreviousValues,
} from '../../functions/config/secret-rotation.ts';
import { secretNames } from '../../functions/config/secrets-aws.ts';
import type { Client } from '../../functions/kernel/client-schema.ts';
import { adapterFor } from '../../functions/sources/registry.ts';
import type { IntakeRequest } from '../../functions/sources/source.ts';

const CLIENTS: Client[] = [
  { username: 'ops', password: 'ops-secret', roles: ['admin'] },
  { username: 'lp', password: 'lp-secret', roles: ['admin'], branches: [1] },
];
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const NOW = new Date('2026-11-20T12:00:00.000Z');
const SETTINGS: Record<string, Profile> = {
  site: { source: 'form', defaults: { idBranch: 3 } } as Profile,
  meta: { source: 'meta', forms: {} } as unknown as Profile,
  other: { source: 'form', defaults: { idBranch: 1 } } as Profile,
};

const secretsManager = mockClient(SecretsManagerClient);
/** What Secrets Manager holds, by secret id (JSON text), as the mock keeps it. */
let stored: Record<string, string>;
const whereOf = (name: string) => secretNames('leads/test').profile(name);
/** A profile's entry as stored now. */
const entryOf = (name: string): Record<string, unknown> | undefined =>
  JSON.parse(stored[whereOf(name).secret] ?? '{}')[name];
/** Puts entries into their shards (as `config push` does). */
function storeEntries(entries: Record<string, Record<string, unknown>>): void {
  for (const [name, value] of Object.entries(entries)) {
    const { secret } = whereOf(name);
    stored[secret] = JSON.stringify({ ...JSON.parse(stored[secret] ?? '{}'), [name]: value });
  }
}
let audit: { revealed: unknown[]; rotated: unknown[] };

function deps(): AdminDeps {
  const events: AdminEvents = {
    refused() {},
    retried() {},
    replayed() {},
    failed() {},
    secretRevealed: (event) => audit.revealed.push(event),
    secretRotated: (event) => audit.rotated.push(event),
  };
  const values = async (name: string) => entryOf(name) ?? {};
  return {
    config: {
      clients: async () => CLIENTS,
      profileSettings: async () => SETTINGS,
      profile: async (name) =>
        SETTINGS[name] && ({ ...SETTINGS[name], ...(await values(name)) } as Profile),
    },
    profileSecrets: awsProfileSecrets({
      client: new SecretsManagerClient({ region: 'us-east-1' }),
      entry: async (name) => whereOf(name),
    }),
    ledger: {} as AdminDeps['ledger'],
    queue: {} as AdminDeps['queue'],
    redrive: { redrive: async () => ({ status: 'skipped' }) } as AdminDeps['redrive'],
    upstream: {} as AdminDeps['upstream'],
    events,
    now: () => NOW,
  };
}

async function post(route: 'reveal' | 'rotate', profile: string, body = '', user = 'ops') {
  const password = user === 'ops' ? 'ops-secret' : 'lp-secret';
  const result = await handleAdmin(
    {
      resource: `/admin/setup/{profile}/${route}`,
      pathParameters: { profile },
      request: {
        method: 'POST',
        headers: { authorization: basic(user, password), host: 'leads.example' },
        query: {},
        body: Buffer.from(body, 'utf8'),
        contentType: body ? 'application/json' : '',
        receivedAt: NOW,
      },
      baseUrl: 'https://leads.example/prod',
    },
    deps(),
  );
  return { status: result.statusCode, headers: result.headers, body: JSON.parse(result.body) };
}

beforeAll(() => {
  process.env.AWS_REGION ??= 'us-east-1';
});

beforeEach(() => {
  secretsManager.reset();
  audit = { revealed: [], rotated: [] };
  stored = {};
  storeEntries({
    site: { token: 'site-token-old', generated: 'g' },
    meta: { appSecret: 'app-secret', verifyToken: 'verify', pageAccessToken: 'page' },
    other: { token: 'other-token' },
  });
  // Another profile's entry in site's own shard: a rotation of site must keep it.
  const shard = whereOf('site').secret;
  stored[shard] = JSON.stringify({
    ...JSON.parse(stored[shard] as string),
    neighbour: { token: 'n' },
  });
  secretsManager
    .on(GetSecretValueCommand)
    .callsFake(({ SecretId }) => ({ SecretString: stored[SecretId as string] }));
  secretsManager.on(PutSecretValueCommand).callsFake(({ SecretId, SecretString }) => {
    stored[SecretId as string] = SecretString as string;
    return {};
  });
});

describe('the kit secrets on AWS', () => {
  it('reveals the token and the URL to paste, never cached, audited without values', async () => {
    const answer = await post('reveal', 'site');

    expect(answer.status).toBe(200);
    expect(answer.headers?.['cache-control']).toContain('no-store');
    expect(answer.body).toMatchObject({
      url: 'https://leads.example/prod/leads/site',
      secrets: [{ key: 'token', value: 'site-token-old', rotatable: true }],
      previous: [],
    });
    expect(audit.revealed).toEqual([{ profile: 'site', keys: ['token'], client: 'ops' }]);
    expect(JSON.stringify(audit)).not.toContain('site-token-old');
  });

  it('rotates a token: the new value stored, the old one kept for 7 days and still accepted', async () => {
    const answer = await post('rotate', 'site', '{"key":"token"}');

    expect(answer.status).toBe(200);
    const value = answer.body.value as string;
    expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const secret = entryOf('site') as { token: string; previous: Record<string, unknown> };
    expect(secret).toMatchObject({ token: value, generated: 'g' });
    // The shard's other entries are untouched.
    expect(JSON.parse(stored[whereOf('site').secret] as string).neighbour).toEqual({ token: 'n' });
    expect(secret.previous.token).toEqual({
      value: 'site-token-old',
      until: '2026-11-27T12:00:00.000Z',
    });
    expect(answer.body.previousUntil).toBe('2026-11-27T12:00:00.000Z');
    // Both values in the audit trail, as fingerprints; neither value itself.
    expect(audit.rotated).toEqual([
      expect.objectContaining({ profile: 'site', key: 'token', client: 'ops' }),
    ]);
    const event = audit.rotated[0] as { previous: string; current: string };
    expect(event.previous).toMatch(/^[0-9a-f]{12}$/);
    expect(event.current).not.toBe(event.previous);
    expect(JSON.stringify(audit)).not.toContain(value);
    expect(JSON.stringify(audit)).not.toContain('site-token-old');

    // The intake's check (the form source's token) takes both during the grace.
    const profile = withPreviousValues(
      { ...(SETTINGS.site as object), token: value } as Profile,
      previousFromSecret(secret),
    );
    const adapter = adapterFor(profile);
    const withToken = (token: string) =>
      ({
        method: 'POST',
        headers: { 'x-lead-token': token },
        query: {},
        body: Buffer.from('{}'),
        contentType: 'application/json',
        receivedAt: NOW,
      }) as unknown as IntakeRequest;
    expect(adapter.authenticate(withToken(value), profile).ok).toBe(true);
    const formers = formerProfiles(profile, NOW);
    expect(formers.some((p) => adapter.authenticate(withToken('site-token-old'), p).ok)).toBe(true);
  });

  it('refuses to rotate a secret the platform issues, and an unknown key', async () => {
    const issued = await post('rotate', 'meta', '{"key":"appSecret"}');
    const unknown = await post('rotate', 'site', '{"key":"password"}');

    expect(issued).toMatchObject({ status: 409, body: { error: { code: 'not_rotatable' } } });
    expect(unknown).toMatchObject({ status: 400, body: { error: { code: 'invalid_body' } } });
    expect(secretsManager.commandCalls(PutSecretValueCommand)).toHaveLength(0);
  });

  it('answers 403 for a profile outside the operator’s scope, as for one that does not exist', async () => {
    const answer = await post('reveal', 'site', '', 'lp');
    expect(answer.status).toBe(403);
    const unknown = await post('reveal', 'nowhere', '', 'lp');
    expect(unknown.status).toBe(403);
    expect(audit.revealed).toEqual([]);
  });

  it('keeps both rotations when another writer replaces the shard between its read and its write', async () => {
    // Prepare: the first write of site's rotation is overtaken by another writer's version of
    // the shard (an operator rotating a neighbour at the same moment), which lacks it.
    const shard = whereOf('site').secret;
    let writes = 0;
    secretsManager.on(PutSecretValueCommand).callsFake(({ SecretId, SecretString }) => {
      writes += 1;
      const before = stored[SecretId as string] as string;
      stored[SecretId as string] = SecretString as string;
      if (writes === 1) {
        const other = JSON.parse(before);
        other.neighbour = { token: 'n-rotated' };
        stored[shard] = JSON.stringify(other);
      }
      return {};
    });

    // Act
    const answer = await post('rotate', 'site', '{"key":"token"}');

    // Assess: written again, both rotations kept.
    expect(answer.status).toBe(200);
    expect(writes).toBe(2);
    expect(entryOf('site')?.token).toBe(answer.body.value);
    expect(JSON.parse(stored[shard] as string).neighbour).toEqual({ token: 'n-rotated' });
  });

  it('lets a branch operator reveal its own branch’s profile', async () => {
    const answer = await post('reveal', 'other', '', 'lp');
    expect(answer.status).toBe(200);
    expect(answer.body.secrets).toEqual([
      expect.objectContaining({ key: 'token', value: 'other-token' }),
    ]);
  });
});
