/**
 * Throttling of failed Basic sign-ins, shared by every instance (the port, its pure policy and the
 * service the authorizer uses). No AWS here: the DynamoDB adapter is auth-throttle-dynamodb.ts
 * (an item per user name and per source address in the ledger table), the local one
 * auth-throttle-local.ts (the same code on the local DynamoDB).
 *
 * Two counters of failed sign-ins, each an item:
 * - per user name (`authfail#user#<sha256 of the name>`, whether or not the name exists, so the
 *   throttle says nothing about which names are real): guessing one client's password;
 * - per source address (`authfail#addr#<sha256 of the address>`; an IPv6 address counts by its
 *   /64, which one subscriber usually holds whole): one machine trying many names.
 * A key with `freeFailures` or more failures is locked until its last failure plus
 * `baseMs × 2^(failures − freeFailures)`, at most `capMs`: 1 s after the 5th failure of a name,
 * then 2 s, 4 s... up to 15 minutes (an address: after its 20th). While either key is locked a
 * sign-in is answered 429 with Retry-After, and its password is not even checked (a locked key
 * is no oracle); a failure after the lock counts again and doubles the next lock. A key whose
 * last failure is older than `forgetAfterMs` (1 hour, longer than any lock) starts again from
 * zero, and its item carries a TTL so the table forgets it too.
 *
 * A right password clears its user name's counter (not the address's: an attacker's own valid
 * account must not reset the address it guesses from). Items hold counts and times only: keys
 * are hashed, no name or address is stored.
 */
import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';

/** Every throttle item's key starts with this (IAM limits the functions to these items). */
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

/** One client's user name: 5 free failures, then 1 s, doubling up to 15 minutes. */
export const USER_POLICY: ThrottlePolicy = {
  freeFailures: 5,
  baseMs: 1_000,
  capMs: 15 * 60_000,
  forgetAfterMs: 60 * 60_000,
};

/** One source address (offices share one behind NAT): 20 free failures, then the same. */
export const ADDRESS_POLICY: ThrottlePolicy = { ...USER_POLICY, freeFailures: 20 };

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
  clear(key: string): Promise<void>;
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

/** The two items a sign-in counts against. */
export function throttleKeys(username: string, sourceIp: string | undefined) {
  return {
    user: `${AUTH_THROTTLE_KEY_PREFIX}user#${digest(username)}`,
    ...(sourceIp
      ? { address: `${AUTH_THROTTLE_KEY_PREFIX}addr#${digest(addressKeyOf(sourceIp))}` }
      : {}),
  };
}

/** Who is signing in: the user name sent and the address it came from. */
export interface SignIn {
  username: string;
  sourceIp?: string | undefined;
}

export type ThrottleState =
  | { locked: false; userFailures: number }
  | {
      locked: true;
      /** Whole seconds until the later of the two locks ends (at least 1). */
      retryAfterSeconds: number;
    };

export interface AuthThrottle {
  /** Whether this sign-in may be checked now. */
  check(signIn: SignIn): Promise<ThrottleState>;
  /** Counts a failed sign-in against its user name and its address. */
  failed(signIn: SignIn): Promise<void>;
  /** A right password: its user name's failures are forgotten. */
  succeeded(signIn: SignIn): Promise<void>;
}

export interface AuthThrottleOptions {
  user?: ThrottlePolicy;
  address?: ThrottlePolicy;
  /** Epoch ms; default Date.now. */
  now?: () => number;
}

export function createAuthThrottle(
  store: AuthThrottleStore,
  options: AuthThrottleOptions = {},
): AuthThrottle {
  const userPolicy = options.user ?? USER_POLICY;
  const addressPolicy = options.address ?? ADDRESS_POLICY;
  const now = options.now ?? Date.now;
  const expiry = (at: number, policy: ThrottlePolicy) =>
    Math.ceil((at + policy.forgetAfterMs + policy.capMs) / 1000);

  return {
    async check(signIn) {
      const at = now();
      const keys = throttleKeys(signIn.username, signIn.sourceIp);
      const [user, address] = await Promise.all([
        store.read(keys.user),
        keys.address ? store.read(keys.address) : undefined,
      ]);
      const until = Math.max(
        lockedUntil(current(user, userPolicy, at), userPolicy),
        lockedUntil(current(address, addressPolicy, at), addressPolicy),
      );
      if (until > at) {
        return { locked: true, retryAfterSeconds: Math.max(1, Math.ceil((until - at) / 1000)) };
      }
      return { locked: false, userFailures: current(user, userPolicy, at)?.failures ?? 0 };
    },

    async failed(signIn) {
      const at = now();
      const keys = throttleKeys(signIn.username, signIn.sourceIp);
      await Promise.all([
        store.recordFailure(keys.user, at, at - userPolicy.forgetAfterMs, expiry(at, userPolicy)),
        keys.address &&
          store.recordFailure(
            keys.address,
            at,
            at - addressPolicy.forgetAfterMs,
            expiry(at, addressPolicy),
          ),
      ]);
    },

    async succeeded(signIn) {
      await store.clear(throttleKeys(signIn.username, signIn.sourceIp).user);
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
export function tooManyFailuresMessage(retryAfterSeconds: number): string {
  return `too many failed sign-ins for this user name or from this address: try again in ${retryAfterSeconds} s`;
}
