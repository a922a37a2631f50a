/**
 * The mapping's promise, as a property: every answer a person typed reaches a Prospect field or
 * the notes, and nothing else does (no metadata, nothing invented). Answers are drawn from the
 * keys and values real forms send (Brazilian labels, nested paths, declared types, valid and
 * invalid values, free-text questions) mixed with metadata nobody typed, in any order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LeadAnswer, LeadCapture } from '../../functions/domain/lead.ts';
import { DEFAULT_LAST_NAME_STAND_IN, mapLeadToProspect } from '../../functions/domain/map-lead.ts';
import type { Prospect } from '../../functions/domain/prospect.ts';
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
