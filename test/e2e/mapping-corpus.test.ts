/**
 * The mapping corpus end to end (test/fixtures/mapping-corpus/, read by
 * test/helpers/mapping-corpus.ts): every payload posted through the local gateway with its
 * platform's real authentication, to a profile of its own, with the delivery worker running
 * against the sandbox upstream (Meta's and Kommo's answers fetched from the sandbox's stand-ins). What
 * the sandbox received is compared field by field with the Prospect a careful person would have
 * produced; a lead expected parked or `test` is compared as the ledger keeps it. The sandbox's
 * rate limit is raised above the pacer's, so that the corpus is delivered in seconds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeadRecord } from '../../functions/ledger/lead-ledger.ts';
import { expectNotesContain } from '../helpers/lead-assertions.ts';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime.ts';
import {
  type CorpusEntry,
  corpusConfig,
  corpusRequest,
  loadCorpus,
  type Outcome,
  PERSON_FIELDS,
  profileName,
} from '../helpers/mapping-corpus.ts';

const ENTRIES = loadCorpus();
const PACER = { maxPerSecond: 10, maxPerMinute: 600 };
const SANDBOX_LIMITS = { perSecond: 11, perMinute: 660 };
/** The status a lead ends in, by the outcome the corpus expects. */
const FINAL_STATUS: Record<Outcome, string> = {
  deliver: 'delivered',
  park: 'parked',
  test: 'test',
};
const IN_FLIGHT = new Set(['queued', 'sending']);
/** How long a lead may take to settle on a loaded machine (the corpus takes about 5 s). */
const SETTLE_MS = 50_000;

let rt: TestRuntime;
/** What each entry's request was answered with. */
const answers = new Map<string, number>();

beforeAll(async () => {
  rt = await startTestRuntime(corpusConfig(ENTRIES, PACER), { worker: true });
  const limits = await fetch(new URL('/_sandbox/faults', rt.sandboxUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(SANDBOX_LIMITS),
  });
  expect(limits.status).toBe(200);
  for (const entry of ENTRIES) {
    if (entry.graphLead) {
      const registered = await fetch(new URL('/_sandbox/meta-leads', rt.sandboxUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(entry.graphLead),
      });
      expect(registered.status).toBe(201);
    }
    if (entry.kommo) {
      const registered = await fetch(new URL('/_sandbox/kommo-leads', rt.sandboxUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(entry.kommo),
      });
      expect(registered.status).toBe(201);
    }
    const request = corpusRequest(entry);
    const response = await rt.post(request.path, request.body, request.headers);
    await response.arrayBuffer();
    answers.set(entry.id, response.status);
  }
}, 120_000);
afterAll(() => rt?.stop());

/**
 * The entry's one lead, as the ledger has it now. Listing goes status by status, so a lead the
 * worker moves meanwhile can be listed twice: ids are what counts.
 */
async function recorded(entry: CorpusEntry): Promise<LeadRecord> {
  const ids = new Set((await rt.leads(profileName(entry))).map((lead) => lead.leadId));
  expect(ids.size).toBe(1);
  const lead = await rt.ledger.get([...ids][0] as string);
  if (!lead) throw new Error(`${entry.id}: the lead vanished`);
  return lead;
}

/** The entry's one lead, once it has left queued/sending. */
async function settled(entry: CorpusEntry): Promise<LeadRecord> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const lead = await recorded(entry);
    if (!IN_FLIGHT.has(lead.status)) return lead;
    if (Date.now() > deadline) throw new Error(`${entry.id}: still ${lead.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The body the sandbox upstream received for a delivered lead. */
async function received(lead: LeadRecord): Promise<Record<string, unknown> | undefined> {
  const response = await fetch(new URL('/_sandbox/prospects', rt.sandboxUrl));
  const prospects = (await response.json()) as Array<{
    idProspect: number;
    body: Record<string, unknown>;
  }>;
  return prospects.find((p) => String(p.idProspect) === String(lead.idProspect))?.body;
}

describe('the mapping corpus through the gateway, the worker and the sandbox upstream', () => {
  it.each(ENTRIES)(
    '$id ($source, $shape)',
    async (entry) => {
      // Prepare: accepted with the platform's success answer
      expect(answers.get(entry.id)).toBeLessThan(300);

      // Act
      const lead = await settled(entry);
      const prospect = lead.status === 'delivered' ? await received(lead) : lead.prospect;

      // Assess
      expect(lead.status, lead.reason).toBe(FINAL_STATUS[entry.expected.outcome]);
      const person = Object.fromEntries(
        PERSON_FIELDS.flatMap((field) =>
          prospect?.[field] === undefined || prospect[field] === null
            ? []
            : [[field, prospect[field]]],
        ),
      );
      expect(person).toEqual(entry.expected.prospect);
      const notes = typeof prospect?.notes === 'string' ? prospect.notes : '';
      expectNotesContain(notes, entry.expected.notesInclude ?? []);
      for (const fragment of entry.expected.notesExclude ?? [])
        expect(notes).not.toContain(fragment);
    },
    60_000,
  );
});
