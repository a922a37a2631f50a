/**
 * The dead-letter redrive port: moves every message of the lead queue's dead-letter queue back
 * to the lead queue, for `POST /admin/replay`. Messages carry only lead ids (lead-queue.ts), so a
 * redriven message is harmless when its lead was requeued too or is already final: the
 * worker's `claim` refuses it.
 *
 * Adapters: dlq-redrive-sqs.ts (SQS `StartMessageMoveTask`, asynchronous: it answers `started`
 * or `running`) and dlq-redrive-local.ts (LocalLeadQueue.redrive, synchronous: `moved`).
 * No AWS imports here.
 */

export type RedriveResult =
  /** The messages were moved before the call returned (local queue). */
  | { status: 'moved'; moved: number }
  /** SQS started a move task; it runs on after the call. */
  | { status: 'started'; taskHandle: string }
  /** A move task for the dead-letter queue was already running (SQS allows one at a time). */
  | { status: 'running'; taskHandle?: string; moved?: number; toMove?: number }
  /**
   * Not asked: the operator is scoped to some accounts or branches, and the dead-letter queue
   * holds every account's wake-ups (admin/scoped-deps.ts).
   */
  | { status: 'skipped' };

export interface DlqRedrive {
  /** Starts (or finishes) moving the dead-letter messages back; safe to call again at any time. */
  redrive(): Promise<RedriveResult>;
}
