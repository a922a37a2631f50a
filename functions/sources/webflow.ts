/**
 * The `webflow` source: Webflow's `form_submission` webhook (docs/sources.md), in both shapes.
 *
 * Body, current (Data API v2): `{"triggerType": "form_submission", "payload": {name, siteId, data,
 * schema, submittedAt, id, formId}}`; legacy (hooks created in the site dashboard, API v1):
 * `{name, site, data, d, _id}`, read the same way (`_id` is the id, `d` the submission time, no
 * form id). Every `data` entry is an answer keyed by the field name the designer typed (numbers,
 * as phones arrive, keep their digits; booleans are `true`/`false`; lists stay lists), except
 * attribution (UTMs and click ids in hidden fields) and the honeypot (`honeypotField`, default
 * `_hp`). The form name is attribution, `formId` is `formId`, the submission time is kept, and
 * the dedup key is `webflow:<id>`.
 *
 * Auth, by the profile's `auth`:
 * - `signature` (the default): `x-webflow-signature` = hex HMAC-SHA256(profile `secret`,
 *   `<x-webflow-timestamp>:<raw body>`), the timestamp (ms) within 5 minutes of `receivedAt`
 *   either way. Only hooks of an OAuth app are signed, with the app's client secret.
 * - `token`: hooks created in the site dashboard or with a site token carry no signature at all;
 *   the profile's `secret` is then a random token of ours, sent in the hook's URL (`?token=`) or
 *   as `X-Lead-Token`, compared in constant time (token.ts).
 *
 * Webflow counts anything but 200 as a failure (3 retries, then the hook is deactivated):
 * unreadable bodies are parked, and the answer is 200 `{"leadId": "...", "status": "queued"}`.
 */

import * as z from 'zod/mini';
import type { LeadAnswer, LeadCapture } from '../domain/lead.ts';
import { hmacSha256 } from '../kernel/crypto.ts';
import { t } from '../kernel/language.ts';
import { answerValue, attributionKeyOf, DEFAULT_HONEYPOT_FIELD } from './form.ts';
import { isPlainObject, parseJsonText, scalarText } from './form-fields.ts';
import { SAMPLE_PERSON } from './setup.ts';
import {
  type Authenticity,
  acceptedJson,
  type CaptureResult,
  defineSource,
  type IntakeRequest,
  outcomeFields,
  rawBodyHash,
  secretSetting,
  verifyTimestampedSignature,
} from './source.ts';
import { authenticateToken } from './token.ts';

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
  return verifyTimestampedSignature(request, {
    signatureHeader: WEBFLOW_SIGNATURE_HEADER,
    timestampHeader: WEBFLOW_TIMESTAMP_HEADER,
    shownTimestamp: 'x-webflow-timestamp',
    missing: t(
      'x-webflow-signature e x-webflow-timestamp são obrigatórios: este perfil só aceita webhooks de um app OAuth do Webflow (um webhook criado no painel precisa de um perfil com "auth": "token").',
      'x-webflow-signature and x-webflow-timestamp are required: this profile accepts only webhooks of a Webflow OAuth app (a dashboard webhook needs a profile with "auth": "token").',
    ),
    mismatch: t(
      'x-webflow-signature não confere com o corpo.',
      'x-webflow-signature does not match the body.',
    ),
    maxSkewMs: WEBFLOW_MAX_SKEW_MS,
    expected: (timestamp) => webflowSignature(secret, timestamp, request.body),
    normalise: (signature) => signature.toLowerCase(),
  });
}

/** One form submission, whichever shape it came in. */
interface Submission {
  id: string;
  data: Record<string, unknown>;
  formName?: unknown;
  formId?: unknown;
  submittedAt?: unknown;
}

