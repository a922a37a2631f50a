/**
 * The `wix` source: Wix Automations' "Send HTTP request" action (POST, JSON), triggered by a Wix
 * Forms submission (docs/sources.md).
 *
 * - Authentication: Wix signs nothing; the profile's `token` goes in the request's URL
 *   (`?token=`) or in a header the action adds (`X-Lead-Token`), compared in constant time.
 * - Body, by what the action sends:
 *   - "Entire payload" (the trigger's data, as is or under `data`): `submissions` is the list of
 *     `{label, value}` the person filled in, by the question they read: those are the answers.
 *     The same values repeated under `field:<key>` and the CRM `contact` built from them are
 *     skipped; without `submissions`, the `field:` values are the answers and the contact's
 *     name, e-mail and phone are added. `submissionId` is the dedup key, `formId` the form id,
 *     `formName` and `submissionTime` the form's name and the submission time.
 *   - a custom JSON body ("Customize"): any flat or nested object, read as the form source
 *     reads JSON (your keys, UTM names as attribution); an `submissionId` key, mapped from the
 *     trigger, is the dedup key.
 * - Dedup: `wix:<submissionId>`, else a content hash (10 minutes).
 * - Answer: 200 `{"leadId", "status": "queued"}`; an authentic unreadable body is parked.
 * - Test leads: none.
 */
import * as z from 'zod/mini';
import type { LeadAnswer, LeadCapture } from '../domain/lead.ts';
import {
  answerValue,
  attributionKeyOf,
  DEFAULT_HONEYPOT_FIELD,
  fieldsHash,
  splitFields,
} from './form.ts';
import { type Field, flattenJson, isPlainObject, scalarText } from './form-fields.ts';
import { SAMPLE_PERSON } from './setup.ts';
import {
  acceptedJson,
  type CaptureResult,
  defineSource,
  type IntakeRequest,
  isoInstant,
  readJsonObject,
  unreadable,
} from './source.ts';
import { tokenApiDoc, tokenOnly } from './token.ts';

/** The trigger's own keys: ids, links and context nobody typed. */
const WIX_METADATA = new Set([
  'formId',
  'formName',
  'submissionId',
  'submissionTime',
  'submissionsLink',
  'formFieldMask',
  'contactId',
  'contact',
  'context',
  '_context',
  'submissions',
  'metaSiteId',
  'activationId',
  'namespace',
  'submitterId',
]);

const text = (value: unknown): string => scalarText(value).trim();

/** Answers of the trigger's `submissions` list. */
function submissionAnswers(submissions: unknown[]): LeadAnswer[] {
  const answers: LeadAnswer[] = [];
  for (const [index, entry] of submissions.entries()) {
    if (!isPlainObject(entry)) continue;
    const label = text(entry.label) || `Campo ${index + 1}`;
    const raw = entry.value;
    const value = answerValue((Array.isArray(raw) ? raw : [raw]).map(scalarText));
    if (value !== undefined) answers.push({ key: label, value });
  }
  return answers;
}

/** The CRM contact's name, e-mail and phone, when nothing else carries them. */
function contactAnswers(contact: Record<string, unknown>): LeadAnswer[] {
  const answers: LeadAnswer[] = [];
  const name = isPlainObject(contact.name) ? contact.name : {};
  const first = text(name.first);
  const last = text(name.last);
  if (first) answers.push({ key: 'first_name', value: first });
  if (last) answers.push({ key: 'last_name', value: last });
  if (text(contact.email))
    answers.push({ key: 'email', type: 'email', value: text(contact.email) });
  if (text(contact.phone))
    answers.push({ key: 'phone', type: 'phone', value: text(contact.phone) });
  return answers;
}

