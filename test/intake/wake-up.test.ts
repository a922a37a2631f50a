/**
 * The message that starts a lead's delivery chain (functions/intake/intake.ts): one per lead,
 * for its version; none for a redelivery; and a queue that fails after the ledger recorded the
 * lead does not fail the request (the reconciler wakes the lead).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLocalConfigSource, parseConfig } from '../../functions/config/config-local.ts';
import { handleIntake } from '../../functions/intake/intake.ts';
import type { IntakeDeps } from '../../functions/intake/intake-deps.ts';
import type { LeadLedger } from '../../functions/ledger/lead-ledger.ts';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import type { LeadQueueSendOptions } from '../../functions/ledger/lead-queue.ts';
import { startTestDynamo, TEST_ERASURE_SALT, type TestDynamo } from '../helpers/dynalite.ts';
import { DEMO_SECRETS, leadRequest } from '../helpers/lead-fixtures.ts';
import { testConfig } from '../helpers/local-runtime.ts';

const config = createLocalConfigSource(
  parseConfig(
    testConfig({ site: { source: 'form', token: DEMO_SECRETS.form, defaults: { idBranch: 1 } } }),
  ),
);

let dynamo: TestDynamo;
let ledger: LeadLedger;
let sent: [string, LeadQueueSendOptions | undefined][];
let deferred: string[];
beforeAll(async () => {
  dynamo = await startTestDynamo();
});
afterAll(() => dynamo?.close());
beforeEach(async () => {
  ledger = createDynamoLedger({
    erasureSalt: TEST_ERASURE_SALT,
    client: dynamo.client,
    tableName: await dynamo.createLedgerTable(),
  });
  sent = [];
  deferred = [];
});

function deps(queueWorks = true): IntakeDeps {
  return {
    config,
    ledger,
    queue: {
      async send(leadId, options) {
        if (!queueWorks) throw new Error('SQS is down');
        sent.push([leadId, options]);
      },
    },
    events: {
      accepted: () => {},
      refused: () => {},
      wakeUpDeferred: ({ leadId }) => deferred.push(leadId),
    },
  };
}

async function post(d: IntakeDeps) {
  const response = await handleIntake('site', leadRequest('form', 'valid-urlencoded'), d);
  return {
    status: response.statusCode,
    leadId: (JSON.parse(response.body) as { leadId: string }).leadId,
  };
}

describe('the first message of a lead', () => {
  it('is sent once, for the lead’s first chain; a redelivery sends nothing', async () => {
    const first = await post(deps());
    const again = await post(deps());

    expect(first.status).toBe(202);
    expect(again).toEqual(first);
    expect(sent).toEqual([[first.leadId, { version: 0, group: 'default' }]]);
  });

  it('failing does not fail the request: the lead is recorded, queued, and left to the reconciler', async () => {
    const { status, leadId } = await post(deps(false));

    expect(status).toBe(202);
    expect(await ledger.get(leadId)).toMatchObject({ status: 'queued', version: 0 });
    expect(deferred).toEqual([leadId]);
    // The reconciler finds it through the due index once its grace is over.
    const due = await ledger.listDue(new Date(Date.now() + 10 * 60_000));
    expect(due.leads.map((lead) => lead.leadId)).toEqual([leadId]);
  });
});
