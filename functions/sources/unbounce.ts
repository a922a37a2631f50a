/**
 * The `unbounce` source: Unbounce's form webhook (docs/sources.md).
 *
 * A urlencoded POST with top-level `page_id`, `page_name`, `variant`, `page_url` and `data.json`
 * (`data_json` once PHP has renamed it; a `data.xml` duplicate is ignored): a JSON object whose
 * keys are the lower-cased field names and whose values are arrays (`{"email": ["..."]}`).
 *
 * - Answers: every `data.json` field (one value → text, several → list; blanks skipped), except
 *   attribution fields (UTMs and click ids in hidden fields; see form.ts), the honeypot
 *   (`honeypotField`, default `_hp`) and Unbounce's own metadata: `ip_address` and `page_uuid`
 *   are dropped (an IP is personal data nobody typed), `date_submitted` + `time_submitted` become
 *   `submittedAt`, `page_url`/`page_name`/`variant` are attribution when not given at top level.
 * - Attribution: `page_id`, `page_name`, `variant`, `page_url`; `formId` is the `page_id` too, so
 *   a profile's `forms.<page_id>` can set the branch of one landing page.
 * - Dedup: the SHA-256 of the page id and the `data.json` content (keys sorted, so a redelivery
 *   with another key order is recognised). With Unbounce's submission stamp (`date_submitted` +
 *   `time_submitted`, to the minute) in it, that content names one submission, so the key is
 *   `unbounce:<sha256>`, kept as long as a platform's lead id: Unbounce's retry policy is not
 *   documented, and a retry hours later is still the same lead, while the same person
 *   submitting again gets a new stamp. Without the stamp it is a windowed `hash:` (10 minutes).
 * - Auth: the profile token (`?token=` or `X-Lead-Token`); Unbounce signs nothing.
 * - Unreadable bodies are parked (`parkUnreadable`): Unbounce would drop a lead refused with 4xx.
 * - Answer: 200 `{"leadId": "...", "status": "queued"}`.
 */

import * as z from 'zod/mini';
import { parseJson } from '../domain/json.ts';
import type { LeadAnswer, LeadCapture } from '../domain/lead.ts';
import { answerValue, attributionKeyOf, DEFAULT_HONEYPOT_FIELD } from './form.ts';
import { groupFields, isPlainObject, readFields, scalarText } from './form-fields.ts';
import { SAMPLE_PERSON } from './setup.ts';
import {
  acceptedJson,
  type CaptureResult,
  canonicalJson,
  defineSource,
  type IntakeRequest,
  outcomeFields,
  rawBodyHash,
  sha256Hex,
} from './source.ts';
import { tokenApiDoc, tokenOnly } from './token.ts';

const DATA_KEYS = ['data.json', 'data_json'];
const PAGE_KEYS: ReadonlySet<string> = new Set(['page_id', 'page_name', 'variant', 'page_url']);
/** Unbounce metadata inside data.json that is nobody's answer. */
const DROPPED = new Set(['ip_address', 'page_uuid', 'date_submitted', 'time_submitted']);

async function captureUnbounce(
  request: IntakeRequest,
  profile: { honeypotField?: string | undefined },
): Promise<CaptureResult> {
  const unreadable = (problem: string): CaptureResult => ({
    problem,
    dedupKey: rawBodyHash(request.body),
  });
  const read = await readFields(request);
  if ('problem' in read) return unreadable(read.problem);
  const top = new Map(groupFields(read.fields).map((g) => [g.key, g.values[0] ?? '']));

  const dataText = DATA_KEYS.map((key) => top.get(key)).find((v) => v !== undefined);
  if (dataText === undefined) return unreadable('falta data.json');
  let data: unknown;
  try {
    data = parseJson(dataText);
  } catch {
    return unreadable('data.json não é um JSON válido');
  }
  if (!isPlainObject(data)) return unreadable('data.json não é um objeto JSON');

  const attribution: Record<string, string> = {};
  for (const key of PAGE_KEYS) {
    const value = top.get(key)?.trim();
    if (value) attribution[key] = value;
  }

  const honeypot = profile.honeypotField ?? DEFAULT_HONEYPOT_FIELD;
  const answers: LeadAnswer[] = [];
  let spam = false;
  for (const [key, raw] of Object.entries(data)) {
    const value = answerValue(valuesOf(raw));
    if (key === honeypot) {
      spam ||= value !== undefined;
      continue;
    }
    if (value === undefined || DROPPED.has(key) || key === 'token') continue;
    const first = typeof value === 'string' ? value : (value[0] as string);
    const attributionKey = attributionKeyOf(key) ?? (PAGE_KEYS.has(key) ? key : undefined);
    if (attributionKey) attribution[attributionKey] ??= first;
    else answers.push({ key, value });
  }

  const pageId = attribution.page_id;
  const submittedAt = submittedAtOf(data.date_submitted, data.time_submitted);
  const contentHash = sha256Hex(canonicalJson(['unbounce', pageId ?? '', data]));
  const capture: LeadCapture = {
    source: 'unbounce',
    dedupKey: submittedAt ? `unbounce:${contentHash}` : `hash:${contentHash}`,
    isTest: false,
    answers,
    attribution,
  };
  if (pageId) capture.formId = pageId;
  if (submittedAt) capture.submittedAt = submittedAt;
  return spam ? { leads: [capture], spam: true } : { leads: [capture] };
}

