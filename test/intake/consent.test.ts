/**
 * LGPD consent through the intake use case (handleIntake) with a dynalite ledger: a profile that
 * maps a consent field keeps, on the lead, the text and version shown, whether it was ticked and
 * when the lead was received.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalConfigSource, parseConfig } from '../../functions/config/config-local.ts';
import { handleIntake } from '../../functions/intake/intake.ts';
import type { LeadLedger } from '../../functions/ledger/lead-ledger.ts';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import { startTestDynamo, TEST_ERASURE_SALT, type TestDynamo } from '../helpers/dynalite.ts';
import { DEMO_SECRETS, leadRequest, loadLeadFixture } from '../helpers/lead-fixtures.ts';
import { testConfig } from '../helpers/local-runtime.ts';

const CONSENT = {
  field: 'aceito_lgpd',
  text: 'Autorizo o contato da academia sobre planos e matrícula.',
  version: 'v2',
};
const config = createLocalConfigSource(
  parseConfig(
    testConfig({
      site: {
        source: 'form',
        token: DEMO_SECRETS.form,
        consent: CONSENT,
        defaults: { idBranch: 1 },
      },
    }),
  ),
);

let dynamo: TestDynamo;
let ledger: LeadLedger;
beforeAll(async () => {
  dynamo = await startTestDynamo();
  ledger = createDynamoLedger({
    erasureSalt: TEST_ERASURE_SALT,
    client: dynamo.client,
    tableName: await dynamo.createLedgerTable(),
  });
});
afterAll(() => dynamo?.close());

describe('a consent field', () => {
  it('is kept on the lead with its text, version and the time of receipt', async () => {
    // Prepare
    const body = `${loadLeadFixture('form', 'valid-urlencoded').body}&aceito_lgpd=on`;
    const receivedAt = new Date('2026-03-10T18:30:00.000Z');

    // Act
    const response = await handleIntake(
      'site',
      leadRequest('form', 'valid-urlencoded', { body, receivedAt }),
      { config, ledger, queue: { send: async () => {} } },
    );

    // Assess
    expect(response.statusCode).toBe(202);
    const { leadId } = JSON.parse(response.body) as { leadId: string };
    expect((await ledger.get(leadId))?.capture.consent).toEqual({
      ...CONSENT,
      given: true,
      at: receivedAt.toISOString(),
    });
  });
});
