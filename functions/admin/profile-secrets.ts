/**
 * The profile secrets an operator reveals and rotates from the set-up kit (`POST
 * /admin/setup/{profile}/reveal` and `POST /admin/setup/{profile}/rotate`, secret-routes.ts):
 * the port, and which keys may be rotated. Where the values live is the adapter's: the
 * profile's own Secrets Manager secret on AWS (profile-secrets-aws.ts), DATA_DIR beside the
 * configuration file locally (profile-secrets-local.ts). No AWS imports.
 *
 * A key may be rotated when the gateway chooses its value and the operator pastes it into the
 * platform: a token in the URL or a header, a key the platform puts in the body (Google's).
 * A secret the platform issues (Meta's app secret, Hotmart's Hottok, a signing secret) changes
 * in the platform first; its new value is then written to the secret (docs/operations.md).
 */
import type { SampleAuth } from '../sources/setup.ts';

export interface ProfileSecrets {
  /**
   * The profile's secret JSON now, past any cache (its keys, and the values a rotation replaced
   * under `previous`, config/secret-rotation.ts); undefined when it keeps none.
   */
  read(profile: string): Promise<Readonly<Record<string, unknown>> | undefined>;
  /**
   * Puts `value` in place of `key`'s current value, which stays accepted until the returned
   * instant (ISO 8601; undefined when there was none to keep).
   */
  rotate(profile: string, key: string, value: string, now: Date): Promise<{ until?: string }>;
}

/** The keys of a profile that the gateway may rotate (see the module comment). */
export function rotatableKeys(auth: SampleAuth | undefined): string[] {
  if (auth?.kind === 'token' || auth?.kind === 'body') return [auth.setting];
  return [];
}
