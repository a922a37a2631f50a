/**
 * Pacing shared by every process that calls the upstream with one key: a `Pacer` whose state is
 * one DynamoDB item (in the ledger table, `pk = pacer#upstream`), scheduled with GCRA: each
 * `acquire` reserves the slot `max(now, next)` and moves `next` by `T` in one conditional
 * UpdateItem (no lock, no read-modify-write race), then sleeps until its slot. `pauseUntil`
 * (a 429, an auth failure) pushes `next` for every process; a Lambda awaits `flush()`.
 * `maxWaitMs` refuses a slot too far away (PacerWaitError); `markLeads`/`yieldToLeadsMs` let
 * leads go before report pages. The algorithm, `T` and `marginMs`: docs/architecture.md.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { DEFAULT_ACCOUNT } from '../kernel/accounts.ts';
import { type DynamoDb, isConditionFailed } from '../kernel/dynamodb-aws.ts';
import { logger } from '../kernel/observability.ts';
import type { PacerFactory } from './paced-client.ts';
import { type Pacer, PacerWaitError } from './pacer.ts';

/** The pacer item's partition key in the ledger table. */
export const UPSTREAM_PACER_KEY = 'pacer#upstream';

/**
 * The pacer item of an upstream account (kernel/accounts.ts): `pacer#upstream` for `default`
 * (as before accounts existed), `pacer#upstream#<name>` for the others. IAM names the prefix.
 */
export function pacerKey(account = DEFAULT_ACCOUNT): string {
  return account === DEFAULT_ACCOUNT ? UPSTREAM_PACER_KEY : `${UPSTREAM_PACER_KEY}#${account}`;
}
/** Default margin added to the spacing (see the module comment). */
export const DEFAULT_PACER_MARGIN_MS = 25;
/**
 * The local runtime's margin. On one machine the gateway, the workers, the local DynamoDB and the
 * sandbox (which timestamps each arrival for its sliding window) share the cores, and under a
 * flood their timers and arrivals run later than 25 ms behind: the accounts bench's 6 × 30 saw a
 * 429 in 2 runs of 5 with 25 ms and none in 5 with 60 ms, for 3 % less throughput.
 */
export const LOCAL_PACER_MARGIN_MS = 60;
/** Conditional-write rounds before `acquire` gives up (only reached under a storm of pauses). */
const MAX_ROUNDS = 50;
/** Slots given up for lateness before an acquire goes anyway. */
const MAX_LATE_ROUNDS = 3;
/** Node's timers overflow above 2^31 - 1 ms. */
const MAX_SLEEP_MS = 2_147_483_647;

/** A Pacer whose pauses are written asynchronously: `flush` waits for them. */
export interface SharedPacer extends Pacer {
  /** Pushes the shared schedule to at least `epochMs` and resolves once it is written. */
  pause(epochMs: number): Promise<void>;
  /** Resolves when every `pauseUntil` so far has been written (or has failed and been logged). */
  flush(): Promise<void>;
  /** Spacing between starts, ms. */
  readonly intervalMs: number;
  /** The next free slot as stored (epoch ms); undefined when none was ever booked. */
  nextSlot(): Promise<number | undefined>;
}

export interface DynamoPacerOptions {
  client: DynamoDb;
  /** The ledger table (any table with a string partition key `pk` will do). */
  tableName: string;
  /** Partition key of the pacer item; default `pacer#upstream` (one per upstream key). */
  key?: string;
  maxPerSecond: number;
  maxPerMinute: number;
  /** Added to every spacing; default 25 ms. */
  marginMs?: number;
  /** Refuse (PacerWaitError) rather than sleep longer than this; default: no limit. */
  maxWaitMs?: number;
  /** Epoch ms; `Date.now` by default. Pauses are in the same clock. */
  now?: () => number;
  /** Resolves after `ms`; rejects when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Where a failed pause write is reported (acquire still honours it locally); default: the log. */
  onError?: (error: unknown) => void;
  /**
   * Leads before report pages: delivery's pacer notes on the item when a lead took a slot
   * (`leadsAt`, in the same write, `markLeads`); a pacer with `yieldToLeadsMs` (the debtors
   * refresher) refuses a slot (PacerWaitError, until that long after the last lead's) while
   * leads of the account are being sent, so they wait at most for the page already under way.
   */
  markLeads?: boolean;
  yieldToLeadsMs?: number;
}

/** T = ceil(max((1000 + margin) / perSecond, (60000 + margin) / perMinute)), in ms. */
export function slotIntervalMs(maxPerSecond: number, maxPerMinute: number, marginMs = 0): number {
  for (const [name, value] of [
    ['maxPerSecond', maxPerSecond],
    ['maxPerMinute', maxPerMinute],
  ] as const) {
    if (!Number.isFinite(value) || value <= 0) {
      throw new RangeError(`${name} must be a positive number, got ${String(value)}`);
    }
  }
  if (!Number.isFinite(marginMs) || marginMs < 0) {
    throw new RangeError(`marginMs must be a non-negative number, got ${String(marginMs)}`);
  }
  return Math.ceil(Math.max((1_000 + marginMs) / maxPerSecond, (60_000 + marginMs) / maxPerMinute));
}

