import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearCaches } from '@aws-lambda-powertools/parameters';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAwsConfigSource, type SettingsInput } from '../../functions/config/config-aws.ts';
import { PROFILE_RULES } from '../../functions/config/profile-rules.ts';
import {
  ROTATED_SECRETS_FILE,
  rotateLocalSecret,
  withLocalRotations,
} from '../../functions/config/rotated-secrets-local.ts';
import {
  formerProfiles,
  newSecretValue,
  rotatedSecret,
} from '../../functions/config/secret-rotation.ts';
import {
  SECRET_RECHECK_SECONDS,
  secretNames,
  secretReader,
} from '../../functions/config/secrets-aws.ts';
import { t } from '../../functions/kernel/language.ts';
import { authenticateRotated } from '../../functions/sources/rotation.ts';
import type { Authenticity, IntakeRequest } from '../../functions/sources/source.ts';

/** What a profile holds for anyone who reads or logs it (the replaced values are out of sight). */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

const NOW = new Date('2026-11-20T12:00:00.000Z');
const DAY = 86_400_000;

/** A token source's check, as the form source does it (the header against the profile's token). */
const tokenAdapter = {
  authenticate(request: IntakeRequest, profile: { token?: string }): Authenticity {
    return request.headers['x-lead-token'] === profile.token
      ? { ok: true }
      : {
          ok: false,
          status: 403,
          code: 'invalid_token',
          message: t('token inválido', 'invalid token'),
        };
  },
};

function withToken(token: string, receivedAt = NOW): IntakeRequest {
  return {
    method: 'POST',
    path: '/leads/site',
    headers: { 'x-lead-token': token },
    query: {},
    body: '{}',
    rawBody: Buffer.from('{}'),
    receivedAt,
  } as unknown as IntakeRequest;
}

describe('rotatedSecret', () => {
  it('keeps the replaced value under previous for the grace, and every other key', () => {
    const next = rotatedSecret({ token: 'old', generated: 'x' }, 'token', 'new', NOW);
    expect(next).toEqual({
      token: 'new',
      generated: 'x',
      previous: { token: { value: 'old', until: new Date(NOW.getTime() + 7 * DAY).toISOString() } },
    });
  });

  it('drops replaced values whose grace is over and never keeps a placeholder', () => {
    const stale = {
      token: 'REPLACE_ME',
      previous: { token: { value: 'ancient', until: '2026-11-01T00:00:00.000Z' } },
    };
    expect(rotatedSecret(stale, 'token', 'new', NOW)).toEqual({ token: 'new' });
  });

  it('makes long URL-safe values, different each time', () => {
    const a = newSecretValue();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newSecretValue()).not.toBe(a);
  });
});

describe('authenticateRotated', () => {
  const profile = { token: 'new' };

  it('accepts the replaced value until its grace ends, then refuses it', async () => {
    const rotated = withLocalRotationsFixture();
    const during = await authenticateRotated(tokenAdapter, withToken('old'), rotated, {
      now: NOW,
      reread: undefined,
    });
    const after = await authenticateRotated(tokenAdapter, withToken('old'), rotated, {
      now: new Date(NOW.getTime() + 8 * DAY),
      reread: undefined,
    });
    expect(during.ok).toBe(true);
    expect(after).toMatchObject({ ok: false, status: 403 });
    expect(formerProfiles(rotated, NOW).map(plain)).toEqual([{ token: 'old' }]);
  });

  it('reads the profile again once when a credential is refused, and uses what it finds', async () => {
    let rereads = 0;
    const reread = async () => {
      rereads += 1;
      return { token: 'rotated-a-moment-ago' };
    };
    const fresh = await authenticateRotated(
      tokenAdapter,
      withToken('rotated-a-moment-ago'),
      profile,
      { now: NOW, reread },
    );
    const wrong = await authenticateRotated(tokenAdapter, withToken('wrong'), profile, {
      now: NOW,
      reread,
    });
    expect(fresh.ok).toBe(true);
    expect(wrong).toMatchObject({ ok: false, status: 403 });
    expect(rereads).toBe(2);
  });

  it('never serialises the replaced values a profile carries', () => {
    const rotated = withLocalRotationsFixture();
    expect(JSON.stringify(rotated)).toBe('{"token":"new"}');
  });
});

