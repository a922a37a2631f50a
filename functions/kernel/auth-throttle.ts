/**
 * Throttling of failed Basic sign-ins that slows guessers, not the people who own the names (the
 * port, its pure policy and the service the authorizer uses). No AWS here: the adapters are
 * auth-throttle-dynamodb.ts (ledger table) and auth-throttle-local.ts. Three counters, keys
 * hashed under `authfail#`: per user name (from unfamiliar addresses only), per source address,
 * and the name-and-address pairs that signed in (familiar for 90 days). A locked counter answers
 * 429 with Retry-After without checking the password; a right password clears nothing. The
 * items, the lock arithmetic and which locks apply: docs/architecture.md.
 */
import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { type Text, t } from './language.ts';

/** Every throttle item's key starts with this (IAM limits the authorizer to these items). */
export const AUTH_THROTTLE_KEY_PREFIX = 'authfail#';

export interface ThrottlePolicy {
  /** Failures allowed before the key locks. */
  freeFailures: number;
  /** The first lock. */
  baseMs: number;
  /** The longest lock. */
  capMs: number;
  /** A key whose last failure is older than this starts again from zero. */
  forgetAfterMs: number;
}

/**
 * One client's user name, as addresses unfamiliar to it see it: 5 free failures, then 1 s,
 * doubling up to 60 s. A minute is what a person signing in from a new place waits at most (the
 * first lock of Entra ID's smart lockout is one minute too); a guesser gets about one try a
 * minute on the name however many addresses it has, each of which its own counter slows.
 */
export const USER_POLICY: ThrottlePolicy = {
  freeFailures: 5,
  baseMs: 1_000,
  capMs: 60_000,
  forgetAfterMs: 60 * 60_000,
};

/** One source address (offices share one behind NAT): 20 free failures, then up to 15 minutes. */
export const ADDRESS_POLICY: ThrottlePolicy = {
  ...USER_POLICY,
  freeFailures: 20,
  capMs: 15 * 60_000,
};

export interface FamiliarPolicy {
  /** An address stays familiar for a name this long after its last right password. */
  rememberMs: number;
  /** A right password rewrites the item only when its last write is older than this. */
  refreshAfterMs: number;
}

/** 90 days, refreshed at most once a day. */
export const FAMILIAR_POLICY: FamiliarPolicy = {
  rememberMs: 90 * 24 * 60 * 60_000,
  refreshAfterMs: 24 * 60 * 60_000,
};

/** What a throttle item holds. */
export interface FailureRecord {
  failures: number;
  /** Epoch ms of the last failure. */
  lastFailureAt: number;
}

/** The item store: one record per key, updated atomically (conditional writes). */
export interface AuthThrottleStore {
  read(key: string): Promise<FailureRecord | undefined>;
  /**
   * Counts one failure at `now`: failures + 1, or 1 when the last one is older than
   * `forgetBefore` (or there is none). The record after it. `expiresAt` (epoch seconds) lets the
   * store delete the item once it means nothing.
   */
  recordFailure(
    key: string,
    now: number,
    forgetBefore: number,
    expiresAt: number,
  ): Promise<FailureRecord>;
  /** When the familiarity item `key` was last written (epoch ms), if it exists. */
  readSeen(key: string): Promise<number | undefined>;
  /** Writes the familiarity item `key` as seen at `now`, deleted by the store at `expiresAt`. */
  recordSeen(key: string, now: number, expiresAt: number): Promise<void>;
}

/** When a key's lock ends (epoch ms); 0 when it is not locked by these failures. */
export function lockedUntil(record: FailureRecord | undefined, policy: ThrottlePolicy): number {
  if (!record || record.failures < policy.freeFailures) return 0;
  const steps = Math.min(record.failures - policy.freeFailures, 40);
  return record.lastFailureAt + Math.min(policy.capMs, policy.baseMs * 2 ** steps);
}

/** Whether the record still counts at `now` (its last failure is recent enough). */
function current(record: FailureRecord | undefined, policy: ThrottlePolicy, now: number) {
  return record && now - record.lastFailureAt < policy.forgetAfterMs ? record : undefined;
}

