/**
 * The delivery use case: `forwardLead(leadId)` takes one queued lead upstream, once. It runs for
 * every queue message (the SQS Lambda in handler.ts, the local worker in worker-local.ts) and
 * says what the caller should do with the message: `done` (delete it) or `retry` after
 * `delayMs` (hand it back to the queue for that long). No AWS imports: ports come in `deps`.
 *
 * Steps, each a conditional write on the lead (functions/ledger/lead-ledger.ts):
 * 1. `claim` with a lease longer than everything this attempt may wait for (Graph lookup,
 *    pacing, prospect lookup, POST). A final lead → done (never posted again); lease held by
 *    another attempt → retry once that lease has run out. A lead found `sending` with an expired
 *    lease was left by an attempt that died mid-way: it is treated as an ambiguous POST.
 * 2. A Meta capture still `pending` is fetched from Graph and completed (`completeMetaCapture`).
 * 3. Mapped with the profile's CURRENT configuration, so a parked lead replayed after a fix is
 *    mapped again; missing required fields → parked.
 * 4. After an ambiguous POST (see below), the prospect is LOOKED UP before posting again.
 * 5. POST through the upstream client and the pacer shared by every instance.
 *
 * Outcomes of the upstream's answer (docs/operations.md has the why):
 *
 * | answer                               | ledger                          | outcome                        |
 * |--------------------------------------|---------------------------------|--------------------------------|
 * | created                              | markDelivered(idProspect)       | done                           |
 * | 400-class `rejected`                 | markRejected(mensagens)         | done (never retried)           |
 * | 401/403 `unauthorized`               | release (not counted); the      | retry after authPauseMs        |
 * |                                      | shared pacer paused authPauseMs |                                |
 * | 429 `rate-limited`                   | release (not counted)           | retry after Retry-After        |
 * | `unavailable` (5xx, timeout, network)| release (counted), or markDead  | retry with backoff + full      |
 * |                                      | at maxAttempts                  | jitter; done when dead         |
 *
 * Only failures that say something about this lead's delivery count toward maxAttempts: a 401
 * (our key), a 429 (everyone's quota) or a paced-out wait would otherwise kill every lead in
 * flight during one incident. The queue's maxReceiveCount still bounds them (DLQ, alarmed).
 *
 * Ambiguous POST: a timeout, a network failure or a 5xx after the request may have reached the
 * upstream. The upstream may have created the prospect, so the lead records `ambiguousSince`
 * and the next attempt first calls `findProspects` (email + cellphone, registered since
 * ambiguousSince − lookupMarginMs). A match → delivered with its id, no second POST. No match →
 * POST. Lookup not permitted (401/403) → POST anyway (at-least-once) and say so in the log.
 *
 * Logs and metrics carry lead ids, profiles, statuses, attempt numbers and error kinds, never
 * personal data and never the upstream's messages (they may quote what the person typed).
 */

import type { Profile, UpstreamConfig } from '../config/config-schema.ts';
import type { ConfigSource } from '../config/config-source.ts';
import type { ExternalId } from '../domain/json.ts';
import type { LeadCapture } from '../domain/lead.ts';
import { mapLeadToProspect } from '../domain/map-lead.ts';
import type { Prospect } from '../domain/prospect.ts';
import { count, logger, seconds } from '../kernel/observability.ts';
import type { FailureDetails, LeadLedger, LeadRecord, LeadStatus } from '../ledger/lead-ledger.ts';
import { LeadStateError } from '../ledger/lead-ledger.ts';
import type { LeadQueue } from '../ledger/lead-queue.ts';
import { completeMetaCapture } from '../sources/meta.ts';
import { DEFAULT_GRAPH_TIMEOUT_MS, type MetaGraph, MetaGraphError } from '../sources/meta-graph.ts';
import type { Pacer } from '../upstream/pacer.ts';
import {
  type ProspectMatch,
  type UpstreamClient,
  UpstreamError,
  upstreamClientFor,
} from '../upstream/upstream-client.ts';

