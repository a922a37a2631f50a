/**
 * What every lead source is: its name and label, the settings (and secrets) of its profiles, and
 * the adapter the intake runs (authenticate, capture, answer, handshake) plus an optional
 * delivery-time `complete()` step for sources whose webhook carries ids only (Meta's Graph
 * lookup), its set-up kit (setup.ts) and what it tells its callers (docs.ts: its part of
 * docs/openapi.json and docs/requests.http). One file per source declares all of it with
 * `defineSource`; sources/registry.ts lists them, and the configuration's profile schema is
 * composed from theirs (config-schema.ts).
 * Sources are pure: no AWS, no process.env; only `complete()` may call the platform's API.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { PROFILE_NAME } from '../config/config-parts.ts';
import type { IssueDetail } from '../domain/json.ts';
import type { LeadCapture } from '../domain/lead.ts';
import { EMAIL_PLACEHOLDER_PHONE, FIELD_MAP_TARGETS } from '../domain/map-lead.ts';
import { prospectSchema } from '../domain/prospect.ts';
import { accountName } from '../kernel/accounts.ts';
import { nonEmpty, secretText } from '../kernel/client-schema.ts';
import { safeEqual } from '../kernel/crypto.ts';
import type { HttpRequest } from '../kernel/http.ts';
import { type Text, t } from '../kernel/language.ts';
import type { SourceDocs } from './docs.ts';
import { isPlainObject, parseJsonText } from './form-fields.ts';
import type { SourceSetup } from './setup.ts';

/** An e-mail address with `{phone}` before the @ (`{phone}@sem-email.invalid`). */
const PLACEHOLDER_TEMPLATE = /^[a-z0-9._+-]*\{phone\}[a-z0-9._+-]*@[a-z0-9-]+(\.[a-z0-9-]+)+$/i;

/** A secret setting of a profile (Secrets Manager when deployed), taken byte for byte. */
export const secretSetting = secretText;