/** A data.json value as texts: Unbounce sends arrays; a bare value is accepted too. */
function valuesOf(raw: unknown): string[] {
  const items = Array.isArray(raw) ? raw : [raw];
  return items.filter((item) => typeof item !== 'object' || item === null).map(scalarText);
}

/**
 * `date_submitted` (`2024-05-02`) + `time_submitted` (`01:10 PM UTC`) → ISO 8601, or undefined
 * when either is missing or not in that shape.
 */
function submittedAtOf(dateRaw: unknown, timeRaw: unknown): string | undefined {
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(valuesOf(dateRaw)[0]?.trim() ?? '');
  const time = /^(\d{1,2}):(\d{2})(?::(\d{2}))? ?(AM|PM)? ?(?:UTC|GMT|Z)?$/i.exec(
    valuesOf(timeRaw)[0]?.trim() ?? '',
  );
  if (!date || !time) return undefined;
  const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
  let hours = Number(time[1]);
  const [minutes, seconds] = [Number(time[2]), Number(time[3] ?? 0)];
  const meridiem = time[4]?.toUpperCase();
  if (meridiem) {
    if (hours < 1 || hours > 12) return undefined;
    hours = (hours % 12) + (meridiem === 'PM' ? 12 : 0);
  }
  if (hours > 23 || minutes > 59 || seconds > 59) return undefined;
  const instant = new Date(Date.UTC(year, month - 1, day, hours, minutes, seconds));
  if (instant.getUTCMonth() !== month - 1 || instant.getUTCDate() !== day) return undefined;
  return instant.toISOString();
}

export const unbounceSource = defineSource({
  name: 'unbounce',
  label: 'Unbounce',
  ...tokenOnly,
  capture: captureUnbounce,
  parkUnreadable: true,
  // Unbounce reads the status only; the body says what became of the lead, for people testing.
  accepted: (leadIds, outcome) => acceptedJson(200, leadIds, outcomeFields(outcome)),
  setup: {
    steps: [
      'A landing page → "Integrations" → "Webhooks" → "Add webhook" (POST to URL): URL = este endereço (com a chave nele: o Unbounce não assina nada).',
      'Relacione os campos do formulário (os nomes deles viram as chaves) e crie campos ocultos utm_source, utm_medium, utm_campaign, gclid, fbclid.',
      'Publique, envie o formulário uma vez e veja o lead chegar no console.',
    ],
    secrets: {
      token:
        'Uma chave longa e aleatória sua, no endereço do webhook (a chave "generated" do segredo serve).',
    },
    auth: () => ({ kind: 'token', setting: 'token', in: 'query' }),
    sample: (stamp) => ({
      contentType: 'application/x-www-form-urlencoded',
      body: new URLSearchParams({
        page_id: 'kit-page',
        page_name: 'Aula experimental',
        variant: 'a',
        page_url: 'https://lp.example.com/aula-experimental',
        'data.json': JSON.stringify({
          nome_completo: [SAMPLE_PERSON.fullName],
          email: [SAMPLE_PERSON.email(stamp)],
          telefone: [SAMPLE_PERSON.typedPhone],
          utm_source: ['teste'],
          date_submitted: ['2026-01-01'],
          time_submitted: ['12:00 PM UTC'],
        }),
      }).toString(),
    }),
  },
  docs: () => ({
    api: {
      ...tokenApiDoc(),
      bodies: {
        'application/x-www-form-urlencoded': {
          id: 'UnbounceWebhook',
          description:
            'Unbounce’s form webhook: urlencoded, the fields in `data.json` (`data_json` once PHP renamed it).',
          schema: z.looseObject({
            'data.json': z.optional(z.string()),
            data_json: z.optional(z.string()),
            page_id: z.optional(z.string()),
            page_name: z.optional(z.string()),
            page_url: z.optional(z.string()),
            variant: z.optional(z.string()),
          }),
        },
      },
      answer: '200 `LeadAccepted`; an unreadable body is parked.',
    },
    request: {
      title: 'an Unbounce form webhook',
      fixture: { request: 'valid' },
      variable: 'unbounceToken',
    },
  }),
});
