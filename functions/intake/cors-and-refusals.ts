/**
 * What both intake use cases (intake.ts, prospect-api.ts) share in their answers: the request
 * they are answering (`IntakeCall`), the CORS headers a profile's allowed origins get (on every
 * answer, refusals included, so that an allowed page can read why it was refused), the CORS
 * preflight, and refusals, each told to the events. The bodies are kernel/http.ts's.
 */
import type { Profile } from '../config/config-schema.ts';
import { type HttpResponse, problem } from '../kernel/http.ts';
import { t } from '../kernel/language.ts';
import type { IntakeRequest, SourceAdapter } from '../sources/source.ts';
import type { IntakeDeps } from './intake-deps.ts';

const CORS_ALLOW_HEADERS = 'content-type, x-lead-token, idempotency-key';

/** One request to a profile, as the use cases' steps pass it along. */
export interface IntakeCall {
  profileName: string;
  profile: Profile;
  adapter: SourceAdapter<Profile>;
  request: IntakeRequest;
}

function corsHeaders(request: IntakeRequest, profile: Profile): Record<string, string> {
  const origin = request.headers.origin;
  if (!origin || !profile.allowedOrigins?.includes(origin)) return {};
  return { 'access-control-allow-origin': origin, vary: 'Origin' };
}

/** The response with the CORS headers of the request's origin, when the profile allows it. */
export function withCors<R extends HttpResponse>(
  response: R,
  request: IntakeRequest,
  profile: Profile | undefined,
): R {
  const cors = profile ? corsHeaders(request, profile) : {};
  return { ...response, headers: { ...response.headers, ...cors } };
}

/** The answer to `OPTIONS`: 204 with the CORS headers for an allowed origin, else 403. */
export function preflight(request: IntakeRequest, profile: Profile): HttpResponse {
  const cors = corsHeaders(request, profile);
  if (!cors['access-control-allow-origin']) {
    return problem(
      403,
      'origin_not_allowed',
      t('esta origem não pode enviar a este perfil', 'this origin may not post to this profile'),
    );
  }
  return {
    statusCode: 204,
    headers: {
      ...cors,
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': CORS_ALLOW_HEADERS,
      'access-control-max-age': '600',
    },
    body: '',
  };
}

/** A refusal, told to the events (the profile may be unknown: then no CORS headers). */
export function refuse(
  deps: IntakeDeps,
  call: { profileName: string; profile?: Profile | undefined; request: IntakeRequest },
  response: HttpResponse,
  code: string,
): HttpResponse {
  deps.events?.refused({ profile: call.profileName, status: response.statusCode, code });
  return withCors(response, call.request, call.profile);
}
