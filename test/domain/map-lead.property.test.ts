/**
 * The mapping's promise, as a property: every answer a person typed reaches a Prospect field or
 * the notes, and nothing else does (no metadata, nothing invented). Answers are drawn from the
 * keys and values real forms send (Brazilian labels, nested paths, declared types, valid and
 * invalid values, free-text questions) mixed with metadata nobody typed, in any order. The same
 * answers are then carried in the bodies of the form and CRM sources of issue 17 (Google Forms,
 * Tally, Jotform, HubSpot, Kommo's API records, WordPress, Wix) and captured by them: no answer
 * is lost on the way either. (Hotmart carries fixed buyer fields, not questions: its unit tests.)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Profile } from '../../functions/config/config-schema.ts';
import type { LeadAnswer, LeadCapture } from '../../functions/domain/lead.ts';
import { DEFAULT_LAST_NAME_STAND_IN, mapLeadToProspect } from '../../functions/domain/map-lead.ts';
import type { Prospect } from '../../functions/domain/prospect.ts';
import { completeKommoCapture } from '../../functions/sources/kommo.ts';
import { adapterFor } from '../../functions/sources/registry.ts';
import type { IntakeRequest } from '../../functions/sources/source.ts';
import { mapCapture } from '../helpers/map-capture.ts';
import {
  filledBy,
  fold,
  type Kind,
  letters,
  type Typed,
  text,
  typedAnswer,
} from '../helpers/typed-answers.ts';

const metadataAnswer: fc.Arbitrary<LeadAnswer> = fc
  .tuple(
    fc.constantFrom(
      'ip',
      'user_agent',
      'date_created',
      'is_read',
      'id',
      '_wpcf7',
      'entry[user_agent]',
    ),
    letters(6, 10),
  )
  .map(([key, marker]) => ({ key, value: `meta ${marker}` }));

/** Typed and metadata answers interleaved in any order. */
const lead = fc
  .tuple(
    fc.array(typedAnswer, { minLength: 1, maxLength: 9 }),
    fc.array(metadataAnswer, { maxLength: 4 }),
    fc.array(fc.nat(), { minLength: 13, maxLength: 13 }),
  )
  .map(([typed, metadata, order]) => {
    const all = [
      ...typed.map((t) => ({ typed: t as Typed | undefined, answer: t.answer })),
      ...metadata.map((answer) => ({ typed: undefined, answer })),
    ];
    const shuffled = all
      .map((item, i) => ({ item, rank: order[i] ?? i }))
      .sort((a, b) => a.rank - b.rank)
      .map(({ item }) => item);
    return {
      typed: shuffled.flatMap(({ typed: t }) => (t ? [t] : [])),
      metadata,
      capture: {
        source: 'form',
        dedupKey: 'hash:x',
        isTest: false,
        answers: shuffled.map(({ answer }) => answer),
        attribution: {},
      } satisfies LeadCapture,
    };
  });

/** The notes split into their sections: answer lines and warning lines. */
function notesParts(notes: string): { answerLines: string[]; warningLines: string[] } {
  const sections = notes.split('\n\n').slice(1);
  const warnings = sections.find((s) => s.startsWith('Avisos:\n'));
  const answers = sections.filter((s) => s !== warnings && !s.startsWith('Origem: '));
  return {
    answerLines: answers.flatMap((s) => s.split('\n')),
    warningLines: (warnings?.split('\n').slice(1) ?? []).map((line) => line.replace(/^- /, '')),
  };
}

