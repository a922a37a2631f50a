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

export async function post(h: Held, prospect: Prospect): Promise<ForwardOutcome> {
  const postStarted = h.now();
  try {
    const created = await h.access.client.createProspect(prospect);
    await upstreamAnswered(h);
    return await delivered(h, created.idProspect, 'delivered');
  } catch (error) {
    const paced = await pacerBusy(h, error);
    if (paced) return paced;
    if (!(error instanceof UpstreamError)) throw error;
    noteError(h, error);
    switch (error.kind) {
      case 'rejected': {
        await upstreamAnswered(h);
        const messages = error.messages.length > 0 ? error.messages : [error.message];
        await h.deps.ledger.markRejected(h.leadId, h.lead.version, messages, h.now());
        h.events.metric(METRICS.leadRejected);
        return finish(h, { kind: 'done', reason: 'rejected' }, 'rejected');
      }
      case 'unauthorized':
        // Our key (or its permission): every lead fails the same way until someone fixes it.
        h.events.metric(METRICS.upstreamAuthFailure);
        h.deps.onUnauthorized?.();
        return await accountFailure(h, error, 'unauthorized', { immediate: true });
      case 'rate-limited':
        return await rateLimited(h, error);
      case 'unavailable': {
        const what = classifyUnavailable(error);
        if (what.ambiguous) {
          h.event.note = 'ambiguous-post';
          h.lead.ambiguousSince ??= postStarted.toISOString();
          h.lead.ambiguousSettle = what.settle || h.lead.ambiguousSettle === true;
        }
        return await accountFailure(h, error, what.ambiguous ? 'ambiguous-post' : 'unavailable', {
          immediate: what.neverSent,
        });
      }
    }
  }
}
