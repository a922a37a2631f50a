/**
 * `POST /admin/test-lead/{profile}`: the profile's sample (sources/setup.ts), signed with its
 * secrets, sent to the intake over HTTP at the URL this request reached (the real path: the
 * intake, the ledger, delivery). Answers the intake's status and answer and the lead ids it gave:
 * `{profile, url, status, answer, leadIds, search}` (`search`: the e-mail, or for WhatsApp the
 * number, that the sample's lead arrives with, which finds it in the listing when the platform's
 * answer names none, as Google's `{}`; Meta's, TikTok's and Kommo's fixed Graph/API lead has a
 * fixed e-mail, whatever the stamp). A Prospect API sample is sent with the operator's own
 * Basic credentials, only when the operator has the `prospects:write` role. 404 for an unknown
 * profile, 409 `no_sample` when the source has no set-up recipe (or its sample needs that role),
 * 502 when the intake is not reached.
 */
import { type HttpResponse, json } from '../kernel/http.ts';
import { t } from '../kernel/language.ts';
import { NO_STORE } from '../kernel/route-guard.ts';
import { sourceNamed } from '../sources/registry.ts';
import { signedSample } from '../sources/setup.ts';
import { type RouteContext, refusal, requireProfile, tryJson } from './route-context.ts';

/** The lead ids an intake's answer names (`leadId`, `leadIds`). */
function leadIdsOf(answer: ReturnType<typeof tryJson>): string[] {
  const ids =
    answer.ok && answer.value !== null && typeof answer.value === 'object'
      ? (answer.value as { leadId?: unknown; leadIds?: unknown })
      : {};
  return [
    ...(typeof ids.leadId === 'string' ? [ids.leadId] : []),
    ...(Array.isArray(ids.leadIds) ? ids.leadIds.filter((id) => typeof id === 'string') : []),
  ];
}

export async function testLead(context: RouteContext): Promise<HttpResponse> {
  const { deps, now } = context;
  const profile = await requireProfile(deps, context.profile);
  const source = sourceNamed(profile.source);
  const stamp = `t${now().getTime().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const signed =
    source &&
    signedSample(context.profile, profile, source as Parameters<typeof signedSample>[2], {
      baseUrl: context.baseUrl,
      stamp,
      now: now(),
      ...(context.roles.includes('prospects:write') &&
        context.authorization !== undefined && { basicAuthorization: context.authorization }),
    });
  if (!signed) {
    throw refusal(
      409,
      'no_sample',
      t(
        `o perfil ${context.profile} não tem lead de exemplo para enviar (a origem dele não tem receita de configuração, ou pede o papel prospects:write)`,
        `profile ${context.profile} has no sample lead to send (its source has no set-up recipe, or it needs the prospects:write role)`,
      ),
    );
  }
  let status: number;
  let text: string;
  try {
    const response = await (deps.send ?? fetch)(signed.url, {
      method: 'POST',
      headers: signed.headers,
      body: signed.body,
      // The Prospect API waits up to 8 s for its delivery; the function has 15 s.
      signal: AbortSignal.timeout(12_000),
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    deps.events?.failed({ route: 'test-lead', error });
    throw refusal(
      502,
      'test_lead_failed',
      t(
        `a entrada de leads em ${signed.shownUrl} não respondeu`,
        `the intake at ${signed.shownUrl} could not be reached`,
      ),
    );
  }
  deps.events?.testLeadSent?.({ profile: context.profile, status, client: context.client });
  const answer = tryJson(text);
  const answered = answer.ok ? answer.value : text.slice(0, 2000);
  return json(
    200,
    {
      profile: context.profile,
      url: signed.shownUrl,
      status,
      answer: answered,
      leadIds: leadIdsOf(answer),
      // Where the platform's answer names no lead (Google's `{}`): the e-mail (or number) the
      // lead arrives with finds it, a fixed one for a sample the platform's API completes (Meta).
      search: signed.search,
    },
    NO_STORE,
  );
}