/** A profile whose token `old` was rotated to `new` on this machine, at NOW. */
function withLocalRotationsFixture(): { token: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rotation-'));
  rotateLocalSecret(dir, {
    name: 'site',
    key: 'token',
    fileValue: 'old',
    current: 'old',
    value: 'new',
    until: new Date(NOW.getTime() + 7 * DAY).toISOString(),
  });
  return withLocalRotations('site', { token: 'old' }, dir) as { token: string };
}

describe('local rotations (DATA_DIR)', () => {
  it("lie over the file's value while the file keeps the value they replaced", () => {
    const dir = mkdtempSync(join(tmpdir(), 'rotation-'));
    rotateLocalSecret(dir, {
      name: 'site',
      key: 'token',
      fileValue: 'file-token',
      current: 'file-token',
      value: 'rotated',
      until: new Date(NOW.getTime() + 7 * DAY).toISOString(),
    });
    const rotated = withLocalRotations('site', { source: 'form', token: 'file-token' }, dir);
    const edited = withLocalRotations('site', { source: 'form', token: 'edited-by-hand' }, dir);
    const other = withLocalRotations('other', { source: 'form', token: 'file-token' }, dir);

    expect(plain(rotated)).toEqual({ source: 'form', token: 'rotated' });
    expect(formerProfiles(rotated as object, NOW).map(plain)).toEqual([
      { source: 'form', token: 'file-token' },
    ]);
    expect(edited).toEqual({ source: 'form', token: 'edited-by-hand' });
    expect(other).toEqual({ source: 'form', token: 'file-token' });
    const file = join(dir, ROTATED_SECRETS_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The file keeps a digest of the configuration file's value, not the value itself.
    expect(readFileSync(file, 'utf8')).not.toContain('"replaces": "file-token"');
  });
});

describe('a deployed profile secret with a rotation', () => {
  const secretsManager = mockClient(SecretsManagerClient);
  const SETTINGS: SettingsInput = {
    upstream: { baseUrl: 'https://upstream.example.com', maxPerSecond: 4, maxPerMinute: 36 },
    profiles: { site: { source: 'form', defaults: { idBranch: 1 } } },
  };
  const store = { rules: PROFILE_RULES, settings: async () => SETTINGS };
  const env = { LEADS_SECRETS_PREFIX: 'leads/test' };
  /** The profiles' shard that holds site's entry (config/secret-shards.ts). */
  const SITE_SHARD = secretNames('leads/test').profile('site').secret;
  const until = new Date(NOW.getTime() + 7 * DAY).toISOString();

  beforeAll(() => {
    process.env.AWS_REGION ??= 'us-east-1';
  });
  beforeEach(() => {
    secretsManager.reset();
    clearCaches();
  });

  it('reads the replaced value from the secret, out of sight', async () => {
    secretsManager.on(GetSecretValueCommand, { SecretId: SITE_SHARD }).resolves({
      SecretString: JSON.stringify({
        site: { token: 'new', previous: { token: { value: 'old', until } } },
      }),
    });
    const site = await createAwsConfigSource(env, store).profile('site');

    expect(plain(site)).toEqual({ source: 'form', token: 'new', defaults: { idBranch: 1 } });
    expect(JSON.stringify(site)).not.toContain('old');
    const ok = await authenticateRotated(tokenAdapter, withToken('old'), site as object, {
      now: NOW,
      reread: undefined,
    });
    expect(ok.ok).toBe(true);
  });

  it('recheckProfile reads the secret past the cache, at most once per recheck period', async () => {
    let clock = NOW.getTime();
    const answers = ['first', 'second', 'third'];
    secretsManager
      .on(GetSecretValueCommand, { SecretId: SITE_SHARD })
      .callsFake(() => ({ SecretString: JSON.stringify({ site: { token: answers.shift() } }) }));
    const config = createAwsConfigSource(env, { ...store, reader: secretReader(() => clock) });

    const cached = await config.profile('site');
    const rechecked = await config.recheckProfile('site');
    const tooSoon = await config.recheckProfile('site');
    clock += SECRET_RECHECK_SECONDS * 1000;
    const later = await config.recheckProfile('site');

    expect([cached, rechecked, tooSoon, later].map((p) => (p as { token: string }).token)).toEqual([
      'first',
      'second',
      'second',
      'third',
    ]);
  });
});
