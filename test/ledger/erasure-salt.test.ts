/**
 * Where the erasure salt comes from: on AWS the secret `<prefix>/erasure-salt` the stack
 * generates (functions/ledger/erasure-salt-aws.ts), on this machine a file under DATA_DIR written
 * the first time (erasure-salt-local.ts). Errors name the secret or the file, never the salt.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SecretReader } from '../../functions/config/secrets-aws.ts';
import { awsErasureSalt } from '../../functions/ledger/erasure-salt-aws.ts';
import { ERASURE_SALT_FILE, localErasureSalt } from '../../functions/ledger/erasure-salt-local.ts';

const SALT = 'k3J9dQx7Lm2Vb8Nc4Rt6Yw1Zp5Hs0Gf3Jk9Lq2Wx7Ce4Vb8Nm6Tr1Yu5Ip0Oa3Sd';

function reader(values: Record<string, unknown>): SecretReader & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async read(name) {
      asked.push(name);
      return values[name];
    },
    refresh() {},
  };
}

describe('awsErasureSalt', () => {
  const env = { LEADS_SECRETS_PREFIX: 'leads/prod' };

  it('reads "salt" from <prefix>/erasure-salt', async () => {
    // Prepare
    const secrets = reader({ 'leads/prod/erasure-salt': { salt: SALT } });

    // Act
    const salt = await awsErasureSalt(env, secrets)();

    // Assess
    expect(salt).toBe(SALT);
    expect(secrets.asked).toEqual(['leads/prod/erasure-salt']);
  });

  it('names the secret and the key when the salt is missing, never a value', async () => {
    // Prepare
    const secrets = reader({ 'leads/prod/erasure-salt': { generated: SALT } });

    // Act
    const error = await awsErasureSalt(env, secrets)().catch((e: unknown) => e);

    // Assess
    expect(String(error)).toMatch(/leads\/prod\/erasure-salt.*"salt" is missing/);
    expect(String(error)).not.toContain(SALT);
  });

  it('refuses to start without LEADS_SECRETS_PREFIX', () => {
    expect(() => awsErasureSalt({}, reader({}))).toThrow(/LEADS_SECRETS_PREFIX/);
  });
});

describe('localErasureSalt', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('is generated once under DATA_DIR, readable by its owner only, and the same at every start', () => {
    // Prepare
    dir = mkdtempSync(join(tmpdir(), 'leads-salt-'));

    // Act
    const first = localErasureSalt(dir);
    const second = localErasureSalt(dir);

    // Assess
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(second).toBe(first);
    expect(readFileSync(join(dir, ERASURE_SALT_FILE), 'utf8').trim()).toBe(first);
    expect(statSync(join(dir, ERASURE_SALT_FILE)).mode & 0o777).toBe(0o600);
    const other = mkdtempSync(join(tmpdir(), 'leads-salt-'));
    try {
      expect(localErasureSalt(other)).not.toBe(first);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('refuses a file that holds no usable salt, naming the file', () => {
    // Prepare
    dir = mkdtempSync(join(tmpdir(), 'leads-salt-'));
    writeFileSync(join(dir, ERASURE_SALT_FILE), 'short\n');

    // Act / Assess
    expect(() => localErasureSalt(dir as string)).toThrow(/erasure-salt holds no usable/);
  });
});
