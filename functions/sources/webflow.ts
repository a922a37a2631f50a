/**
 * The `webflow` source: Webflow's `form_submission` webhook (docs/sources.md).
 *
 * Body: `{"triggerType": "form_submission", "payload": {name, siteId, data, schema, submittedAt,
 * id, formId}}`. Every `data` entry is an answer keyed by the field name the designer typed
 * (numbers, as phones arrive, keep their digits; booleans are `true`/`false`; lists stay lists),
 * except attribution (UTMs and click ids in hidden fields) and the honeypot (`honeypotField`,
 * default `_hp`). `payload.name` (the form name) is attribution, `formId` is `formId`,
 * `submittedAt` is kept, and the dedup key is `webflow:<payload.id>`.
 *
 * Auth: `x-webflow-signature` = hex HMAC-SHA256(profile `secret`, `<x-webflow-timestamp>:<raw
 * body>`), the timestamp (ms) within 5 minutes of `receivedAt` either way. Only OAuth-app hooks
 * are signed; hooks made in the site dashboard or with a site token are not, and are refused
 * (401): accepting them would need a profile `token` the config schema does not have yet.
 *
 * Webflow counts anything but 200 as a failure (3 retries, then the hook is deactivated):
 * unreadable bodies are parked, and the answer is 200 `{"leadId": "...", "status": "queued"}`.
 */
import type { LeadAnswer, LeadCapture } from '../domain/lead.ts';
import { hmacSha256, safeEqual } from '../kernel/crypto.ts';
import { isPlainObject, parseJsonText, scalarText } from './body.ts';
import { answerValue, attributionKeyOf, DEFAULT_HONEYPOT_FIELD } from './form.ts';
import {
  type Authenticity,
  acceptedJson,
  type CaptureResult,
  defineSource,
  type IntakeRequest,
  rawBodyHash,
  secretSetting,
} from './source.ts';

export const WEBFLOW_SIGNATURE_HEADER = 'x-webflow-signature';
export const WEBFLOW_TIMESTAMP_HEADER = 'x-webflow-timestamp';
/** How far the signed timestamp may be from the time of receipt, either way. */
export const WEBFLOW_MAX_SKEW_MS = 5 * 60 * 1000;

/** The hex signature Webflow sends for `body` at `timestamp` (the header text, in ms). */
export function webflowSignature(secret: string, timestamp: string, body: Uint8Array): string {
  return hmacSha256(secret, `${timestamp}:`, Buffer.from(body)).toString('hex');
}

export function authenticateWebflow(
  request: Pick<IntakeRequest, 'headers' | 'body' | 'receivedAt'>,
  secret: string,
): Authenticity {
  const signature = request.headers[WEBFLOW_SIGNATURE_HEADER]?.trim();
  const timestamp = request.headers[WEBFLOW_TIMESTAMP_HEADER]?.trim();
  if (!signature || !timestamp) {
    return {
      ok: false,
      status: 401,
      code: 'missing_signature',
      message:
        'x-webflow-signature and x-webflow-timestamp are required: only webhooks of a Webflow OAuth app are accepted.',
    };
  }
  if (!/^\d{1,16}$/.test(timestamp)) {
    return {
      ok: false,
      status: 401,
      code: 'invalid_timestamp',
      message: 'x-webflow-timestamp must be a time in milliseconds.',
    };
  }
  const expected = webflowSignature(secret, timestamp, request.body);
  const signatureOk = safeEqual(signature.toLowerCase(), expected);
  if (Math.abs(request.receivedAt.getTime() - Number(timestamp)) > WEBFLOW_MAX_SKEW_MS) {
    return {
      ok: false,
      status: 403,
      code: 'stale_timestamp',
      message: 'x-webflow-timestamp is more than 5 minutes away from the time of receipt.',
    };
  }
  if (!signatureOk) {
    return {
      ok: false,
      status: 403,
      code: 'invalid_signature',
      message: 'x-webflow-signature does not match the body.',
    };
  }
  return { ok: true };
}

function captureWebflow(
  request: IntakeRequest,
  profile: { honeypotField?: string | undefined },
): CaptureResult {
  const unreadable = (problem: string): CaptureResult => ({
    problem,
    dedupKey: rawBodyHash(request.body),
  });
  const parsed = parseJsonText(request.body);
  if ('problem' in parsed) return unreadable(parsed.problem);
  const body = parsed.value;
  if (!isPlainObject(body)) return unreadable('the body is not a JSON object');
  if (body.triggerType !== undefined && body.triggerType !== 'form_submission') {
    return unreadable('triggerType is not form_submission');
  }
  const payload = body.payload;
  if (!isPlainObject(payload)) return unreadable('payload is missing or not an object');
  const id = idText(payload.id);
  if (!id) return unreadable('payload.id is missing');
  if (!isPlainObject(payload.data)) return unreadable('payload.data is missing or not an object');

  const honeypot = profile.honeypotField ?? DEFAULT_HONEYPOT_FIELD;
  const answers: LeadAnswer[] = [];
  const attribution: Record<string, string> = {};
  let spam = false;
  for (const [key, raw] of Object.entries(payload.data)) {
    const value = answerValue(Array.isArray(raw) ? raw.map(scalarText) : [scalarText(raw)]);
    if (key === honeypot) {
      spam ||= value !== undefined;
      continue;
    }
    if (value === undefined) continue;
    const attributionKey = attributionKeyOf(key);
    if (attributionKey) {
      attribution[attributionKey] ??= typeof value === 'string' ? value : (value[0] as string);
    } else {
      answers.push({ key, value });
    }
  }
  const formName = typeof payload.name === 'string' ? payload.name.trim() : '';
  if (formName) attribution.form_name ??= formName;

  const capture: LeadCapture = {
    source: 'webflow',
    dedupKey: `webflow:${id}`,
    isTest: false,
    externalId: id,
    answers,
    attribution,
  };
  const formId = idText(payload.formId);
  if (formId) capture.formId = formId;
  const submittedAt = isoInstant(payload.submittedAt);
  if (submittedAt) capture.submittedAt = submittedAt;
  return spam ? { leads: [capture], spam: true } : { leads: [capture] };
}

/** An id as text: a non-blank string, or an integer's digits. */
function idText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

function isoInstant(value: unknown): string | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T/.test(value)) return undefined;
  const instant = new Date(value);
  return Number.isNaN(instant.getTime()) ? undefined : instant.toISOString();
}

export const webflowSource = defineSource({
  name: 'webflow',
  label: 'Webflow',
  settings: { secret: secretSetting },
  secretKeys: ['secret'],
  authenticate: (request, profile) => authenticateWebflow(request, profile.secret),
  capture: captureWebflow,
  parkUnreadable: true,
  accepted: (leadIds) => acceptedJson(200, leadIds, { status: 'queued' }),
});
