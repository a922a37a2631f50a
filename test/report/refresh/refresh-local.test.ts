/**
 * The refresher as the local runtime runs it: the refresh service (a refresh at start, then on
 * a timer) and the Lambda handler with the local wiring, continuing a refresh cut short through
 * the local trigger, all against a real sandbox, paced on the local ledger table's pacer item.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context, SQSEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, setLocalConfig } from '../../../functions/config/config-local.ts';
import type { DebtorsList } from '../../../functions/domain/debtors.ts';
import { setLocalServices } from '../../../functions/kernel/local-services.ts';
import type { LocalRefresher } from '../../../functions/report/refresh/wiring-local.ts';
import { localReportStore } from '../../../functions/report/store/report-store-file.ts';
import { localReportTrigger } from '../../../functions/report/trigger/report-trigger-local.ts';
import { UPSTREAM_PACER_KEY } from '../../../functions/upstream/pacer-dynamodb.ts';
import { createSandbox, type Sandbox } from '../../../sandbox/server.ts';
import type { SandboxStats } from '../../../sandbox/stats.ts';
import { waitFor } from '../../helpers/abuse-kit.ts';
import { startTestDynamo, type TestDynamo } from '../../helpers/dynalite.ts';

const DEBTORS_ROUTE = 'GET /api/v1/receivables/debtors';
const AUTH = `Basic ${Buffer.from('demo:demo').toString('base64')}`;

let sandbox: Sandbox;
let dynamo: TestDynamo;
let ledgerTable: string;
let dataDir: string;
let refresher: LocalRefresher | undefined;

beforeAll(async () => {
  process.env.LEADS_RUNTIME = 'local';
  dynamo = await startTestDynamo();
  ledgerTable = await dynamo.createLedgerTable();
  setLocalServices({
    dynamo: dynamo.client,
    ledgerTable,
    queueTable: 'unused',
    maxReceiveCount: 8,
  });
  sandbox = await createSandbox({ port: 0, debtors: { count: 260, branches: [1, 2, 3], seed: 3 } });
  await fetch(`${sandbox.url}/_sandbox/faults`, {
    method: 'POST',
    body: JSON.stringify({ perSecond: 1000, perMinute: 100_000 }),
  });
  setLocalConfig(configWith(900));
});

/** The configuration with this refresh interval (set in memory: the file's minimum is 60 s). */
function configWith(refreshSeconds: number) {
  const config = parseConfig({
    upstream: {
      baseUrl: sandbox.url,
      username: 'demo',
      password: 'demo',
      maxPerSecond: 1000,
      maxPerMinute: 100_000,
    },
    clients: [],
    profiles: {},
    report: { branches: [1, 2, 3], refreshSeconds: 900 },
  });
  return { ...config, report: { ...config.report, refreshSeconds } };
}

afterEach(async () => {
  await refresher?.stop();
  refresher = undefined;
  rmSync(dataDir, { recursive: true, force: true });
});

afterAll(async () => {
  setLocalConfig(undefined);
  setLocalServices(undefined);
  await sandbox.close();
  await dynamo.close();
});

async function start(refreshSeconds = 900, keepDir = false): Promise<LocalRefresher> {
  if (!keepDir) dataDir = mkdtempSync(join(tmpdir(), 'leads-refresher-'));
  const { startLocalRefresher } = await import('../../../functions/report/refresh/wiring-local.ts');
  setLocalConfig(configWith(refreshSeconds));
  // No pacer given: the shared one on the local ledger table, as in the runtime. The timer
  // ticks as often as the report is due.
  refresher = await startLocalRefresher({ dataDir, tickSeconds: Math.min(refreshSeconds, 60) });
  return refresher;
}

