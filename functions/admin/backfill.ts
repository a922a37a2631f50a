/**
 * `POST /admin/backfill/{profile}` `{"since", "until"}` (ISO 8601 instants, at most the
 * platform's `maxDays` apart, `until` not in the future): lists the leads the profile's platform
 * kept for that period on the profile's forms (the `forms` keys: Meta form ids, TikTok instant
 * form page ids) and runs each through the intake's own step (ledger/record-capture.ts: record
 * under the platform's lead id, then wake), so a lead that did arrive is recognised, not posted
 * twice: 200 `{profile, since, until, forms, found, alreadyKnown, new, erased, statuses, more}`
 * (`erased`: leads erased at their person's request, dropped by the record step). `more: true`
 * when the request's time ran out before every lead was recorded: run it again (it is safe to).
 * A period that began before what the platform keeps (`maxDays` back from now) is cut there,
 * the answer's `notice` saying so in Portuguese (or English when asked); one that ended before
 * is refused 400 `period_not_kept`, saying so, rather than answered `found: 0`.
 * 400 for a bad period, 404 for an unknown profile, 409 when the profile's source keeps no leads
 * to list or names no forms, 502/503 when the platform fails (nothing is recorded).
 */
import * as z from 'zod/mini';
import { accountOfProfile } from '../config/config-accounts.ts';
import type { Profile } from '../config/config-schema.ts';
import type { LeadCapture } from '../domain/lead.ts';
import { publicStatus } from '../domain/lead-lifecycle.ts';
import { localDateTime } from '../domain/local-time.ts';
import { type HttpRequest, type HttpResponse, json } from '../kernel/http.ts';
import { say, t } from '../kernel/language.ts';
import { NO_STORE } from '../kernel/route-guard.ts';
import { isDropped, recordCapture } from '../ledger/record-capture.ts';
import { adapterFor, SOURCES } from '../sources/registry.ts';
import { type Backfill, type BackfillPeriod, SourceLookupError } from '../sources/source.ts';
import { branchesOf } from '../upstream/branch-directory.ts';
import { zonesOf } from './leads/zones.ts';
import { AdminRefusal, type RouteContext, refusal, requireProfile } from './route-context.ts';

/** The body of `POST /admin/backfill/{profile}`. */
export const backfillRequestSchema = z.strictObject({
  /** The first creation time to list, ISO 8601 with its offset (inclusive). */
  since: z.iso.datetime({ offset: true }),
  /** The end of the period, ISO 8601 with its offset (exclusive); not in the future. */
  until: z.iso.datetime({ offset: true }),
});

/** What a backfill answers. */
export interface BackfillResult {
  profile: string;
  since: string;
  until: string;
  /** The forms listed (the profile's `forms` keys). */
  forms: string[];
  /** Leads the platform listed for the period. */
  found: number;
  /** Of those, the ones the ledger already had (they did arrive): nothing done. */
  alreadyKnown: number;
  /** Of those, the ones recorded now (they had never arrived). */
  new: number;
  /** Of those, leads erased at their person's request: not recorded again (docs/privacy.md). */
  erased: number;
  /**
   * Of those, leads naming a branch outside a scoped operator's scope: not recorded (an operator
   * who covers the whole account backfills them). Absent when none.
   */
  outsideScope?: number;
  /** The new leads by their first status: queued for delivery, parked, kept as test leads. */
  statuses: Record<string, number>;
  /** The request's time ran out before every lead was looked at: run it again. */
  more: boolean;
  /**
   * The period began before what the platform keeps and was cut there (`since` says where):
   * what was left out, in the request's language.
   */
  notice?: string;
}

/** A backfill stops recording when less than this is left of the invocation. */
export const BACKFILL_RESERVE_MS = 3000;
/** How far `until` may be ahead of our clock (clock skew). */
const FUTURE_SLACK_MS = 60_000;
/** Leads recorded at once. */
const BACKFILL_CONCURRENCY = 5;
const DAY_MS = 24 * 60 * 60 * 1000;

/** What the platform is asked for, and what the operator is told about the period. */
interface AskedPeriod {
  period: BackfillPeriod;
  /** Set when the period began before what the platform keeps: it was cut there. */
  notice?: string;
}

/**
 * The period of the body, checked: since before until, until not in the future, at most
 * `maxDays` long, and not wholly older than what the platform keeps (`maxDays` back from now:
 * 400 `period_not_kept`, saying so, rather than an empty listing); one that began before is cut
 * there, with a `notice` in the answer.
 */
