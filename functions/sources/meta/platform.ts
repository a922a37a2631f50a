/**
 * What Meta's webhooks share, whatever the product (Lead Ads' `leadgen`, the WhatsApp Cloud API's
 * `messages`): the `X-Hub-Signature-256` check over the raw body, the GET subscription handshake
 * (`hub.mode` / `hub.verify_token` / `hub.challenge`) and Meta's exact decimal ids. The sources
 * that sit on Meta's platform (meta/index.ts, whatsapp.ts) use these, so that a fix lands once.
 */
import { hmacSha1, hmacSha256, safeEqual } from '../../kernel/crypto.ts';
import { say, t } from '../../kernel/language.ts';
import type { Authenticity, IntakeRequest, PlatformResponse } from '../source.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const SHA256_HEADER = /^sha256=([0-9a-f]{64})$/i;
const SHA1_HEADER = /^sha1=([0-9a-f]{40})$/i;

/**
 * A Meta id as an exact decimal string. Numbers come from `parseJson`, which keeps integers
 * above 2^53 as strings; `0`, negatives, fractions and non-digits give undefined.
 */
export function metaId(value: unknown): string | undefined {
  const raw = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  if (!/^\d{1,30}$/.test(text) || /^0+$/.test(text)) return undefined;
  return text;
}

/** The first value of the first query parameter present among `names`. */
export function queryValue(request: IntakeRequest, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = request.query[name]?.[0];
    if (value !== undefined) return value;
  }
  return undefined;
}

export interface HubSignatureOptions {
  /**
   * Accept the legacy `X-Hub-Signature: sha1=<hex>` when the 256 header is absent (Lead Ads'
   * older apps). The WhatsApp Cloud API signs with SHA-256 only.
   */
  sha1?: boolean;
}

/**
 * `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(raw body, appSecret)>`, compared in constant
 * time. Missing → 401 `missing_signature`, mismatch or malformed → 403 `invalid_signature`.
 */
export function verifyHubSignature(
  request: IntakeRequest,
  appSecret: string,
  options: HubSignatureOptions = {},
): Authenticity {
  const sha256 = request.headers['x-hub-signature-256'];
  const sha1 = options.sha1 ? request.headers['x-hub-signature'] : undefined;
  const header = sha256 ?? sha1;
  if (header === undefined || !header.trim()) {
    return {
      ok: false,
      status: 401,
      code: 'missing_signature',
      message: t(
        'O cabeçalho X-Hub-Signature-256 é obrigatório.',
        'The X-Hub-Signature-256 header is required.',
      ),
    };
  }
  const match = (sha256 !== undefined ? SHA256_HEADER : SHA1_HEADER).exec(header.trim());
  const expected =
    sha256 !== undefined ? hmacSha256(appSecret, request.body) : hmacSha1(appSecret, request.body);
  // A malformed header is compared anyway (against nothing), so that both paths cost the same.
  const given = match?.[1] ? Buffer.from(match[1], 'hex') : Buffer.alloc(0);
  if (safeEqual(given, expected) && match) return { ok: true };
  const shown = sha256 !== undefined ? 'X-Hub-Signature-256' : 'X-Hub-Signature';
  return {
    ok: false,
    status: 403,
    code: 'invalid_signature',
    message: t(
      `O cabeçalho ${shown} não confere com o corpo.`,
      `The ${shown} header does not match the body.`,
    ),
  };
}

/**
 * The subscription handshake: `hub.mode=subscribe` and `hub.verify_token` (or PHP's `hub_mode`,
 * `hub_verify_token`) equal to `verifyToken` → 200 text/plain echoing `hub.challenge`; anything
 * else → 403.
 */
export function hubHandshake(request: IntakeRequest, verifyToken: string): PlatformResponse {
  const mode = queryValue(request, 'hub.mode', 'hub_mode');
  const token = queryValue(request, 'hub.verify_token', 'hub_verify_token');
  const challenge = queryValue(request, 'hub.challenge', 'hub_challenge');
  // Compare even when absent, so that the answer time says nothing about the token.
  const tokenMatches = safeEqual(token ?? '', verifyToken) && token !== undefined;
  if (mode === 'subscribe' && tokenMatches && challenge !== undefined) {
    return {
      statusCode: 200,
      headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' },
      body: challenge,
    };
  }
  return {
    statusCode: 403,
    headers: { 'content-type': JSON_TYPE },
    body: JSON.stringify({
      error: {
        code: 'forbidden',
        message: say(
          t(
            'A confirmação da assinatura (handshake) precisa de hub.mode=subscribe, do verify token e de um challenge.',
            'The subscription handshake needs hub.mode=subscribe, the verify token and a challenge.',
          ),
        ),
        details: [],
      },
    }),
  };
}

/**
 * Meta's `created_time` / WhatsApp's `timestamp`: epoch seconds (number or digits) or an ISO
 * string → ISO 8601; undefined when absent or unreadable.
 */
export function metaTime(value: unknown): string | undefined {
  let date: Date | undefined;
  const seconds = typeof value === 'string' && /^\d{9,11}$/.test(value) ? Number(value) : value;
  if (typeof seconds === 'number' && Number.isSafeInteger(seconds) && seconds > 0) {
    date = new Date(seconds * 1000);
  } else if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value.trim())) {
    date = new Date(value.trim().replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  }
  return date && Number.isFinite(date.getTime()) ? date.toISOString() : undefined;
}

/** The OpenAPI security scheme of Meta's signature (sources/docs.ts), the same for every product. */
export function metaSignatureScheme() {
  return {
    type: 'apiKey',
    in: 'header',
    name: 'X-Hub-Signature-256',
    description: '`sha256=<hex HMAC-SHA256 of the raw body with the profile’s appSecret>`.',
  } as const;
}
