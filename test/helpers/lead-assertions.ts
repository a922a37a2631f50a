/**
 * Assertions the lead tests share: reading a source's CaptureResult as its one lead, its leads or
 * its problem (test/sources/), mapping a capture that must map without gaps, and the
 * fragments a Prospect's notes must carry (the source tests and test/e2e/intake-*).
 *
 * Kept apart from lead-fixtures.ts and platform-fixtures.ts because those are also loaded by the
 * benchmarks (bench/leads.ts), outside vitest.
 */
import { expect } from 'vitest';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import type { MappingProfile } from '../../functions/domain/map-lead.ts';
import type { Prospect } from '../../functions/domain/prospect.ts';
import type { CaptureResult } from '../../functions/sources/source.ts';
import { mapCapture } from './map-capture.ts';
import { type CorpusEntry, loadCorpus, mapInProcess, PERSON_FIELDS } from './mapping-corpus.ts';

/** A content-hash dedup key, as an unreadable body or a hashed lead gets. */
export const CONTENT_HASH_KEY = /^hash:[0-9a-f]{64}$/;

/**
 * The result itself: fails when it is a promise. Awaited results pass through; sources that
 * capture synchronously (prospect, webflow) hand their return value over as is, so this also
 * checks that they stay synchronous.
 */
function settled(result: CaptureResult | Promise<CaptureResult>): CaptureResult {
  if (result instanceof Promise) throw new Error('expected a synchronous capture');
  return result;
}

/** The leads of a capture; fails on a problem. */
export function leadsIn(result: CaptureResult | Promise<CaptureResult>): LeadCapture[] {
  const settledResult = settled(result);
  if (!('leads' in settledResult)) {
    throw new Error(`expected leads, got problem: ${settledResult.problem}`);
  }
  return settledResult.leads;
}

/** The single lead of a capture; fails on a problem or any other number of leads. */
export function theLead(result: CaptureResult | Promise<CaptureResult>): LeadCapture {
  const leads = leadsIn(result);
  expect(leads).toHaveLength(1);
  return leads[0] as LeadCapture;
}

/** The problem of a capture, whose dedup key must be a content hash; fails on leads. */
export function problemOf(result: CaptureResult | Promise<CaptureResult>): string {
  const settledResult = settled(result);
  if (!('problem' in settledResult)) throw new Error('expected a problem');
  expect(settledResult.dedupKey).toMatch(CONTENT_HASH_KEY);
  return settledResult.problem;
}

/** Asserts that a redelivery of the same bytes (in another buffer) gets the same dedup keys. */
export async function expectSameDedupKeys(
  leadsOf: (body: Buffer) => Promise<LeadCapture[]>,
  body: Buffer,
): Promise<void> {
  const first = (await leadsOf(body)).map((lead) => lead.dedupKey);
  const again = (await leadsOf(Buffer.from(body))).map((lead) => lead.dedupKey);
  expect(again).toEqual(first);
}

/** Maps `capture` with `profile`, expecting no missing field and no warning; the Prospect. */
export function mapCleanly(capture: LeadCapture, profile: MappingProfile): Prospect {
  const { prospect, missing, warnings } = mapCapture(capture, profile);
  expect(missing).toEqual([]);
  expect(warnings).toEqual([]);
  return prospect;
}

/** Asserts that a Prospect's notes contain each fragment, one assertion per fragment. */
export function expectNotesContain(
  notes: string | null | undefined,
  fragments: readonly string[],
): void {
  for (const fragment of fragments) expect(notes).toContain(fragment);
}

/** The mapping corpus entries of one source (test/fixtures/mapping-corpus/). */
export function corpusOf(source: CorpusEntry['source']): CorpusEntry[] {
  const entries = loadCorpus().filter((entry) => entry.source === source);
  if (entries.length === 0) throw new Error(`the mapping corpus has no ${source} entry`);
  return entries;
}

/**
 * Maps a corpus entry in process (its source's authenticate and capture, Meta's completion, the
 * mapping) and asserts the outcome, every person field exactly, and the notes fragments.
 */
export async function expectCorpusMapping(entry: CorpusEntry): Promise<void> {
  // Act
  const { outcome, prospect, detail } = await mapInProcess(entry);

  // Assess
  expect(outcome, detail).toBe(entry.expected.outcome);
  const person = Object.fromEntries(
    PERSON_FIELDS.flatMap((field) =>
      prospect?.[field] === undefined || prospect[field] === null ? [] : [[field, prospect[field]]],
    ),
  );
  expect(person).toEqual(entry.expected.prospect);
  expectNotesContain(prospect?.notes, entry.expected.notesInclude ?? []);
  for (const fragment of entry.expected.notesExclude ?? []) {
    expect(prospect?.notes).not.toContain(fragment);
  }
}
