/**
 * Intake: the intake handler called in-process with API Gateway proxy events built from the
 * lead fixtures of every source (local/gateway.ts toProxyEvent; bench/leads.ts makes each
 * request a new lead and signs it), against the local runtime's ledger (dynalite), worker off.
 * Every answer must be the source's success answer and every request a new lead in the ledger,
 * or the bench fails. Then the local gateway under load (autocannon, a separate process, form
 * source) against a bare node:http server on the same machine that reads the body and answers
 * 202.
 *
 * The Prospect API (`POST /api/v1/prospects`) waits up to 8 s for the delivery after recording
 * the lead, never past the function's remaining time minus WAIT_RESERVE_MS. With the worker off
 * that wait would measure a timer, so its events carry a Lambda context whose remaining time is
 * exactly WAIT_RESERVE_MS: the wait is 0 and the figure is the intake's own accept path (record,
 * enqueue, 202 queued), comparable with the other sources.
 *
 * In-process baseline: one PutItem of a lead-sized item to the same dynalite, the least a
 * handler that records before answering must do.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { WAIT_RESERVE_MS } from '../functions/intake/prospect-api.ts';
import { localServices } from '../functions/kernel/local-services.ts';
import { BINARY_MEDIA_TYPES } from '../functions/kernel/routes.ts';
import { toProxyEvent } from '../local/gateway-event.ts';
import { startLocalRuntime } from '../local/runtime.ts';
import { REPO_ROOT } from '../local/runtime-env.ts';
import {
  BENCH_SOURCES,
  type BenchSource,
  benchConfig,
  type LeadHttpRequest,
  leadRequest,
} from './leads.ts';
import { emitFigures, type Figure, figure, percentile, progress, runNode } from './lib.ts';

const PER_SOURCE = Number(process.env.BENCH_INTAKE_REQUESTS ?? 200);
/** Untimed requests per source first (module loading, JIT, dynalite), each with its PutItem. */
const WARM_PER_SOURCE = 20;
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const CONNECTIONS = 20;
const PROSPECTS_PATH = '/api/v1/prospects';

/**
 * The status of each source's success answer (docs/sources.md). Prospect: 202 queued, its
 * answer when the wait for delivery ends at once (see the module comment); 200 `{idProspect}`
 * would need a delivery.
 */
const SUCCESS_STATUS: Record<BenchSource, number> = {
  form: 202,
  meta: 200,
  google: 200,
  typeform: 200,
  rdstation: 200,
  unbounce: 200,
  elementor: 200,
  webflow: 200,
  prospect: 202,
};

/** The invocation's context: exactly WAIT_RESERVE_MS left, so the Prospect API does not wait. */
const CONTEXT: Pick<Context, 'getRemainingTimeInMillis'> = {
  getRemainingTimeInMillis: () => WAIT_RESERVE_MS,
};
const PROSPECT_NOTE = `POST ${PROSPECTS_PATH}, Basic auth; Lambda context with ${WAIT_RESERVE_MS} ms left (= WAIT_RESERVE_MS), so the up-to-8 s wait for delivery is 0: the accept path (record, enqueue, 202 queued)`;
const PROSPECT_WAIT_NOTE = 'the accept path: wait for delivery 0 (see the throughput figure)';

/** The profile a request posts to (`/leads/<profile>`; the Prospect API's is the config's). */
function profileOf(request: LeadHttpRequest): string | undefined {
  return /^\/leads\/([^/?]+)/.exec(request.url)?.[1];
}

function eventOf(request: LeadHttpRequest): APIGatewayProxyEvent {
  const rawHeaders = Object.entries({ Host: '127.0.0.1:3000', ...request.headers }).flat();
  const profile = profileOf(request);
  const route = request.url.startsWith(PROSPECTS_PATH)
    ? { resource: PROSPECTS_PATH, pathParameters: null }
    : { resource: '/leads/{profile}', pathParameters: { profile: profile ?? '' } };
  return toProxyEvent(
    {
      method: request.method,
      url: request.url,
      rawHeaders,
      body: request.body,
      remoteAddress: '127.0.0.1',
    },
    route,
    { binaryMediaTypes: BINARY_MEDIA_TYPES, stage: 'local' },
  );
}

