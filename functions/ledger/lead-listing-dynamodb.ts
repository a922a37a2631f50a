/**
 * Reading leads in bulk from the ledger's two sparse indexes (lead-item-dynamodb.ts defines
 * them), never the table:
 * - the status index `gsi1`: one partition per status, sorted by `<receivedAt>#<leadId>`
 *   (`listByStatus`, oldest first with a cursor; `listRecent`, several statuses merged newest
 *   or oldest first within a period, going on from a position). At lead volumes (far below
 *   1,000 writes/s) a status partition is no hot spot;
 * - the reconciler's due index `gsi2`: only leads on their way (queued, sending) carry
 *   `duepk`/`dueAt`, so `listDue` and `countInFlight` read the few leads that may need waking.
 * Index reads are eventually consistent: a transition may take a moment to show.
 */
import { isLeadStatus, type LeadStatus } from '../domain/lead-lifecycle.ts';
import {
  DUE,
  decodeCursor,
  decodeLead,
  encodeCursor,
  type Item,
  LEDGER_DUE_INDEX,
  LEDGER_STATUS_INDEX,
  statusPk,
} from './lead-item-dynamodb.ts';
import {
  InvalidCursorError,
  type LeadPage,
  type LeadRecord,
  type RecentPage,
  type RecentQuery,
} from './lead-ledger.ts';
import { waitingFor } from './lead-transitions-dynamodb.ts';
import type { LedgerContext } from './lead-writes-dynamodb.ts';

const DEFAULT_PAGE = 50;
const MAX_PAGE = 1000;
/** The bounds of the status index's sort key (`<receivedAt ISO>#<leadId>`) when none is given. */
const LOWEST_POSITION = '0';
const HIGHEST_POSITION = '9~';
const POSITION = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#ld_[0-9A-Z]{22}$/;

/** Whether `position` is one `listRecent` could have handed out. */
export function isPosition(position: string): boolean {
  return POSITION.test(position);
}

/** One page of an index partition, oldest first, from a cursor this ledger handed out. */
async function query(
  ctx: LedgerContext,
  index: string,
  keys: { pk: string; sk: string },
  partition: string,
  page: { limit?: number; cursor?: string },
  extra: { condition?: string; values?: Record<string, unknown> } = {},
): Promise<LeadPage> {
  const limit = Math.min(Math.max(Math.trunc(page.limit ?? DEFAULT_PAGE), 1), MAX_PAGE);
  const out = await ctx.doc.query({
    TableName: ctx.tableName,
    IndexName: index,
    KeyConditionExpression: `${keys.pk} = :pk${extra.condition ? ` AND ${extra.condition}` : ''}`,
    ExpressionAttributeValues: { ':pk': partition, ...extra.values },
    ScanIndexForward: true,
    Limit: limit,
    ...(page.cursor !== undefined && {
      ExclusiveStartKey: decodeCursor(page.cursor, keys, partition),
    }),
  });
  const leads = (out.Items ?? []).map(decodeLead);
  return out.LastEvaluatedKey ? { leads, cursor: encodeCursor(out.LastEvaluatedKey) } : { leads };
}

export async function listByStatus(
  ctx: LedgerContext,
  status: LeadStatus,
  page: { limit?: number; cursor?: string; receivedBefore?: Date } = {},
): Promise<LeadPage> {
  if (!isLeadStatus(status)) throw new RangeError(`unknown status '${String(status)}'`);
  const before = page.receivedBefore;
  return await query(
    ctx,
    LEDGER_STATUS_INDEX,
    { pk: 'gsi1pk', sk: 'gsi1sk' },
    statusPk(status),
    page,
    before ? { condition: 'gsi1sk < :before', values: { ':before': before.toISOString() } } : {},
  );
}

/** One status partition of `listRecent`, `limit` leads within [lo, hi] in `order`. */
async function queryRange(
  ctx: LedgerContext,
  status: LeadStatus,
  range: { lo: string; hi: string },
  order: RecentQuery['order'],
  limit: number,
): Promise<{ leads: LeadRecord[]; more: boolean }> {
  const out = await ctx.doc.query({
    TableName: ctx.tableName,
    IndexName: LEDGER_STATUS_INDEX,
    KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :lo AND :hi',
    ExpressionAttributeValues: { ':pk': statusPk(status), ':lo': range.lo, ':hi': range.hi },
    ScanIndexForward: order === 'oldest',
    Limit: limit,
  });
  return { leads: (out.Items ?? []).map(decodeLead), more: out.LastEvaluatedKey !== undefined };
}

