/**
 * Step 4 of an attempt, `post`: the prospect goes to the upstream through the account's client
 * and shared pacer, and the answer is settled (transitions.ts): created → delivered; refused by
 * the upstream → rejected; our key refused, the upstream down, a 429 or the pacer busy → the
 * lead waits; a failure after which the prospect may exist marks the lead ambiguous, so that
 * the next attempt looks it up first (ambiguity.ts).
 */
import type { Prospect } from '../../domain/prospect.ts';
import { METRICS } from '../../kernel/metrics.ts';
import { UpstreamError } from '../../upstream/upstream-errors.ts';
import { classifyUnavailable } from './ambiguity.ts';
import type { ForwardOutcome, Held } from './attempt.ts';
import {
  accountFailure,
  delivered,
  finish,
  noteError,
  pacerBusy,
  rateLimited,
  upstreamAnswered,
} from './transitions.ts';

export async function post(held: Held, prospect: Prospect): Promise<ForwardOutcome> {
  const postStarted = held.now();
  try {
    const created = await held.access.client.createProspect(prospect);
    await upstreamAnswered(held);
    return await delivered(held, created.idProspect, 'delivered');
  } catch (error) {
    const paced = await pacerBusy(held, error);
    if (paced) return paced;
    if (!(error instanceof UpstreamError)) throw error;
    noteError(held, error);
    switch (error.kind) {
      case 'rejected': {
        await upstreamAnswered(held);
        const messages = error.messages.length > 0 ? error.messages : [error.message];
        await held.deps.ledger.markRejected(held.leadId, held.lead.version, messages, held.now());
        held.events.metric(METRICS.leadRejected);
        return finish(held, { kind: 'done', reason: 'rejected' }, 'rejected');
      }
      case 'unauthorized':
        // Our key (or its permission): every lead fails the same way until someone fixes it.
        held.events.metric(METRICS.upstreamAuthFailure);
        held.deps.onUnauthorized?.();
        return await accountFailure(held, error, 'unauthorized', { immediate: true });
      case 'rate-limited':
        return await rateLimited(held, error);
      case 'unavailable': {
        const what = classifyUnavailable(error);
        if (what.ambiguous) {
          held.event.note = 'ambiguous-post';
          held.lead.ambiguousSince ??= postStarted.toISOString();
          held.lead.ambiguousSettle = what.settle || held.lead.ambiguousSettle === true;
        }
        return await accountFailure(
          held,
          error,
          what.ambiguous ? 'ambiguous-post' : 'unavailable',
          {
            immediate: what.neverSent,
          },
        );
      }
    }
  }
}