/** Why an answer is not the source's success answer; undefined when it is. */
function notSuccess(source: BenchSource, result: APIGatewayProxyResult): string | undefined {
  const expected = SUCCESS_STATUS[source];
  const ok =
    result.statusCode === expected &&
    // Google expects exactly `{}`; every other success answer is `{"leadId", "status": "queued"}`.
    (source === 'google'
      ? result.body === '{}'
      : /"leadId":"ld_[^"]+"/.test(result.body) && result.body.includes('"status":"queued"'));
  return ok
    ? undefined
    : `answered ${result.statusCode} ${result.body.slice(0, 300)} (expected ${expected} ${source === 'google' ? '{}' : 'with leadId, status queued'})`;
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
      handler: (
        event: APIGatewayProxyEvent,
        context?: Pick<Context, 'getRemainingTimeInMillis'>,
      ) => Promise<APIGatewayProxyResult>;
    };
    const services = localServices();
    const putOnce = async (i: number) => {
      await services.dynamo.put({
        TableName: services.ledgerTable,
        Item: { pk: `bench#${i}`, sk: 'lead', body: 'x'.repeat(1500) },
      });
    };
    /** One request of `source`, refused loudly unless it got the source's success answer. */
    const post = async (source: BenchSource, event: APIGatewayProxyEvent) => {
      const result = await handler(event, CONTEXT);
      return { result, problem: notSuccess(source, result) };
    };
    // Warm both paths (module loading, connections, each source's code) before timing.
    for (const source of BENCH_SOURCES) {
      for (let i = 0; i < WARM_PER_SOURCE; i++) {
        const { problem } = await post(source, eventOf(leadRequest(source, 'warm', i)));
        if (problem) throw new Error(`intake ${source} (warm-up) ${problem}`);
        await putOnce(-1 - i);
      }
    }
    const warmLeads = await ledgerLeads();

    const measured: {
      source: BenchSource;
      handlerMs: number[];
      putMs: number[];
      handlerTotal: number;
    }[] = [];
    for (const source of BENCH_SOURCES) {
      const handlerMs: number[] = [];
      const putMs: number[] = [];
      const started = performance.now();
      let handlerTotal = 0;
      for (let i = 0; i < PER_SOURCE; i++) {
        // Built (unique, then signed) before the clock starts.
        const event = eventOf(leadRequest(source, 'inproc', i));
        const t0 = performance.now();
        const { problem } = await post(source, event);
        const t1 = performance.now();
        if (problem) throw new Error(`intake ${source} request ${i} ${problem}`);
        handlerMs.push(t1 - t0);
        handlerTotal += t1 - t0;
        // Interleaved baseline: same load from the machine's other work.
        const p0 = performance.now();
        await putOnce(i);
        putMs.push(performance.now() - p0);
      }
      const elapsed = (performance.now() - started) / 1000;
      progress(
        `intake ${source}: ${PER_SOURCE} × ${SUCCESS_STATUS[source]}, p50 ${percentile(handlerMs, 50).toFixed(2)} ms, p99 ${percentile(handlerMs, 99).toFixed(2)} ms (${elapsed.toFixed(1)} s with baseline)`,
      );
      measured.push({ source, handlerMs, putMs, handlerTotal });
    }

    // Every request must have been a new lead: the ledger holds PER_SOURCE more of each source.
    const allLeads = await ledgerLeads();
    for (const { source, handlerMs, putMs, handlerTotal } of measured) {
      const statuses = new Map<string, number>();
      for (const [status, count] of allLeads.get(source) ?? []) {
        const fresh = count - (warmLeads.get(source)?.get(status) ?? 0);
        if (fresh !== 0) statuses.set(status, fresh);
      }
      const recorded = [...statuses.values()].reduce((a, b) => a + b, 0);
      const byStatus = [...statuses].map(([status, count]) => `${count} ${status}`).join(', ');
      if (recorded !== PER_SOURCE) {
        throw new Error(
          `intake ${source}: ${PER_SOURCE} requests but ${recorded} new leads in the ledger (${byStatus || 'none'}): requests were not all new leads`,
        );
      }
      const answered = `${PER_SOURCE} answers ${SUCCESS_STATUS[source]}, ${recorded} new leads in the ledger (${byStatus})`;
      const extra = source === 'prospect' ? `; ${PROSPECT_NOTE}` : '';
      const putTotal = putMs.reduce((a, b) => a + b, 0);
      figures.push(
        figure(
          `intake ${source} in-process throughput (sequential)`,
          PER_SOURCE / (handlerTotal / 1000),
          'req/s',
          'one dynalite PutItem (sequential)',
          PER_SOURCE / (putTotal / 1000),
          `${answered}${extra}`,
        ),
        figure(
          `intake ${source} in-process p50`,
          percentile(handlerMs, 50),
          'ms',
          'one dynalite PutItem p50',
          percentile(putMs, 50),
          source === 'prospect' ? PROSPECT_WAIT_NOTE : undefined,
        ),
        figure(
          `intake ${source} in-process p99`,
          percentile(handlerMs, 99),
          'ms',
          'one dynalite PutItem p99',
          percentile(putMs, 99),
          source === 'prospect' ? PROSPECT_WAIT_NOTE : undefined,
        ),
      );
    }
    progress(`intake: every request of the ${BENCH_SOURCES.length} sources was a new lead`);

    figures.push(...(await gatewayUnderLoad(runtime.gatewayUrl)));
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return figures;
}

