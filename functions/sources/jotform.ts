/**
 * The `jotform` source: Jotform's form webhook (docs/sources.md).
 *
 * - Authentication: Jotform webhooks carry **no signature** and no custom header, so the profile's
 *   `token` travels in the webhook URL (`?token=`), compared in constant time (token.ts). Missing
 *   → 401 `missing_token`, wrong → 403 `invalid_token`.
 * - Body: `multipart/form-data` (urlencoded and JSON are read too) with `formID`, `submissionID`,
 *   `formTitle`, `pretty` (`Label:value, Label:value` of the answered questions, in order) and
 *   `rawRequest`, the submission as JSON: one key per question, `q<id>_<unique name>`
 *   (`q3_nome`, `q4_email`, `q6_dataDe`...), plus Jotform's own keys (`slug`, `event_id`,
 *   `preview`...).
 * - Answers: one per `q<id>_` key with a value, keyed by its unique name and labelled by its
 *   question text, which `pretty` gives (matched answer by answer; a question whose label cannot
 *   be matched keeps its unique name). Widgets by their shape: a Name (`{first, last}`) gives the
 *   first and last name as typed, a Date (`{day, month, year}`) an ISO date, a Phone (`{full}`
 *   or `{area, phone}`) a phone, an Address its lines joined; lists stay lists. Jotform escapes
 *   HTML in values (`&#039;`), which is undone. Hidden fields named like UTMs are attribution.
 * - Dedup: `jotform:<submissionID>`.
 * - Test leads: a submission made from the form builder's preview (`"preview": "true"` in
 *   `rawRequest`).
 * - Answer: 200 `{"leadId", "status": "queued"}`; an authentic unreadable body is parked.
 */
import * as z from 'zod/mini';
import type { AnswerType, LeadAnswer, LeadCapture } from '../domain/lead.ts';
import { recogniseField } from '../domain/recognise-field.ts';
import type { NamedSchema } from './docs.ts';
import { attributionKeyOf } from './form.ts';
import { isPlainObject, parseJsonText, readFields, scalarText } from './form-fields.ts';
import { SAMPLE_PERSON } from './setup.ts';
import {
  acceptedJson,
  type CaptureResult,
  defineSource,
  type IntakeRequest,
  unreadable,
} from './source.ts';
import { tokenOnly, tokenSchemes } from './token.ts';

const QUESTION_KEY = /^q(\d+)_(.+)$/;
const NAME_PARTS = ['prefix', 'first', 'middle', 'last', 'suffix'] as const;
const MAX_LABEL = 200;

/** Jotform's HTML escapes, undone (`&#039;` → `'`, `&amp;` → `&`...). */
export function unescapeHtml(text: string): string {
  return text.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|amp|lt|gt|quot|apos|nbsp);/gi, (whole, code) => {
    const lower = String(code).toLowerCase();
    if (lower.startsWith('#x')) return safeCodePoint(Number.parseInt(lower.slice(2), 16), whole);
    if (lower.startsWith('#')) return safeCodePoint(Number(lower.slice(1)), whole);
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }[lower] ?? whole;
  });
}

function safeCodePoint(code: number, fallback: string): string {
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : fallback;
}

/** One question of `rawRequest`, read by its widget's shape. */
interface Question {
  name: string;
  /** Its value (a Name widget's: its whole name), and the input its widget declares. */
  value: string | string[];
  type?: AnswerType;
  /** A Name widget's parts. */
  nameParts?: Record<string, string>;
  /** How `pretty` may write its value, most likely first. */
  renderings: string[];
}

const text = (value: unknown): string => scalarText(value).trim();

function twoDigits(value: string): string {
  return value.padStart(2, '0');
}

/** A Date widget's `{day, month, year}` as `YYYY-MM-DD`; undefined when incomplete. */
function dateOf(value: Record<string, unknown>): { iso: string; renderings: string[] } | undefined {
  const [day, month, year] = [text(value.day), text(value.month), text(value.year)];
  if (!/^\d{1,2}$/.test(day) || !/^\d{1,2}$/.test(month) || !/^\d{4}$/.test(year)) return undefined;
  const renderings = [' ', '/', '-', '.'].flatMap((sep) => [
    [month, day, year].join(sep),
    [day, month, year].join(sep),
    [year, month, day].join(sep),
  ]);
  return { iso: `${year}-${twoDigits(month)}-${twoDigits(day)}`, renderings };
}

