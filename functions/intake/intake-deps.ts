/**
 * What the intake's use cases (intake.ts, the webhooks and forms; prospect-api.ts, the Prospect
 * API) are given: the ports (configuration, ledger, queue), the events they report (events.ts
 * implements them), a clock, and what the invocation tells about itself. No AWS: the wirings
 * (wiring-aws.ts, wiring-local.ts) fill these in.
 */
import type { ConfigSource } from '../config/config-source.ts';
import type { LeadLedger } from '../ledger/lead-ledger.ts';
import type { LeadQueue } from '../ledger/lead-queue.ts';
import type { BranchDirectory } from '../upstream/branch-directory.ts';
import type { TokenGuessThrottle } from './token-guessing.ts';

export interface IntakeEvents {
  /** One structured event per accepted lead; never personal data. */
  accepted(event: {
    leadId: string;
    profile: string;
    source: string;
    status: string;
    duplicate: boolean;
  }): void;
  refused(event: { profile: string; status: number; code: string }): void;
  /** The lead's first message could not be sent; the reconciler wakes it within minutes. */
  wakeUpDeferred(event: { leadId: string; error: unknown }): void;
  /**
   * Leads of one request dropped because their person's data was erased on request (sent again
   * by their platform): how many, never what they carried.
   */
  erasedDropped?(event: { profile: string; source: string; leads: number }): void;
  /** The token-guessing counters could not be read or written: the 403 stands unthrottled. */
  throttleUnavailable?(error: unknown): void;
}

/** How the Prospect API waits for its lead's delivery (prospect-api.ts). */
export interface ProspectWait {
  /** The longest wait after recording the lead; 0 answers 202 at once. */
  budgetMs: number;
  /** The first poll of the ledger comes after this long... */
  firstPollMs: number;
  /** ...each next one 1.5 times later, up to this. */
  maxPollMs: number;
}

export interface IntakeDeps {
  config: ConfigSource;
  ledger: LeadLedger;
  queue: LeadQueue;
  /**
   * Wrong tokens counted per profile and source address (token-guessing.ts); absent: none
   * counted (the use case's own tests).
   */
  tokenGuesses?: TokenGuessThrottle;
  /** Each account's named branches (configured, then learned); absent: none. */
  branches?: BranchDirectory;
  events?: IntakeEvents;
  now?: () => Date;
  /** Overrides of PROSPECT_WAIT (prospect-api.ts). */
  prospectWait?: Partial<ProspectWait>;
  /** Default: a timer. */
  sleep?: (ms: number) => Promise<void>;
}

/** What the use case knows about the invocation running it. */
export interface IntakeInvocation {
  /** Lambda's context.getRemainingTimeInMillis. */
  remainingMs(): number;
}