describe('mapLeadToProspect, as a property', () => {
  it('puts every typed answer in a Prospect field or the notes, and nothing else anywhere', () => {
    fc.assert(
      fc.property(lead, ({ typed, metadata, capture }) => {
        // Act
        const { prospect } = mapLeadToProspect(capture, { defaults: { idBranch: 1 } }, 'Site');

        // Assess: every typed answer reached a field or the notes
        const notes = prospect.notes ?? '';
        for (const t of typed) {
          const reached = notes.includes(text(t.answer)) || filledBy(t, prospect);
          expect(reached, `${t.answer.key}: ${text(t.answer)}`).toBe(true);
        }

        // ...no metadata reached either
        const everything = JSON.stringify(prospect);
        for (const answer of metadata) expect(everything).not.toContain(text(answer));

        // ...every notes line is a typed answer, or a warning about one (or the stand-in)
        const { answerLines, warningLines } = notesParts(notes);
        const lines = new Set(
          typed.map((t) => `${t.answer.label ?? t.answer.key}: ${text(t.answer)}`),
        );
        for (const line of answerLines) expect(lines.has(line), line).toBe(true);
        for (const line of warningLines) {
          const about = typed.some((t) => line.endsWith(`: ${text(t.answer)}`));
          expect(about || line.includes(`"${DEFAULT_LAST_NAME_STAND_IN}"`), line).toBe(true);
        }

        // ...and every person field comes from a typed answer (or is the stand-in)
        const person: Array<[keyof Prospect, Kind]> = [
          ['email', 'email'],
          ['cellphone', 'phone'],
          ['cpf', 'cpf'],
          ['birthday', 'birthday'],
          ['gender', 'gender'],
        ];
        for (const [field, kind] of person) {
          if (prospect[field] === undefined) continue;
          const source = typed.some((t) => t.kind === kind && filledBy(t, prospect));
          expect(source, `${field} = ${String(prospect[field])}`).toBe(true);
        }
        const typedWords = new Set(typed.flatMap((t) => fold(text(t.answer)).split(' ')));
        const nameWords = fold(`${prospect.name ?? ''} ${prospect.lastName ?? ''}`)
          .replace(fold(DEFAULT_LAST_NAME_STAND_IN), '')
          .split(' ')
          .filter(Boolean);
        for (const word of nameWords) expect(typedWords.has(word), word).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});

// ---- the same promise through the sources of issue 17 -------------------------------------------

/** A typed answer's question as a person reads it. */
const titleOf = (answer: LeadAnswer) => answer.label ?? answer.key;

/** How each source's platform would carry these answers: its body, or Kommo's API records. */
interface Carried {
  contentType: string;
  body: string;
  /** Kommo: what its API answers at delivery (the webhook carries the lead id only). */
  kommo?: Parameters<typeof completeKommoCapture>[1];
}

const TALLY_TYPES: Record<string, string> = { email: 'INPUT_EMAIL', phone: 'INPUT_PHONE_NUMBER' };
const KOMMO_CODES: Record<string, string> = { email: 'EMAIL', phone: 'PHONE' };
const json = (value: unknown): Carried => ({
  contentType: 'application/json',
  body: JSON.stringify(value),
});

const CARRIERS: Record<string, (answers: readonly LeadAnswer[]) => Carried> = {
  googleforms: (answers) =>
    json({
      formId: 'f1',
      responseId: 'r1',
      namedValues: Object.fromEntries(answers.map((a) => [titleOf(a), [text(a)]])),
    }),
  tally: (answers) =>
    json({
      eventType: 'FORM_RESPONSE',
      data: {
        responseId: 'r1',
        fields: answers.map((a, i) => ({
          key: `question_${i}`,
          label: titleOf(a),
          type: TALLY_TYPES[a.type ?? ''] ?? 'INPUT_TEXT',
          value: text(a),
        })),
      },
    }),
  jotform: (answers) => {
    const raw = Object.fromEntries(answers.map((a, i) => [`q${i + 3}_campo${i + 3}`, text(a)]));
    const form = new URLSearchParams({
      formID: '1',
      submissionID: '2',
      pretty: answers.map((a) => `${titleOf(a)}:${text(a)}`).join(', '),
      rawRequest: JSON.stringify(raw),
    });
    return { contentType: 'application/x-www-form-urlencoded', body: form.toString() };
  },
  hubspot: (answers) =>
    json({
      vid: 1,
      properties: Object.fromEntries(answers.map((a) => [titleOf(a), { value: text(a) }])),
    }),
  kommo: (answers) => ({
    contentType: 'application/x-www-form-urlencoded',
    body: 'leads[add][0][id]=7&account[id]=9',
    kommo: {
      lead: { id: 7 },
      contact: {
        id: 8,
        custom_fields_values: answers.map((a, i) => ({
          field_id: i + 1,
          field_name: titleOf(a),
          field_code: KOMMO_CODES[a.type ?? ''] ?? null,
          field_type: 'text',
          values: [{ value: text(a) }],
        })),
      },
    },
  }),
  wordpress: (answers) => json(Object.fromEntries(answers.map((a) => [titleOf(a), text(a)]))),
  wix: (answers) =>
    json({
      submissionId: 's1',
      submissions: answers.map((a) => ({ label: titleOf(a), value: text(a) })),
    }),
};

const PROFILES: Record<string, Record<string, unknown>> = {
  googleforms: { secret: 's' },
  tally: { secret: 's' },
  jotform: { token: 't' },
  hubspot: { secret: 's', url: 'https://leads.example.com/leads/hubspot' },
  kommo: { token: 't', accessToken: 'a', apiBaseUrl: 'https://x.kommo.com' },
  wordpress: { token: 't', plugin: 'contact-form-7' },
  wix: { token: 't' },
};

/** HubSpot's own property names, which a person's answer cannot have there. */
const HUBSPOT_OWN = /^(?:hs_|hubspot|ip_|num_|recent_|vid$|id$)/;

/** One answer per question title (a form has each question once), none that its platform reserves. */
function carriable(source: string, typed: readonly Typed[]): Typed[] {
  const seen = new Set<string>();
  return typed.filter((t) => {
    const title = titleOf(t.answer);
    if (seen.has(title) || (source === 'hubspot' && HUBSPOT_OWN.test(title))) return false;
    seen.add(title);
    return true;
  });
}

describe('no answer is lost through the sources of issue 17, as a property', () => {
  it.each(Object.keys(CARRIERS))(
    '%s: every typed answer reaches a Prospect field or the notes',
    async (source) => {
      const profile = {
        source,
        ...PROFILES[source],
        defaults: { idBranch: 1 },
      } as Profile;
      const adapter = adapterFor(profile);
      await fc.assert(
        fc.asyncProperty(lead, async (generated) => {
          // Prepare: the answers as the platform carries them
          const typed = carriable(source, generated.typed);
          const carried = (CARRIERS[source] as (a: readonly LeadAnswer[]) => Carried)(
            typed.map((t) => t.answer),
          );
          const request: IntakeRequest = {
            method: 'POST',
            headers: { 'content-type': carried.contentType },
            query: {},
            body: Buffer.from(carried.body),
            contentType: carried.contentType,
            receivedAt: new Date(),
          };

          // Act: captured by the source (completed from Kommo's API), then mapped
          const captured = await adapter.capture(request, profile);
          if (!('leads' in captured)) throw new Error(`unreadable: ${captured.problem}`);
          const [first] = captured.leads;
          if (!first) throw new Error('no lead');
          const capture = carried.kommo ? completeKommoCapture(first, carried.kommo) : first;
          const { prospect } = mapCapture(capture, profile);

          // Assess
          const notes = prospect.notes ?? '';
          for (const t of typed) {
            const reached = notes.includes(text(t.answer)) || filledBy(t, prospect);
            expect(reached, `${titleOf(t.answer)}: ${text(t.answer)}`).toBe(true);
          }
          for (const [field, kind] of [
            ['email', 'email'],
            ['cellphone', 'phone'],
            ['cpf', 'cpf'],
          ] as const) {
            if (prospect[field] === undefined) continue;
            const from = typed.some((t) => t.kind === kind && filledBy(t, prospect));
            expect(from, `${field} = ${String(prospect[field])}`).toBe(true);
          }
        }),
        { numRuns: 150 },
      );
    },
  );
});