/** Rejects with `signal.reason` (not Node's AbortError) when aborted, as the Pacer port says. */
async function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, signal ? { signal } : {});
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}

/** What a slot taken by a lead adds to its write (`markLeads`): when, as `leadsAt`. */
function leadsMark(enabled: boolean): {
  set: string;
  names: Record<string, string>;
  values: (t: number) => Record<string, number>;
} {
  return enabled
    ? {
        set: ', #leadsAt = :leadsAt',
        names: { '#leadsAt': 'leadsAt' },
        values: (t) => ({ ':leadsAt': t }),
      }
    : { set: '', names: {}, values: () => ({}) };
}

/** Refuses a slot (PacerWaitError) while leads of the account were sent within `yieldToLeadsMs`. */
async function yieldToLeadsOf(
  options: Pick<DynamoPacerOptions, 'tableName' | 'yieldToLeadsMs'>,
  doc: DynamoDb,
  key: string,
  now: () => number,
): Promise<void> {
  const yieldMs = options.yieldToLeadsMs;
  if (yieldMs === undefined) return;
  const out = await doc.get({
    TableName: options.tableName,
    Key: { pk: key },
    ConsistentRead: true,
  });
  const leadsAt = out.Item?.leadsAt;
  if (typeof leadsAt !== 'number') return;
  const waitMs = leadsAt + yieldMs - now();
  if (waitMs > 0) throw new PacerWaitError(waitMs, 0);
}

export function createDynamoPacer(options: DynamoPacerOptions): SharedPacer {
  const { tableName } = options;
  const key = options.key ?? UPSTREAM_PACER_KEY;
  const marginMs = options.marginMs ?? DEFAULT_PACER_MARGIN_MS;
  const intervalMs = slotIntervalMs(options.maxPerSecond, options.maxPerMinute, marginMs);
  const maxWaitMs = options.maxWaitMs ?? Number.POSITIVE_INFINITY;
  if (!(maxWaitMs >= 0)) throw new RangeError('maxWaitMs must be ≥ 0');
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? defaultSleep;
  const doc = options.client;

  const mark = leadsMark(options.markLeads === true);
  const yieldToLeads = () => yieldToLeadsOf(options, doc, key, now);

  /** The latest `next` this process wrote or saw: picks which write to try first. */
  let hint = Number.NEGATIVE_INFINITY;
  /** Pauses asked for here: honoured locally even if their write fails. */
  let pausedUntil = Number.NEGATIVE_INFINITY;
  const pending = new Set<Promise<void>>();

  /** Idle schedule: the slot is `t`. False when `next > t` (busy) . */
  async function takeIdle(t: number): Promise<boolean> {
    try {
      await doc.update({
        TableName: tableName,
        Key: { pk: key },
        UpdateExpression: `SET #next = :next, #kind = :kind${mark.set}`,
        ConditionExpression: 'attribute_not_exists(#next) OR #next <= :t',
        ExpressionAttributeNames: { '#next': 'next', '#kind': 'kind', ...mark.names },
        ExpressionAttributeValues: {
          ':next': t + intervalMs,
          ':t': t,
          ':kind': 'pacer',
          ...mark.values(t),
        },
      });
      hint = t + intervalMs;
      return true;
    } catch (error) {
      if (isConditionFailed(error)) return false;
      throw error;
    }
  }

  /** Busy schedule: the slot is the stored `next`. Undefined when idle or too far away. */
  async function takeBusy(t: number): Promise<number | undefined> {
    const bounded = Number.isFinite(maxWaitMs);
    try {
      const out = await doc.update({
        TableName: tableName,
        Key: { pk: key },
        UpdateExpression: `SET #next = #next + :interval${mark.set}`,
        ConditionExpression: bounded ? '#next > :t AND #next <= :limit' : '#next > :t',
        ExpressionAttributeNames: { '#next': 'next', ...mark.names },
        ExpressionAttributeValues: {
          ':interval': intervalMs,
          ':t': t,
          ...mark.values(t),
          ...(bounded && { ':limit': t + maxWaitMs }),
        },
        ReturnValues: 'UPDATED_NEW',
      });
      const next = Number(out.Attributes?.next);
      hint = next;
      return next - intervalMs;
    } catch (error) {
      if (isConditionFailed(error)) return undefined;
      throw error;
    }
  }

  /** The stored `next` (consistent read); undefined when there is no item yet. */
  const readNext = () => readPacerNextSlot({ client: doc, tableName, key });

  async function reserve(): Promise<number> {
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const t = now();
      if (pausedUntil - t > maxWaitMs) throw new PacerWaitError(pausedUntil - t, maxWaitMs);
      if (hint > t) {
        const slot = await takeBusy(t);
        if (slot !== undefined) return slot;
        if (await takeIdle(t)) return t;
      } else {
        if (await takeIdle(t)) return t;
        const slot = await takeBusy(t);
        if (slot !== undefined) return slot;
      }
      // Neither: the schedule is beyond maxWaitMs, or it flipped between the two writes.
      const stored = await readNext();
      if (stored !== undefined) hint = stored;
      const later = now();
      if (stored !== undefined && stored - later > maxWaitMs) {
        throw new PacerWaitError(stored - later, maxWaitMs);
      }
    }
    throw new Error(`pacer ${key}: the schedule kept changing; try again`);
  }

  async function acquire(signal?: AbortSignal): Promise<void> {
    for (let late = 0; ; ) {
      signal?.throwIfAborted();
      await yieldToLeads();
      let slot = await reserve();
      signal?.throwIfAborted();
      // A pause this process asked for but could not write yet still holds it back.
      slot = Math.max(slot, pausedUntil);
      for (let wait = slot - now(); wait > 0; wait = slot - now()) {
        // A slot reserved and then abandoned (abort) only leaves a gap: never too many requests.
        await sleep(Math.min(wait, MAX_SLEEP_MS), signal);
      }
      // A 429 seen here while we slept paused the schedule past our slot: take one after it.
      if (pausedUntil > slot) continue;
      // Held up past the slot by more than the margin (a busy CPU, a slow write): going now
      // could start closer to the next slot than the window allows. The slot is left as a gap
      // and a new one taken (a few times at most: a process that is always late goes anyway).
      if (now() - slot <= marginMs || late >= MAX_LATE_ROUNDS) return;
      late += 1;
    }
  }

  async function pause(epochMs: number): Promise<void> {
    if (!Number.isFinite(epochMs)) return;
    pausedUntil = Math.max(pausedUntil, epochMs);
    try {
      await doc.update({
        TableName: tableName,
        Key: { pk: key },
        UpdateExpression: 'SET #next = :until, #kind = :kind',
        ConditionExpression: 'attribute_not_exists(#next) OR #next < :until',
        ExpressionAttributeNames: { '#next': 'next', '#kind': 'kind' },
        ExpressionAttributeValues: { ':until': epochMs, ':kind': 'pacer' },
      });
      hint = Math.max(hint, epochMs);
    } catch (error) {
      // Already paused at least that long: nothing to do.
      if (!isConditionFailed(error)) throw error;
    }
  }

  function pauseUntil(epochMs: number): void {
    track(
      pending,
      pause(epochMs).catch((error: unknown) => (options.onError ?? logPauseError)(error)),
    );
  }

  const flush = () => settleAll(pending);

  return { acquire, pauseUntil, pause, flush, intervalMs, nextSlot: readNext };
}