export async function listRecent(ctx: LedgerContext, query: RecentQuery): Promise<RecentPage> {
  const limit = Math.min(Math.max(Math.trunc(query.limit), 1), MAX_PAGE);
  if (query.after !== undefined && !POSITION.test(query.after)) throw new InvalidCursorError();
  for (const status of query.statuses) {
    if (!isLeadStatus(status)) throw new RangeError(`unknown status '${String(status)}'`);
  }
  let lo = query.since ? query.since.toISOString() : LOWEST_POSITION;
  // Received before `until`: its own timestamp sorts after every key that starts with it.
  let hi = query.until ? query.until.toISOString() : HIGHEST_POSITION;
  // The position itself is within the range (BETWEEN is inclusive): dropped below.
  if (query.after !== undefined) {
    if (query.order === 'newest' && query.after < hi) hi = query.after;
    if (query.order === 'oldest' && query.after > lo) lo = query.after;
  }
  if (lo > hi) return { entries: [], more: false };
  const pages = await Promise.all(
    [...new Set(query.statuses)].map((status) =>
      queryRange(ctx, status, { lo, hi }, query.order, limit + 1),
    ),
  );
  const positionOf = (lead: LeadRecord) => `${lead.receivedAt}#${lead.leadId}`;
  const merged = pages
    .flatMap((page) => page.leads)
    .map((lead) => ({ lead, position: positionOf(lead) }))
    .filter((entry) => entry.position !== query.after)
    .sort((a, b) =>
      query.order === 'newest'
        ? b.position.localeCompare(a.position)
        : a.position.localeCompare(b.position),
    );
  const entries = merged.slice(0, limit);
  const more = merged.length > limit || pages.some((page) => page.more);
  return { entries, more };
}

export async function listDue(
  ctx: LedgerContext,
  now: Date,
  page: { limit?: number; cursor?: string } = {},
): Promise<LeadPage> {
  return await query(ctx, LEDGER_DUE_INDEX, { pk: 'duepk', sk: 'dueAt' }, DUE, page, {
    condition: 'dueAt <= :now',
    values: { ':now': now.toISOString() },
  });
}

export async function countInFlight(ctx: LedgerContext): Promise<number> {
  let count = 0;
  let start: Item | undefined;
  do {
    const out = await ctx.doc.query({
      TableName: ctx.tableName,
      IndexName: LEDGER_DUE_INDEX,
      KeyConditionExpression: 'duepk = :pk',
      ExpressionAttributeValues: { ':pk': DUE },
      Select: 'COUNT',
      ...(start && { ExclusiveStartKey: start }),
    });
    count += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return count;
}

/**
 * The leads waiting for `account`'s circuit: the due index read with a filter (they are on
 * their way, so they are in it), each page sorted received first. Reads every lead on its way
 * (a backlog of thousands is a few pages); a sparse index of its own would read only them.
 */
export async function listWaiting(
  ctx: LedgerContext,
  account: string,
  page: { limit?: number; cursor?: string } = {},
): Promise<LeadPage> {
  const limit = Math.min(Math.max(Math.trunc(page.limit ?? DEFAULT_PAGE), 1), MAX_PAGE);
  const keys = { pk: 'duepk', sk: 'dueAt' };
  const out = await ctx.doc.query({
    TableName: ctx.tableName,
    IndexName: LEDGER_DUE_INDEX,
    KeyConditionExpression: 'duepk = :pk',
    FilterExpression: 'waitpk = :w',
    ExpressionAttributeValues: { ':pk': DUE, ':w': waitingFor(account) },
    Limit: limit,
    ...(page.cursor !== undefined && { ExclusiveStartKey: decodeCursor(page.cursor, keys, DUE) }),
  });
  const leads = (out.Items ?? [])
    .map(decodeLead)
    .sort((a, b) => a.receivedAt.localeCompare(b.receivedAt) || a.leadId.localeCompare(b.leadId));
  return out.LastEvaluatedKey ? { leads, cursor: encodeCursor(out.LastEvaluatedKey) } : { leads };
}
