/**
 * The migration from one secret per account and profile to the packed store
 * (scripts/migrate-secrets.ts), against Secrets Manager mocked as a map (aws-sdk-client-mock):
 * a dry run first that writes nothing, then `--apply`; every old value lands in its shard entry,
 * nothing is lost, and the old secrets stay.
 */
import {
  DeleteSecretCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { secretNames } from '../../functions/config/secrets-aws.ts';
import { migrate, migrationLines } from '../../scripts/migrate-secrets.ts';
import { emptyShards, fakeSecrets, storedEntry } from '../helpers/secrets-store.ts';

const sm = mockClient(SecretsManagerClient);
const client = new SecretsManagerClient({ region: 'sa-east-1' });
const NOW = new Date('2026-12-02T01:00:00.000Z');
let stored: Record<string, string>;

/** A stack of the first layout, upgraded: its old secrets, and the shards the deploy made. */
const OLD = {
  'leads/prod/upstream': { username: 'gym.dns', password: 'key-default', generated: 'g1' },
  'leads/prod/upstreams/south': { username: 'south.dns', password: 'key-south', generated: 'g2' },
  'leads/prod/profiles/site': { token: 'site-token-pasted', generated: 'g3' },
  'leads/prod/profiles/meta': { appSecret: 'a', verifyToken: 'v', pageAccessToken: 'p' },
  // A profile pushed later, not in the deploy file: moved too.
  'leads/prod/profiles/lp-pushed': { token: 'pushed-token' },
  // Another stage's secret: not this stack's.
  'leads/staging/profiles/site': { token: 'staging' },
};

beforeEach(() => {
  sm.reset();
  stored = fakeSecrets(sm, { ...OLD, ...emptyShards('leads/prod') });
});

describe('npm run migrate-secrets', () => {
  it('dry run: lists every old secret of the stack and where it goes, and writes nothing', async () => {
    const before = { ...stored };
    const result = await migrate(client, 'leads/prod', { now: NOW });

    expect(result.applied).toBe(false);
    expect(result.moves.map((m) => m.from)).toEqual([
      'leads/prod/profiles/lp-pushed',
      'leads/prod/profiles/meta',
      'leads/prod/profiles/site',
      'leads/prod/upstream',
      'leads/prod/upstreams/south',
    ]);
    expect(sm.commandCalls(PutSecretValueCommand)).toHaveLength(0);
    expect(stored).toEqual(before);
    const lines = migrationLines(result);
    expect(lines.at(-1)).toBe(
      'ensaio: nada foi gravado; rode de novo com --apply para copiar 5 segredo(s)',
    );
    expect(lines[0]).toMatch(
      /^leads\/prod\/profiles\/lp-pushed → segredo leads\/prod\/store\/profiles-\d\d, entrada "lp-pushed": seria movido \(entrada nova\)$/,
    );
  });

  it('--apply: every value in its entry, the deploy’s placeholders and generated token replaced, the old secrets kept', async () => {
    // Prepare: the upgrade deploy already wrote entries (config push): placeholders for the
    // accounts, a generated token for site.
    const put = (kind: 'upstream' | 'profile', name: string, value: unknown) => {
      const where = secretNames('leads/prod')[kind](name);
      stored[where.secret] = JSON.stringify({
        ...JSON.parse(stored[where.secret] as string),
        [where.entry]: value,
      });
    };
    put('upstream', 'default', { username: 'REPLACE_ME', password: 'REPLACE_ME' });
    put('profile', 'site', { token: 'generated-by-deploy' });

    // Act
    const result = await migrate(client, 'leads/prod', { apply: true, now: NOW });

    // Assess: nothing lost.
    const entry = (kind: 'upstream' | 'profile', name: string) =>
      storedEntry(stored, 'leads/prod', kind, name);
    expect(entry('upstream', 'default')).toEqual(OLD['leads/prod/upstream']);
    expect(entry('upstream', 'south')).toEqual(OLD['leads/prod/upstreams/south']);
    expect(entry('profile', 'meta')).toEqual(OLD['leads/prod/profiles/meta']);
    expect(entry('profile', 'lp-pushed')).toEqual({ token: 'pushed-token' });
    // The pasted token is the current one; the deploy's generated one stays a week.
    expect(entry('profile', 'site')).toMatchObject({
      token: 'site-token-pasted',
      previous: { token: { value: 'generated-by-deploy', until: '2026-12-09T01:00:00.000Z' } },
    });
    expect(result.moves.find((m) => m.from === 'leads/prod/profiles/site')?.was).toBe('other');
    expect(result.moves.find((m) => m.from === 'leads/prod/upstream')?.was).toBe('placeholders');
    // The old secrets are untouched, none deleted; another stage's is not this stack's.
    for (const [name, value] of Object.entries(OLD))
      expect(JSON.parse(stored[name] as string)).toEqual(value);
    expect(sm.commandCalls(DeleteSecretCommand)).toHaveLength(0);
    expect(JSON.stringify(stored)).not.toMatch(/store\/[^"]*"[^}]*staging/);
    expect(migrationLines(result).at(-1)).toMatch(
      /^5 segredo\(s\) copiado\(s\); os antigos continuam lá/,
    );

    // Running it again changes nothing more.
    const again = await migrate(client, 'leads/prod', { apply: true, now: NOW });
    expect(again.moves.filter((m) => m.was !== 'same').map((m) => m.from)).toEqual([
      'leads/prod/profiles/site',
    ]);
  });
});
