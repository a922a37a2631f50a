/**
 * The local delivery worker: what the SQS event source and the forwarder Lambda do on AWS, in
 * this process. It polls the local lead queue (lead-queue-local.ts, SQS semantics) and runs
 * `forwardLead` on one message at a time, settling each message as the forwarder Lambda does
 * (message-handback.ts): deleted, re-sent as a fresh delayed message, or made visible again after the
 * delay (a receive is counted each time, and after maxReceiveCount receives it moves to the
 * dead-letter queue, as on AWS);
 * - an error thrown by forwardLead (the ledger unreachable...) → nothing: the message comes back
 *   when its visibility timeout ends, like a Lambda that failed.
 *
 * `stop(deadlineMs)` (the runtime's SIGTERM path): stop polling, let the message in flight finish
 * within the deadline, else hand it back at once (visibility 0). An attempt still running after
 * that holds its lease on the lead; whoever receives the message next waits for the lease.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { isLeadId } from '../../domain/lead-lifecycle.ts';
import { logger } from '../../kernel/observability.ts';
import type { LeadMessage } from '../../ledger/lead-queue.ts';
import type { LocalLeadQueue, LocalQueueMessage } from '../../ledger/lead-queue-local.ts';
import type { ForwardDeps, ForwardOutcome } from './attempt.ts';
import { queueEvents } from './events.ts';
import { forwardLead } from './forward.ts';
import { handBackMessage } from './message-handback.ts';

export interface LocalWorkerOptions {
  queue: LocalLeadQueue;
  deps: ForwardDeps;
  /** How long a received message stays hidden; longer than one attempt's lease. */
  visibilityMs: number;
  /** How long a poll of an empty queue waits for a message (and the pause after a failed poll). */
  pollMs: number;
  /** The use case; forwardLead by default (tests may slow it down). */
  forward?: (message: LeadMessage, deps: ForwardDeps) => Promise<ForwardOutcome>;
}

export interface LocalWorker {
  /** Resolves once stopped: in-flight work finished or handed back within `deadlineMs`. */
  stop(deadlineMs: number): Promise<void>;
}

/** SQS's longest visibility timeout (12 h). */
const MAX_VISIBILITY_MS = 12 * 60 * 60 * 1000;

interface InFlight {
  message: LocalQueueMessage;
  done: Promise<void>;
  /** Set by stop(): the message was handed back; the attempt must not touch it any more. */
  handedBack: boolean;
}

export function startLocalWorker(options: LocalWorkerOptions): LocalWorker {
  const { queue, deps, visibilityMs, pollMs } = options;
  const forward = options.forward ?? ((message, d) => forwardLead(message, d));
  const stopping = new AbortController();
  let current: InFlight | undefined;

  async function handle(flight: InFlight): Promise<void> {
    const { message } = flight;
    if (!isLeadId(message.leadId)) {
      queueEvents.poisonDropped({ messageId: message.id });
      await queue.delete(message.receiptHandle);
      return;
    }
    let outcome: ForwardOutcome;
    try {
      outcome = await forward(
        {
          leadId: message.leadId,
          ...(message.version !== undefined && { version: message.version }),
        },
        deps,
      );
    } catch (error) {
      if (!flight.handedBack) {
        queueEvents.failed({ leadId: message.leadId, messageId: message.id, error });
      }
      return;
    }
    if (flight.handedBack) return;
    await handBackMessage(
      message.leadId,
      outcome,
      queue,
      {
        acknowledge: async () => {
          await queue.delete(message.receiptHandle);
        },
        retryAfter: async (delayMs) => {
          const wait = Math.min(Math.max(delayMs, 0), MAX_VISIBILITY_MS);
          await queue.changeVisibility(message.receiptHandle, wait);
        },
      },
      (error) => queueEvents.resendFailed({ leadId: message.leadId, messageId: message.id, error }),
    );
  }

  async function loop(): Promise<void> {
    while (!stopping.signal.aborted) {
      let message: LocalQueueMessage | undefined;
      let failed = false;
      try {
        // Long polling, as the SQS event source does: a message sent meanwhile ends the wait.
        [message] = await queue.receive({ max: 1, visibilityMs, waitMs: pollMs });
      } catch (error) {
        if (stopping.signal.aborted) return;
        failed = true;
        logger.error('local lead queue poll failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      }
      if (stopping.signal.aborted) {
        // Received while stopping: give it straight back.
        if (message) await queue.changeVisibility(message.receiptHandle, 0).catch(() => false);
        return;
      }
      if (!message) {
        if (failed) await delay(pollMs, undefined, { signal: stopping.signal }).catch(() => {});
        continue;
      }
      const flight: InFlight = { message, done: Promise.resolve(), handedBack: false };
      flight.done = handle(flight).catch((error: unknown) => {
        if (flight.handedBack) return;
        logger.error('local lead queue update failed', {
          leadId: message.leadId,
          error: error instanceof Error ? error.message : String(error),
        });
      });
      current = flight;
      await flight.done;
      current = undefined;
    }
  }

  const running = loop();

  return {
    async stop(deadlineMs) {
      stopping.abort();
      const flight = current;
      if (flight) {
        const cancel = new AbortController();
        const timer = delay(Math.max(0, deadlineMs), 'deadline' as const, {
          signal: cancel.signal,
        }).catch(() => 'finished' as const);
        const first = await Promise.race([flight.done.then(() => 'finished' as const), timer]);
        cancel.abort();
        if (first === 'deadline') {
          flight.handedBack = true;
          await queue.changeVisibility(flight.message.receiptHandle, 0).catch(() => false);
          logger.warn('local worker stopped with a delivery in flight: message handed back', {
            leadId: flight.message.leadId,
          });
          return;
        }
      }
      await running;
    },
  };
}
