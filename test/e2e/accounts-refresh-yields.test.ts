/**
 * Leads before report pages (issue 25), end to end: the local runtime (worker on) refreshes a
 * 5,000-row debtors report (100 pages of 50) of the account `default` while that account's
 * leads arrive. The refresher shares the account's pacer and yields while leads take slots
 * (functions/upstream/pacer-dynamodb.ts, `yieldToLeadsMs`): once the account's leads take
 * slots, at most one page (a slot the refresher had already taken) goes ahead of each lead,
 * counted on the sandbox between the first of a round's leads reaching it and each lead's
 * arrival. The refresh still finishes with every row. What it does not bound: the pages served
 * while a lead is on its way from the gateway to the pacer (intake, queue, claim: a few hundred
 * milliseconds locally, 2 to 5 pages at 8 a second); the result line prints them.
 *
 * Rounds, not a race: each round waits until the refresh is paging again (a state), then posts a
 * few leads at once and waits for them; no duration is asserted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../sandbox/server.ts';
import { basicHeader } from '../helpers/abuse-kit.ts';
import {
  type AcceptedLead,
  deliveryConfig,
  FAST_DELIVERY_ENV,
  OPERATOR,
  postLeads,
  realisticLeads,
  type SandboxControl,
  sandboxControl,
  waitUntil,
  withEnv,
} from '../helpers/delivery-harness-e2e.ts';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime.ts';
import { reportResult } from '../helpers/results.ts';

const ROWS = 5_000;
const DEBTORS = 'GET /api/v1/receivables/debtors';
const PROSPECTS = 'POST /api/v1/prospects';
const ROUNDS = 4;
const LEADS_PER_ROUND = 4;

let sandbox: Sandbox;
let control: SandboxControl;
let rt: TestRuntime;

beforeAll(async () => {
  sandbox = await createSandbox({ port: 0, debtors: { count: ROWS, branches: [1], seed: 11 } });
  control = sandboxControl(sandbox.url);
  await control.reset();
  const base = deliveryConfig({ baseUrl: sandbox.url });
  rt = await withEnv(FAST_DELIVERY_ENV, () =>
    startTestRuntime(
      { ...base, report: { branches: [1], refreshSeconds: 3600 } },
      { worker: true, upstreamUrl: sandbox.url },
    ),
  );
}, 60_000);
afterAll(async () => {
  await rt?.stop();
  await sandbox?.close();
});

const pagesServed = async () =>
  (await control.stats()).requests.filter((r) => r.route === DEBTORS && r.status === 200).length;

async function reportTotal(): Promise<number | undefined> {
  const response = await fetch(new URL('/reports/debtors?take=1', rt.url), {
    headers: { authorization: basicHeader(OPERATOR.username, OPERATOR.password) },
  });
  if (response.status !== 200) return undefined;
  return ((await response.json()) as { total: number }).total;
}

describe('a debtors refresh while the account’s leads arrive', () => {
  it('once the leads take slots, at most one report page goes ahead of each; the refresh still finishes', {
    timeout: 180_000,
  }, async () => {
    const leads: { lead: AcceptedLead; postedAt: number; round: number }[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      // Prepare: the refresh paging (again) before the leads arrive.
      const before = await pagesServed();
      await waitUntil('the refresh paging', pagesServed, (n) => n >= before + 2, {
        timeoutMs: 30_000,
      });

      // Act: a few leads at once, then wait for them.
      const postedAt = Date.now();
      const accepted = await Promise.all(
        realisticLeads(LEADS_PER_ROUND, `refresh${round}`).map(
          async (lead) => (await postLeads(rt.url, [lead]))[0] as AcceptedLead,
        ),
      );
      leads.push(...accepted.map((lead) => ({ lead, postedAt, round })));
      await waitUntil(
        'the round delivered',
        () => Promise.all(accepted.map(({ leadId }) => rt.ledger.get(leadId))),
        (ledger) => ledger.every((lead) => lead?.status === 'delivered'),
        { timeoutMs: 30_000, describe: (ledger) => ledger.map((l) => l?.status).join(',') },
      );
    }
    const total = await waitUntil('the refresh finished', reportTotal, (t) => t === ROWS, {
      timeoutMs: 90_000,
    });

    // Assess: per lead, the report pages served after its round's first lead reached the
    // upstream and before it did (the refresh yields once the account's leads take slots), and,
    // for the record, the pages served between its POST to the gateway and its arrival.
    const { requests } = await control.stats();
    const pages = requests.filter((r) => r.route === DEBTORS).map((r) => r.at);
    const arrivalOf = (lead: AcceptedLead) =>
      requests.find((r) => r.route === PROSPECTS && r.email === lead.email)?.at ??
      Number.POSITIVE_INFINITY;
    const between = (from: number, to: number) => pages.filter((at) => at > from && at < to);
    const afterFirst = leads.map(({ lead, round }) => {
      const first = Math.min(
        ...leads.filter((l) => l.round === round).map((l) => arrivalOf(l.lead)),
      );
      return between(first, arrivalOf(lead)).length;
    });
    const sincePosted = leads.map(
      ({ lead, postedAt }) => between(postedAt, arrivalOf(lead)).length,
    );
    reportResult(
      `[refresh-yields] ${leads.length} leads during a ${ROWS}-row refresh (${pages.length} pages): ` +
        `pages served after the round's first lead reached the upstream: ${afterFirst.join(',')}; ` +
        `between the lead's POST to the gateway and its arrival: ${sincePosted.join(',')}`,
    );
    expect(total).toBe(ROWS);
    expect(leads.every(({ lead }) => Number.isFinite(arrivalOf(lead)))).toBe(true);
    expect(afterFirst.filter((n) => n > 1)).toEqual([]);
    expect(requests.filter((r) => r.status === 429)).toEqual([]);
  });
});