async function debtorCalls(): Promise<number> {
  const stats = (await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as SandboxStats;
  return stats.byRoute[DEBTORS_ROUTE]?.['200'] ?? 0;
}

async function allRows(): Promise<DebtorsList['results']> {
  const rows: DebtorsList['results'] = [];
  for (let skip = 0; skip < 260; skip += 50) {
    const response = await fetch(`${sandbox.url}/api/v1/receivables/debtors?take=50&skip=${skip}`, {
      headers: { authorization: AUTH },
    });
    rows.push(...((await response.json()) as DebtorsList).results);
  }
  return rows;
}

function sqsEvent(body: unknown, sentAt = Date.now()): SQSEvent {
  return {
    Records: [
      {
        messageId: 'm-1',
        receiptHandle: 'r-1',
        body: JSON.stringify(body),
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: String(sentAt),
          SenderId: 'local',
          ApproximateFirstReceiveTimestamp: String(sentAt),
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:refresh',
        awsRegion: 'us-east-1',
      },
    ],
  };
}

describe('the local refresh service', () => {
  it('refreshes at start into DATA_DIR/reports and registers the store and trigger', async () => {
    // Act
    const service = await start();
    await service.trigger.idle();

    // Assess
    const stored = await localReportStore().readSnapshot();
    expect(stored?.snapshot.rows).toEqual(await allRows());
    expect(existsSync(join(dataDir, 'reports', 'current.json'))).toBe(true);
    expect(readdirSync(join(dataDir, 'reports')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(localReportTrigger()).toBe(service.trigger);
    // Paced on delivery's item of the ledger table.
    const pacer = await dynamo.client.get({
      TableName: ledgerTable,
      Key: { pk: UPSTREAM_PACER_KEY },
    });
    expect(Number(pacer.Item?.next)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('does not page the upstream again at a restart while the stored snapshot is fresh', async () => {
    // Prepare
    const first = await start();
    await first.trigger.idle();
    await first.stop();
    refresher = undefined;
    const before = await debtorCalls();

    // Act
    const second = await start(900, true);
    await second.trigger.idle();

    // Assess
    expect(await debtorCalls()).toBe(before);
  });

  it('refreshes again every refreshSeconds', async () => {
    // Prepare
    const service = await start(0.3);
    await service.trigger.idle();
    const first = (await localReportStore().readStatus()).lastSucceededAt;

    // Act: wait for the state (another successful refresh), however slow the machine.
    const later = await waitFor('a second refresh', async () => {
      await service.trigger.idle();
      const last = (await localReportStore().readStatus()).lastSucceededAt;
      return last !== undefined && last !== first ? last : undefined;
    });

    // Assess
    expect(later).toBeDefined();
    expect(later).not.toBe(first);
  });

  it('stops cleanly, clearing what it registered', async () => {
    // Prepare
    const service = await start();

    // Act
    await service.stop();
    refresher = undefined;

    // Assess
    expect(() => localReportTrigger()).toThrow(/refresher/);
    expect(() => localReportStore()).toThrow(/report directory/);
  });
});

describe('the refresher handler with the local wiring', () => {
  it('runs a refresh message and continues a refresh cut short through the local trigger', async () => {
    // Prepare: a service that does not refresh by itself during the test
    const service = await start();
    await service.trigger.idle();
    const { handler } = await import('../../../functions/report/refresh/handler.ts');
    let checks = 0;
    const context = {
      // Time for one page, then the invocation is about to end.
      getRemainingTimeInMillis: () => (checks++ < 1 ? 120_000 : 1_000),
    } as Context;
    const before = await debtorCalls();

    // Act
    const result = await handler(
      sqsEvent({ kind: 'refresh', reason: 'admin' }, Date.now() + 1000),
      context,
    );
    const cut = await localReportStore().readCheckpoint();
    await service.trigger.idle();

    // Assess
    expect(result).toEqual({ batchItemFailures: [] });
    expect(cut?.checkpoint.pageCalls).toBe(1);
    const status = await localReportStore().readStatus();
    expect(status.failures).toBe(0);
    expect(await localReportStore().readCheckpoint()).toBeUndefined();
    const stored = await localReportStore().readSnapshot();
    expect(stored?.snapshot.rows).toEqual(await allRows());
    // Three branches of ~87 rows: two pages each, none fetched twice.
    expect((await debtorCalls()) - before - Math.ceil(260 / 50)).toBe(stored?.snapshot.pageCalls);
  });

  it('drops a message that is not a refresh request', async () => {
    // Prepare
    await start();
    const { handler } = await import('../../../functions/report/refresh/handler.ts');

    // Act
    const result = await handler(sqsEvent({ hello: 'world' }), {
      getRemainingTimeInMillis: () => 60_000,
    } as Context);

    // Assess
    expect(result).toEqual({ batchItemFailures: [] });
  });
});
