/**
 * A request's credential during a rotation (config/secret-rotation.ts): the intake accepts the
 * profile's current value, or, until its grace ends, the value a rotation replaced, whatever the
 * source's check is (a token, a key in the body, an HMAC signature, a verify token). When no
 * value matches and the configuration can read the profile past its cache (a deployed secret,
 * cached for minutes), it is read again once and checked again: a value rotated a moment ago
 * works at once. Each check is the source's own, in constant time.
 */
import { formerProfiles } from '../config/secret-rotation.ts';
import type { Authenticity, IntakeRequest, PlatformResponse, SourceAdapter } from './source.ts';

/**
 * Reads the same profile again past any cache; undefined when it cannot (or it is gone). Typed
 * loosely: it is the profile the request named, of the same source.
 */
export type Reread = (() => Promise<object | undefined>) | undefined;

function checkAll<P extends object>(
  adapter: Pick<SourceAdapter<P>, 'authenticate'>,
  request: IntakeRequest,
  profile: P,
  now: Date,
): Authenticity {
  const current = adapter.authenticate(request, profile);
  if (current.ok) return current;
  for (const former of formerProfiles(profile, now)) {
    if (adapter.authenticate(request, former).ok) return { ok: true };
  }
  return current;
}

/**
 * The source's authentication of `request`, accepting a value in its rotation's grace, and
 * reading the profile again (`reread`) once when a credential was presented but refused (403).
 */
export async function authenticateRotated<P extends object>(
  adapter: Pick<SourceAdapter<P>, 'authenticate'>,
  request: IntakeRequest,
  profile: P,
  options: { now: Date; reread: Reread },
): Promise<Authenticity> {
  const first = checkAll(adapter, request, profile, options.now);
  if (first.ok || first.status !== 403 || !options.reread) return first;
  const fresh = (await options.reread()) as P | undefined;
  return fresh ? checkAll(adapter, request, fresh, options.now) : first;
}

/**
 * A subscription handshake (Meta's GET with the verify token): the current value, a value in its
 * grace, then the profile read again once, as `authenticateRotated`.
 */
export async function handshakeRotated<P extends object>(
  handshake: (request: IntakeRequest, profile: P) => PlatformResponse,
  request: IntakeRequest,
  profile: P,
  options: { now: Date; reread: Reread },
): Promise<PlatformResponse> {
  const attempt = (of: P) => {
    const first = handshake(request, of);
    if (first.statusCode !== 403) return first;
    for (const former of formerProfiles(of, options.now)) {
      const answer = handshake(request, former);
      if (answer.statusCode !== 403) return answer;
    }
    return first;
  };
  const first = attempt(profile);
  if (first.statusCode !== 403 || !options.reread) return first;
  const fresh = (await options.reread()) as P | undefined;
  return fresh ? attempt(fresh) : first;
}
