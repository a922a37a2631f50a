/**
 * A lead erased at its person's request and sent again (functions/intake/intake.ts): platforms
 * redeliver for hours to days and the signatures of Typeform, Meta and Tally carry no timestamp,
 * so the same signed bytes are authentic again. Through the use case (handleIntake) with a
 * dynalite ledger: the platform gets its usual 2xx, nothing is stored or queued, the answer's
 * outcome and the events count the drop, and the Prospect API says so with a stable code.
 */
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLocalConfigSource, parseConfig } from '../../functions/config/config-local.ts';
import { intakeEventsFor } from '../../functions/intake/events.ts';
import { handleIntake } from '../../functions/intake/intake.ts';
import type { IntakeDeps } from '../../functions/intake/intake-deps.ts';
import { metrics } from '../../functions/kernel/observability.ts';
import type { LeadLedger } from '../../functions/ledger/lead-ledger.ts';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import { startTestDynamo, TEST_ERASURE_SALT, type TestDynamo } from '../helpers/dynalite.ts';
import { DEMO_CLIENTS, leadRequest } from '../helpers/lead-fixtures.ts';
import { testConfig } from '../helpers/local-runtime.ts';
import { logLinesOf } from '../helpers/log-lines.ts';
import {
  metaSignature,
  PLATFORM_SECRETS,
  platformBody,
  platformRequest,
  typeformSignature,
} from '../helpers/platform-fixtures.ts';

const config = createLocalConfigSource(
  parseConfig(
    testConfig(
      {
        typeform: {
          source: 'typeform',
          secret: PLATFORM_SECRETS.typeform,
          defaults: { idBranch: 1 },
        },
        meta: {
          source: 'meta',
          appSecret: PLATFORM_SECRETS.metaAppSecret,
          verifyToken: PLATFORM_SECRETS.metaVerifyToken,
          pageAccessToken: PLATFORM_SECRETS.metaPageToken,
          defaults: { idBranch: 2 },
        },
        rd: { source: 'rdstation', token: PLATFORM_SECRETS.rdstation, defaults: { idBranch: 1 } },
        native: { source: 'prospect' },
      },
      DEMO_CLIENTS,
    ),
  ),
);
const DAY_MS = 86_400_000;

let dynamo: TestDynamo;
let tableName: string;
let ledger: LeadLedger;
let sent: string[];
let dropped: unknown[];
let deps: IntakeDeps;

beforeAll(async () => {
  dynamo = await startTestDynamo();
});
afterAll(() => dynamo?.close());
beforeEach(async () => {
  tableName = await dynamo.createLedgerTable();
  ledger = createDynamoLedger({ client: dynamo.client, tableName, erasureSalt: TEST_ERASURE_SALT });
  sent = [];
  dropped = [];
  deps = {
    config,
    ledger,
    queue: { send: async (leadId) => void sent.push(leadId) },
    // The Prospect API answers at once: nothing delivers here.
    prospectWait: { budgetMs: 0 },
    events: {
      accepted: () => {},
      refused: () => {},
      wakeUpDeferred: () => {},
      erasedDropped: (event) => dropped.push(event),
    },
  };
});

/** Erases every lead the ledger has for one e-mail, as POST /admin/erasure does. */
async function erase(email: string, at: Date): Promise<number> {
  const subjects = [`email:${email}`];
  const leadIds = await ledger.findBySubjects(subjects);
  for (const leadId of leadIds) await ledger.redact(leadId, { reason: 'erasure', now: at });
  return leadIds.length;
}

/** The lead items in the table (whatever their status). */
async function leadCount(): Promise<number> {
  const out = await dynamo.client.scan({ TableName: tableName });
  return out.Items.filter((item) => String(item.pk).startsWith('lead#')).length;
}

function typeform(at: Date) {
  const body = platformBody('typeform', 'form-response.json');
  return platformRequest(body, {
    headers: { 'typeform-signature': typeformSignature(body, PLATFORM_SECRETS.typeform) },
    receivedAt: at,
  });
}

