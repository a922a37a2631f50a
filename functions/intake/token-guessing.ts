/**
 * Guessing a profile's token (or key, verify token, signature secret) throttled per profile and
 * source address, with the Basic sign-in throttle's store and policy (kernel/auth-throttle.ts):
 * the same ledger items (`authfail#token#<sha256 of profile and address>`, an IPv6 address by
 * its /64), the same code on AWS and in the local runtime. No AWS here: the store comes in.
 *
 * Only a refusal counts: the credential is checked first, always, and a right one is answered as
 * ever without reading the throttle at all, so a right token is never slowed or refused, even
 * from an address that is guessing at the same time. A wrong one (a 403 of the source's check)
 * reads the counter of its profile and address:
 * - not locked: it is counted and answered 403 as before;
 * - locked (`ADDRESS_POLICY`: 20 wrong credentials, then 1 s doubling with each further one up
 *   to 15 minutes, forgotten an hour after the last): 429 `too_many_failures` with Retry-After,
 *   not counted (as a locked sign-in: a failure after the lock counts again and doubles it).
 * A throttle that cannot be read or written leaves the 403 as it was (never a 5xx).
 *
 * What it cannot do: hide a right guess. A right token is never refused, by design (a form's
 * visitors, Zapier and the platforms share addresses with whoever guesses), so the lock tells a
 * guessing client to stop and makes it visible (the refusal's code, LeadRefused), and what
 * bounds guessing is the token's length (profile tokens are long random values) and, deployed,
 * WAF's rate rule per address.
 */
import { createHash } from 'node:crypto';
import {
  ADDRESS_POLICY,
  AUTH_THROTTLE_KEY_PREFIX,
  type AuthThrottleStore,
  addressKeyOf,
  lockedUntil,
  type ThrottlePolicy,
} from '../kernel/auth-throttle.ts';
import { type HttpResponse, problem } from '../kernel/http.ts';
import { t } from '../kernel/language.ts';

/** The code of the 429 (the Basic sign-in's: kernel/route-guard.ts TOO_MANY_FAILURES). */
export const TOO_MANY_WRONG_TOKENS = 'too_many_failures';

/** Wrong credentials presented to one profile from one address: the Basic address policy. */
export const TOKEN_GUESS_POLICY: ThrottlePolicy = ADDRESS_POLICY;

export interface TokenGuessThrottle {
  /**
   * A wrong credential for `profile` from `sourceIp`: counted, or, when the pair is locked by
   * earlier ones, the seconds until the lock ends (and not counted).
   */
  refused(profile: string, sourceIp: string | undefined): Promise<{ retryAfterSeconds?: number }>;
}

/** The ledger item of a profile and an address (neither stored in clear). */
export function tokenGuessKey(profile: string, sourceIp: string): string {
  const digest = createHash('sha256')
    .update(`${profile}\0${addressKeyOf(sourceIp)}`, 'utf8')
    .digest('hex');
  return `${AUTH_THROTTLE_KEY_PREFIX}token#${digest}`;
}

export function createTokenGuessThrottle(
  store: AuthThrottleStore,
  options: { policy?: ThrottlePolicy; now?: () => number } = {},
): TokenGuessThrottle {
  const policy = options.policy ?? TOKEN_GUESS_POLICY;
  const now = options.now ?? Date.now;
  return {
    async refused(profile, sourceIp) {
      if (!sourceIp) return {};
      const key = tokenGuessKey(profile, sourceIp);
      const at = now();
      const record = await store.read(key);
      const recent =
        record && at - record.lastFailureAt < policy.forgetAfterMs ? record : undefined;
      const until = lockedUntil(recent, policy);
      if (until > at) return { retryAfterSeconds: Math.max(1, Math.ceil((until - at) / 1000)) };
      const expiresAt = Math.ceil((at + policy.forgetAfterMs + policy.capMs) / 1000);
      await store.recordFailure(key, at, at - policy.forgetAfterMs, expiresAt);
      return {};
    },
  };
}

/**
 * The answer to a wrong credential (`refusal`, a 403) once the throttle has seen it: the 429 when
 * its profile and address are locked, else the refusal itself. `onError` hears a throttle that
 * failed (the refusal then stands).
 */
export async function throttledRefusal(
  throttle: TokenGuessThrottle | undefined,
  call: { profileName: string; sourceIp: string | undefined },
  refusal: HttpResponse,
  onError: (error: unknown) => void = () => {},
): Promise<HttpResponse> {
  if (!throttle || refusal.statusCode !== 403) return refusal;
  let retryAfterSeconds: number | undefined;
  try {
    ({ retryAfterSeconds } = await throttle.refused(call.profileName, call.sourceIp));
  } catch (error) {
    onError(error);
    return refusal;
  }
  if (retryAfterSeconds === undefined) return refusal;
  return problem(
    429,
    TOO_MANY_WRONG_TOKENS,
    t(
      `credenciais erradas demais para este perfil deste endereço: tente de novo em ${retryAfterSeconds} s (confira o token ou a chave do perfil)`,
      `too many wrong credentials for this profile from this address: try again in ${retryAfterSeconds} s (check the profile's token or key)`,
    ),
    [],
    { 'retry-after': String(retryAfterSeconds) },
  );
}
