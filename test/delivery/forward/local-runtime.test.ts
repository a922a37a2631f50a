/**
 * Delivery in the whole local runtime (`npm start`): a Prospect posted to the gateway is sent to
 * the sandbox by the local worker, paced by the shared pacer in the local ledger table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredProspect } from '../../../sandbox/prospects-route.ts';
import { startTestRuntime, TEST_UPSTREAM, type TestRuntime } from '../../helpers/local-runtime.ts';

const auth = `Basic ${Buffer.from('ops:demo-ops-password').toString('base64')}`;

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(
    {
      upstream: TEST_UPSTREAM,
      clients: [{ username: 'ops', password: 'demo-ops-password', roles: ['prospects:write'] }],
      profiles: { native: { source: 'prospect' } },
    },
    { worker: true },
  );
});
afterAll(() => rt?.stop());

describe('local runtime with the delivery worker', () => {
  it('delivers a posted Prospect to the sandbox', async () => {
    // Act
    const response = await rt.post(
      '/api/v1/prospects',
      JSON.stringify({
        name: 'Ana',
        lastName: 'Souza',
        email: 'ana.souza@example.com',
        idBranch: 1,
        ddi: '55',
        cellphone: '11987654321',
      }),
      { 'content-type': 'application/json', authorization: auth },
    );
    // The Prospect API waits a bounded time for the delivery: with the worker on, it answers
    // 200 {idProspect} (202 {leadId} when the delivery takes longer).
    const answer = (await response.json()) as { idProspect?: number; leadId?: string };
    expect([200, 202]).toContain(response.status);

    // Assess
    const deadline = Date.now() + 20_000;
    let [lead] = await rt.leads('native');
    while (lead?.status !== 'delivered' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      [lead] = await rt.leads('native');
    }
    expect(lead?.status).toBe('delivered');
    const stored = (await (
      await fetch(`${rt.sandboxUrl}/_sandbox/prospects`)
    ).json()) as StoredProspect[];
    expect(stored).toEqual([
      expect.objectContaining({
        body: expect.objectContaining({ email: 'ana.souza@example.com' }),
      }),
    ]);
    expect(lead?.idProspect).toBe(stored[0]?.idProspect);
    if (response.status === 200) expect(answer.idProspect).toBe(stored[0]?.idProspect);
  });
});
