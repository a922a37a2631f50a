/**
 * The ambiguous POST (see forward.ts): which failures may have created the prospect upstream
 * (`classifyUnavailable`); step 3 of an attempt, `look up`, which resolves one by finding the
 * prospect before posting again (`matchesProspect`, the newest id); and whether the account's
 * key may look prospects up at all (`checkLookupPermission`: without that permission
 * exactly-once cannot be assured, and the profile's `ambiguous` setting decides).
 */
import type { ExternalId } from '../../domain/json.ts';
import type { Prospect } from '../../domain/prospect.ts';
import { METRICS } from '../../kernel/metrics.ts';
import type { UpstreamAccess } from '../../upstream/paced-client.ts';
import { UpstreamError } from '../../upstream/upstream-errors.ts';
import type { ProspectMatch } from '../../upstream/upstream-prospects.ts';
import type { ForwardOutcome, Held } from './attempt.ts';
import {
  accountFailure,
  delivered,
  noteError,
  pacerBusy,
  park,
  rateLimited,
  release,
} from './transitions.ts';

/** Connection errors that mean the request never left: nothing can have been created. */
const NEVER_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
]);
/** HTTP statuses after which the upstream may have created the prospect. */
const AMBIGUOUS_STATUSES = new Set([500, 502, 504]);

function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

/** What an `unavailable` POST says: did the request leave, may it have taken effect? */
export function classifyUnavailable(error: UpstreamError): {
  /** The request never reached the upstream (refused, DNS). */
  neverSent: boolean;
  /** The upstream may have created the prospect. */
  ambiguous: boolean;
  /** ...and may still be doing so (a timeout, a connection lost mid-way): let it settle. */
  settle: boolean;
} {
  const code = causeCode(error);
  if (code !== undefined && NEVER_SENT.has(code)) {
    return { neverSent: true, ambiguous: false, settle: false };
  }
  if (error.status !== undefined) {
    // 2xx without an id: created, id unknown. 500/502/504: the request may have been processed.
    const created = error.status >= 200 && error.status < 300;
    const ambiguous = created || AMBIGUOUS_STATUSES.has(error.status);
    return { neverSent: false, ambiguous, settle: false };
  }
  // No answer at all after the request left: a timeout or a lost connection.
  return { neverSent: false, ambiguous: true, settle: true };
}

/** True when a failed POST may still have created the prospect upstream. */
export function isAmbiguousPost(error: UpstreamError): boolean {
  return error.kind === 'unavailable' && classifyUnavailable(error).ambiguous;
}

function digits(value: string | null | undefined): string {
  return (value ?? '').replace(/\D/g, '');
}

/** Same email (ignoring case) and same cellphone (digits; with or without the country code). */
export function matchesProspect(match: ProspectMatch, prospect: Prospect): boolean {
  const email = prospect.email?.trim().toLowerCase();
  if (!email || match.email?.trim().toLowerCase() !== email) return false;
  const wanted = digits(prospect.cellphone);
  const found = digits(match.cellphone);
  if (wanted.length < 8 || found.length < 8) return false;
  return wanted === found || wanted.endsWith(found) || found.endsWith(wanted);
}

function newestId(matches: readonly ProspectMatch[]): ExternalId | undefined {
  let best: ProspectMatch | undefined;
  for (const match of matches) {
    if (!best || BigInt(String(match.idProspect)) > BigInt(String(best.idProspect))) best = match;
  }
  return best?.idProspect;
}

/**
 * After an ambiguous POST: delivered when the upstream has the prospect; a wait when the first
 * request may still land; undefined when the POST must be sent (again).
 */
export async function lookUp(held: Held, prospect: Prospect): Promise<ForwardOutcome | undefined> {
  const since = Date.parse(held.lead.ambiguousSince ?? '');
  try {
    const matches = await held.access.client.findProspects({
      ...(prospect.email ? { email: prospect.email } : {}),
      ...(prospect.cellphone ? { cellphone: prospect.cellphone } : {}),
      registeredSince: new Date(since - held.options.lookupMarginMs),
    });
    const found = newestId(matches.filter((match) => matchesProspect(match, prospect)));
    if (found !== undefined) {
      held.event.note = 'found-by-lookup';
      return await delivered(held, found, 'delivered-by-lookup');
    }
    held.event.note = 'lookup-no-match';
    const settled = since + held.options.settleMs;
    if (held.lead.ambiguousSettle && held.now().getTime() < settled) {
      // A timed-out request may still be creating it: look once more when it must have landed.
      return await release(held, 'lookup-settling', {
        error: 'ambiguous POST: looking up again before posting',
        until: new Date(settled),
        counted: false,
        failed: false,
      });
    }
    return undefined;
  } catch (error) {
    const paced = await pacerBusy(held, error);
    if (paced) return paced;
    if (!(error instanceof UpstreamError)) throw error;
    noteError(held, error);
    if (error.kind === 'rate-limited') return await rateLimited(held, error);
    if (error.kind === 'unavailable')
      return await accountFailure(held, error, 'lookup-unavailable');
    // unauthorized (the key may not read prospects) or rejected (the lookup's own query).
    held.events.metric(METRICS.upstreamLookupForbidden);
    const parks = held.profile.ambiguous === 'park';
    held.events.lookupSkipped({
      leadId: held.leadId,
      profile: held.lead.profile,
      errorKind: error.kind,
      ...(error.status !== undefined && { errorStatus: error.status }),
      outcome: parks ? 'parked' : 'posted-again',
    });
    if (parks) {
      const reason =
        'the upstream may already have this prospect (an earlier attempt got no answer), and the key may not look prospects up: check in the upstream, then retry or mark it delivered';
      return await park(held, reason, 'ambiguous-parked');
    }
    held.event.note = `lookup-${error.kind}-posted-anyway`;
    delete held.event.errorKind;
    delete held.event.errorStatus;
    return undefined;
  }
}

// --- exactly-once made visible ----------------------------------------------------------------

/** Whether the upstream key may look prospects up (what resolves an ambiguous POST). */
export type LookupPermission = 'permitted' | 'forbidden' | 'unknown';

/**
 * Asks the upstream for a prospect that cannot exist: an answer (even empty) means the key may
 * look prospects up; 401/403 means it may not, so an ambiguous POST cannot be checked and a
 * crash at the wrong moment can create a duplicate (docs/operations.md). `unknown` when the
 * upstream did not answer.
 */
export async function checkLookupPermission(
  client: UpstreamAccess['client'],
  now: Date = new Date(),
): Promise<LookupPermission> {
  try {
    await client.findProspects({
      email: 'lookup-permission-check@invalid.invalid',
      registeredSince: now,
    });
    return 'permitted';
  } catch (error) {
    if (error instanceof UpstreamError && error.kind === 'unauthorized') return 'forbidden';
    return 'unknown';
  }
}