function question(name: string, raw: unknown): Question | undefined {
  const plain = (value: string | string[]): Question => ({
    name,
    value,
    renderings:
      typeof value === 'string'
        ? [value]
        : [', ', '<br>', '\n', ' '].map((sep) => (value as string[]).join(sep)),
  });
  if (Array.isArray(raw)) {
    const items = raw.map(text).filter(Boolean);
    if (items.length === 0) return undefined;
    return plain(items.length === 1 ? (items[0] as string) : items);
  }
  if (!isPlainObject(raw)) {
    const value = text(raw);
    return value ? plain(value) : undefined;
  }
  if ('first' in raw || 'last' in raw) {
    const nameParts = Object.fromEntries(NAME_PARTS.map((part) => [part, text(raw[part])]));
    const whole = NAME_PARTS.map((part) => nameParts[part])
      .filter(Boolean)
      .join(' ');
    if (!whole) return undefined;
    return { name, value: whole, nameParts, renderings: [whole] };
  }
  if ('day' in raw && 'month' in raw && 'year' in raw) {
    const date = dateOf(raw);
    if (!date) return undefined;
    return { name, value: date.iso, type: 'date', renderings: date.renderings };
  }
  if ('full' in raw || ('area' in raw && 'phone' in raw)) {
    const full = text(raw.full);
    const [country, area, phone] = [text(raw.country), text(raw.area), text(raw.phone)];
    const value =
      full || [country && `+${country}`, area && `(${area})`, phone].filter(Boolean).join(' ');
    if (!value) return undefined;
    const renderings = [value, `(${area}) ${phone}`, `${area} ${phone}`, `${area}${phone}`];
    return { name, value, type: 'phone', renderings };
  }
  const lines = Object.values(raw).map(text).filter(Boolean);
  if (lines.length === 0) return undefined;
  const value = lines.length === 1 ? (lines[0] as string) : lines;
  return plain(value);
}

/**
 * The answers of a question, labelled. A Name widget that is the person's name gives its first
 * and last name as typed (keys the recogniser reads exactly, the middle name with the last);
 * any other Name widget (`Nome do responsável`) stays one answer, which its label keeps out of
 * the person's fields.
 */
function answersOf(q: Question, label: string | undefined): LeadAnswer[] {
  const value = typeof q.value === 'string' ? unescapeHtml(q.value) : q.value.map(unescapeHtml);
  const own: LeadAnswer = {
    key: q.name,
    ...(label && { label }),
    ...(q.type && { type: q.type }),
    value,
  };
  const parts = q.nameParts;
  if (!parts || typeof value !== 'string') return [own];
  const seen = recogniseField(own)?.field;
  if (seen !== 'fullName' && seen !== 'firstName' && seen !== 'lastName') return [own];
  const first = unescapeHtml(parts.first ?? '');
  const last = unescapeHtml([parts.middle, parts.last].filter(Boolean).join(' '));
  const answers: LeadAnswer[] =
    first && last
      ? [
          { key: 'first_name', value: first },
          { key: 'last_name', value: last },
        ]
      : [{ ...own, value: first || last }];
  if (parts.prefix) answers.push({ key: 'Tratamento', value: unescapeHtml(parts.prefix) });
  if (parts.suffix) answers.push({ key: 'Sufixo', value: unescapeHtml(parts.suffix) });
  return answers;
}

/**
 * The label of each question from `pretty` (`Label:value, Label:value`, the answered questions
 * in order): each question's value is found after a `:` and before `, ` (or the end), and the
 * text before it is its label. A question whose value cannot be found gets no label, and the
 * next label is then taken after the last `, ` only.
 */
export function prettyLabels(
  pretty: string,
  renderings: readonly string[][],
): (string | undefined)[] {
  const labels: (string | undefined)[] = [];
  let position = 0;
  let lost = false;
  for (const candidates of renderings) {
    let found: { at: number; end: number } | undefined;
    for (const candidate of candidates) {
      if (!candidate) continue;
      for (let from = position; ; ) {
        const at = pretty.indexOf(`:${candidate}`, from);
        if (at < 0) break;
        const end = at + 1 + candidate.length;
        if (end === pretty.length || pretty.startsWith(', ', end)) {
          if (!found || at < found.at) found = { at, end };
          break;
        }
        from = at + 1;
      }
    }
    if (!found) {
      labels.push(undefined);
      lost = true;
      continue;
    }
    let label = pretty.slice(position, found.at);
    if (lost) label = label.slice(label.lastIndexOf(', ') + 1);
    label = label.trim();
    labels.push(label && label.length <= MAX_LABEL ? label : undefined);
    position = found.end + 2;
    lost = false;
  }
  return labels;
}

