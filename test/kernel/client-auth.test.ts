import { describe, expect, it } from 'vitest';
import {
  authenticateClient,
  hashPassword,
  verifyPasswordHash,
} from '../../functions/kernel/client-auth.ts';
import type { Client } from '../../functions/kernel/client-schema.ts';
import { basicCredentials } from '../../functions/kernel/http.ts';

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

  describe('strict Basic parsing', () => {
    const token = Buffer.from('ops:ops-secret').toString('base64');
    it('refuses trailing garbage, base64url, missing padding and non-canonical bits', async () => {
      const padded = Buffer.from('ops:ops-secret-1').toString('base64');
      expect(padded.endsWith('=')).toBe(true);
      const urlAlphabet = Buffer.from('ops:?>?>~').toString('base64url');
      expect(urlAlphabet).toMatch(/[-_]/);
      // `Q==` → `R==`: the same bytes with a padding bit set (not the canonical form).
      const lastBits = `${padded.slice(0, -3)}R==`;
      expect(padded.slice(-3)).toBe('Q==');
      for (const header of [
        `Basic ${token}garbage`,
        `Basic ${token}==`,
        `Basic ${padded}x`,
        `Basic ${padded} trailing`,
        `Basic ${padded.replace(/=+$/, '')}`,
        `Basic ${urlAlphabet}`,
        `Basic ${lastBits}`,
        `Basic ${Buffer.from([0x6f, 0x3a, 0xff, 0xfe]).toString('base64')}`,
        `Basic${token}`,
      ]) {
        expect(basicCredentials(header), header).toBeUndefined();
      }
      const wrongBits: Client[] = [{ username: 'ops', password: 'ops-secret-1', roles: ['admin'] }];
      expect(await authenticateClient(`Basic ${padded}`, wrongBits, 'admin')).toMatchObject({
        ok: true,
      });
      expect(await authenticateClient(`Basic ${padded}x`, wrongBits, 'admin')).toMatchObject({
        status: 401,
        code: 'unauthorized',
      });
    });

    it('takes the scheme in any case and one or more spaces', () => {
      expect(basicCredentials(`basic ${token}`)).toEqual({
        username: 'ops',
        password: 'ops-secret',
      });
      expect(basicCredentials(`BASIC  ${token}`)).toEqual({
        username: 'ops',
        password: 'ops-secret',
      });
    });

    it('compares user names after NFC, either way round', async () => {
      const nfc = 'jos\u00e9';
      const nfd = 'jose\u0301';
      expect(nfc).not.toBe(nfd);
      const configuredNfc: Client[] = [{ username: nfc, password: 'pw', roles: ['admin'] }];
      const configuredNfd: Client[] = [{ username: nfd, password: 'pw', roles: ['admin'] }];
      expect(await authenticateClient(basic(nfd, 'pw'), configuredNfc, 'admin')).toMatchObject({
        ok: true,
        client: { username: nfc },
      });
      expect(await authenticateClient(basic(nfc, 'pw'), configuredNfd, 'admin')).toMatchObject({
        ok: true,
      });
      // The password is not normalised: it is compared byte for byte.
      const accented: Client[] = [{ username: 'a', password: nfc, roles: ['admin'] }];
      expect(await authenticateClient(basic('a', nfd), accented, 'admin')).toMatchObject({
        status: 401,
      });
    });
  });
});