/** Settings every profile has, whatever its source. */
export const profileCommon = {
  /** The upstream account this profile's leads go to (kernel/accounts.ts); default `default`. */
  upstream: z.optional(accountName),
  /**
   * The Secrets Manager secret holding this profile's keys, under `<prefix>/profiles/`; default
   * the profile's own name. Profiles that share credentials (the pages of one Meta app) may
   * share a secret.
   */
  secretName: z.optional(
    z
      .string()
      .check(
        z.regex(
          /^[a-z0-9][a-z0-9_-]{0,62}$/,
          'secret names are lower-case letters, digits, - and _',
        ),
      ),
  ),
  /**
   * The names this profile had before (a rename, config/profile-names.ts): its old URL and
   * token keep working and the leads recorded under an old name are delivered through it.
   */
  formerly: z.optional(
    z.array(
      z
        .string()
        .check(z.regex(PROFILE_NAME, 'profile names are lower-case letters, digits, - and _')),
    ),
  ),
  /** Prospect fields applied to every lead of this profile. */
  defaults: z.optional(z.partial(prospectSchema)),
  /** A source's own question or field key → Prospect field (or `notes`). */
  fieldMap: z.optional(
    z.record(
      z.string(),
      z.string().check(
        z.refine((target) => FIELD_MAP_TARGETS.has(target), {
          message: `must be one of: ${[...FIELD_MAP_TARGETS].join(', ')}`,
        }),
      ),
    ),
  ),
  /**
   * How numeric dates typed as free text are read: `DMY` (day/month, the default) or `MDY`. A
   * platform's own date questions (Meta's `date_of_birth`) keep the platform's format.
   */
  dateOrder: z.optional(z.enum(['DMY', 'MDY'])),
  /**
   * The lastName of a lead whose person typed one name (`Shara`), so that it is delivered rather
   * than parked; the notes say so. Default `(não informado)`.
   */
  lastNameStandIn: z.optional(nonEmpty),
  /**
   * The e-mail of a lead that gave none but has a phone, `{phone}` standing for its number
   * (`{phone}@sem-email.invalid`), so that a phone-only lead is delivered rather than parked for
   * its e-mail; the notes say so. Unset: such a lead is parked for its e-mail. Any source
   * (WhatsApp's conversations, a form whose e-mail is optional); docs/configuration.md.
   */
  emailPlaceholder: z.optional(
    z.string().check(
      z.refine((template) => PLACEHOLDER_TEMPLATE.test(template), {
        message: `must be an e-mail address with ${EMAIL_PLACEHOLDER_PHONE} before the @, such as ${EMAIL_PLACEHOLDER_PHONE}@sem-email.invalid`,
      }),
    ),
  ),
  /** Per form id (Meta form_id, Google form_id, Typeform form_id, Webflow formId...) overrides. */
  forms: z.optional(z.record(z.string(), z.partial(prospectSchema))),
  /** Browser origins allowed to post with CORS. */
  allowedOrigins: z.optional(z.array(z.string())),
  /** Where a plain HTML form is sent (303) after posting. */
  redirectUrl: z.optional(z.url()),
  /** Hidden field that must stay empty (bots fill it). */
  honeypotField: z.optional(nonEmpty),
  /**
   * LGPD consent: the answer (`field`) that carries the person's consent checkbox, and the text
   * and version the form shows. The lead keeps text, version, whether it was ticked and when; the
   * notes sent upstream say it (domain/personal-data.ts, docs/privacy.md).
   */
  consent: z.optional(z.strictObject({ field: nonEmpty, text: nonEmpty, version: nonEmpty })),
  /** Post the platform's test leads upstream too (default: keep them with status `test`). */
  deliverTestLeads: z.optional(z.boolean()),
  /**
   * What to do with a lead whose earlier POST got no answer when the upstream key may not look
   * prospects up: `repost` (default: post again, at-least-once) or `park` (a person checks the
   * upstream first, then retries it or marks it delivered).
   */
  ambiguous: z.optional(z.enum(['repost', 'park'])),
  /**
   * Hours without a lead from this profile after which operators are alerted (a dropped webhook
   * subscription or a wrong secret at the platform look exactly like that); 0: never. Default
   * 24 (functions/watch/).
   */
  quietHours: z.optional(z.int().check(z.minimum(0), z.maximum(24 * 90))),
};

/** The zod shape of a source's own profile settings. */
export type SettingsShape = z.core.$ZodShape;

type ProfileShape<N extends string, S extends SettingsShape> = {
  source: z.ZodMiniLiteral<N>;
} & S &
  typeof profileCommon;

/** The profile schema of source `N` with settings `S`. */
export type ProfileSchema<N extends string, S extends SettingsShape> = z.ZodMiniObject<
  ProfileShape<N, S>
>;

/** A profile of source `N` with settings `S`, as validated. */
export type ProfileOf<N extends string, S extends SettingsShape> = z.infer<ProfileSchema<N, S>>;

/** An HTTP request as the intake sees it, independent of API Gateway. */
export type IntakeRequest = HttpRequest;

export type Authenticity =
  | { ok: true }
  | { ok: false; status: 401 | 403; code: string; message: Text };

/**
 * A header carrying a signature of the raw body, compared in constant time with `expected()`
 * (computed only when the header is there): 401 `missing_signature` with `missing` without it,
 * 403 `invalid_signature` when it does not match.
 */
export function verifySignatureHeader(
  request: Pick<IntakeRequest, 'headers'>,
  header: { name: string; shown: string; missing: Text },
  expected: () => string,
): Authenticity {
  const given = request.headers[header.name]?.trim();
  if (!given) return { ok: false, status: 401, code: 'missing_signature', message: header.missing };
  if (safeEqual(given, expected())) return { ok: true };
  return {
    ok: false,
    status: 403,
    code: 'invalid_signature',
    message: t(
      `O cabeçalho ${header.shown} não confere com o corpo.`,
      `The ${header.shown} header does not match the body.`,
    ),
  };
}

