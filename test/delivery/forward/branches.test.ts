/**
 * Delivery maps a lead with its account's named branches (functions/delivery/forward/
 * complete.ts): a chain form's "Qual unidade?" answer sends the prospect to the branch it names,
 * learned names included, against the real sandbox upstream and a dynalite ledger.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { forwardLead } from '../../../functions/delivery/forward/forward.ts';
import { createBranchDirectory } from '../../../functions/upstream/branch-directory.ts';
import {
  type DeliveryHarness,
  formCapture,
  offsetClock,
  startDeliveryHarness,
} from '../harness.ts';

let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness();
});
afterAll(() => h?.close());
beforeEach(() => h.reset());

const directory = createBranchDirectory({
  configured: async () => [
    { idBranch: 1, account: 'default', name: 'Centro' },
    { idBranch: 2, account: 'default', name: 'Moema' },
  ],
  learned: { read: async () => ({ 3: 'Unidade Savassi' }), write: async () => undefined },
});

/** Delivers a queued `site` lead (default branch 1) that answered "Qual unidade?". */
async function deliver(unidade: string, withBranches = true) {
  const capture = formCapture();
  capture.answers.push({ key: 'qual_unidade', label: 'Qual unidade?', value: unidade });
  const lead = await h.record('site', capture);
  const deps = { ...h.deps(), ...(withBranches && { branches: directory }) };
  const outcome = await forwardLead(
    { leadId: lead.leadId, version: lead.version },
    deps,
    offsetClock(0),
  );
  const sent = (await h.prospects()).map((p) => p.body as { idBranch?: number; notes?: string });
  return { outcome, sent };
}

describe('delivery of a chain form’s lead', () => {
  it('sends it to the branch its answer names, typos and learned names included', async () => {
    for (const [unidade, idBranch] of [
      ['Moema', 2],
      ['moema ', 2],
      ['Unid. Moema', 2],
      ['Savassi', 3],
    ] as const) {
      await h.reset();
      const { outcome, sent } = await deliver(unidade);
      expect(outcome.kind, unidade).toBe('done');
      expect(
        sent.map((p) => p.idBranch),
        unidade,
      ).toEqual([idBranch]);
    }
  });

  it('sends an unknown branch’s lead to the default branch, its notes saying why', async () => {
    const { sent } = await deliver('Tatuapé');
    expect(sent[0]?.idBranch).toBe(1);
    expect(sent[0]?.notes).toContain('Unidade não reconhecida ("Tatuapé")');
  });

  it('keeps the profile’s default when the account names no branches', async () => {
    const { sent } = await deliver('Moema', false);
    expect(sent.map((p) => p.idBranch)).toEqual([1]);
  });
});