async function capture(request: IntakeRequest): Promise<CaptureResult> {
  const read = await readFields(request);
  if ('problem' in read) return unreadable(read.problem, request.body);
  const field = (name: string) =>
    read.fields.find((f) => f.key.toLowerCase() === name.toLowerCase())?.value.trim() ?? '';
  const submissionId = field('submissionID');
  if (!submissionId) return unreadable('falta submissionID', request.body);
  const rawText = field('rawRequest');
  if (!rawText) return unreadable('falta rawRequest', request.body);
  const parsed = parseJsonText(Buffer.from(rawText, 'utf8'));
  if ('problem' in parsed || !isPlainObject(parsed.value)) {
    return unreadable('rawRequest não é um objeto JSON', request.body);
  }
  const raw = parsed.value;

  const questions: Question[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const match = QUESTION_KEY.exec(key);
    if (!match) continue;
    const found = question(match[2] as string, value);
    if (found) questions.push(found);
  }
  const labels = prettyLabels(
    field('pretty'),
    questions.map((q) => q.renderings),
  );

  const answers: LeadAnswer[] = [];
  const attribution: Record<string, string> = {};
  for (const [index, q] of questions.entries()) {
    const label = labels[index] ? unescapeHtml(labels[index] as string) : undefined;
    for (const answer of answersOf(q, label)) {
      const attributionKey =
        attributionKeyOf(answer.key) ?? (answer.label ? attributionKeyOf(answer.label) : undefined);
      if (attributionKey && typeof answer.value === 'string') {
        attribution[attributionKey] ??= answer.value;
        continue;
      }
      answers.push(answer);
    }
  }
  const formTitle = unescapeHtml(field('formTitle'));
  if (formTitle) attribution.form_name ??= formTitle;

  const lead: LeadCapture = {
    source: 'jotform',
    dedupKey: `jotform:${submissionId}`,
    isTest: text(raw.preview) === 'true',
    externalId: submissionId,
    answers,
    attribution,
  };
  const formId = field('formID');
  if (formId) lead.formId = formId;
  const submitDate = text(raw.submitDate);
  if (/^\d{12,14}$/.test(submitDate)) lead.submittedAt = new Date(Number(submitDate)).toISOString();
  return { leads: [lead] };
}

export const jotformSource = defineSource({
  name: 'jotform',
  label: 'Jotform',
  ...tokenOnly,
  capture,
  parkUnreadable: true,
  accepted: (leadIds) => acceptedJson(200, leadIds, { status: 'queued' }),
  setup: {
    steps: [
      'O formulário → "Settings" → "Integrations" → "WebHooks" → cole este endereço (ele leva a chave do perfil) → "Complete Integration".',
      'O Jotform não assina nada nem põe cabeçalho: a chave no endereço é a única conferência. Use uma chave longa e aleatória, e troque-a se o endereço vazar.',
      'Teste: envie o formulário uma vez (um envio pela pré-visualização do editor fica com a situação Teste).',
    ],
    secrets: {
      token:
        'Uma chave longa e aleatória sua (a chave "generated" do segredo serve), no endereço do webhook.',
    },
    auth: () => ({ kind: 'token', setting: 'token', in: 'query' }),
    // Jotform posts multipart/form-data; the same fields urlencoded are read alike.
    sample: (stamp) => ({
      contentType: 'application/x-www-form-urlencoded',
      body: new URLSearchParams({
        formID: '251215468210043',
        submissionID: `kit-${stamp}`,
        formTitle: 'Aula experimental',
        pretty: `Nome:${SAMPLE_PERSON.fullName}, E-mail:${SAMPLE_PERSON.email(stamp)}, WhatsApp:${SAMPLE_PERSON.typedPhone}`,
        rawRequest: JSON.stringify({
          slug: 'submit/251215468210043',
          q3_nome: { first: SAMPLE_PERSON.firstName, last: SAMPLE_PERSON.lastName },
          q4_email: SAMPLE_PERSON.email(stamp),
          q5_whatsapp: { full: SAMPLE_PERSON.typedPhone },
          q6_utm_source: 'teste',
        }),
      }).toString(),
    }),
    notes: [
      'O Jotform envia "multipart/form-data"; o exemplo envia os mesmos campos codificados como formulário, que são lidos do mesmo jeito.',
      'Um reenvio da mesma resposta é o mesmo lead (o mesmo submissionID).',
    ],
  },
  docs: () => {
    const body: NamedSchema = {
      id: 'JotformWebhook',
      description:
        'Jotform’s webhook (multipart): the submission’s answers are the JSON text `rawRequest`, keyed `q<id>_<unique name>`; `pretty` lists them with their question texts.',
      schema: z.looseObject({
        formID: z.string(),
        submissionID: z.string(),
        formTitle: z.optional(z.string()),
        pretty: z.optional(z.string()),
        rawRequest: z.string(),
      }),
    };
    return {
      api: {
        security: ['leadToken'],
        schemes: { leadToken: tokenSchemes().leadToken },
        authentication:
          'Jotform signs nothing: the profile’s `token` as `?token=` in the webhook URL. Missing: 401 `missing_token`; wrong: 403 `invalid_token`.',
        bodies: { 'multipart/form-data': body, 'application/x-www-form-urlencoded': body },
        answer: '200 `LeadAccepted`; an authentic but unreadable body is parked.',
      },
      request: {
        title: 'a Jotform webhook',
        note: 'Jotform signs nothing: the token is in the URL.',
        fixture: { request: 'submission' },
        variable: 'jotformToken',
      },
    };
  },
});