/** How a platform signs a timestamp with the raw body (HubSpot v3, Webflow). */
export interface TimestampedSignature {
  /** Header names as received (lower case); the timestamp's as shown in messages. */
  signatureHeader: string;
  timestampHeader: string;
  shownTimestamp: string;
  /** The 401 message when either header is missing: how to turn signing on. */
  missing: Text;
  /** The 403 message when the signature does not match. */
  mismatch: Text;
  /** How far the timestamp (ms) may be from the time of receipt, either way. */
  maxSkewMs: number;
  /** The signature expected for this timestamp (compared in constant time). */
  expected(timestamp: string): string;
  /** Normalises the signature received before comparing (hex case, for example). */
  normalise?(signature: string): string;
}

/**
 * A signature over a timestamp and the raw body: both headers required (401
 * `missing_signature`), the timestamp a time in milliseconds (401 `invalid_timestamp`) within
 * `maxSkewMs` of receipt (403 `stale_timestamp`, so an old signed request cannot be replayed),
 * and the signature equal to the expected one in constant time (403 `invalid_signature`).
 */
export function verifyTimestampedSignature(
  request: Pick<IntakeRequest, 'headers' | 'receivedAt'>,
  spec: TimestampedSignature,
): Authenticity {
  const signature = request.headers[spec.signatureHeader]?.trim();
  const timestamp = request.headers[spec.timestampHeader]?.trim();
  if (!signature || !timestamp) {
    return { ok: false, status: 401, code: 'missing_signature', message: spec.missing };
  }
  if (!/^\d{1,16}$/.test(timestamp)) {
    return {
      ok: false,
      status: 401,
      code: 'invalid_timestamp',
      message: t(
        `${spec.shownTimestamp} precisa ser um horário em milissegundos.`,
        `${spec.shownTimestamp} must be a time in milliseconds.`,
      ),
    };
  }
  // Compared before the clock check, so both refusals take the same time.
  const signatureOk = safeEqual(
    spec.normalise ? spec.normalise(signature) : signature,
    spec.expected(timestamp),
  );
  if (Math.abs(request.receivedAt.getTime() - Number(timestamp)) > spec.maxSkewMs) {
    return {
      ok: false,
      status: 403,
      code: 'stale_timestamp',
      message: t(
        `${spec.shownTimestamp} está a mais de ${spec.maxSkewMs / 60_000} minutos da hora do recebimento.`,
        `${spec.shownTimestamp} is more than ${spec.maxSkewMs / 60_000} minutes away from the time of receipt.`,
      ),
    };
  }
  if (!signatureOk) {
    return { ok: false, status: 403, code: 'invalid_signature', message: spec.mismatch };
  }
  return { ok: true };
}

/**
 * What became of the leads of an accepted request: their status (the public one) and, parked
 * or rejected, why. Sources whose answer a person or a program reads (forms, Zapier, Make) say
 * it; ad platforms keep their fixed answers. `erased` counts the leads of the request that were
 * dropped because their person's data was erased on request (a platform sending an erased lead
 * again: acknowledged, never stored); `status: 'erased'` when that was every lead of it.
 */
export interface AcceptedOutcome {
  status: 'queued' | 'parked' | 'test' | 'delivered' | 'rejected' | 'dead' | 'erased';
  reason?: string;
  erased?: number;
}

/** `{status, reason?, erased?}` of an outcome for a JSON answer; `queued` when none is given. */
export function outcomeFields(
  outcome: AcceptedOutcome | undefined,
): Record<string, string | number> {
  if (!outcome) return { status: 'queued' };
  return {
    status: outcome.status,
    ...(outcome.reason !== undefined && { reason: outcome.reason }),
    ...(outcome.erased !== undefined && outcome.erased > 0 && { erased: outcome.erased }),
  };
}

/** A source's answer to an accepted request, shaped the way its platform expects. */
export interface PlatformResponse {
  statusCode: number;
  headers?: Record<string, string>;
  body: string;
}