function capture(
  request: IntakeRequest,
  profile: { honeypotField?: string | undefined },
): CaptureResult {
  const read = readJsonObject(request.body);
  if ('problem' in read) return unreadable(read.problem, request.body);
  const payload = isPlainObject(read.value.data) ? read.value.data : read.value;

  let answers: LeadAnswer[];
  let attribution: Record<string, string> = {};
  let spam = false;
  if (
    Array.isArray(payload.submissions) ||
    Object.keys(payload).some((k) => k.startsWith('field:'))
  ) {
    if (Array.isArray(payload.submissions)) {
      answers = submissionAnswers(payload.submissions);
    } else {
      answers = Object.entries(payload)
        .filter(([key]) => key.startsWith('field:'))
        .flatMap(([key, raw]) => {
          const value = answerValue((Array.isArray(raw) ? raw : [raw]).map(scalarText));
          return value === undefined ? [] : [{ key: key.slice('field:'.length), value }];
        });
      if (isPlainObject(payload.contact)) answers.push(...contactAnswers(payload.contact));
    }
    const kept: LeadAnswer[] = [];
    for (const answer of answers) {
      const attributionKey = attributionKeyOf(answer.key);
      if (attributionKey && typeof answer.value === 'string') {
        attribution[attributionKey] ??= answer.value;
      } else kept.push(answer);
    }
    answers = kept;
  } else {
    const fields = flattenJson(
      Object.fromEntries(Object.entries(payload).filter(([key]) => !WIX_METADATA.has(key))),
    );
    if ('problem' in fields) return unreadable(fields.problem, request.body);
    const split = splitFields(fields.fields, profile.honeypotField ?? DEFAULT_HONEYPOT_FIELD);
    ({ answers, attribution, spam } = split);
  }
  if (!spam && answers.length === 0) {
    return unreadable('o corpo não tem respostas', request.body);
  }
  const formName = text(payload.formName);
  if (formName) attribution.form_name ??= formName;

  const submissionId = text(payload.submissionId);
  const hashed: Field[] = (() => {
    const all = flattenJson(payload);
    return 'problem' in all ? [] : all.fields;
  })();
  const lead: LeadCapture = {
    source: 'wix',
    dedupKey: submissionId
      ? `wix:${submissionId}`
      : fieldsHash(
          'wix',
          hashed.map((f) => [f.key, f.value] as const),
        ),
    isTest: false,
    answers,
    attribution,
  };
  if (submissionId) lead.externalId = submissionId;
  const formId = text(payload.formId);
  if (formId) lead.formId = formId;
  const submittedAt = isoInstant(text(payload.submissionTime));
  if (submittedAt) lead.submittedAt = submittedAt;
  return spam ? { leads: [lead], spam: true } : { leads: [lead] };
}

export const wixSource = defineSource({
  name: 'wix',
  label: 'Wix',
  ...tokenOnly,
  capture,
  parkUnreadable: true,
  accepted: (leadIds) => acceptedJson(200, leadIds, { status: 'queued' }),
  setup: {
    steps: [
      'Painel do Wix → "Automações" → "Nova automação" → gatilho "Formulário enviado" (o seu formulário) → ação "Enviar uma solicitação HTTP".',
      'URL de destino = este endereço (ele leva a chave; ou ponha o cabeçalho "X-Lead-Token" com a chave e cole o endereço sem ela), método POST.',
      'Corpo: "Entire payload"; ou "Customize" com as suas chaves em JSON (nome, email, celular...), incluindo submissionId para que um reenvio seja reconhecido.',
      'Teste: envie o formulário uma vez no site e veja o lead chegar no console.',
    ],
    secrets: {
      token:
        'Uma chave longa e aleatória sua (a chave "generated" do segredo serve): no endereço ou no cabeçalho "X-Lead-Token". O Wix não assina nada.',
    },
    auth: () => ({ kind: 'token', setting: 'token', in: 'query' }),
    // The trigger's entire payload, as "Entire payload" sends it.
    sample: (stamp) => ({
      contentType: 'application/json',
      body: JSON.stringify({
        data: {
          formName: 'Aula experimental',
          formId: 'comp-kit0001',
          submissionId: `kit-${stamp}`,
          submissionTime: '2026-01-01T12:00:00.000Z',
          submissions: [
            { label: 'Nome', value: SAMPLE_PERSON.firstName },
            { label: 'Sobrenome', value: SAMPLE_PERSON.lastName },
            { label: 'Email', value: SAMPLE_PERSON.email(stamp) },
            { label: 'Telefone (WhatsApp)', value: SAMPLE_PERSON.typedPhone },
            { label: 'utm_source', value: 'teste' },
          ],
          contact: {
            name: { first: SAMPLE_PERSON.firstName, last: SAMPLE_PERSON.lastName },
            email: SAMPLE_PERSON.email(stamp),
            phone: SAMPLE_PERSON.typedPhone,
          },
        },
      }),
    }),
    notes: [
      'Com "Entire payload", um reenvio é o mesmo lead (o mesmo submissionId); um corpo personalizado sem submissionId é reconhecido por 10 minutos pelo conteúdo.',
    ],
  },
  docs: () => ({
    api: {
      ...tokenApiDoc(),
      bodies: {
        'application/json': {
          id: 'WixAutomationRequest',
          description:
            'Wix Automations’ "Send HTTP request": the form trigger’s entire payload (`submissions: [{label, value}]`, `submissionId`, `formId`, optionally under `data`) or a JSON body of your own keys.',
          schema: z.record(z.string(), z.unknown()),
        },
      },
      answer: '200 `LeadAccepted`; an authentic but unreadable body is parked.',
    },
    request: {
      title: 'a Wix Automations HTTP request',
      fixture: { payload: 'form-submitted' },
      variable: 'wixToken',
    },
  }),
});