/** `2001:db8:1:2:3::4` → `2001:db8:1:2::/64`; IPv4 and anything else as given. */
export function addressKeyOf(address: string): string {
  if (!isIPv6(address)) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  // An IPv4-mapped address (::ffff:1.2.3.4) is that IPv4 address.
  const last = groups.at(-1) ?? '';
  if (last.includes('.') && groups.slice(0, 5).every((g) => /^0*$/.test(g))) return last;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The items a sign-in reads: its name's and, with an address, the address's and the pair's. */
export function throttleKeys(username: string, sourceIp: string | undefined) {
  const user = `${AUTH_THROTTLE_KEY_PREFIX}user#${digest(username)}`;
  if (!sourceIp) return { user };
  const address = addressKeyOf(sourceIp);
  return {
    user,
    address: `${AUTH_THROTTLE_KEY_PREFIX}addr#${digest(address)}`,
    // An address holds no NUL, so the last NUL parts the two unambiguously.
    seen: `${AUTH_THROTTLE_KEY_PREFIX}seen#${digest(`${username}\0${address}`)}`,
  };
}

/** Who is signing in: the user name sent and the address it came from. */
export interface SignIn {
  username: string;
  sourceIp?: string | undefined;
}

/** A sign-in that may be checked now. */
export interface OpenState {
  locked: false;
  /** The address signed in as this name within FAMILIAR_POLICY.rememberMs. */
  familiar: boolean;
  /** A right password should (re)write the familiarity item: new, or last written a day ago. */
  remember: boolean;
}

export type ThrottleState =
  | OpenState
  | {
      locked: true;
      /** Whole seconds until the later of the locks that apply ends (at least 1). */
      retryAfterSeconds: number;
      /** Which counter holds the later lock (for the log: neither names anyone). */
      lockedBy: 'name' | 'address';
    };

export interface AuthThrottle {
  /** Whether this sign-in may be checked now (reads all three items, whoever signs in). */
  check(signIn: SignIn): Promise<ThrottleState>;
  /**
   * Counts a wrong password against its address and, unless the address is familiar for the
   * name (`state` from check; without it, unfamiliar), against its user name.
   */
  failed(signIn: SignIn, state?: Pick<OpenState, 'familiar'>): Promise<void>;
  /** A right password: its address becomes (or stays) familiar for its user name. */
  succeeded(signIn: SignIn): Promise<void>;
}

export interface AuthThrottleOptions {
  user?: ThrottlePolicy;
  address?: ThrottlePolicy;
  familiar?: FamiliarPolicy;
  /** Epoch ms; default Date.now. */
  now?: () => number;
}

export function createAuthThrottle(
  store: AuthThrottleStore,
  options: AuthThrottleOptions = {},
): AuthThrottle {
  const userPolicy = options.user ?? USER_POLICY;
  const addressPolicy = options.address ?? ADDRESS_POLICY;
  const familiarPolicy = options.familiar ?? FAMILIAR_POLICY;
  const now = options.now ?? Date.now;
  const expiry = (at: number, policy: ThrottlePolicy) =>
    Math.ceil((at + policy.forgetAfterMs + policy.capMs) / 1000);
  const count = (key: string, at: number, policy: ThrottlePolicy) =>
    store.recordFailure(key, at, at - policy.forgetAfterMs, expiry(at, policy));

  return {
    async check(signIn) {
      const at = now();
      const keys = throttleKeys(signIn.username, signIn.sourceIp);
      const [user, address, seenAt] = await Promise.all([
        store.read(keys.user),
        keys.address ? store.read(keys.address) : undefined,
        keys.seen ? store.readSeen(keys.seen) : undefined,
      ]);
      // The local store keeps items past their TTL: the time decides, not the item's presence.
      const age = seenAt === undefined ? Number.POSITIVE_INFINITY : at - seenAt;
      const familiar = age < familiarPolicy.rememberMs;
      const userUntil = familiar ? 0 : lockedUntil(current(user, userPolicy, at), userPolicy);
      const addressUntil = lockedUntil(current(address, addressPolicy, at), addressPolicy);
      const until = Math.max(userUntil, addressUntil);
      if (until > at) {
        return {
          locked: true,
          retryAfterSeconds: Math.max(1, Math.ceil((until - at) / 1000)),
          lockedBy: userUntil === until ? 'name' : 'address',
        };
      }
      return {
        locked: false,
        familiar,
        remember: !familiar || age >= familiarPolicy.refreshAfterMs,
      };
    },

    async failed(signIn, state) {
      const at = now();
      const keys = throttleKeys(signIn.username, signIn.sourceIp);
      await Promise.all([
        state?.familiar ? undefined : count(keys.user, at, userPolicy),
        keys.address && count(keys.address, at, addressPolicy),
      ]);
    },

    async succeeded(signIn) {
      const { seen } = throttleKeys(signIn.username, signIn.sourceIp);
      if (!seen) return;
      const at = now();
      await store.recordSeen(seen, at, Math.ceil((at + familiarPolicy.rememberMs) / 1000));
    },
  };
}

/**
 * What the authorizer tells the function behind it (REST API authorizer context, values as
 * strings): `verified` when it checked the password, `throttled` with `retryAfter` (seconds)
 * when the sign-in is locked and nothing was checked. The function answers 429 for the latter:
 * an authorizer can only allow or deny, and a deny is always 401 or 403.
 */
export const AUTHORIZER_CONTEXT = {
  verified: 'verified',
  throttled: 'throttled',
  retryAfter: 'retryAfter',
} as const;

/**
 * The 429 the function answers when its authorizer found the sign-in locked; undefined when it
 * did not. `authorizer` is the request's authorizer context.
 */
export function throttledByAuthorizer(
  authorizer: Readonly<Record<string, string>> | undefined,
): { retryAfterSeconds: number } | undefined {
  if (authorizer?.[AUTHORIZER_CONTEXT.throttled] !== 'true') return undefined;
  const seconds = Number(authorizer[AUTHORIZER_CONTEXT.retryAfter]);
  return { retryAfterSeconds: Number.isFinite(seconds) && seconds >= 1 ? Math.ceil(seconds) : 1 };
}

/** The message of every 429 for failed sign-ins. */
export function tooManyFailuresMessage(retryAfterSeconds: number): Text {
  return t(
    `tentativas de entrar erradas demais com este usuário ou deste endereço: tente de novo em ${retryAfterSeconds} s`,
    `too many failed sign-ins for this user name or from this address: try again in ${retryAfterSeconds} s`,
  );
}
