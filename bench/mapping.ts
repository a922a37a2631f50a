/**
 * Mapping fidelity and cost: every payload of the mapping corpus (test/fixtures/mapping-corpus/,
 * real-shape payloads of every source, each with the Prospect a careful person would have
 * produced) through its source's authenticate and capture, Meta's Graph completion and the one
 * mapping, in process (test/helpers/mapping-corpus.ts `mapInProcess`, the code the gateway and
 * the forwarder run; test/e2e/mapping-corpus.test.ts runs the same corpus through the gateway).
 *
 * Figures:
 * - the share of the documented shapes (the platforms' own documented payloads) mapped exactly:
 *   the outcome (delivered, parked, test), every person field, the notes fragments; it must be
 *   100 %, and the phase fails otherwise;
 * - the share of the whole corpus mapped exactly, against the documented share;
 * - the time to capture and map one lead (median over the corpus, repeated), against parsing
 *   and re-serialising the same request body as JSON: the least any handler of the body does.
 *
 * Every entry that is not exact is listed on stderr with what differs.
 */
import {
  type CorpusEntry,
  corpusRequest,
  differences,
  loadCorpus,
  mapInProcess,
} from '../test/helpers/mapping-corpus.ts';
import { emitFigures, type Figure, figure, median, progress } from './lib.ts';

const ROUNDS = Number(process.env.BENCH_MAPPING_ROUNDS ?? 200);

function share(part: number, whole: number): number {
  return whole === 0 ? Number.NaN : (100 * part) / whole;
}

/** Each entry once: is its mapping exact? */
async function fidelity(entries: readonly CorpusEntry[]): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  for (const entry of entries) {
    const mapped = await mapInProcess(entry);
    const diff = differences(entry, mapped.outcome, mapped.prospect);
    if (mapped.detail) diff.unshift(mapped.detail);
    found.set(entry.id, diff);
    if (diff.length) progress(`not exact: ${entry.id} (${entry.shape}): ${diff.join('; ')}`);
  }
  return found;
}

/** Median µs per lead over `ROUNDS` passes of the corpus: the mapping, then the JSON baseline. */
async function cost(entries: readonly CorpusEntry[]): Promise<{ map: number; json: number }> {
  const bodies = entries.map((entry) => corpusRequest(entry).body.toString('utf8'));
  const map: number[] = [];
  const json: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    for (const entry of entries) await mapInProcess(entry);
    map.push(((performance.now() - started) * 1000) / entries.length);
    const base = performance.now();
    for (const body of bodies) {
      try {
        JSON.stringify(JSON.parse(body));
      } catch {
        JSON.stringify(body);
      }
    }
    json.push(((performance.now() - base) * 1000) / entries.length);
  }
  return { map: median(map), json: median(json) };
}

export async function mappingBench(): Promise<Figure[]> {
  const entries = loadCorpus();
  const documented = entries.filter((entry) => entry.shape === 'documented');
  progress(`mapping corpus: ${entries.length} payloads, ${documented.length} documented shapes`);
  const found = await fidelity(entries);
  const exact = (list: readonly CorpusEntry[]) =>
    list.filter((entry) => found.get(entry.id)?.length === 0).length;
  const documentedShare = share(exact(documented), documented.length);
  const allShare = share(exact(entries), entries.length);
  progress(
    `mapped exactly: ${exact(entries)}/${entries.length} (${exact(documented)}/${documented.length} documented)`,
  );
  const timing = await cost(entries);
  const figures = [
    figure(
      'mapping: documented shapes mapped exactly',
      documentedShare,
      '%',
      'required',
      100,
      `${exact(documented)} of ${documented.length} payloads documented by the platforms`,
    ),
    figure(
      'mapping: corpus mapped exactly',
      allShare,
      '%',
      'documented shapes mapped exactly',
      documentedShare,
      `${exact(entries)} of ${entries.length} payloads, documented and real-shape Brazilian`,
    ),
    figure(
      'mapping: capture + map one lead (median)',
      timing.map,
      'µs',
      'JSON parse + stringify of its body',
      timing.json,
      `${ROUNDS} passes over the corpus, in process`,
    ),
  ];
  if (documentedShare !== 100) {
    throw new Error('the documented shapes must all be mapped exactly (see the lines above)');
  }
  return figures;
}

if (import.meta.filename === process.argv[1]) {
  emitFigures(await mappingBench());
}
