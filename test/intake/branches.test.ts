/**
 * The intake with the account's named branches, through the local runtime (the same handler and
 * local wiring `npm start` runs): a chain form's "Qual unidade?" answer records the lead for the
 * branch it names, by a configured name or one the debtors report taught (the learned names'
 * item on the runtime's ledger table), and parks it for its branch when it names none and the
 * profile has no default.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localServices } from '../../functions/kernel/local-services.ts';
import { dynamoBranchNames } from '../../functions/upstream/branch-names-dynamodb.ts';
import { DEMO_SECRETS } from '../helpers/lead-fixtures.ts';
import {
  startTestRuntime,
  TEST_UPSTREAM,
  type TestRuntime,
  testConfig,
} from '../helpers/local-runtime.ts';

/** A chain's landing page: no default branch, the person says which. */
const rede = { source: 'form', token: DEMO_SECRETS.form };

let rt: TestRuntime;
beforeAll(async () => {
  const config = {
    ...testConfig({ rede }),
    upstream: {
      ...TEST_UPSTREAM,
      branches: { '1': { name: 'Centro' }, '2': { name: 'Moema', aliases: ['Unidade Moema'] } },
    },
  };
  rt = await startTestRuntime(config);
  // What a refresh of the debtors report recorded (before any lead: the intake caches a minute).
  const services = localServices();
  await dynamoBranchNames({ client: services.dynamo, tableName: services.ledgerTable }).write(
    'default',
    { 2: 'Unidade Moema', 3: 'Unidade Savassi' },
  );
}, 60_000);
afterAll(() => rt?.stop());

async function chainLead(unidade: string) {
  const body = new URLSearchParams({
    nome: 'Ana Souza',
    email: 'ana.souza@example.com',
    celular: '(11) 98765-4321',
    'Qual unidade?': unidade,
  });
  const response = await rt.post(`/leads/rede?token=${DEMO_SECRETS.form}`, body.toString(), {
    'content-type': 'application/x-www-form-urlencoded',
  });
  expect(response.status).toBe(202);
  const { leadId } = (await response.json()) as { leadId: string };
  const lead = await rt.ledger.get(leadId);
  if (!lead) throw new Error(`lead ${leadId} not recorded`);
  return lead;
}

describe('a chain form’s lead at the intake', () => {
  it('is recorded for the branch its answer names, by name, with a typo, or by a learned name', async () => {
    for (const [unidade, idBranch] of [
      ['Moema', 2],
      ['moema ', 2],
      ['Unid. Moema', 2],
      ['Savassi', 3],
    ] as const) {
      const lead = await chainLead(unidade);
      expect(lead.status, unidade).toBe('queued');
      expect(lead.prospect?.idBranch, unidade).toBe(idBranch);
    }
  });

  it('is parked for its branch when the answer names none and the profile has no default', async () => {
    const lead = await chainLead('Tatuapé');
    expect(lead.status).toBe('parked');
    expect(lead.prospect?.idBranch).toBeUndefined();
    expect(lead.prospect?.notes).toContain('Unidade não reconhecida ("Tatuapé")');
  });
});
