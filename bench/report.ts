/**
 * Report: (1) a refresh of REFRESH_ROWS debtors over three branches from the sandbox, paced by
 * the shared DynamoDB pacer (dynalite), against the floor its limits set: (pages − 1) × T, T
 * the pacer's spacing (the first call starts at once); (2) serving a SERVE_ROWS-row snapshot
 * through the report handler in-process, as JSON (`take=1000`) and CSV, against serialising the
 * same rows with nothing else (JSON.stringify; a plain join for CSV).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import {
  localConfigSource,
  parseConfig,
  setLocalConfig,
} from '../functions/config/config-local.ts';
import { DEFAULT_ACCOUNT } from '../functions/kernel/accounts.ts';
import { ENV } from '../functions/kernel/env.ts';
import { BINARY_MEDIA_TYPES } from '../functions/kernel/routes.ts';
import { LEDGER_TABLE_DEFINITION } from '../functions/ledger/lead-item-dynamodb.ts';
import { refreshDebtors, refreshSource } from '../functions/report/refresh/refresh.ts';
import {
  createFileReportStore,
  setLocalReportDir,
} from '../functions/report/store/report-store-file.ts';
import { refreshMessage } from '../functions/report/trigger/report-trigger.ts';
import { pacedUpstream } from '../functions/upstream/paced-client.ts';
import {
  DEFAULT_PACER_MARGIN_MS,
  sharedPacerFactory,
  slotIntervalMs,
} from '../functions/upstream/pacer-dynamodb.ts';
import { startLocalDynamo } from '../local/dynamodb-local.ts';
import { toProxyEvent } from '../local/gateway-event.ts';
import { createSandbox } from '../sandbox/server.ts';
import { basicHeader } from '../test/helpers/abuse-kit.ts';
import { benchConfig } from './leads.ts';
import { emitFigures, type Figure, figure, percentile, progress } from './lib.ts';

const REFRESH_ROWS = Number(process.env.BENCH_REFRESH_ROWS ?? 2000);
const SERVE_ROWS = Number(process.env.BENCH_SERVE_ROWS ?? 10_000);
const SERVE_REQUESTS = Number(process.env.BENCH_SERVE_REQUESTS ?? 40);
const BRANCHES = [1, 2, 3];
const REFRESH_LIMITS = { maxPerSecond: 10, maxPerMinute: 300 };
/** Only to fill the serving snapshot quickly: the upstream is local. */
const FILL_LIMITS = { maxPerSecond: 1000, maxPerMinute: 60_000 };

interface Refreshed {
  ms: number;
  pageCalls: number;
  rows: number;
}

