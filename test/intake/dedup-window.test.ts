/**
 * How long intake recognises a redelivery, by dedup key kind (docs/sources.md, "Redeliveries"):
 * a platform's own submission key is kept as long as the ledger keeps leads, a plain content hash
 * for 10 minutes, a test lead's key for TEST_LEAD_DEDUP_WINDOW_SECONDS. Through the use case
 * (handleIntake) with a dynalite ledger, the same bytes sent again later.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLocalConfigSource, parseConfig } from '../../functions/config/config-local.ts';
import { TEST_LEAD_DEDUP_WINDOW_SECONDS } from '../../functions/domain/lead-arrival.ts';
import { handleIntake } from '../../functions/intake/intake.ts';
import type { IntakeDeps } from '../../functions/intake/intake-deps.ts';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import { startTestDynamo, TEST_ERASURE_SALT, type TestDynamo } from '../helpers/dynalite.ts';
import { DEMO_SECRETS, leadRequest } from '../helpers/lead-fixtures.ts';
import { testConfig } from '../helpers/local-runtime.ts';
import { PLATFORM_SECRETS, platformBody, platformRequest } from '../helpers/platform-fixtures.ts';

const config = createLocalConfigSource(
  parseConfig(
    testConfig({
      site: { source: 'form', token: DEMO_SECRETS.form, defaults: { idBranch: 1 } },
      unbounce: { source: 'unbounce', token: DEMO_SECRETS.unbounce, defaults: { idBranch: 1 } },
      google: { source: 'google', key: PLATFORM_SECRETS.google, defaults: { idBranch: 4 } },
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
    erasureSalt: TEST_ERASURE_SALT,
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

describe('test leads', () => {
  /** Google's lead posted at `at`; Google's answer carries no lead id, so the ledger is read. */
  async function postGoogle(file: string, at: Date): Promise<void> {
    const request = platformRequest(platformBody('google', file), { receivedAt: at });
    const response = await handleIntake('google', request, deps);
    expect(response).toMatchObject({ statusCode: 200, body: '{}' });
  }
  const leadsIn = async (status: 'test' | 'queued') =>
    (await deps.ledger.listByStatus(status, { limit: 100 })).leads;

  it("takes Google's next 'Send test data' as a new test lead, though every one has the same lead_id", async () => {
    // Prepare
    const first = new Date('2025-01-15T14:35:30Z');
    const window = TEST_LEAD_DEDUP_WINDOW_SECONDS * 1000;

    // Act: Google's own retry a moment later, then the next test after the window
    await postGoogle('test-lead.json', first);
    await postGoogle('test-lead.json', new Date(+first + 30_000));
    await postGoogle('test-lead.json', new Date(+first + window + 60_000));

    // Assess
    const tests = await leadsIn('test');
    expect(tests).toHaveLength(2);
    expect(tests.every((lead) => lead.dedupKey === tests[0]?.dedupKey)).toBe(true);
    // The test lead keeps the Prospect it would have become, for whoever set the hook up.
    expect(tests[0]?.prospect).toMatchObject({ email: 'test@example.com', idBranch: 4 });
  });

  it('keeps recognising a real Google lead long after the test window', async () => {
    const first = new Date('2025-01-15T14:35:30Z');
    await postGoogle('lead.json', first);
    await postGoogle('lead.json', new Date(+first + ELEVEN_MINUTES));
    expect(await leadsIn('queued')).toHaveLength(1);
  });
});
