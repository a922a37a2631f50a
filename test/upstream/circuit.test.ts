/**
 * The upstream circuit: its transitions (pure), and the shared one on dynalite, where several
 * instances (one DynamoDB client each, as separate Lambda instances would have) race for the
 * same item.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CircuitOptions,
  type CircuitState,
  CLOSED,
  createMemoryCircuit,
  nextCircuit,
} from '../../functions/upstream/circuit.ts';
import { createDynamoCircuit } from '../../functions/upstream/circuit-dynamodb.ts';
import { createLocalDynamoDb } from '../../local/dynamodb-local.ts';
import { startTestDynamo, type TestDynamo } from '../helpers/dynalite.ts';

const OPTIONS: CircuitOptions = {
  threshold: 3,
  probeBaseMs: 1_000,
  probeCapMs: 8_000,
  successResolutionMs: 1_000,
};
const failure = (over: { immediate?: boolean; probe?: boolean } = {}) =>
  ({
    kind: 'failure',
    immediate: false,
    probe: false,
    reason: 'unavailable 503',
    ...over,
  }) as const;

/** Applies `events` in order from `start`, one per second; the states after each. */
function run(
  start: CircuitState,
  events: Parameters<typeof nextCircuit>[1][],
  t0 = 10_000,
): CircuitState[] {
  const states: CircuitState[] = [];
  let state = start;
  events.forEach((event, i) => {
    state = nextCircuit(state, event, t0 + i * 1_000, OPTIONS) ?? state;
    states.push(state);
  });
  return states;
}

describe('nextCircuit', () => {
  it('stays closed below the threshold and opens at it, with the first probe one interval out', () => {
    const states = run(CLOSED, [failure(), failure(), failure()]);

    expect(states.map((s) => s.state)).toEqual(['closed', 'closed', 'open']);
    expect(states[2]).toMatchObject({
      failures: 3,
      openedAt: 12_000,
      probeAt: 13_000,
      probeIntervalMs: 1_000,
      reason: 'unavailable 503',
    });
  });

  it('opens at once on a failure that says the whole account is unreachable', () => {
    const [state] = run(CLOSED, [failure({ immediate: true })]);
    expect(state).toMatchObject({ state: 'open', failures: 1, probeAt: 11_000 });
  });

  it('forgets failures on a success: three failures apart never open it', () => {
    const states = run(CLOSED, [failure(), failure(), { kind: 'success' }, failure(), failure()]);
    expect(states.map((s) => [s.state, s.failures])).toEqual([
      ['closed', 1],
      ['closed', 2],
      ['closed', 0],
      ['closed', 1],
      ['closed', 2],
    ]);
  });

  it('doubles the probe interval after each failed probe, up to the cap, and closes on success', () => {
    let state = nextCircuit(CLOSED, failure({ immediate: true }), 0, OPTIONS) as CircuitState;
    const intervals: number[] = [];
    for (let i = 1; i <= 6; i += 1) {
      const now = state.probeAt ?? 0;
      state = nextCircuit(state, { kind: 'probe' }, now, OPTIONS) as CircuitState;
      state = nextCircuit(state, failure({ probe: true }), now, OPTIONS) as CircuitState;
      intervals.push((state.probeAt ?? 0) - now);
    }
    const closed = nextCircuit(state, { kind: 'success' }, state.probeAt ?? 0, OPTIONS);

    expect(intervals).toEqual([2_000, 4_000, 8_000, 8_000, 8_000, 8_000]);
    expect(closed).toMatchObject({ state: 'closed', failures: 0 });
    expect(closed?.probeAt).toBeUndefined();
  });

  it('keeps the probe schedule when others fail while it is open (they are not the probe)', () => {
    const open = nextCircuit(CLOSED, failure({ immediate: true }), 0, OPTIONS) as CircuitState;
    const after = nextCircuit(open, failure(), 500, OPTIONS);
    expect(after).toMatchObject({ state: 'open', probeAt: open.probeAt, failures: 2 });
  });

  it('gives the probe to one caller: a second one before the next interval gets nothing', () => {
    const open = nextCircuit(CLOSED, failure({ immediate: true }), 0, OPTIONS) as CircuitState;
    expect(nextCircuit(open, { kind: 'probe' }, 500, OPTIONS)).toBeUndefined();
    const taken = nextCircuit(open, { kind: 'probe' }, 1_000, OPTIONS) as CircuitState;
    expect(taken.probeAt).toBe(2_000);
    expect(nextCircuit(taken, { kind: 'probe' }, 1_100, OPTIONS)).toBeUndefined();
  });

  it('writes nothing for a success right after another while closed', () => {
    const closed = nextCircuit(CLOSED, { kind: 'success' }, 0, OPTIONS) as CircuitState;
    expect(nextCircuit(closed, { kind: 'success' }, 999, OPTIONS)).toBeUndefined();
    expect(nextCircuit(closed, { kind: 'success' }, 1_000, OPTIONS)).toMatchObject({
      lastSuccessAt: 1_000,
    });
  });
});