/** Keeps `write` in `pending` until it settles. */
function track(pending: Set<Promise<void>>, write: Promise<void>): void {
  pending.add(write);
  void write.finally(() => pending.delete(write));
}

/** Resolves once every write in `pending` (and any added meanwhile) has settled. */
async function settleAll(pending: Set<Promise<void>>): Promise<void> {
  while (pending.size > 0) await Promise.all([...pending]);
}

function logPauseError(error: unknown): void {
  logger.error('upstream pacer pause could not be written', {
    error: error instanceof Error ? error.message : String(error),
  });
}

/**
 * An account's pacer for each set of limits, on its item of `table` (delivery and the report
 * refresher both pace there, so they share the account's budget; accounts never share one).
 * `maxWaitMs`: see DynamoPacerOptions; `key` overrides the account's item (tests).
 */
export function sharedPacerFactory(
  table: Pick<DynamoPacerOptions, 'client' | 'tableName'>,
  options: Pick<
    DynamoPacerOptions,
    'maxWaitMs' | 'key' | 'now' | 'markLeads' | 'yieldToLeadsMs' | 'marginMs'
  > = {},
): PacerFactory {
  return (limits, account) =>
    createDynamoPacer({
      ...table,
      ...options,
      key: options.key ?? pacerKey(account),
      maxPerSecond: limits.maxPerSecond,
      maxPerMinute: limits.maxPerMinute,
    });
}

/** The stored next free slot of a pacer item (epoch ms), without building the pacer. */
export async function readPacerNextSlot(
  table: Pick<DynamoPacerOptions, 'client' | 'tableName' | 'key'>,
): Promise<number | undefined> {
  const doc = table.client;
  const out = await doc.get({
    TableName: table.tableName,
    Key: { pk: table.key ?? UPSTREAM_PACER_KEY },
    ConsistentRead: true,
  });
  const next = out.Item?.next;
  return typeof next === 'number' ? next : undefined;
}
