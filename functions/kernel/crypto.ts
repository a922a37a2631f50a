/**
 * Authenticity checks shared by the sources: HMACs over the raw body and constant-time
 * comparison of secrets. Compare digests, never raw strings, so that neither the length nor the
 * content of a secret leaks through timing.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

function digest(value: string | Buffer): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Constant-time equality of two secrets or signatures of any length. */
export function safeEqual(a: string | Buffer, b: string | Buffer): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

/** True when `candidate` equals any of `secrets` (each compared in constant time). */
export function matchesAny(candidate: string, secrets: readonly string[]): boolean {
  let found = false;
  for (const secret of secrets) found = safeEqual(candidate, secret) || found;
  return found;
}

export function hmacSha256(key: string, ...parts: (string | Buffer)[]): Buffer {
  const hmac = createHmac('sha256', key);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}

export function hmacSha1(key: string, body: Buffer): Buffer {
  return createHmac('sha1', key).update(body).digest();
}
