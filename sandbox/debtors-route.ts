/**
 * The sandbox's debtors: `GET /api/v1/receivables/debtors` (filters and paging by the domain's
 * own query, functions/domain/debtors-query.ts) over the demo rows of debtors-data.ts, and the
 * settings those rows come from (`count`, `branches`, `seed`: the `debtors` option at start,
 * `POST /_sandbox/debtors` later; keys left out fall back to the start's settings).
 *
 * The rows are generated once per calendar day of the sandbox's clock (UTC), so that dates and
 * daysLate stay relative to today, and again whenever the settings change.
 */
import * as z from 'zod/mini';
import { parseDebtorsQuery, queryDebtors } from '../functions/domain/debtors-query.ts';
import { describeIssues, type IssueDetail } from '../functions/domain/json.ts';
import {
  DEFAULT_DEBTORS_SETTINGS,
  type DemoDebtor,
  type DemoDebtorsSettings,
  generateDebtors,
  MAX_DEMO_DEBTORS,
} from './debtors-data.ts';
import { type Exchange, json } from './exchange.ts';

const DAY_MS = 86_400_000;

export interface DebtorsState {
  /** The settings at start: what keys left out of `POST /_sandbox/debtors` fall back to. */
  readonly base: DemoDebtorsSettings;
  settings: DemoDebtorsSettings;
  /** The rows of `settings` for one day (days since the epoch, UTC). */
  rowsCache: { day: number; rows: DemoDebtor[] } | undefined;
}

/** What the debtors routes read of the sandbox's state. */
export interface DebtorsRoom {
  readonly debtors: DebtorsState;
  /** The sandbox's clock. */
  readonly now: () => Date;
}

const debtorsSettingsSchema = z.strictObject({
  count: z.optional(z.int().check(z.gte(0), z.lte(MAX_DEMO_DEBTORS))),
  branches: z.optional(
    z.array(z.int().check(z.gte(1), z.lte(1_000_000))).check(z.minLength(1), z.maxLength(1_000)),
  ),
  seed: z.optional(z.int()),
});

type SettingsParse =
  | { ok: true; settings: DemoDebtorsSettings }
  | { ok: false; details: IssueDetail[] };

/** `input`'s settings, keys left out taken from `base`; branches without repeats. */
function parseSettings(input: unknown, base: Readonly<DemoDebtorsSettings>): SettingsParse {
  const parsed = debtorsSettingsSchema.safeParse(input);
  if (!parsed.success) return { ok: false, details: describeIssues(parsed.error.issues, input) };
  return {
    ok: true,
    settings: {
      count: parsed.data.count ?? base.count,
      branches: [...new Set(parsed.data.branches ?? base.branches)],
      seed: parsed.data.seed ?? base.seed,
    },
  };
}

/** The debtors of the `debtors` option (default 180 over [1, 2, 3], seed 42); throws if bad. */
export function createDebtorsState(options: unknown): DebtorsState {
  const initial = parseSettings(options ?? {}, DEFAULT_DEBTORS_SETTINGS);
  if (!initial.ok) {
    const why = initial.details.map((d) => `${d.field} ${d.message}`).join('; ');
    throw new Error(`Invalid sandbox debtors options: ${why}`);
  }
  return { base: initial.settings, settings: initial.settings, rowsCache: undefined };
}

/** `POST /_sandbox/debtors`: new settings, and their rows generated at once. */
export function configureDebtors(room: DebtorsRoom, input: unknown): SettingsParse {
  const parsed = parseSettings(input, room.debtors.base);
  if (!parsed.ok) return parsed;
  room.debtors.settings = parsed.settings;
  room.debtors.rowsCache = undefined;
  currentRows(room);
  return parsed;
}

/** Today's rows of the current settings. */
function currentRows(room: DebtorsRoom): DemoDebtor[] {
  const { debtors } = room;
  const at = room.now();
  const day = Math.floor(at.getTime() / DAY_MS);
  if (!debtors.rowsCache || debtors.rowsCache.day !== day) {
    // Regenerated once per day so that dates and daysLate stay relative to today.
    debtors.rowsCache = { day, rows: generateDebtors(debtors.settings, at) };
  }
  return debtors.rowsCache.rows;
}

/** `GET /api/v1/receivables/debtors`: production's paging and filters; 400 `mensagens` if bad. */
export async function listDebtors(room: DebtorsRoom, ex: Exchange, url: URL): Promise<void> {
  const query = parseDebtorsQuery(url.searchParams);
  if (!query.ok) return json(ex, 400, { mensagens: query.messages });
  return json(ex, 200, queryDebtors(currentRows(room), query.query));
}
