/**
 * `GET /admin/setup`: how to connect each profile's platform (sources/setup.ts): every profile's
 * set-up kit, its URLs pointing at the API's custom domain when the stack has one, else at the
 * API as this request reached it. Where the kit says the
 * secrets live, and whether it prints them, is the wiring's (`AdminDeps.kit`): local files print
 * them, deployed stacks never (profiles are read with their secrets only where the kit prints
 * them). Only the profiles the operator may see (scoped-deps.ts).
 */
import { type HttpResponse, json } from '../kernel/http.ts';
import { NO_STORE } from '../kernel/route-guard.ts';
import { sourceNamed } from '../sources/registry.ts';
import { type KitContext, type ProfileKit, profileKit } from '../sources/setup.ts';
import type { AdminDeps } from './admin.ts';
import type { RouteContext } from './route-context.ts';

/** Where the set-up kit says secrets live and whether it prints them (the wiring's). */
export type KitPlace = Omit<KitContext, 'baseUrl'>;

function kitContext(deps: AdminDeps, baseUrl: string): KitContext {
  return {
    baseUrl,
    ...(deps.kit ?? {
      secretsWhere: (profile: string) => `os segredos do perfil ${profile}`,
      secretValues: { secretId: (profile: string) => `<secret of profile ${profile}>` },
    }),
  };
}

/** Every profile's kit: profiles read with their secrets only where the kit may print them. */
async function kits(deps: AdminDeps, baseUrl: string): Promise<ProfileKit[]> {
  const context = kitContext(deps, baseUrl);
  const settings = await deps.config.profileSettings();
  const result: ProfileKit[] = [];
  for (const [name, base] of Object.entries(settings)) {
    const source = sourceNamed(base.source);
    if (!source) continue;
    const profile = context.secretValues === 'inline' ? await deps.config.profile(name) : base;
    result.push(
      profileKit(name, profile ?? base, source as Parameters<typeof profileKit>[2], context),
    );
  }
  return result;
}

export async function setup({ deps, kitUrl }: RouteContext): Promise<HttpResponse> {
  return json(
    200,
    { urlPattern: `${kitUrl}/leads/{profile}`, profiles: await kits(deps, kitUrl) },
    NO_STORE,
  );
}
