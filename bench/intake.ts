/**
 * Intake: the intake handler called in-process with API Gateway proxy events built from the
 * lead fixtures (local/gateway.ts toProxyEvent), against the local runtime's ledger (dynalite),
 * worker off; then the local gateway under load (autocannon, a separate process) against a bare
 * node:http server on the same machine that reads the body and answers 202.
 *
 * In-process baseline: one PutItem of a lead-sized item to the same dynalite, the least a
 * handler that records before answering must do.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { localServices } from '../functions/shared/local-services.ts';
import { BINARY_MEDIA_TYPES } from '../infra/routes.ts';
import { toProxyEvent } from '../local/gateway.ts';
import { REPO_ROOT, startLocalRuntime } from '../local/runtime.ts';
import { BENCH_SOURCES, benchConfig, type LeadHttpRequest, leadRequest } from './leads.ts';
import { emitFigures, type Figure, figure, percentile, progress, runNode } from './lib.ts';

const PER_SOURCE = Number(process.env.BENCH_INTAKE_REQUESTS ?? 300);
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const CONNECTIONS = 20;

function eventOf(request: LeadHttpRequest): APIGatewayProxyEvent {
  const rawHeaders = Object.entries({ Host: '127.0.0.1:3000', ...request.headers }).flat();
  const profile = /^\/leads\/([^/?]+)/.exec(request.url)?.[1] ?? '';
  return toProxyEvent(
    {
      method: request.method,
      url: request.url,
      rawHeaders,
      body: request.body,
      remoteAddress: '127.0.0.1',
    },
    { resource: '/leads/{profile}', pathParameters: { profile } },
    { binaryMediaTypes: BINARY_MEDIA_TYPES, stage: 'local' },
  );
}

interface Autocannon {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  '2xx': number;
}

/** autocannon in its own process, so the load generator does not share the server's loop. */
async function load(url: string, request: LeadHttpRequest, body: string): Promise<Autocannon> {
  const args = [
    join(REPO_ROOT, 'node_modules/autocannon/autocannon.js'),
    '--json',
    '--no-progress',
    '-c',
    String(CONNECTIONS),
    '-d',
    String(LOAD_SECONDS),
    '-m',
    'POST',
    '-I',
    '-b',
    body,
  ];
  for (const [name, value] of Object.entries(request.headers)) args.push('-H', `${name}=${value}`);
  args.push(url);
  const out = await runNode(args, { timeoutMs: (LOAD_SECONDS + 30) * 1000 });
  return JSON.parse(out) as Autocannon;
}