/** The gateway under load against a bare node:http server on the same machine: every request a new lead. */
async function gatewayUnderLoad(gatewayUrl: string): Promise<Figure[]> {
  // [<id>] → a fresh id per request.
  const sample = leadRequest('form', 'load', 0);
  const body = sample.body.toString('utf8').replace('.load0%40', '.[<id>]%40');
  progress(`gateway under load: ${LOAD_SECONDS} s, ${CONNECTIONS} connections, form source`);
  const gateway = await load(`${gatewayUrl}${sample.url}`, sample, body);
  const bare = await bareServer();
  try {
    progress(`bare node:http under load: ${LOAD_SECONDS} s, ${CONNECTIONS} connections`);
    const baseline = await load(`${bare.url}${sample.url}`, sample, body);
    progress(
      `gateway ${gateway.requests.average} req/s p99 ${gateway.latency.p99} ms (non-2xx ${gateway.non2xx}, errors ${gateway.errors}); bare ${baseline.requests.average} req/s p99 ${baseline.latency.p99} ms`,
    );
    const leads = await countLedger();
    return [
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
    ];
  } finally {
    await bare.close();
  }
}

/** Items in the ledger table (leads plus the baseline's items), by a counting scan. */
async function countLedger(): Promise<number> {
  const services = localServices();
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await services.dynamo.scan({
      TableName: services.ledgerTable,
      Select: 'COUNT',
      ...(start && { ExclusiveStartKey: start }),
    });
    count += page.Count;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}

/** The ledger's leads (not dedup or baseline items): count by source, then by status. */
async function ledgerLeads(): Promise<Map<string, Map<string, number>>> {
  const services = localServices();
  const counts = new Map<string, Map<string, number>>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await services.dynamo.scan({
      TableName: services.ledgerTable,
      FilterExpression: '#kind = :lead',
      ProjectionExpression: '#source, #status',
      ExpressionAttributeNames: { '#kind': 'kind', '#source': 'source', '#status': 'status' },
      ExpressionAttributeValues: { ':lead': 'lead' },
      ...(start && { ExclusiveStartKey: start }),
    });
    for (const item of page.Items) {
      const source = String(item.source ?? '?');
      const status = String(item.status ?? '?');
      const bySource = counts.get(source) ?? new Map<string, number>();
      bySource.set(status, (bySource.get(status) ?? 0) + 1);
      counts.set(source, bySource);
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return counts;
}

if (import.meta.filename === process.argv[1]) {
  emitFigures(await intakeBench());
}