/**
 * `retry.counted`: whether this attempt counted against maxAttempts. A retry that was not counted
 * (401, 429, pacing, Graph, a failed lookup, a duplicate message) says nothing about the lead,
 * so the caller sends a fresh message with the delay instead of delaying this one: a long
 * incident then uses up no SQS receives and puts nothing in the dead-letter queue.
 */
export type ForwardOutcome =
  | { kind: 'done'; reason: string; delayMs?: undefined }
  | { kind: 'retry'; delayMs: number; reason: string; counted: boolean };

export type ForwardMetric =
  | 'LeadDelivered'
  | 'LeadRejected'
  | 'LeadRetried'
  | 'LeadDead'
  | 'LeadParked'
  | 'UpstreamAuthFailure';

/** One line per forwardLead call: ids, statuses and kinds only. */
export interface ForwardEvent {
  leadId: string;
  profile?: string;
  /** The lead's status after this attempt. */
  status?: LeadStatus;
  /** 1-based: failed attempts before this one + 1. */
  attempt?: number;
  outcome: ForwardOutcome['kind'];
  reason: string;
  delayMs?: number;
  /** The upstream / Graph error kind, when there was one. */
  errorKind?: string;
  /** HTTP status of that error, when the upstream answered. */
  errorStatus?: number;
  /** Anything worth a note (`lookup-not-permitted`, `found-by-lookup`). */
  note?: string;
  /** On a retry: seconds since the lead was received (the `LeadWaitingSeconds` metric). */
  waitingSeconds?: number;
}

export interface ForwardEvents {
  finished(event: ForwardEvent): void;
  metric(name: ForwardMetric): void;
}

/** A pacer that may write its pauses asynchronously (pacer-dynamodb.ts): `flush` awaits them. */
export type DeliveryPacer = Pacer & { flush?: () => Promise<void> };

/** The upstream as delivery uses it: a client paced by the shared pacer. */
export interface UpstreamAccess {
  client: UpstreamClient;
  pacer: DeliveryPacer;
  /** The client's per-call timeout (sizes the lease). */
  timeoutMs: number;
}

export interface ForwardOptions {
  /** Counted failures before the lead is dead. Default 8. */
  maxAttempts?: number;
  /** Longest pacing wait an attempt accepts before handing the lead back. Default 5 000 ms. */
  maxPacingWaitMs?: number;
  /** Lease on the lead; default: Graph timeout + 2 × (upstream timeout + pacing wait) + 5 s. */
  leaseMs?: number;
  /** Pause after the upstream refused our key (401/403). Default 5 min. */
  authPauseMs?: number;
  /** Backoff after `unavailable`: full jitter over min(cap, base × 2^(n−1)). 2 s and 15 min. */
  backoffBaseMs?: number;
  backoffCapMs?: number;
  /** Earliest retry after an ambiguous POST, so its effect can land before the lookup. 30 s. */
  ambiguousSettleMs?: number;
  /** How far before the ambiguous attempt the lookup searches. Default 60 s. */
  lookupMarginMs?: number;
  /** Retry delay when a 429 names no Retry-After. Default 1 s (production's window). */
  rateLimitFallbackMs?: number;
  /** Graph's per-call timeout (sizes the lease). Default 10 s. */
  graphTimeoutMs?: number;
}

export interface ForwardDeps {
  ledger: LeadLedger;
  config: Pick<ConfigSource, 'profile'>;
  /** The upstream client and the shared pacer for the current upstream configuration. */
  upstream: () => Promise<UpstreamAccess>;
  graph: MetaGraph;
  events?: ForwardEvents;
  /** Called after the upstream refused the key (AwsConfigSource.refresh: re-read the secret). */
  onUnauthorized?: () => void;
  /** [0, 1); Math.random by default (jitter). */
  random?: () => number;
  options?: ForwardOptions;
}

