/**
 * The shared-token check of the sources that have no signature (plain forms, Zapier-style hooks,
 * Unbounce, Elementor, RD Station): the profile's `token`, sent as `?token=` or as the header
 * `X-Lead-Token` (the contract). Compared in constant time; messages never echo what was sent.
 * Also how those sources describe it in docs/openapi.json (`tokenApiDoc`).
 */

import { safeEqual } from '../kernel/crypto.ts';
import { t } from '../kernel/language.ts';
import type { SourceApiDoc } from './docs.ts';
import { type Authenticity, type IntakeRequest, secretSetting } from './source.ts';

export const TOKEN_HEADER = 'x-lead-token';
export const TOKEN_QUERY = 'token';

/**
 * The token a request presents: the `X-Lead-Token` header when present and not blank, else the
 * first non-empty `?token=` value.
 */
export function presentedToken(
  request: Pick<IntakeRequest, 'headers' | 'query'>,
): string | undefined {
  const header = request.headers[TOKEN_HEADER]?.trim();
  if (header) return header;
  return request.query[TOKEN_QUERY]?.find((value) => value !== '');
}

/**
 * `{ ok: true }` when the request presents `expected`; 401 `missing_token` when it presents none,
 * 403 `invalid_token` when it presents another.
 */
export function authenticateToken(
  request: Pick<IntakeRequest, 'headers' | 'query'>,
  expected: string,
): Authenticity {
  const token = presentedToken(request);
  if (token === undefined) {
    return {
      ok: false,
      status: 401,
      code: 'missing_token',
      message: t(
        'Este endereço exige o token do perfil: envie ?token= ou o cabeçalho X-Lead-Token.',
        'This endpoint needs the profile token: pass ?token= or the X-Lead-Token header.',
      ),
    };
  }
  if (!safeEqual(token, expected)) {
    return {
      ok: false,
      status: 403,
      code: 'invalid_token',
      message: t('O token não vale para este perfil.', 'The token is not valid for this profile.'),
    };
  }
  return { ok: true };
}

/**
 * What a source whose only setting is the profile's token declares (its setting, that it is a
 * secret, and the check), to spread into its `defineSource`.
 */
export const tokenOnly = {
  settings: { token: secretSetting },
  secretKeys: ['token'] as const,
  authenticate: (request: Pick<IntakeRequest, 'headers' | 'query'>, profile: { token: string }) =>
    authenticateToken(request, profile.token),
};

/**
 * The OpenAPI security schemes of the token (sources/docs.ts): `?token=` and the header. Each
 * source that takes the token declares the ones it accepts.
 */
export function tokenSchemes() {
  return {
    leadToken: {
      type: 'apiKey',
      in: 'query',
      name: TOKEN_QUERY,
      description:
        'The profile’s `token` (form, RD Station, Unbounce, Elementor, Jotform, Kommo, WordPress, Wix).',
    },
    leadTokenHeader: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Lead-Token',
      description: 'The profile’s `token`, as a header.',
    },
  } as const;
}

/** How a source that takes the token either way authenticates, for its `docs` (docs.ts). */
export function tokenApiDoc(): Pick<SourceApiDoc, 'security' | 'schemes' | 'authentication'> {
  return {
    security: ['leadToken', 'leadTokenHeader'],
    schemes: tokenSchemes(),
    authentication: `The profile's \`token\`, as \`?${TOKEN_QUERY}=\` or the \`${TOKEN_HEADER}\` header. Missing: 401 \`missing_token\`; wrong: 403 \`invalid_token\`.`,
  };
}
