/**
 * What every part of the DynamoDB ledger works over, and its conditional writes on one lead
 * item (lead-ledger-dynamodb.ts assembles the parts):
 * - `LedgerContext`: the client, the table, the retention and the wake-up grace, the erasure
 *   store (erasure-dynamodb.ts), built once by `createDynamoLedger` and passed to each operation;
 * - reads by key (`getItem`, `get`), a put under a condition (`putIf`);
 * - `update`: one UpdateItem built from what to set, remove, increment and add, under a
 *   condition, answering the new record or undefined when the condition failed;
 * - the conditions that fence a write (`versionIs`, `statusIn`), what a move to a status sets
 *   besides it (`statusChange`: its index keys, its TTL, off the due index when final), and
 *   `fenced`, a transition of the lifecycle that must succeed (LeadStateError otherwise).
 *
 * TTL (`expiresAt`, epoch seconds; DynamoDB deletes up to ~48 h late, so code that cares
 * compares it itself, as the dedup condition does): lead items in `delivered`, `rejected` and
 * `test` expire `retentionDays` after their last transition, and a requeue removes the TTL
 * again; `queued`, `sending`, `parked` and `dead` leads never expire: they still need delivery
 * or an operator's decision, and dropping them silently is the failure this product exists to
 * avoid.
 */
import {
  IN_FLIGHT,
  isLeadId,
  LeadStateError,
  type LeadStatus,
  TRANSITIONS,
} from '../domain/lead-lifecycle.ts';
import { type DynamoDb, isConditionFailed } from '../kernel/dynamodb-aws.ts';
import type { ErasureStore } from './erasure-dynamodb.ts';
import { decodeLead, epochSeconds, type Item, leadPk, statusPk } from './lead-item-dynamodb.ts';
import type { LeadRecord } from './lead-ledger.ts';

/** What each operation of the ledger is given (createDynamoLedger builds it from its options). */
export interface LedgerContext {
  readonly doc: DynamoDb;
  readonly tableName: string;
  /** How long final leads (delivered, rejected, test) are kept after their last change. */
  readonly retentionSeconds: number;
  /** How long after a lead should have been picked up the reconciler may wake it. */
  readonly wakeGraceMs: number;
  /** The subject items and the erasure tombstones. */
  readonly erasure: ErasureStore;
}

/** How often a write that lost a race (a dedup item replaced, a lead moved) reads again. */
export const WRITE_ROUNDS = 3;

/** Final states that the TTL may remove after retentionDays. */
const EXPIRING: ReadonlySet<LeadStatus> = new Set(['delivered', 'rejected', 'test']);

/** The lead's `expiresAt` in `status` from `now`: undefined while it must be kept. */
export const ttlFor = (ctx: LedgerContext, status: LeadStatus, now: Date) =>
  EXPIRING.has(status) ? epochSeconds(now) + ctx.retentionSeconds : undefined;

/** The `dueAt` of a lead that should be picked up at `moment`: the reconciler's grace after. */
export const dueAfter = (ctx: LedgerContext, moment: Date | string) =>
  new Date(new Date(moment).getTime() + ctx.wakeGraceMs).toISOString();

export async function getItem(ctx: LedgerContext, pk: string): Promise<Item | undefined> {
  const out = await ctx.doc.get({ TableName: ctx.tableName, Key: { pk }, ConsistentRead: true });
  return out.Item;
}

/** A consistent read; undefined for an unknown or malformed id. */
export async function get(ctx: LedgerContext, leadId: string): Promise<LeadRecord | undefined> {
  if (!isLeadId(leadId)) return undefined;
  const item = await getItem(ctx, leadPk(leadId));
  return item ? decodeLead(item) : undefined;
}