async function bareServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(202, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          leadId: 'ld_bare',
          status: 'queued',
          bytes: Buffer.concat(chunks).length,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function intakeBench(): Promise<Figure[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'leads-bench-intake-'));
  const configPath = join(dataDir, 'config.json');
  writeFileSync(configPath, JSON.stringify(benchConfig({ maxPerSecond: 4, maxPerMinute: 36 })));
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  const runtime = await startLocalRuntime(
    { port: 0, sandboxPort: 0, upstreamUrl: undefined, configPath, dataDir },
    { worker: false },
  );
  const figures: Figure[] = [];
  try {
    // Imported after the runtime set LEADS_RUNTIME=local and its services.
    const { handler } = (await import('../functions/intake/handler.ts')) as {
      handler: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
    };
    const services = localServices();
    const putOnce = async (i: number) => {
      await services.dynamo.send(
        new PutItemCommand({
          TableName: services.ledgerTable,
          Item: {
            pk: { S: `bench#${i}` },
            sk: { S: 'lead' },
            body: { S: 'x'.repeat(1500) },
          },
        }),
      );
    };
    // Warm both paths (module loading, connections) before timing.
    for (let i = 0; i < 20; i++) {
      await handler(eventOf(leadRequest('form', 'warm', i)));
      await putOnce(-1 - i).catch(() => undefined);
    }

    for (const source of BENCH_SOURCES) {
      const handlerMs: number[] = [];
      const putMs: number[] = [];
      const ids = new Set<string>();
      let statuses = '';
      const started = performance.now();
      let handlerTotal = 0;
      for (let i = 0; i < PER_SOURCE; i++) {
        const event = eventOf(leadRequest(source, 'inproc', i));
        const t0 = performance.now();
        const result = await handler(event);
        const t1 = performance.now();
        handlerMs.push(t1 - t0);
        handlerTotal += t1 - t0;
        if (result.statusCode >= 300)
          statuses = `${result.statusCode} ${result.body.slice(0, 200)}`;
        const id = /"leadId":"([^"]+)"/.exec(result.body)?.[1];
        if (id) ids.add(id);
        // Interleaved baseline: same load from the machine's other work.
        const p0 = performance.now();
        await putOnce(i);
        putMs.push(performance.now() - p0);
      }
      if (statuses) throw new Error(`intake ${source} answered ${statuses}`);
      const putTotal = putMs.reduce((a, b) => a + b, 0);
      const elapsed = (performance.now() - started) / 1000;
      progress(
        `intake ${source}: ${PER_SOURCE} requests, ${ids.size} distinct leads, p50 ${percentile(handlerMs, 50).toFixed(2)} ms, p99 ${percentile(handlerMs, 99).toFixed(2)} ms (${elapsed.toFixed(1)} s with baseline)`,
      );
      figures.push(
        figure(
          `intake ${source} in-process throughput (sequential)`,
          PER_SOURCE / (handlerTotal / 1000),
          'req/s',
          'one dynalite PutItem (sequential)',
          PER_SOURCE / (putTotal / 1000),
          `${ids.size} distinct leads recorded of ${PER_SOURCE}`,
        ),
        figure(
          `intake ${source} in-process p50`,
          percentile(handlerMs, 50),
          'ms',
          'one dynalite PutItem p50',
          percentile(putMs, 50),
        ),
        figure(
          `intake ${source} in-process p99`,
          percentile(handlerMs, 99),
          'ms',
          'one dynalite PutItem p99',
          percentile(putMs, 99),
        ),
      );
    }

    // Under load through the gateway: every request a new lead ([<id>] → a fresh id).
    const sample = leadRequest('form', 'load', 0);
    const body = sample.body.toString('utf8').replace('.load0%40', '.[<id>]%40');
    progress(`gateway under load: ${LOAD_SECONDS} s, ${CONNECTIONS} connections, form source`);
    const gateway = await load(`${runtime.gatewayUrl}${sample.url}`, sample, body);
    const bare = await bareServer();
    try {
      progress(`bare node:http under load: ${LOAD_SECONDS} s, ${CONNECTIONS} connections`);
      const baseline = await load(`${bare.url}${sample.url}`, sample, body);
      progress(
        `gateway ${gateway.requests.average} req/s p99 ${gateway.latency.p99} ms (non-2xx ${gateway.non2xx}, errors ${gateway.errors}); bare ${baseline.requests.average} req/s p99 ${baseline.latency.p99} ms`,
      );
      const leads = await countLedger();
      figures.push(
        figure(
          `gateway POST /leads/site under load (${CONNECTIONS} conn, ${LOAD_SECONDS} s)`,
          gateway.requests.average,
          'req/s',
          'bare node:http answering 202',
          baseline.requests.average,
          `2xx ${gateway['2xx']}, non-2xx ${gateway.non2xx}, errors ${gateway.errors}, timeouts ${gateway.timeouts}; ledger items after the run: ${leads}`,
        ),
        figure(
          'gateway POST /leads/site under load p99',
          gateway.latency.p99,
          'ms',
          'bare node:http p99',
          baseline.latency.p99,
          `p50 ${gateway.latency.p50} ms vs ${baseline.latency.p50} ms`,
        ),
      );
    } finally {
      await bare.close();
    }
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return figures;
}

/** Items in the ledger table (leads plus the baseline's items), by a counting scan. */
async function countLedger(): Promise<number> {
  const { ScanCommand } = await import('@aws-sdk/client-dynamodb');
  const services = localServices();
  let count = 0;
  let start: Record<string, import('@aws-sdk/client-dynamodb').AttributeValue> | undefined;
  do {
    const page = await services.dynamo.send(
      new ScanCommand({
        TableName: services.ledgerTable,
        Select: 'COUNT',
        ExclusiveStartKey: start,
      }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}

if (import.meta.filename === process.argv[1]) {
  emitFigures(await intakeBench());
}