describe('createMemoryCircuit', () => {
  it('lets everyone through while closed, then holds them until the probe', async () => {
    const circuit = createMemoryCircuit(OPTIONS);
    expect(await circuit.gate(0)).toEqual({ kind: 'closed' });

    const { before, after } = await circuit.failed(0, {
      immediate: true,
      reason: 'ECONNREFUSED',
      probe: false,
    });

    expect([before.state, after.state]).toEqual(['closed', 'open']);
    expect(await circuit.gate(500)).toEqual({ kind: 'open', retryAt: 1_000 });
    expect(await circuit.gate(1_000)).toEqual({ kind: 'probe' });
    expect(await circuit.gate(1_001)).toEqual({ kind: 'open', retryAt: 2_000 });
    await circuit.succeeded(1_200);
    expect(await circuit.gate(1_300)).toEqual({ kind: 'closed' });
  });
});

describe('createDynamoCircuit (dynalite)', () => {
  let dynamo: TestDynamo;
  let table: string;
  let accounts = 0;

  beforeAll(async () => {
    dynamo = await startTestDynamo();
    table = await dynamo.createLedgerTable();
  });
  afterAll(async () => {
    await dynamo?.close();
  });

  /** `count` circuits of one fresh account, each with its own client (separate instances). */
  function instances(count: number) {
    accounts += 1;
    const key = `circuit#test-${accounts}`;
    return Array.from({ length: count }, () => {
      const client = createLocalDynamoDb(dynamo.endpoint);
      return createDynamoCircuit({ client, tableName: table, key, options: OPTIONS });
    });
  }

  it('reads closed before anything was recorded', async () => {
    const [circuit] = instances(1);
    expect(await circuit?.read()).toEqual(CLOSED);
  });

  it('counts every failure of concurrent instances exactly once, and opens at the threshold', async () => {
    const circuits = instances(6);

    const changes = await Promise.all(
      circuits.map((c) =>
        c.failed(5_000, { immediate: false, reason: 'unavailable 503', probe: false }),
      ),
    );

    const state = await circuits[0]?.read();
    expect(state).toMatchObject({ state: 'open', failures: 6, openedAt: 5_000 });
    // Exactly one of them saw it open.
    const opened = changes.filter((c) => c.before.state === 'closed' && c.after.state === 'open');
    expect(opened).toHaveLength(1);
  });

  it('hands the probe to exactly one of many instances asking at once', async () => {
    const circuits = instances(8);
    await circuits[0]?.failed(0, { immediate: true, reason: 'ECONNREFUSED', probe: false });

    const gates = await Promise.all(circuits.map((c) => c.gate(1_000)));

    expect(gates.filter((g) => g.kind === 'probe')).toHaveLength(1);
    expect(gates.filter((g) => g.kind === 'open')).toHaveLength(7);
    for (const gate of gates) if (gate.kind === 'open') expect(gate.retryAt).toBe(2_000);
  });

  it('closes for every instance when one succeeds', async () => {
    const [a, b] = instances(2);
    await a?.failed(0, { immediate: true, reason: 'unauthorized 401', probe: false });
    expect((await b?.gate(0))?.kind).toBe('open');

    await a?.succeeded(1_500);

    expect(await b?.gate(1_600)).toEqual({ kind: 'closed' });
    expect(await b?.read()).toMatchObject({ state: 'closed', failures: 0, lastSuccessAt: 1_500 });
  });
});