/** One refresh into `dir` from a sandbox of `rows` debtors, paced at `limits`. */
async function refreshInto(
  dir: string,
  rows: number,
  limits: { maxPerSecond: number; maxPerMinute: number },
): Promise<Refreshed> {
  const sandbox = await createSandbox({ debtors: { count: rows, branches: BRANCHES, seed: 42 } });
  const dynamo = await startLocalDynamo({
    tables: [{ name: 'bench-ledger', definition: LEDGER_TABLE_DEFINITION }],
  });
  try {
    // The sandbox's limits slightly above the pacer's.
    await fetch(`${sandbox.url}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        perSecond: Math.ceil(limits.maxPerSecond * 1.1),
        perMinute: Math.ceil(limits.maxPerMinute * 1.1),
      }),
    });
    const config = parseConfig(benchConfig(limits));
    setLocalConfig({
      ...config,
      upstream: { ...config.upstream, baseUrl: sandbox.url },
      report: { ...config.report, branches: BRANCHES },
    });
    const started = performance.now();
    const outcome = await refreshDebtors(
      {
        store: createFileReportStore({ dir }),
        trigger: { requestRefresh: async () => {} },
        source: () =>
          refreshSource(
            localConfigSource(),
            pacedUpstream(
              localConfigSource(),
              sharedPacerFactory({ client: dynamo.client, tableName: 'bench-ledger' }),
            ),
          )(DEFAULT_ACCOUNT),
      },
      refreshMessage({ reason: 'admin' }),
    );
    const ms = performance.now() - started;
    if (outcome.status !== 'succeeded') throw new Error(`refresh ${JSON.stringify(outcome)}`);
    return { ms, pageCalls: outcome.pageCalls, rows: outcome.rows };
  } finally {
    await dynamo.close();
    await sandbox.close();
  }
}

function reportEvent(path: string, query: string): APIGatewayProxyEvent {
  const auth = basicHeader('ops', 'ops-secret');
  return toProxyEvent(
    {
      method: 'GET',
      url: `${path}${query}`,
      rawHeaders: ['Host', '127.0.0.1:3000', 'Authorization', auth],
      body: Buffer.alloc(0),
      remoteAddress: '127.0.0.1',
    },
    { resource: path, pathParameters: null },
    { binaryMediaTypes: BINARY_MEDIA_TYPES, stage: 'local' },
  );
}

export async function reportBench(): Promise<Figure[]> {
  process.env[ENV.runtime] = 'local';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  const root = mkdtempSync(join(tmpdir(), 'leads-bench-report-'));
  const figures: Figure[] = [];
  try {
    progress(
      `report: refreshing ${REFRESH_ROWS} rows over ${BRANCHES.length} branches at ${REFRESH_LIMITS.maxPerSecond}/s ${REFRESH_LIMITS.maxPerMinute}/min`,
    );
    const refreshed = await refreshInto(join(root, 'refresh'), REFRESH_ROWS, REFRESH_LIMITS);
    const intervalMs = slotIntervalMs(
      REFRESH_LIMITS.maxPerSecond,
      REFRESH_LIMITS.maxPerMinute,
      DEFAULT_PACER_MARGIN_MS,
    );
    const floorMs = (refreshed.pageCalls - 1) * intervalMs;
    progress(
      `report: ${refreshed.rows} rows in ${refreshed.pageCalls} pages, ${(refreshed.ms / 1000).toFixed(2)} s (floor ${(floorMs / 1000).toFixed(2)} s)`,
    );
    figures.push(
      figure(
        `report refresh ${refreshed.rows} rows / ${BRANCHES.length} branches`,
        refreshed.ms / 1000,
        's',
        `pacer floor: (${refreshed.pageCalls} pages − 1) × ${intervalMs} ms`,
        floorMs / 1000,
        `limits ${REFRESH_LIMITS.maxPerSecond}/s ${REFRESH_LIMITS.maxPerMinute}/min`,
      ),
    );

    progress(`report: filling a ${SERVE_ROWS}-row snapshot`);
    const serveDir = join(root, 'serve');
    const filled = await refreshInto(serveDir, SERVE_ROWS, FILL_LIMITS);
    setLocalReportDir(serveDir);
    const snapshot = await createFileReportStore({ dir: serveDir }).readSnapshot();
    const rows =
      (snapshot?.snapshot as unknown as { rows?: Record<string, unknown>[] })?.rows ?? [];
    const { handler } = (await import('../functions/report/serve/handler.ts')) as {
      handler: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
    };
    const cases = [
      {
        name: 'JSON ?take=1000',
        event: reportEvent('/reports/debtors', '?take=1000'),
        baseline: () => JSON.stringify(rows.slice(0, 1000)),
        baselineName: 'JSON.stringify of 1,000 rows',
      },
      {
        name: 'CSV (all rows)',
        event: reportEvent('/reports/debtors.csv', ''),
        baseline: () => rows.map((row) => Object.values(row).join(';')).join('\r\n'),
        baselineName: `plain join of ${rows.length} rows`,
      },
    ];
    for (const c of cases) {
      const ms: number[] = [];
      const base: number[] = [];
      let bytes = 0;
      for (let i = 0; i < SERVE_REQUESTS + 3; i++) {
        const t0 = performance.now();
        const result = await handler(c.event);
        const t1 = performance.now();
        if (result.statusCode !== 200)
          throw new Error(`report ${c.name}: ${result.statusCode} ${result.body.slice(0, 300)}`);
        bytes = result.body.length;
        const b0 = performance.now();
        c.baseline();
        const b1 = performance.now();
        if (i >= 3) {
          ms.push(t1 - t0);
          base.push(b1 - b0);
        }
      }
      progress(
        `report ${c.name}: p50 ${percentile(ms, 50).toFixed(1)} ms p99 ${percentile(ms, 99).toFixed(1)} ms (${Math.round(bytes / 1024)} KB)`,
      );
      figures.push(
        figure(
          `serve ${filled.rows}-row report ${c.name} p50`,
          percentile(ms, 50),
          'ms',
          `${c.baselineName} p50`,
          percentile(base, 50),
          `body ${Math.round(bytes / 1024)} KB`,
        ),
        figure(
          `serve ${filled.rows}-row report ${c.name} p99`,
          percentile(ms, 99),
          'ms',
          `${c.baselineName} p99`,
          percentile(base, 99),
        ),
      );
    }
  } finally {
    setLocalReportDir(undefined);
    setLocalConfig(undefined);
    rmSync(root, { recursive: true, force: true });
  }
  return figures;
}

if (import.meta.filename === process.argv[1]) {
  emitFigures(await reportBench());
}