export const DEFAULT_MAX_ATTEMPTS = 8;
export const DEFAULT_MAX_PACING_WAIT_MS = 5_000;
export const DEFAULT_AUTH_PAUSE_MS = 5 * 60_000;
export const DEFAULT_BACKOFF_BASE_MS = 2_000;
export const DEFAULT_BACKOFF_CAP_MS = 15 * 60_000;
export const DEFAULT_AMBIGUOUS_SETTLE_MS = 30_000;
export const DEFAULT_LOOKUP_MARGIN_MS = 60_000;
const LEASE_MARGIN_MS = 5_000;
/** Spread of retries that all wait for the same moment (auth pause, Retry-After). */
const SPREAD_MS = 5_000;
/** Statuses a refused claim cannot change: the message is done. */
const SETTLED: ReadonlySet<LeadStatus> = new Set([
  'delivered',
  'rejected',
  'dead',
  'parked',
  'test',
]);

type ResolvedOptions = Required<Omit<ForwardOptions, 'leaseMs'>> & { leaseMs?: number };

function resolveOptions(options: ForwardOptions = {}): ResolvedOptions {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!(Number.isInteger(maxAttempts) && maxAttempts >= 1)) {
    throw new RangeError('maxAttempts must be a whole number ≥ 1');
  }
  return {
    maxAttempts,
    maxPacingWaitMs: options.maxPacingWaitMs ?? DEFAULT_MAX_PACING_WAIT_MS,
    ...(options.leaseMs !== undefined && { leaseMs: options.leaseMs }),
    authPauseMs: options.authPauseMs ?? DEFAULT_AUTH_PAUSE_MS,
    backoffBaseMs: options.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS,
    backoffCapMs: options.backoffCapMs ?? DEFAULT_BACKOFF_CAP_MS,
    ambiguousSettleMs: options.ambiguousSettleMs ?? DEFAULT_AMBIGUOUS_SETTLE_MS,
    lookupMarginMs: options.lookupMarginMs ?? DEFAULT_LOOKUP_MARGIN_MS,
    rateLimitFallbackMs: options.rateLimitFallbackMs ?? 1_000,
    graphTimeoutMs: options.graphTimeoutMs ?? DEFAULT_GRAPH_TIMEOUT_MS,
  };
}

/** The lease an attempt takes: longer than all it may wait for. */
export function leaseMsFor(upstreamTimeoutMs: number, options: ForwardOptions = {}): number {
  const o = resolveOptions(options);
  return (
    o.leaseMs ?? o.graphTimeoutMs + 2 * (upstreamTimeoutMs + o.maxPacingWaitMs) + LEASE_MARGIN_MS
  );
}