/** The submission of a v2 body (`payload`) or a legacy one (`_id`, `data`, `d`); or the problem. */
function submissionOf(body: Record<string, unknown>): Submission | string {
  if (body.triggerType !== undefined && body.triggerType !== 'form_submission') {
    return 'triggerType não é form_submission';
  }
  if (body.payload === undefined && body._id !== undefined) {
    const id = idText(body._id);
    if (!id) return 'falta _id';
    if (!isPlainObject(body.data)) return 'data falta ou não é um objeto';
    return { id, data: body.data, formName: body.name, submittedAt: body.d };
  }
  const payload = body.payload;
  if (!isPlainObject(payload)) return 'payload falta ou não é um objeto';
  const id = idText(payload.id);
  if (!id) return 'falta payload.id';
  if (!isPlainObject(payload.data)) return 'payload.data falta ou não é um objeto';
  return {
    id,
    data: payload.data,
    formName: payload.name,
    formId: payload.formId,
    submittedAt: payload.submittedAt,
  };
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
  if (!isPlainObject(body)) return unreadable('o corpo não é um objeto JSON');
  const submission = submissionOf(body);
  if (typeof submission === 'string') return unreadable(submission);
  const { id } = submission;

  const honeypot = profile.honeypotField ?? DEFAULT_HONEYPOT_FIELD;
  const answers: LeadAnswer[] = [];
  const attribution: Record<string, string> = {};
  let spam = false;
  for (const [key, raw] of Object.entries(submission.data)) {
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
  const formName = typeof submission.formName === 'string' ? submission.formName.trim() : '';
  if (formName) attribution.form_name ??= formName;

  const capture: LeadCapture = {
    source: 'webflow',
    dedupKey: `webflow:${id}`,
    isTest: false,
    externalId: id,
    answers,
    attribution,
  };
  const formId = idText(submission.formId);
  if (formId) capture.formId = formId;
  const submittedAt = isoInstant(submission.submittedAt);
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
  settings: {
    secret: secretSetting,
    /**
     * `signature` (default): OAuth-app hooks, signed with the app's client secret (`secret`).
     * `token`: dashboard hooks, unsigned; `secret` is a token of ours in the hook's URL.
     */
    auth: z.optional(z.enum(['signature', 'token'])),
  },
  secretKeys: ['secret'],
  authenticate: (request, profile) =>
    profile.auth === 'token'
      ? authenticateToken(request, profile.secret)
      : authenticateWebflow(request, profile.secret),
  capture: captureWebflow,
  parkUnreadable: true,
  // Webflow reads the status only; the body says what became of the lead, for people testing.
  accepted: (leadIds, outcome) => acceptedJson(200, leadIds, outcomeFields(outcome)),
  setup: {
    steps: [
      'Um webhook de app OAuth (perfil com "auth": "signature", o padrão): crie-o pela Data API, POST /v2/sites/{site_id}/webhooks com "triggerType": "form_submission" e "url" = este endereço; o Webflow assina cada envio com o "client secret" do app.',
      'Um webhook do painel do site (perfil com "auth": "token"): "Site settings" → "Apps & integrations" → "Webhooks" → "Add webhook", gatilho "Form submission", endereço = este, com a chave no endereço (webhooks do painel não são assinados).',
      'Envie o formulário do site uma vez e veja o lead chegar no console.',
    ],
    secrets: {
      secret:
        'Com "auth": "signature": o "client secret" do app OAuth (nunca o ponha num endereço). Com "auth": "token": uma chave longa e aleatória sua, no endereço (a chave "generated" do segredo serve).',
    },
    auth: (profile) =>
      profile.auth === 'token'
        ? { kind: 'token', setting: 'secret', in: 'query' }
        : {
            kind: 'hmac',
            setting: 'secret',
            header: WEBFLOW_SIGNATURE_HEADER,
            prefix: '',
            encoding: 'hex',
            timestampHeader: WEBFLOW_TIMESTAMP_HEADER,
          },
    sample: (stamp) => ({
      contentType: 'application/json',
      body: JSON.stringify({
        triggerType: 'form_submission',
        payload: {
          name: 'Aula experimental',
          siteId: 'kitsite0000000000000000',
          data: {
            Nome: SAMPLE_PERSON.fullName,
            Email: SAMPLE_PERSON.email(stamp),
            Telefone: SAMPLE_PERSON.typedPhone,
            utm_source: 'teste',
          },
          submittedAt: '2026-01-01T12:00:00.000Z',
          id: `kit-${stamp}`,
          formId: 'kitform0000000000000000',
        },
      }),
    }),
    notes: [
      'Os envios assinados trazem a hora, que deve estar a menos de 5 minutos do nosso relógio: o curl assina na hora em que roda.',
    ],
  },
  docs: () => ({
    api: {
      security: ['webflowSignature'],
      schemes: {
        webflowSignature: {
          type: 'apiKey',
          in: 'header',
          name: WEBFLOW_SIGNATURE_HEADER,
          description:
            'Hex HMAC-SHA256 of `<x-webflow-timestamp>:<raw body>` with the profile’s secret; `x-webflow-timestamp` within 5 minutes.',
        },
      },
      authentication:
        '`x-webflow-signature: <hex HMAC-SHA256 of "<x-webflow-timestamp>:<raw body>" with the webhook secret>` and `x-webflow-timestamp` (milliseconds, within 5 minutes). Missing: 401; mismatch or stale: 403.',
      bodies: {
        'application/json': {
          id: 'WebflowFormSubmission',
          description: 'Webflow’s `form_submission` webhook of an OAuth app (signed).',
          schema: z.looseObject({
            triggerType: z.string(),
            payload: z.looseObject({
              name: z.optional(z.string()),
              siteId: z.optional(z.string()),
              data: z.record(z.string(), z.unknown()),
              submittedAt: z.optional(z.string()),
              id: z.string(),
              formId: z.optional(z.string()),
            }),
          }),
        },
      },
      answer: '200 `LeadAccepted`; an authentic but unreadable body is parked.',
    },
    request: {
      title: 'a Webflow form webhook',
      note: 'Signed with config/demo.json’s secret, but Webflow signatures expire after 5 minutes: this one is answered 403 stale_timestamp. It shows the shape; sign a fresh one as test/helpers/lead-fixtures.ts signWebflow does.',
      fixture: { request: 'valid' },
    },
  }),
});
