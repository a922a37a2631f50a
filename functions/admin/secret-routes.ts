/**
 * The set-up kit's secrets, for an operator with the `admin` role (every admin route needs it):
 *
 * - `POST /admin/setup/{profile}/reveal`: the profile's secret values, read past any cache, the
 *   URL to paste with its token, which keys may be rotated and the replaced values still in their
 *   grace (when, never what). A POST: it is asked for, with the console's CSRF token, and never
 *   cached (`no-store`).
 * - `POST /admin/setup/{profile}/rotate` `{"key": "token"}`: a new random value
 *   (config/secret-rotation.ts) in place of the key's value, which stays accepted until the
 *   grace ends; answers the new value and the URL to paste.
 *
 * The audit trail (`AdminEvents`): who revealed which keys of which profile, who rotated which
 * key, with the SHA-256 fingerprints (12 hex digits) of the old and the new value and the end of
 * the old one's grace; never a value. 404 for a profile the operator may not see, 409
 * `not_rotatable` for a key the platform issues, 409 `no_secrets` for a profile without secrets.
 */
import { createHash } from 'node:crypto';
import { newSecretValue, previousFromSecret } from '../config/secret-rotation.ts';
import { type HttpResponse, json } from '../kernel/http.ts';
import { NO_STORE } from '../kernel/route-guard.ts';
import { sourceNamed } from '../sources/registry.ts';
import { type KitSource, profileKit } from '../sources/setup.ts';
import { type ProfileSecrets, rotatableKeys } from './profile-secrets.ts';
import { type RouteContext, refusal, requireProfile, tryJson } from './route-context.ts';

/** A value's fingerprint for the audit trail: not the value, enough to tell two apart. */
export function fingerprint(value: unknown): string {
  return createHash('sha256')
    .update(typeof value === 'string' ? value : '')
    .digest('hex')
    .slice(0, 12);
}

interface Revealing {
  name: string;
  profile: Record<string, unknown>;
  source: KitSource<unknown>;
  keys: readonly string[];
  store: ProfileSecrets;
}

/** The profile the route names, its source and its secret keys; refusals as the module says. */
async function revealing(context: RouteContext): Promise<Revealing> {
  const { deps } = context;
  const profile = (await requireProfile(deps, context.profile)) as Record<string, unknown>;
  const source = sourceNamed(String(profile.source)) as KitSource<unknown> | undefined;
  const keys = source?.secretKeys ?? [];
  if (!source || keys.length === 0 || !deps.profileSecrets) {
    throw refusal(409, 'no_secrets', `o perfil ${context.profile} não tem segredos a mostrar`);
  }
  return { name: context.profile, profile, source, keys, store: deps.profileSecrets };
}

/** The URL to paste, with the token's value in it where the platform sends it that way. */
function urlToPaste(context: RouteContext, kit: Revealing, values: Record<string, unknown>) {
  const profile = { ...kit.profile, ...values };
  return profileKit(kit.name, profile, kit.source, {
    baseUrl: context.kitUrl,
    secretsWhere: () => '',
    secretValues: 'inline',
  }).url;
}

export async function revealSecrets(context: RouteContext): Promise<HttpResponse> {
  const kit = await revealing(context);
  const stored = (await kit.store.read(kit.name)) ?? {};
  const values = Object.fromEntries(kit.keys.map((key) => [key, stored[key] ?? null]));
  const rotatable = rotatableKeys(kit.source.setup?.auth({ ...kit.profile, ...values }));
  const now = context.now().getTime();
  const previous = Object.entries(previousFromSecret(stored))
    .filter(([, { until }]) => Date.parse(until) > now)
    .map(([key, { until }]) => ({ key, until }));
  context.deps.events?.secretRevealed?.({
    profile: kit.name,
    keys: [...kit.keys],
    client: context.client,
  });
  const secrets = kit.keys.map((key) => ({
    key,
    value: values[key],
    rotatable: rotatable.includes(key),
  }));
  const url = urlToPaste(context, kit, values);
  return json(200, { profile: kit.name, url, secrets, previous }, NO_STORE);
}

export async function rotateSecret(context: RouteContext): Promise<HttpResponse> {
  const kit = await revealing(context);
  const body = tryJson(context.request.body.toString('utf8'));
  const key =
    body.ok && body.value && typeof body.value === 'object'
      ? (body.value as { key?: unknown }).key
      : undefined;
  if (typeof key !== 'string' || !kit.keys.includes(key)) {
    const known = kit.keys.join(', ');
    throw refusal(400, 'invalid_body', `diga qual segredo trocar: {"key": …}, um de ${known}`);
  }
  const stored = (await kit.store.read(kit.name)) ?? {};
  if (!rotatableKeys(kit.source.setup?.auth({ ...kit.profile, ...stored })).includes(key)) {
    throw refusal(
      409,
      'not_rotatable',
      `${key} é emitido pela plataforma: troque-o nela e grave o novo valor no segredo do perfil`,
    );
  }
  const value = newSecretValue();
  const { until } = await kit.store.rotate(kit.name, key, value, context.now());
  context.deps.events?.secretRotated?.({
    profile: kit.name,
    key,
    client: context.client,
    previous: fingerprint(stored[key]),
    current: fingerprint(value),
    ...(until && { previousUntil: until }),
  });
  const url = urlToPaste(context, kit, { ...stored, [key]: value });
  return json(200, { profile: kit.name, key, value, url, previousUntil: until ?? null }, NO_STORE);
}