function backfillPeriod(
  request: HttpRequest,
  now: Date,
  maxDays: number,
  where: { platform: string; timeZone: string },
): AskedPeriod {
  let input: unknown;
  try {
    input = JSON.parse(request.body.toString('utf8'));
  } catch {
    throw refusal(
      400,
      'invalid_body',
      t(
        'o corpo deve ser JSON: {"since": "<ISO 8601>", "until": "<ISO 8601>"}',
        'the body must be JSON: {"since": "<ISO 8601>", "until": "<ISO 8601>"}',
      ),
    );
  }
  const parsed = backfillRequestSchema.safeParse(input);
  if (!parsed.success) {
    const details = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`,
    );
    throw refusal(
      400,
      'invalid_body',
      t(
        'o corpo deve ser {"since", "until"}, instantes ISO 8601 com o fuso',
        'the body must be {"since", "until"}, ISO 8601 instants with their offset',
      ),
      details,
    );
  }
  const since = new Date(parsed.data.since);
  const until = new Date(parsed.data.until);
  if (since.getTime() >= until.getTime()) {
    throw refusal(
      400,
      'invalid_period',
      t('"since" deve ser antes de "until"', '"since" must be before "until"'),
    );
  }
  if (until.getTime() > now.getTime() + FUTURE_SLACK_MS) {
    throw refusal(
      400,
      'invalid_period',
      t('"until" não pode estar no futuro', '"until" must not be in the future'),
    );
  }
  if (until.getTime() - since.getTime() > maxDays * DAY_MS) {
    throw refusal(
      400,
      'period_too_long',
      t(
        `uma recuperação cobre no máximo ${maxDays} dias (o que a plataforma guarda); divida o período`,
        `a backfill covers at most ${maxDays} days (what the platform keeps); split the period`,
      ),
    );
  }
  const kept = new Date(now.getTime() - maxDays * DAY_MS);
  const from = localDateTime(kept, where.timeZone);
  const { platform } = where;
  if (until.getTime() <= kept.getTime()) {
    throw refusal(
      400,
      'period_not_kept',
      t(
        `${platform} guarda os leads por ${maxDays} dias: o período pedido acabou antes de ${from} e não há mais o que recuperar; peça um período a partir de então`,
        `the platform keeps leads for ${maxDays} days: the period asked for ended before ${kept.toISOString()}, nothing is left to recover; ask for a period from then on`,
      ),
    );
  }
  if (since.getTime() < kept.getTime()) {
    const notice = say(
      t(
        `${platform} guarda os leads por ${maxDays} dias: o período antes de ${from} não pode mais ser recuperado; foram buscados os leads de ${from} em diante`,
        `the platform keeps leads for ${maxDays} days: the period before ${kept.toISOString()} can no longer be recovered; the leads from then on were listed`,
      ),
    );
    return { period: { since: kept, until }, notice };
  }
  return { period: { since, until } };
}

/** A platform failure, as the operator's answer: the platform's own words, redacted. */
function platformRefusal(error: SourceLookupError): AdminRefusal {
  const message = `${error.service}: ${error.message}`;
  if (error.kind === 'rate-limited' || error.kind === 'unavailable') {
    const seconds = Math.max(1, Math.ceil((error.retryAfterMs ?? 5000) / 1000));
    return refusal(503, 'platform_unavailable', message, [error.kind], {
      'retry-after': String(seconds),
    });
  }
  return refusal(502, 'platform_refused', message, [error.kind]);
}

/** What a backfill asks the platform for: the profile, its platform's listing, period, forms. */
interface BackfillRequest {
  profile: Profile;
  plan: Backfill<Profile>;
  period: BackfillPeriod;
  forms: string[];
  notice?: string;
}

/** The request read and checked, in this order: the profile, its platform, the period, forms. */
async function backfillRequest(context: RouteContext): Promise<BackfillRequest> {
  const profileName = context.profile;
  const profile = await requireProfile(context.deps, profileName);
  const plan = adapterFor(profile).backfill;
  if (!plan) {
    const able = SOURCES.filter((source) => 'backfill' in source && source.backfill).map(
      (source) => source.name,
    );
    throw refusal(
      409,
      'backfill_unsupported',
      t(
        `o perfil '${profileName}' é de ${profile.source}; só perfis de ${able.join(', ')} guardam leads para listar`,
        `profile '${profileName}' is a ${profile.source} profile; only ${able.join(', ')} profiles keep leads to list`,
      ),
    );
  }
  const { period, notice } = backfillPeriod(context.request, context.now(), plan.maxDays, {
    platform: plan.keeper,
    timeZone: await zonesOf(context.deps.config)(profileName),
  });
  const forms = Object.keys(profile.forms ?? {});
  if (forms.length === 0) {
    throw refusal(
      409,
      'no_forms',
      t(
        `o perfil '${profileName}' não indica formulários: inclua o id de cada formulário em "forms" (um {} vazio basta)`,
        `profile '${profileName}' names no forms: add each form's id to its "forms" (an empty {} is enough)`,
      ),
    );
  }
  return { profile, plan, period, forms, ...(notice !== undefined && { notice }) };
}

