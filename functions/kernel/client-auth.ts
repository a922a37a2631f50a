/**
 * Basic authentication of the gateway's clients (`clients` in the configuration) and their
 * roles. A client carries either a plain `password` (local files) or a `passwordHash`
 * (`scrypt$N$r$p$<salt b64>$<hash b64>`, what a deployed stack keeps). Comparisons are constant
 * time; a verified hash is remembered briefly so scrypt's deliberate cost is not paid per request.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { Client, Role } from './client-schema.ts';
import { type BasicCredentials, basicCredentials } from './http.ts';

export type ClientAuth =
  | { ok: true; client: Client }
  | { ok: false; status: 401 | 403; code: string; message: string };

const SCRYPT_KEY_LENGTH = 32;
const DEFAULT_COST = { N: 16_384, r: 8, p: 1 };
const VERIFIED_TTL_MS = 5 * 60_000;
const verified = new Map<string, number>();

function scryptAsync(password: string, salt: Buffer, N: number, r: number, p: number) {
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(password, salt, SCRYPT_KEY_LENGTH, { N, r, p, maxmem: 256 * N * r }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
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

function digestEqual(a: string, b: string): boolean {
  const hash = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(hash(a), hash(b));
}

async function passwordMatches(client: Client, credentials: BasicCredentials): Promise<boolean> {
  if (client.password !== undefined) return digestEqual(client.password, credentials.password);
  const hash = client.passwordHash ?? '';
  const key = fingerprint(credentials, hash);
  const until = verified.get(key);
  if (until !== undefined && until > Date.now()) return true;
  if (!(await verifyPasswordHash(credentials.password, hash))) return false;
  verified.set(key, Date.now() + VERIFIED_TTL_MS);
  return true;
}

/** The client whose username and password these Basic credentials are, if any. */
async function matchClient(
  credentials: BasicCredentials,
  clients: readonly Client[],
): Promise<Client | undefined> {
  // Every client is checked, so the time taken does not tell which usernames exist.
  let match: Client | undefined;
  for (const client of clients) {
    const sameName = digestEqual(client.username, credentials.username);
    if (sameName && (await passwordMatches(client, credentials))) match = client;
  }
  return match;
}

/**
 * The client an `Authorization: Basic ...` header authenticates, whatever its roles; undefined
 * when the header is missing, malformed or names no client with that password (the API
 * Gateway authorizer's question; the functions then check the role).
 */
export async function verifyBasicClient(
  authorization: string | undefined,
  clients: readonly Client[],
): Promise<Client | undefined> {
  const credentials = basicCredentials(authorization);
  return credentials ? matchClient(credentials, clients) : undefined;
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
      message: 'Basic credentials are required',
    };
  }
  const match = await matchClient(credentials, clients);
  if (!match) {
    return { ok: false, status: 401, code: 'unauthorized', message: 'invalid credentials' };
  }
  if (!match.roles.includes(role)) {
    return {
      ok: false,
      status: 403,
      code: 'forbidden',
      message: `this client lacks the "${role}" role`,
    };
  }
  return { ok: true, client: match };
}

/** The header a 401 answer carries so that browsers and curl know to send Basic credentials. */
export const BASIC_CHALLENGE = { 'www-authenticate': 'Basic realm="leads", charset="UTF-8"' };