describe('a lead erased on request, sent again', () => {
  it('is acknowledged to Typeform with 200, says erased, and stores and sends nothing', async () => {
    // Prepare: delivered once, then its person erased
    const first = await handleIntake('typeform', typeform(new Date()), deps);
    expect(first.statusCode).toBe(200);
    expect(await erase('maria.souza@example.com', new Date())).toBe(1);
    sent = [];

    // Act: Typeform's redelivery, a day later, the same signed bytes
    const again = await handleIntake('typeform', typeform(new Date(Date.now() + DAY_MS)), deps);

    // Assess
    expect(again.statusCode).toBe(200);
    expect(JSON.parse(again.body)).toEqual({ leadIds: [], status: 'erased', erased: 1 });
    expect(await leadCount()).toBe(1);
    expect(sent).toEqual([]);
    expect(dropped).toEqual([{ profile: 'typeform', source: 'typeform', leads: 1 }]);
    expect(JSON.stringify(dropped)).not.toMatch(/maria|souza/i);
  });

  it("is acknowledged to Meta with its usual 200 beside the request's other lead", async () => {
    // Prepare: the webhook's two leads (a real one, a test one); the real one erased
    const body = platformBody('meta', 'webhook-two-entries.json');
    const request = () =>
      platformRequest(body, {
        headers: {
          'x-hub-signature-256': metaSignature(body, PLATFORM_SECRETS.metaAppSecret, 'sha256'),
        },
      });
    const first = JSON.parse((await handleIntake('meta', request(), deps)).body) as {
      leadIds: string[];
    };
    const real = (await Promise.all(first.leadIds.map((id) => ledger.get(id)))).find(
      (lead) => lead && !lead.capture.isTest,
    );
    await ledger.redact(real?.leadId ?? '', { reason: 'erasure', now: new Date() });

    // Act
    const again = await handleIntake('meta', request(), deps);

    // Assess
    expect(again.statusCode).toBe(200);
    // The test lead, recorded the first time: its id alone.
    expect(JSON.parse(again.body)).toEqual({
      leadId: first.leadIds.find((id) => id !== real?.leadId),
      status: 'queued',
    });
    expect(await leadCount()).toBe(2);
    expect(dropped).toEqual([{ profile: 'meta', source: 'meta', leads: 1 }]);
  });

  it("counts the erased lead of an RD Station batch beside the other lead's outcome", async () => {
    // Prepare: two people in one conversion; Maria erased
    const post = () =>
      handleIntake(
        'rd',
        platformRequest(platformBody('rdstation', 'legacy-two-leads.json'), {
          query: { token: [PLATFORM_SECRETS.rdstation] },
        }),
        deps,
      );
    const first = JSON.parse((await post()).body) as { leadIds: string[] };
    expect(await erase('maria.souza@example.com', new Date())).toBe(1);

    // Act
    const again = await post();

    // Assess: Carlos is the lead already recorded; Maria is dropped and counted
    expect(again.statusCode).toBe(200);
    const body = JSON.parse(again.body) as { leadId: string; status: string; erased: number };
    expect(first.leadIds).toContain(body.leadId);
    expect(body).toMatchObject({ status: 'queued', erased: 1 });
    expect(await leadCount()).toBe(2);
  });

  it('answers the Prospect API 200 personal_data_erased, even under a new Idempotency-Key', async () => {
    // Prepare
    const first = await handleIntake('native', leadRequest('prospect', 'idempotent'), deps);
    expect(first.statusCode).toBe(202);
    expect(await erase('rafael.pereira@exemplo.com', new Date())).toBe(1);

    // Act: the same key again, and a new key for the same Prospect
    const sameKey = await handleIntake('native', leadRequest('prospect', 'idempotent'), deps);
    const newKey = await handleIntake(
      'native',
      leadRequest('prospect', 'idempotent', { headers: { 'idempotency-key': 'a-brand-new-key' } }),
      deps,
    );

    // Assess
    for (const answer of [sameKey, newKey]) {
      expect(answer.statusCode).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({
        status: 'erased',
        code: 'personal_data_erased',
        message: expect.stringContaining('apagados a pedido dela (LGPD)'),
      });
    }
    expect(await leadCount()).toBe(1);
    expect(dropped).toHaveLength(2);
  });
});

describe('the intake events of a dropped lead', () => {
  it('log one line with the counts and the request id, and count ErasedLeadDropped', async () => {
    // Prepare
    const added = vi.spyOn(metrics, 'addMetric');

    // Act
    const lines = await logLinesOf(async () => {
      intakeEventsFor({ apiRequestId: 'req-1' }).erasedDropped?.({
        profile: 'rd',
        source: 'rdstation',
        leads: 2,
      });
    });

    // Assess
    expect(lines.find((line) => line.message === 'erased lead dropped')).toMatchObject({
      profile: 'rd',
      source: 'rdstation',
      leads: 2,
      apiRequestId: 'req-1',
    });
    expect(added).toHaveBeenCalledWith('ErasedLeadDropped', MetricUnit.Count, 2);
    added.mockRestore();
  });
});