/** The platform's leads of the period; the listing may not outlive the request. */
async function listPlatformLeads(
  context: RouteContext,
  { profile, plan, period, forms }: BackfillRequest,
): Promise<LeadCapture[]> {
  // The listing is cut short with the time left.
  const budget = Math.max(0, context.remainingMs() - BACKFILL_RESERVE_MS);
  const cut = Number.isFinite(budget) ? AbortSignal.timeout(budget) : undefined;
  try {
    return await plan.list(profile, forms, period, {
      ...context.deps.lookups,
      ...(cut && { signal: cut }),
    });
  } catch (error) {
    if (error instanceof SourceLookupError) throw platformRefusal(error);
    if (cut?.aborted) {
      throw refusal(
        503,
        'platform_too_slow',
        t(
          'a plataforma não listou os leads a tempo; recupere um período mais curto',
          'the platform did not list the leads in time; backfill a shorter period',
        ),
        [],
        { 'retry-after': '5' },
      );
    }
    throw error;
  }
}

/** What recording the listed leads counted. */
type Recording = Pick<
  BackfillResult,
  'alreadyKnown' | 'new' | 'erased' | 'statuses' | 'more' | 'outsideScope'
> & {
  /** New leads whose wake-up message could not be sent: the reconciler wakes them. */
  wakeUpsDeferred: number;
};

const OUTSIDE_SCOPE = Symbol('outside scope');
/** A lead the guard refused to record (its branch is outside the operator's scope): counted. */
function outsideScope(error: unknown): typeof OUTSIDE_SCOPE {
  if (error instanceof AdminRefusal && error.code === 'outside_scope') return OUTSIDE_SCOPE;
  throw error;
}

/** Runs each listed lead through the intake's record step, a few at once, while time is left. */
async function recordCaptures(
  context: RouteContext,
  profile: Profile,
  captures: readonly LeadCapture[],
): Promise<Recording> {
  const { deps } = context;
  const counts: Recording = {
    alreadyKnown: 0,
    new: 0,
    erased: 0,
    statuses: {},
    more: false,
    wakeUpsDeferred: 0,
  };
  const recordDeps = {
    ledger: deps.ledger,
    queue: deps.queue,
    events: {
      // Not a failure: the lead is recorded and the reconciler wakes it within minutes.
      wakeUpDeferred: () => {
        counts.wakeUpsDeferred += 1;
      },
    },
  };
  const receivedAt = context.now();
  const branches = await branchesOf(deps.branches, accountOfProfile(profile));
  for (let i = 0; i < captures.length; i += BACKFILL_CONCURRENCY) {
    if (context.remainingMs() < BACKFILL_RESERVE_MS) {
      counts.more = true;
      break;
    }
    const batch = captures.slice(i, i + BACKFILL_CONCURRENCY);
    const outcomes = await Promise.all(
      batch.map((capture) =>
        recordCapture(recordDeps, context.profile, profile, capture, receivedAt, branches).catch(
          outsideScope,
        ),
      ),
    );
    for (const outcome of outcomes) {
      if (outcome === OUTSIDE_SCOPE) {
        counts.outsideScope = (counts.outsideScope ?? 0) + 1;
      } else if (isDropped(outcome)) {
        counts.erased += 1;
      } else if (outcome.duplicate) {
        counts.alreadyKnown += 1;
      } else {
        counts.new += 1;
        const status = publicStatus(outcome.record.status);
        counts.statuses[status] = (counts.statuses[status] ?? 0) + 1;
      }
    }
  }
  return counts;
}

export async function backfill(context: RouteContext): Promise<HttpResponse> {
  const asked = await backfillRequest(context);
  const captures = await listPlatformLeads(context, asked);
  const { wakeUpsDeferred, ...counts } = await recordCaptures(context, asked.profile, captures);
  context.deps.events?.backfilled?.({
    profile: context.profile,
    found: captures.length,
    alreadyKnown: counts.alreadyKnown,
    new: counts.new,
    erased: counts.erased,
    more: counts.more,
    wakeUpsDeferred,
    client: context.client,
  });
  const body: BackfillResult = {
    profile: context.profile,
    since: asked.period.since.toISOString(),
    until: asked.period.until.toISOString(),
    forms: asked.forms,
    found: captures.length,
    alreadyKnown: counts.alreadyKnown,
    new: counts.new,
    erased: counts.erased,
    statuses: counts.statuses,
    more: counts.more,
    ...(counts.outsideScope !== undefined && { outsideScope: counts.outsideScope }),
    ...(asked.notice !== undefined && { notice: asked.notice }),
  };
  return json(200, body, NO_STORE);
}