/** Captures of one request. `problem` means the body could not be read as this source's payload. */
export type CaptureResult =
  | {
      leads: LeadCapture[];
      /**
       * The profile's honeypot field was filled (a bot): answer as if accepted, deliver nothing.
       * The leads are still captured, for a look at what the bots send.
       */
      spam?: true;
    }
  | {
      problem: string;
      /** One entry per offending field, for a 400 answer (never the values sent). */
      details?: readonly IssueDetail[];
      /** Dedup key for the unreadable body itself. */
      dedupKey: string;
    };

export interface SourceAdapter<P> {
  /** Checks who sent the request, in constant time, over the raw body. */
  authenticate(request: IntakeRequest, profile: P): Authenticity;
  /**
   * Reads the leads a request carries (RD Station can send several in one). May be async:
   * multipart bodies are parsed by the platform, which is (functions/sources/form-fields.ts).
   */
  capture(request: IntakeRequest, profile: P): CaptureResult | Promise<CaptureResult>;
  /**
   * True for sources whose senders drop a lead on any 4xx (ad platforms, form builders): once
   * authentic, an unreadable body is accepted and parked with its reason instead of refused.
   */
  parkUnreadable: boolean;
  /**
   * The success answer the platform expects, given the lead ids accepted and what became of
   * them (`outcome`: a parked lead says so where the platform lets the answer say it).
   */
  accepted(leadIds: readonly string[], outcome?: AcceptedOutcome): PlatformResponse;
  /** Optional GET handler (Meta's subscription handshake). */
  handshake?(request: IntakeRequest, profile: P): PlatformResponse;
  /**
   * Delivery-time completion of a capture left `pending` (a webhook that carries ids only): the
   * answers fetched from the platform's API, merged into the capture. Throws a
   * `SourceLookupError` whose kind tells delivery whether to park, wait or retry.
   */
  complete?(capture: LeadCapture, profile: P, context: CompletionContext): Promise<LeadCapture>;
  /**
   * Backfill: the platform's own list of the leads of a period, for platforms that keep them
   * (Meta, TikTok). Each capture is what the webhook would have given once completed, with the
   * same dedup key, so a lead that did arrive is recognised.
   */
  backfill?: Backfill<P>;
}

/** A period of lead creation times: `since` inclusive, `until` exclusive. */
export interface BackfillPeriod {
  since: Date;
  until: Date;
}

export interface Backfill<P> {
  /** The longest period one backfill may cover (Meta keeps a form's leads 90 days). */
  maxDays: number;
  /** Who keeps the leads, as a Portuguese sentence starts with it: `A Meta`, `O TikTok`. */
  keeper: string;
  /**
   * The leads created in `period` on the forms `formIds` (the profile's `forms` keys: Meta form
   * ids, TikTok instant form page ids). Throws a `SourceLookupError` when the platform fails.
   */
  list(
    profile: P,
    formIds: readonly string[],
    period: BackfillPeriod,
    context: CompletionContext,
  ): Promise<LeadCapture[]>;
}

/** What a `complete()` step may use. */
export interface CompletionContext {
  /** The HTTP client; Node's fetch by default. */
  fetch?: typeof fetch;
  /** Ends the platform calls early (a backfill running out of its request's time). */
  signal?: AbortSignal;
}

export type SourceLookupErrorKind = 'rejected' | 'unauthorized' | 'rate-limited' | 'unavailable';

/**
 * A platform lookup (`complete()`) that failed, in the upstream client's vocabulary: `rejected`
 * (the lead cannot be fetched, ever), `unauthorized` (our token), `rate-limited` (wait
 * `retryAfterMs`), `unavailable` (try again later).
 */
export class SourceLookupError extends Error {
  override readonly name: string = 'SourceLookupError';
  /** The platform API that failed, as operators know it (`Meta Graph`). */
  readonly service: string = 'the platform';
  readonly kind: SourceLookupErrorKind;
  /** The HTTP status, when the platform answered. */
  readonly status?: number;
  readonly retryAfterMs?: number;