/** Full jitter: uniform in [0, min(cap, base × 2^(attempt − 1))). */
export function backoffMs(attempt: number, random: () => number, base: number, cap: number) {
  const ceiling = Math.min(cap, base * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/** True when a failed POST may still have created the prospect upstream. */
export function isAmbiguousPost(error: UpstreamError): boolean {
  if (error.kind !== 'unavailable') return false;
  // The endpoint does not exist (a wrong base URL): nothing was created.
  if (error.status !== undefined && [404, 405, 410].includes(error.status)) return false;
  // The connection was never made: the request never left.
  const code = causeCode(error);
  return !(code && ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(code));
}

function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
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

/** Logs and EMF metrics through Powertools (functions/kernel/observability.ts). */
export const forwardEvents: ForwardEvents = {
  finished(event) {
    const failed = event.errorKind !== undefined;
    if (failed || event.status === 'dead') logger.warn('lead delivery attempt', { ...event });
    else logger.info('lead delivery attempt', { ...event });
    // Every retry, counted or not (WaitingLeadsAlarm): a held-back lead is re-sent as a new
    // message, so the queue's age of oldest message no longer tells how long a lead has waited.
    if (event.waitingSeconds !== undefined) seconds('LeadWaitingSeconds', event.waitingSeconds);
  },
  metric(name) {
    count(name);
  },
};

/** Thrown by the pacer when its next slot is too far away (pacer-dynamodb.ts). */
function pacerWait(error: unknown): number | undefined {
  if (
    error instanceof Error &&
    error.name === 'PacerWaitError' &&
    typeof (error as Error & { waitMs?: unknown }).waitMs === 'number'
  ) {
    return (error as Error & { waitMs: number }).waitMs;
  }
  return undefined;
}

/**
 * Sends one lead upstream (see the module comment). Throws only on infrastructure failures (the
 * ledger unreachable, the configuration unreadable): the caller leaves the message to come back
 * after its visibility timeout, by which time the lease has run out.
 */
export async function forwardLead(
  leadId: string,
  deps: ForwardDeps,
  now: () => Date = () => new Date(),
): Promise<ForwardOutcome> {
  const options = resolveOptions(deps.options);
  const random = deps.random ?? Math.random;
  const events = deps.events ?? forwardEvents;
  const access = await deps.upstream();
  const leaseMs = leaseMsFor(access.timeoutMs, deps.options);

  const event: ForwardEvent = { leadId, outcome: 'done', reason: '' };
  const finish = (
    outcome: ForwardOutcome,
    status?: LeadStatus,
    lead?: Pick<LeadRecord, 'receivedAt'>,
  ): ForwardOutcome => {
    const receivedMs = lead ? Date.parse(lead.receivedAt) : Number.NaN;
    Object.assign(event, {
      outcome: outcome.kind,
      reason: outcome.reason,
      ...(outcome.kind === 'retry' && { delayMs: outcome.delayMs }),
      ...(outcome.kind === 'retry' &&
        Number.isFinite(receivedMs) && {
          waitingSeconds: Math.max(0, Math.round((now().getTime() - receivedMs) / 1000)),
        }),
      ...(status && { status }),
    });
    events.finished(event);
    return outcome;
  };

  /** Where the lead stands, or why the message is done / must wait (no claim taken). */
  const refusal = (current: LeadRecord | undefined): ForwardOutcome | undefined => {
    if (!current) return finish({ kind: 'done', reason: 'unknown-lead' });
    Object.assign(event, { profile: current.profile, attempt: current.attempts });
    if (SETTLED.has(current.status)) {
      return finish({ kind: 'done', reason: `already-${current.status}` }, current.status);
    }
    return undefined;
  };

  // A read first: a final lead (the usual duplicate message) costs no write, and a lead left
  // `sending` by an attempt that died mid-way is recognised (its POST may have gone out).
  const before = await deps.ledger.get(leadId);
  const settled = refusal(before);
  if (settled) return settled;

  const lead = await deps.ledger.claim(leadId, leaseMs, now());
  if (!lead) {
    const current = await deps.ledger.get(leadId);
    const final = refusal(current);
    if (final || !current) return final ?? finish({ kind: 'done', reason: 'unknown-lead' });
    // Another attempt holds the lease (a duplicate message): come back when it has run out.
    const leaseLeft = current.leaseUntil ? Date.parse(current.leaseUntil) - now().getTime() : 0;
    return finish(
      {
        kind: 'retry',
        delayMs: Math.max(leaseLeft, 0) + 1_000,
        reason: 'lease-held',
        counted: false,
      },
      current.status,
      current,
    );
  }
  Object.assign(event, { profile: lead.profile, attempt: lead.attempts + 1 });
  const claimed: LeadRecord = lead;

  // --- the failure paths, each one transition ----------------------------------------------

  const park = async (reason: string, code: string): Promise<ForwardOutcome> => {
    await deps.ledger.markParked(leadId, reason, now());
    events.metric('LeadParked');
    return finish({ kind: 'done', reason: code }, 'parked');
  };

  /** Retry without counting an attempt: the failure says nothing about this lead. */
  const holdBack = async (
    error: string,
    delayMs: number,
    code: string,
    details: FailureDetails = {},
  ): Promise<ForwardOutcome> => {
    await deps.ledger.release(leadId, error, now(), { ...details, countAttempt: false });
    events.metric('LeadRetried');
    return finish(
      { kind: 'retry', delayMs: Math.ceil(delayMs), reason: code, counted: false },
      'queued',
      claimed,
    );
  };

  /** A counted failure: retry with backoff, or dead once maxAttempts is reached. */
  const fail = async (
    error: string,
    code: string,
    details: FailureDetails = {},
    minDelayMs = 0,
  ): Promise<ForwardOutcome> => {
    const attempt = claimed.attempts + 1;
    if (attempt >= options.maxAttempts) {
      await deps.ledger.markDead(leadId, error, now(), details);
      events.metric('LeadDead');
      return finish({ kind: 'done', reason: `dead-after-${attempt}-attempts` }, 'dead');
    }
    await deps.ledger.release(leadId, error, now(), details);
    events.metric('LeadRetried');
    const delayMs = Math.max(
      minDelayMs,
      backoffMs(attempt, random, options.backoffBaseMs, options.backoffCapMs),
    );
    return finish({ kind: 'retry', delayMs, reason: code, counted: true }, 'queued', claimed);
  };

  const noteError = (error: { kind: string; status?: number | undefined }) => {
    event.errorKind = error.kind;
    if (error.status !== undefined) event.errorStatus = error.status;
  };

  try {
    // --- 1. the profile and the capture ------------------------------------------------------
    const profile = await deps.config.profile(claimed.profile);
    if (!profile) {
      return await park(`profile '${claimed.profile}' is not configured`, 'no-profile');
    }

    let capture: LeadCapture = claimed.capture;
    if (capture.pending) {
      if (profile.source !== 'meta') {
        return await park(
          `the capture waits for a ${capture.pending.kind} lookup, but profile '${claimed.profile}' is not a Meta profile`,
          'pending-without-meta-profile',
        );
      }
      const completed = await completeFromGraph(capture, profile);
      if ('outcome' in completed) return completed.outcome;
      capture = completed.capture;
      if (capture.isTest && !profile.deliverTestLeads) {
        return await park(
          'Meta test lead (Lead Ads Testing Tool answers): not delivered; set deliverTestLeads on the profile to deliver test leads',
          'test-lead',
        );
      }
    }

    // --- 2. mapping with the current profile ----------------------------------------------------
    const mapped = mapLeadToProspect(capture, profile);
    if (mapped.missing.length > 0) {
      return await park(`required fields missing: ${mapped.missing.join(', ')}`, 'missing-fields');
    }
    const prospect = mapped.prospect;

    // --- 3. after an ambiguous POST: look up before posting again -------------------------------
    // An attempt that was cut off while `sending` (a Lambda timeout, a crash, a worker stopped
    // mid-way) may have posted: treat it as ambiguous from its claim (its last transition).
    const interrupted = before?.status === 'sending' ? before.updatedAt : undefined;
    if (interrupted && !claimed.ambiguousSince) event.note = 'previous-attempt-interrupted';
    const ambiguousSince = claimed.ambiguousSince ?? interrupted;
    const keep: FailureDetails = ambiguousSince ? { ambiguousSince } : {};
    if (ambiguousSince) {
      const since = new Date(Date.parse(ambiguousSince) - options.lookupMarginMs);
      try {
        const matches = await access.client.findProspects({
          ...(prospect.email ? { email: prospect.email } : {}),
          ...(prospect.cellphone ? { cellphone: prospect.cellphone } : {}),
          registeredSince: since,
        });
        const found = newestId(matches.filter((match) => matchesProspect(match, prospect)));
        if (found !== undefined) {
          await deps.ledger.markDelivered(leadId, found, now());
          events.metric('LeadDelivered');
          event.note = 'found-by-lookup';
          return finish({ kind: 'done', reason: 'delivered-by-lookup' }, 'delivered');
        }
        event.note = 'lookup-no-match';
      } catch (error) {
        const waitMs = pacerWait(error);
        if (waitMs !== undefined) {
          return await holdBack(
            'pacer: upstream paused',
            waitMs + spread(random),
            'pacer-busy',
            keep,
          );
        }
        if (!(error instanceof UpstreamError)) throw error;
        noteError(error);
        if (error.kind === 'rate-limited') {
          return await holdBack(error.message, rateLimitDelay(error), 'rate-limited', keep);
        }
        if (error.kind === 'unavailable') {
          // Not counted: this lead may already exist upstream and only a lookup can tell, so a
          // failed lookup says nothing new about it and must not push it towards `dead`. The
          // queue's maxReceiveCount still bounds it (DLQ, alarmed, replayable), as for 429s.
          const delayMs = backoffMs(
            claimed.attempts + 1,
            random,
            options.backoffBaseMs,
            options.backoffCapMs,
          );
          return await holdBack(error.message, delayMs, 'lookup-unavailable', keep);
        }
        // unauthorized (the key may not read prospects) or rejected (the lookup's own query):
        // at-least-once wins, post anyway.
        event.note = `lookup-${error.kind}-posted-anyway`;
        delete event.errorKind;
        delete event.errorStatus;
        logger.warn('prospect lookup not possible after an ambiguous POST; posting again', {
          leadId,
          profile: claimed.profile,
          errorKind: error.kind,
          ...(error.status !== undefined && { errorStatus: error.status }),
        });
      }
    }

    // --- 4. the POST -----------------------------------------------------------------------------
    const postStarted = now();
    try {
      const created = await access.client.createProspect(prospect);
      await deps.ledger.markDelivered(leadId, created.idProspect, now());
      events.metric('LeadDelivered');
      return finish({ kind: 'done', reason: 'delivered' }, 'delivered');
    } catch (error) {
      const waitMs = pacerWait(error);
      if (waitMs !== undefined) {
        return await holdBack(
          'pacer: upstream paused',
          waitMs + spread(random),
          'pacer-busy',
          keep,
        );
      }
      if (!(error instanceof UpstreamError)) throw error;
      noteError(error);
      switch (error.kind) {
        case 'rejected': {
          const messages = error.messages.length > 0 ? error.messages : [error.message];
          await deps.ledger.markRejected(leadId, messages, now());
          events.metric('LeadRejected');
          return finish({ kind: 'done', reason: 'rejected' }, 'rejected');
        }
        case 'unauthorized': {
          // Our key (or its permission) is wrong: stop every instance for a while, keep the lead.
          access.pacer.pauseUntil(now().getTime() + options.authPauseMs);
          events.metric('UpstreamAuthFailure');
          deps.onUnauthorized?.();
          return await holdBack(
            error.message,
            options.authPauseMs + spread(random),
            'unauthorized',
            keep,
          );
        }
        case 'rate-limited':
          return await holdBack(error.message, rateLimitDelay(error), 'rate-limited', keep);
        case 'unavailable': {
          const ambiguous = isAmbiguousPost(error);
          const since = ambiguousSince ?? (ambiguous ? postStarted.toISOString() : undefined);
          if (ambiguous) event.note = 'ambiguous-post';
          return await fail(
            error.message,
            ambiguous ? 'ambiguous-post' : 'unavailable',
            since ? { ambiguousSince: since } : {},
            since ? options.ambiguousSettleMs : 0,
          );
        }
      }
      throw error;
    }
  } catch (error) {
    // The lease was lost to another attempt (ours ran too long): that attempt owns the lead now.
    if (error instanceof LeadStateError) {
      logger.error('lead changed under the delivery attempt', {
        leadId,
        transition: error.transition,
        status: error.status,
      });
      return finish({ kind: 'done', reason: 'lease-lost' }, error.status);
    }
    throw error;
  } finally {
    await access.pacer.flush?.().catch(() => undefined);
  }

  // --- helpers that need the closure --------------------------------------------------------

  function spread(rand: () => number): number {
    return Math.floor(rand() * SPREAD_MS);
  }

  function rateLimitDelay(error: UpstreamError): number {
    return (error.retryAfterMs ?? options.rateLimitFallbackMs) + Math.floor(random() * 250);
  }

  async function completeFromGraph(
    pending: LeadCapture,
    profile: Extract<Profile, { source: 'meta' }>,
  ): Promise<{ capture: LeadCapture } | { outcome: ForwardOutcome }> {
    const leadgenId = pending.pending?.leadgenId ?? '';
    try {
      const graphLead = await deps.graph.fetchLead(leadgenId, {
        graphBaseUrl: profile.graphBaseUrl,
        accessToken: profile.pageAccessToken,
        appSecret: profile.appSecret,
      });
      return { capture: completeMetaCapture(pending, graphLead) };
    } catch (error) {
      if (!(error instanceof MetaGraphError)) throw error;
      event.errorKind = `graph-${error.kind}`;
      if (error.status !== undefined) event.errorStatus = error.status;
      switch (error.kind) {
        case 'rejected':
          return { outcome: await park(`Meta Graph: ${error.message}`, 'graph-rejected') };
        case 'unauthorized':
          // The page token: an operator fixes it; the lead waits, counted against nothing.
          return {
            outcome: await holdBack(
              error.message,
              options.authPauseMs + spread(random),
              'graph-unauthorized',
            ),
          };
        case 'rate-limited':
          return {
            outcome: await holdBack(
              error.message,
              (error.retryAfterMs ?? 60_000) + spread(random),
              'graph-rate-limited',
            ),
          };
        case 'unavailable':
          return { outcome: await fail(error.message, 'graph-unavailable') };
      }
    }
  }
}

// --- what the queue consumers share --------------------------------------------------------

/**
 * A fresh message for a held-back lead (a retry that was not counted), delayed by `delayMs` as
 * far as the queue allows (`queueDelaySeconds`: at most 900 s; a longer wait is re-sent again).
 * False when it could not be sent: the caller then delays the message it holds instead.
 */
export async function resendHeldBack(
  queue: Pick<LeadQueue, 'send'>,
  leadId: string,
  delayMs: number,
  log: Record<string, unknown> = {},
): Promise<boolean> {
  try {
    await queue.send(leadId, { delaySeconds: delayMs / 1000 });
    return true;
  } catch (error) {
    logger.warn('could not re-send a held-back lead; its message is delayed instead', {
      ...log,
      leadId,
      error: error instanceof Error ? error.name : String(error),
    });
    return false;
  }
}

// --- wiring helper shared by the AWS and local wiring -----------------------------------------

/**
 * `ForwardDeps.upstream` over a configuration: a client for the current upstream settings (a new
 * one when they change, e.g. after a rotated secret), paced by `pacerFor(settings)` (one pacer
 * per distinct limits).
 */
export function upstreamAccess(
  config: Pick<ConfigSource, 'upstream'>,
  pacerFor: (upstream: UpstreamConfig) => DeliveryPacer,
  options: { fetch?: typeof fetch } = {},
): () => Promise<UpstreamAccess> {
  let cached: { key: string; access: UpstreamAccess } | undefined;
  const pacers = new Map<string, DeliveryPacer>();
  return async () => {
    const upstream = await config.upstream();
    const key = JSON.stringify([
      upstream.baseUrl,
      upstream.username,
      upstream.password,
      upstream.maxPerSecond,
      upstream.maxPerMinute,
      upstream.timeoutMs,
      upstream.partnerTokenField,
    ]);
    if (cached?.key === key) return cached.access;
    const limits = `${upstream.maxPerSecond}/${upstream.maxPerMinute}`;
    let pacer = pacers.get(limits);
    if (!pacer) {
      pacer = pacerFor(upstream);
      pacers.set(limits, pacer);
    }
    const client = upstreamClientFor(upstream, pacer, options.fetch);
    cached = { key, access: { client, pacer, timeoutMs: upstream.timeoutMs } };
    return cached.access;
  };
}
