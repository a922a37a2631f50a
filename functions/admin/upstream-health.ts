/**
 * `GET /admin/upstream` (`?upstream=<account>`): the upstream's health as delivery sees it: the
 * circuit (closed or open, since when, why, the next probe), the shared pacer (its next free
 * slot, a pause) and the backlog (leads on their way). The default account, or the first one the
 * operator may see; 400 `unknown_upstream` for an account the operator may not see or that does
 * not exist. The circuit's view is also what a lead on its way shows (leads/view.ts).
 */
import { circuitReasonPt } from '../domain/lead-reasons.ts';
import { DEFAULT_ACCOUNT } from '../kernel/accounts.ts';
import { type HttpResponse, json } from '../kernel/http.ts';
import { t } from '../kernel/language.ts';
import { NO_STORE } from '../kernel/route-guard.ts';
import type { CircuitState } from '../upstream/circuit.ts';
import { type RouteContext, refusal, single } from './route-context.ts';

/** The upstream's health as delivery sees it (`GET /admin/upstream`, and on each lead). */
export interface UpstreamHealth {
  /** The account shown (`?upstream=`), and every account, when there are several. */
  upstream?: string;
  accounts?: string[];
  circuit: {
    state: 'closed' | 'open';
    /** Consecutive failures that said nothing about a lead. */
    failures: number;
    openedAt?: string;
    /** Why it opened, in Portuguese (domain/lead-reasons.ts); `reasonCode` as stored. */
    reason?: string;
    reasonCode?: string;
    nextProbeAt?: string;
    lastSuccessAt?: string;
    lastFailureAt?: string;
  };
  pacer?: {
    /** The next free slot (a paused pacer: the end of its pause); absent when idle. */
    nextSlotAt?: string;
  };
  /** Leads on their way (queued or being sent). */
  backlog?: number;
}

/** Where the admin routes read the upstream's health. */
export interface UpstreamHealthSource {
  /** An upstream account's circuit (`default` when none is named). */
  circuit(account?: string): Promise<CircuitState>;
  /** The account's shared pacer's next free slot, epoch ms; undefined when none is booked. */
  pacerNextSlot?(account?: string): Promise<number | undefined>;
}

function iso(epochMs: number | undefined): string | undefined {
  return epochMs === undefined ? undefined : new Date(epochMs).toISOString();
}

export function circuitView(state: CircuitState): UpstreamHealth['circuit'] {
  const view: UpstreamHealth['circuit'] = { state: state.state, failures: state.failures };
  const times = {
    openedAt: state.state === 'open' ? state.openedAt : undefined,
    nextProbeAt: state.state === 'open' ? state.probeAt : undefined,
    lastSuccessAt: state.lastSuccessAt,
    lastFailureAt: state.lastFailureAt,
  };
  for (const [key, value] of Object.entries(times)) {
    const text = iso(value);
    if (text) view[key as 'openedAt'] = text;
  }
  // The reason as an operator reads it; its code (`unavailable 503`) for programs.
  if (state.state === 'open' && state.reason) {
    view.reason = circuitReasonPt(state.reason);
    view.reasonCode = state.reason;
  }
  return view;
}

export async function upstreamHealth({ deps, now, request }: RouteContext): Promise<HttpResponse> {
  const accounts = (await deps.config.accounts?.()) ?? [DEFAULT_ACCOUNT];
  const asked = single(request, 'upstream');
  if (asked !== undefined && !accounts.includes(asked)) {
    const message = t(
      `não há conta "${asked}"; as contas são ${accounts.join(', ')}`,
      `no upstream account "${asked}"; accounts: ${accounts.join(', ')}`,
    );
    throw refusal(400, 'unknown_upstream', message, [message]);
  }
  // The default account, or the first one this operator may see.
  const account = asked ?? (accounts.includes(DEFAULT_ACCOUNT) ? DEFAULT_ACCOUNT : accounts[0]);
  if (account === undefined)
    throw refusal(
      404,
      'unknown_upstream',
      t('não há conta para mostrar', 'no upstream account to show'),
    );
  const [circuit, nextSlot, backlog] = await Promise.all([
    deps.upstream.circuit(account),
    deps.upstream.pacerNextSlot?.(account),
    deps.ledger.countInFlight(),
  ]);
  const slot = nextSlot !== undefined && nextSlot > now().getTime() ? iso(nextSlot) : undefined;
  const body: UpstreamHealth = {
    ...(accounts.length > 1 && { upstream: account, accounts }),
    circuit: circuitView(circuit),
    pacer: slot ? { nextSlotAt: slot } : {},
    backlog,
  };
  return json(200, body, NO_STORE);
}
