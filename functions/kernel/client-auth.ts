/**
 * Basic authentication of the gateway's clients (`clients` in the configuration) and their
 * roles. A client carries either a plain `password` (local files) or a `passwordHash`
 * (`scrypt$N$r$p$<salt b64>$<hash b64>`, what a deployed stack keeps). Comparisons are constant
 * time; a verified password is remembered briefly so scrypt's deliberate cost is not paid per
 * request.
 *
 * Constant work: when any configured client has a hash, every check that is not answered from
 * the remembered verifications runs exactly one scrypt at that hash's cost, whether the user
 * name exists (its own hash), names a plain-password client or names nobody (a stand-in hash
 * with the same cost that no password matches). So the time a wrong password takes does not
 * tell which user names exist. With plain passwords only (a local file) none runs at all.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { Client, Role } from './client-schema.ts';
import { type BasicCredentials, basicCredentials, normalUsername } from './http.ts';
import { type Text, t } from './language.ts';

export type ClientAuth =
  | { ok: true; client: Client }
  | { ok: false; status: 401 | 403; code: string; message: Text };

const SCRYPT_KEY_LENGTH = 32;
const DEFAULT_COST = { N: 16_384, r: 8, p: 1 };
const VERIFIED_TTL_MS = 5 * 60_000;
const verified = new Map<string, number>();
/** A salt and a key no password is checked against for real: the stand-in hash's. */
const STAND_IN = {
  salt: randomBytes(16).toString('base64'),
  key: randomBytes(32).toString('base64'),
};
let scryptCount = 0;

/** How many scrypt computations this process has run (a measure of work, for tests and benches). */
export function scryptRuns(): number {
  return scryptCount;
}

function scryptAsync(password: string, salt: Buffer, N: number, r: number, p: number) {
  scryptCount += 1;
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(password, salt, SCRYPT_KEY_LENGTH, { N, r, p, maxmem: 256 * N * r }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** A hash with the cost of `like` (a configured client's) that no password matches. */
function standInHash(like: string): string {
  const [, n = '', r = '', p = ''] = like.split('$');
  return ['scrypt', n, r, p, STAND_IN.salt, STAND_IN.key].join('$');
}

/** `scrypt$16384$8$1$<salt>$<hash>` for a password: what `npm run hash-password` prints. */
export async function hashPassword(password: string, cost = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, cost.N, cost.r, cost.p);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), key.toString('base64')].join(
    '$',
  );
}

/** Checks a password against a `hashPassword` result; false for any malformed hash. */
export async function verifyPasswordHash(password: string, hash: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = hash.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const [N, R, P] = [Number(n), Number(r), Number(p)];
  if (![N, R, P].every(Number.isSafeInteger) || expected.length !== SCRYPT_KEY_LENGTH) return false;
  try {
    const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), N, R, P);
    return timingSafeEqual(actual, expected);
  } catch {
    return false;
  }
}

function fingerprint(credentials: BasicCredentials, secret: string): string {
  return createHash('sha256')
    .update(`${credentials.username}\0${credentials.password}\0${secret}`)
    .digest('base64');
}

/** Whether a configured client has the (NFC-normalised) user name sent, in constant time. */
function sameName(client: Client, credentials: BasicCredentials): boolean {
  return digestEqual(normalUsername(client.username), normalUsername(credentials.username));
}

function digestEqual(a: string, b: string): boolean {
  const hash = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(hash(a), hash(b));
}

/** What a client's password is checked against: its plain password or its hash. */
const secretOf = (client: Client) => client.password ?? client.passwordHash ?? '';

/** Whether these credentials were verified for this client within VERIFIED_TTL_MS. */
function wasVerified(client: Client, credentials: BasicCredentials): boolean {
  const until = verified.get(fingerprint(credentials, secretOf(client)));
  return until !== undefined && until > Date.now();
}

/**
 * The client these credentials were verified for within the last few minutes, if any: a right
 * password seen recently, answered without scrypt and without asking the throttle.
 */
export function recentlyVerified(
  credentials: BasicCredentials,
  clients: readonly Client[],
): Client | undefined {
  let match: Client | undefined;
  for (const client of clients) {
    if (sameName(client, credentials) && wasVerified(client, credentials)) match = client;
  }
  return match;
}

/**
 * The client whose username and password these Basic credentials are, if any. Every client's
 * name is compared, and exactly one scrypt runs whenever some client has a hash (see the module
 * comment), so the time taken does not tell which usernames exist.
 */
export async function matchClient(
  credentials: BasicCredentials,
  clients: readonly Client[],
): Promise<Client | undefined> {
  const recent = recentlyVerified(credentials, clients);
  if (recent) return recent;
  let match: Client | undefined;
  let hashed = false;
  for (const client of clients) {
    if (!sameName(client, credentials)) continue;
    let ok: boolean;
    if (client.password !== undefined) {
      ok = digestEqual(client.password, credentials.password);
    } else {
      hashed = true;
      ok = await verifyPasswordHash(credentials.password, client.passwordHash ?? '');
    }
    if (ok) {
      match = client;
      verified.set(fingerprint(credentials, secretOf(client)), Date.now() + VERIFIED_TTL_MS);
    }
  }
  // No scrypt ran (an unknown name, or a plain-password client): the same work, for nothing.
  const like = clients.find((client) => client.passwordHash !== undefined)?.passwordHash;
  if (!hashed && like !== undefined)
    await verifyPasswordHash(credentials.password, standInHash(like));
  return match;
}

/**
 * Authenticates `Authorization: Basic ...` against the clients and checks the role:
 * 401 without valid credentials, 403 when the client lacks the role.
 */
export async function authenticateClient(
  authorization: string | undefined,
  clients: readonly Client[],
  role: Role,
): Promise<ClientAuth> {
  const credentials = basicCredentials(authorization);
  if (!credentials) {
    return {
      ok: false,
      status: 401,
      code: 'unauthorized',
      message: t('é preciso entrar com usuário e senha (Basic)', 'Basic credentials are required'),
    };
  }
  const match = await matchClient(credentials, clients);
  if (!match) {
    return {
      ok: false,
      status: 401,
      code: 'unauthorized',
      message: t('usuário ou senha incorretos', 'invalid credentials'),
    };
  }
  if (!match.roles.includes(role)) {
    return {
      ok: false,
      status: 403,
      code: 'forbidden',
      message: t(
        `este usuário não tem o papel "${role}" que esta rota pede`,
        `this client lacks the "${role}" role`,
      ),
    };
  }
  return { ok: true, client: match };
}

/** The header a 401 answer carries so that browsers and curl know to send Basic credentials. */
export const BASIC_CHALLENGE = { 'www-authenticate': 'Basic realm="leads", charset="UTF-8"' };