  constructor(
    kind: SourceLookupErrorKind,
    message: string,
    details: { status?: number | undefined; retryAfterMs?: number | undefined } = {},
  ) {
    super(message);
    this.kind = kind;
    if (details.status !== undefined) this.status = details.status;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
  }
}

/** A lead source: what `profiles.<name>.source` selects. */
export interface Source<N extends string = string, S extends SettingsShape = SettingsShape>
  extends SourceAdapter<ProfileOf<N, S>> {
  readonly name: N;
  /** How people call the platform; in notes and as the fallback marketingType. */
  readonly label: string;
  /** The settings that are secrets: kept in Secrets Manager when deployed, redacted from bodies. */
  readonly secretKeys: readonly string[];
  readonly profileSchema: ProfileSchema<N, S>;
  /** How to connect the platform: its set-up kit (sources/setup.ts); optional, see there. */
  readonly setup?: SourceSetup<ProfileOf<N, S>>;
  /** What it tells its callers: docs/openapi.json and docs/requests.http (sources/docs.ts). */
  readonly docs: () => SourceDocs;
}

export interface SourceDefinition<N extends string, S extends SettingsShape>
  extends SourceAdapter<ProfileOf<N, S>> {
  name: N;
  label: string;
  /** The source's own profile settings, secrets included. */
  settings: S;
  secretKeys: readonly (keyof S & string)[];
  /**
   * Its set-up kit: where the URL goes in the platform, what each secret is, a realistic
   * sample request and how it is signed (sources/setup.ts builds the URL, the curl, the HTML
   * form snippet and the console's test lead from it).
   */
  setup?: SourceSetup<ProfileOf<N, S>>;
  /**
   * Its row of `POST /leads/{profile}` in docs/openapi.json and its request in
   * docs/requests.http (sources/docs.ts). A function: built when a script asks, never at a
   * deployed function's init.
   */
  docs: () => SourceDocs;
}

/** Declares a source: its profile schema is its settings plus the settings every profile has. */
export function defineSource<const N extends string, S extends SettingsShape>(
  definition: SourceDefinition<N, S>,
): Source<N, S> {
  const { settings, ...rest } = definition;
  const profileSchema = z.object({
    source: z.literal(definition.name),
    ...settings,
    ...profileCommon,
  }) as ProfileSchema<N, S>;
  return { ...rest, profileSchema };
}

// --- helpers every source shares ----------------------------------------------------------

/** JSON with object keys sorted at every level: equal content, equal text (for content hashes). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** `hash:<hex sha256>` of raw bytes: the dedup key of a body that could not be read. */
export function rawBodyHash(body: Uint8Array): string {
  return `hash:${sha256Hex(body)}`;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A JSON success answer carrying the lead id(s): `leadId` for one, `leadIds` for several. */
export function acceptedJson(
  statusCode: number,
  leadIds: readonly string[],
  extra: Record<string, string | number> = {},
): PlatformResponse {
  const ids = leadIds.length === 1 ? { leadId: leadIds[0] } : { leadIds: [...leadIds] };
  return {
    statusCode,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...ids, ...extra }),
  };
}

/** An unreadable body: its problem, parked under the hash of its bytes. */
export function unreadable(message: string, body: Uint8Array): CaptureResult {
  return { problem: message, dedupKey: rawBodyHash(body) };
}

/** A JSON object body, or the problem to park it with (`o corpo não é JSON`...). */
export function readJsonObject(
  body: Uint8Array,
): { value: Record<string, unknown> } | { problem: string } {
  const parsed = parseJsonText(body);
  if ('problem' in parsed) return { problem: 'o corpo não é JSON' };
  if (!isPlainObject(parsed.value)) return { problem: 'o corpo não é um objeto JSON' };
  return { value: parsed.value };
}

/** A timestamp any `Date` reads, as ISO 8601 UTC; undefined when absent or unreadable. */
export function isoInstant(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isFinite(date.getTime()) ? date.toISOString() : undefined;
}
