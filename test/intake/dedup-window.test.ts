/**
 * How long intake recognises a redelivery, by dedup key kind (docs/sources.md, "Redeliveries"):
 * a platform's own submission key is kept as long as the ledger keeps leads, a plain content hash
 * for 10 minutes. Through the use case (handleIntake) with a dynalite ledger, the same bytes sent
 * again 11 minutes later.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLocalConfigSource, parseConfig } from '../../functions/config/config-local.ts';
import { handleIntake, type IntakeDeps } from '../../functions/intake/intake.ts';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import { startTestDynamo, type TestDynamo } from '../helpers/dynalite.ts';
import { DEMO_SECRETS, leadRequest } from '../helpers/lead-fixtures.ts';
import { testConfig } from '../helpers/local-runtime.ts';

const config = createLocalConfigSource(
  parseConfig(
    testConfig({
      site: { source: 'form', token: DEMO_SECRETS.form },
      unbounce: { source: 'unbounce', token: DEMO_SECRETS.unbounce },
    }),
  ),
);
const ELEVEN_MINUTES = 11 * 60_000;
const UNBOUNCE: [string, string] = ['unbounce', 'valid'];
const FORM: [string, string] = ['form', 'valid-urlencoded'];

let dynamo: TestDynamo;
let deps: IntakeDeps;
beforeAll(async () => {
  dynamo = await startTestDynamo();
});
afterAll(() => dynamo?.close());
beforeEach(async () => {
  const ledger = createDynamoLedger({
    client: dynamo.client,
    tableName: await dynamo.createLedgerTable(),
  });
  deps = { config, ledger, queue: { send: async () => {} } };
});

/** The fixture's exact bytes posted to `profile` at `at`; the lead id it was given. */
async function leadIdOf(profile: string, fixture: [string, string], at: Date): Promise<string> {
  const response = await handleIntake(
    profile,
    leadRequest(fixture[0], fixture[1], { receivedAt: at }),
    deps,
  );
  expect(response.statusCode).toBeLessThan(300);
  return (JSON.parse(response.body) as { leadId: string }).leadId;
}

describe('redeliveries over time', () => {
  it('recognises an Unbounce retry 11 minutes later: its submission stamp names one lead', async () => {
    const first = new Date('2025-01-15T14:35:30Z');
    const id = await leadIdOf('unbounce', UNBOUNCE, first);
    const retried = await leadIdOf('unbounce', UNBOUNCE, new Date(+first + ELEVEN_MINUTES));
    expect(retried).toBe(id);
  });

  it('takes the same plain-form answers 11 minutes later as a new lead (10-minute content hash)', async () => {
    const first = new Date('2025-01-15T14:35:30Z');
    const id = await leadIdOf('site', FORM, first);
    const soon = await leadIdOf('site', FORM, new Date(+first + 60_000));
    const later = await leadIdOf('site', FORM, new Date(+first + ELEVEN_MINUTES));
    expect(soon).toBe(id);
    expect(later).not.toBe(id);
  });
});
