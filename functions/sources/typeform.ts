/**
 * Typeform webhooks: `form_response` events.
 *
 * - Authentication: `Typeform-Signature: sha256=<base64 HMAC-SHA256(raw body, secret)>` (base64,
 *   not hex). Missing → 401, mismatch → 403.
 * - Capture: one lead per `form_response`. Each answer is keyed by its field `ref` (stable, can be
 *   set readable on the form: `nome`, `email`, `celular`), labelled with the question title from
 *   `definition.fields`, and valued by its answer type.
 * - Hidden fields: those the form source counts as attribution (`attributionKeyOf`: the UTM
 *   parameters, click ids such as `gclid`, `fbclid`, `ttclid`, `page_url`, `referrer`, form id and
 *   name) go to attribution under their canonical name (`UTM_Source` → `utm_source`); every other
 *   hidden field (`email`, `nome`, `idBranch`, `unidade`...) is something the page knew about the
 *   person or the branch, and becomes an answer, so that the aliases and the profile's fieldMap
 *   apply to it. Blank hidden fields are dropped.
 * - Other event types (`form_response_partial`) are acknowledged and carry no lead.
 */
import { parseJson } from '../domain/json.ts';
import type { LeadAnswer, LeadCapture } from '../domain/lead.ts';
import { hmacSha256, safeEqual } from '../kernel/crypto.ts';
import { acceptedJson, attributionKeyOf, rawBodyHash } from './form.ts';
import type { Authenticity, CaptureResult, IntakeRequest, SourceAdapter } from './source.ts';

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function scalar(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** An unreadable body: parked under the hash of its bytes. */
function problem(message: string, body: Buffer): CaptureResult {
  return { problem: message, dedupKey: rawBodyHash(body) };
}

function authenticate(request: IntakeRequest, profile: { secret: string }): Authenticity {
  const header = request.headers['typeform-signature']?.trim();
  if (!header) {
    return {
      ok: false,
      status: 401,
      code: 'missing_signature',
      message: 'The Typeform-Signature header is required.',
    };
  }
  const expected = `sha256=${hmacSha256(profile.secret, request.body).toString('base64')}`;
  if (safeEqual(header, expected)) return { ok: true };
  return {
    ok: false,
    status: 403,
    code: 'invalid_signature',
    message: 'The Typeform-Signature header does not match the body.',
  };
}

/** Question titles by field id and by ref, groups' inner fields included. */
function titles(definition: unknown): Map<string, string> {
  const byKey = new Map<string, string>();
  const visit = (fields: unknown): void => {
    if (!Array.isArray(fields)) return;
    for (const field of fields) {
      if (!isRecord(field)) continue;
      const title = typeof field.title === 'string' ? field.title.trim() : '';
      if (title) {
        if (typeof field.id === 'string') byKey.set(`id:${field.id}`, title);
        if (typeof field.ref === 'string') byKey.set(`ref:${field.ref}`, title);
      }
      if (isRecord(field.properties)) visit(field.properties.fields);
    }
  };
  if (isRecord(definition)) visit(definition.fields);
  return byKey;
}

/** An answer's value by its type; undefined when the answer carries nothing usable. */
function answerValue(answer: Record<string, unknown>): string | string[] | undefined {
  const type = typeof answer.type === 'string' ? answer.type : '';
  const raw = answer[type];
  switch (type) {
    case 'boolean':
      return typeof raw === 'boolean' ? (raw ? 'Sim' : 'Não') : undefined;
    case 'choice': {
      if (!isRecord(raw)) return undefined;
      return scalar(raw.label) ?? scalar(raw.other);
    }
    case 'choices': {
      if (!isRecord(raw)) return undefined;
      const labels = Array.isArray(raw.labels) ? raw.labels : [];
      const values = [...labels, raw.other].map(scalar).filter((v): v is string => !!v);
      return values.length ? values : undefined;
    }
    case 'payment': {
      if (!isRecord(raw)) return undefined;
      return scalar(raw.amount);
    }
    default:
      // text, email, phone_number, date, number, url, file_url and future scalar types.
      return scalar(raw);
  }
}

function capture(request: IntakeRequest): CaptureResult {
  let payload: unknown;
  try {
    payload = parseJson(request.body.toString('utf8'));
  } catch {
    return problem('body is not JSON', request.body);
  }
  if (!isRecord(payload)) return problem('body is not a JSON object', request.body);
  if (payload.event_type !== undefined && payload.event_type !== 'form_response') {
    return { leads: [] };
  }
  const response = payload.form_response;
  if (!isRecord(response)) return problem('form_response is missing', request.body);
  const token = scalar(response.token)?.trim();
  if (!token) return problem('form_response.token is missing', request.body);
  if (response.answers !== undefined && !Array.isArray(response.answers)) {
    return problem('form_response.answers is not an array', request.body);
  }

  const labels = titles(response.definition);
  const answers: LeadAnswer[] = [];
  for (const [index, answer] of (response.answers ?? []).entries()) {
    if (!isRecord(answer)) {
      return problem(`form_response.answers[${index}] is not an object`, request.body);
    }
    const field = isRecord(answer.field) ? answer.field : {};
    const ref = scalar(field.ref);
    const id = scalar(field.id);
    const key = ref ?? id;
    const value = answerValue(answer);
    if (!key || value === undefined) continue;
    const label = (id && labels.get(`id:${id}`)) ?? (ref && labels.get(`ref:${ref}`));
    answers.push(label ? { key, label, value } : { key, value });
  }

  const attribution: Record<string, string> = {};
  if (isRecord(response.hidden)) {
    for (const [name, raw] of Object.entries(response.hidden)) {
      const value = scalar(raw)?.trim();
      if (!value) continue;
      const attributionKey = attributionKeyOf(name);
      if (attributionKey) attribution[attributionKey] ??= value;
      else answers.push({ key: name, value });
    }
  }

  const lead: LeadCapture = {
    source: 'typeform',
    dedupKey: `typeform:${token}`,
    isTest: false,
    externalId: token,
    answers,
    attribution,
  };
  const formId = scalar(response.form_id)?.trim();
  if (formId) lead.formId = formId;
  const submitted = scalar(response.submitted_at);
  const date = submitted ? new Date(submitted) : undefined;
  if (date && Number.isFinite(date.getTime())) lead.submittedAt = date.toISOString();
  return { leads: [lead] };
}

export const typeformSource: SourceAdapter<'typeform'> = {
  source: 'typeform',
  authenticate,
  capture,
  parkUnreadable: true,
  accepted: (leadIds) => acceptedJson(200, leadIds, { status: 'queued' }),
};
