import { describe, expect, it } from 'vitest';
import type { Client } from '../../functions/config/config-schema.ts';
import {
  authenticateClient,
  hashPassword,
  verifyPasswordHash,
} from '../../functions/kernel/client-auth.ts';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('client authentication', () => {
  const clients: Client[] = [
    { username: 'ops', password: 'ops-secret', roles: ['admin', 'report:read'] },
    { username: 'writer', password: 'w-secret', roles: ['prospects:write'] },
  ];

  it('accepts a client with the right password and role', async () => {
    const auth = await authenticateClient(basic('ops', 'ops-secret'), clients, 'admin');
    expect(auth).toMatchObject({ ok: true, client: { username: 'ops' } });
  });

  it('answers 401 without credentials or with a wrong password, 403 without the role', async () => {
    expect(await authenticateClient(undefined, clients, 'admin')).toMatchObject({ status: 401 });
    expect(await authenticateClient('Bearer x', clients, 'admin')).toMatchObject({ status: 401 });
    expect(await authenticateClient(basic('ops', 'nope'), clients, 'admin')).toMatchObject({
      status: 401,
    });
    expect(await authenticateClient(basic('ghost', 'ops-secret'), clients, 'admin')).toMatchObject({
      status: 401,
    });
    expect(await authenticateClient(basic('writer', 'w-secret'), clients, 'admin')).toMatchObject({
      status: 403,
      code: 'forbidden',
    });
  });

  it('accepts a password that contains colons', async () => {
    const withColon: Client[] = [{ username: 'a', password: 'x:y:z', roles: ['admin'] }];
    expect(await authenticateClient(basic('a', 'x:y:z'), withColon, 'admin')).toMatchObject({
      ok: true,
    });
  });

  it('verifies scrypt hashes and refuses anything else', async () => {
    const hash = await hashPassword('correct horse', { N: 1024, r: 8, p: 1 });
    expect(hash).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(hash).not.toContain('correct horse');
    expect(await verifyPasswordHash('correct horse', hash)).toBe(true);
    expect(await verifyPasswordHash('correct horsE', hash)).toBe(false);
    expect(await verifyPasswordHash('correct horse', 'scrypt$1024$8$1$bad')).toBe(false);
    expect(await verifyPasswordHash('correct horse', 'md5$abc')).toBe(false);

    const hashed: Client[] = [{ username: 'ops', passwordHash: hash, roles: ['admin'] }];
    expect(await authenticateClient(basic('ops', 'correct horse'), hashed, 'admin')).toMatchObject({
      ok: true,
    });
    expect(await authenticateClient(basic('ops', 'wrong'), hashed, 'admin')).toMatchObject({
      status: 401,
    });
  });
});