/** Puts an item under a condition; false when the condition failed. */
export async function putIf(
  ctx: LedgerContext,
  item: Item,
  condition: string,
  values?: Record<string, unknown>,
): Promise<boolean> {
  try {
    await ctx.doc.put({
      TableName: ctx.tableName,
      Item: item,
      ConditionExpression: condition,
      ...(values && { ExpressionAttributeValues: values }),
    });
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

/** One UpdateItem: what to set (undefined removes), remove, add, and the condition. */
export interface UpdateSpec {
  set: Item;
  remove?: readonly string[];
  /** Attributes incremented by one (missing counts as 0). */
  increment?: readonly string[];
  /** `attempts := 0, tries := 0`. */
  resetCounts?: boolean;
  /** String sets the values are added to (`ADD`); an empty set adds nothing. */
  add?: Record<string, ReadonlySet<string>>;
}

/**
 * One UpdateItem under `condition` (written with `#status`, `#version` and the placeholders
 * in `values`); the new record, or undefined when the condition failed.
 */
export async function update(
  ctx: LedgerContext,
  leadId: string,
  spec: UpdateSpec,
  condition: string,
  values: Record<string, unknown>,
  now: Date,
  conditionNames: Record<string, string> = {},
): Promise<LeadRecord | undefined> {
  if (!isLeadId(leadId)) return undefined;
  const names: Record<string, string> = {
    '#status': 'status',
    '#version': 'version',
    ...conditionNames,
  };
  const vals: Record<string, unknown> = { ...values };
  const sets: string[] = [];
  const removes: string[] = [];
  let index = 0;
  for (const [attr, value] of Object.entries({ ...spec.set, updatedAt: now.toISOString() })) {
    const n = attr === 'status' ? '#status' : attr === 'version' ? '#version' : `#a${index}`;
    names[n] = attr;
    if (value === undefined) removes.push(n);
    else {
      vals[`:a${index}`] = value;
      sets.push(`${n} = :a${index}`);
    }
    index++;
  }
  // A lead waiting for its account's circuit (waitFor) stops waiting at any other write.
  const removed = 'waitpk' in spec.set ? spec.remove : [...(spec.remove ?? []), 'waitpk'];
  for (const attr of removed ?? []) {
    names[`#r${index}`] = attr;
    removes.push(`#r${index}`);
    index++;
  }
  if (spec.increment?.length || spec.resetCounts) vals[':zero'] = 0;
  if (spec.increment?.length) vals[':one'] = 1;
  for (const attr of spec.increment ?? []) {
    const n = attr === 'version' ? '#version' : `#i${index}`;
    names[n] = attr;
    sets.push(`${n} = if_not_exists(${n}, :zero) + :one`);
    index++;
  }
  if (spec.resetCounts) {
    names['#attempts'] = 'attempts';
    names['#tries'] = 'tries';
    sets.push('#attempts = :zero', '#tries = :zero');
  }
  const adds: string[] = [];
  for (const [attr, values] of Object.entries(spec.add ?? {})) {
    if (values.size === 0) continue;
    names[`#s${index}`] = attr;
    vals[`:s${index}`] = new Set(values);
    adds.push(`#s${index} :s${index}`);
    index++;
  }
  const expression = `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}${adds.length > 0 ? ` ADD ${adds.join(', ')}` : ''}`;
  // DynamoDB refuses names and values that no expression uses.
  const used = (placeholder: string) =>
    new RegExp(`${placeholder}(?![\\w])`).test(`${expression} ${condition}`);
  try {
    const out = await ctx.doc.update({
      TableName: ctx.tableName,
      Key: { pk: leadPk(leadId) },
      UpdateExpression: expression,
      ConditionExpression: condition,
      ExpressionAttributeNames: Object.fromEntries(
        Object.entries(names).filter(([name]) => used(name)),
      ),
      ExpressionAttributeValues: Object.fromEntries(
        Object.entries(vals).filter(([name]) => used(name)),
      ),
      ReturnValues: 'ALL_NEW',
    });
    return out.Attributes ? decodeLead(out.Attributes) : undefined;
  } catch (error) {
    if (isConditionFailed(error)) return undefined;
    throw error;
  }
}

/** `#version = :version`, where a lead without the attribute counts as version 0. */
export function versionIs(version: number, values: Record<string, unknown>): string {
  values[':version'] = version;
  return version === 0
    ? '(attribute_not_exists(#version) OR #version = :version)'
    : '#version = :version';
}

/** `#status IN (...)` of a transition's `from`. */
export function statusIn(statuses: readonly LeadStatus[], values: Record<string, unknown>): string {
  const placeholders = statuses.map((status, i) => {
    values[`:from${i}`] = status;
    return `:from${i}`;
  });
  return `#status IN (${placeholders.join(', ')})`;
}

/** What moving to status `to` sets besides it: its index keys, TTL, no longer due when final. */
export function statusChange(ctx: LedgerContext, to: LeadStatus, now: Date): Item {
  return {
    status: to,
    gsi1pk: statusPk(to),
    expiresAt: ttlFor(ctx, to, now),
    ...(!IN_FLIGHT.has(to) && { duepk: undefined, dueAt: undefined, nextAttemptAt: undefined }),
  };
}

/** A fenced transition that must succeed: LeadStateError (with the status found) otherwise. */
export async function fenced(
  ctx: LedgerContext,
  leadId: string,
  name: keyof typeof TRANSITIONS,
  version: number,
  now: Date,
  spec: UpdateSpec,
): Promise<LeadRecord> {
  const values: Record<string, unknown> = {};
  const condition = `${statusIn(TRANSITIONS[name].from, values)} AND ${versionIs(version, values)}`;
  const done = await update(
    ctx,
    leadId,
    { ...spec, set: { ...statusChange(ctx, TRANSITIONS[name].to, now), ...spec.set } },
    condition,
    values,
    now,
  );
  if (done) return done;
  const current = await get(ctx, leadId);
  throw new LeadStateError(leadId, name, current?.status);
}
