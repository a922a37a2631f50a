/**
 * Delivery: a burst of N leads posted through the local gateway, drained by the local worker
 * against the sandbox, paced at maxPerSecond/maxPerMinute with the sandbox enforcing exactly
 * the same limits (so any crowding of a window shows as a 429). The figures: the drain time
 * (first to last prospect creation, sandbox stats) against its floor at the limit,
 * (N − 1) / L with L = min(perSecond, perMinute / 60): the engine's target is ≤ 1.05; and the
 * sandbox's 429 count, which should be 0.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { DEFAULT_PACER_MARGIN_MS, slotIntervalMs } from '../functions/upstream/pacer-dynamodb.ts';
import { startLocalRuntime } from '../local/runtime.ts';
import type { SandboxStats } from '../sandbox/stats.ts';
import { benchConfig, leadRequest } from './leads.ts';
import { emitFigures, type Figure, figure, progress } from './lib.ts';

const BURST = Number(process.env.BENCH_DELIVERY_LEADS ?? 120);
const LIMITS = { maxPerSecond: 10, maxPerMinute: 1200 };
const SANDBOX_LIMITS = { perSecond: 10, perMinute: 1200 };
const DRAIN_TIMEOUT_MS = 120_000;

export async function deliveryBench(): Promise<Figure[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'leads-bench-delivery-'));
  const configPath = join(dataDir, 'config.json');
  writeFileSync(configPath, JSON.stringify(benchConfig(LIMITS)));
  process.env.POWERTOOLS_LOG_LEVEL ??= 'ERROR';
  const runtime = await startLocalRuntime(
    { port: 0, sandboxPort: 0, upstreamUrl: undefined, configPath, dataDir },
    { worker: true },
  );
  const sandbox = runtime.sandboxUrl ?? '';
  try {
    await fetch(`${sandbox}/_sandbox/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(SANDBOX_LIMITS),
    });
    await delay(1500); // the refresh at start (one branch) is done
    await fetch(`${sandbox}/_sandbox/stats`, { method: 'DELETE' });

    progress(
      `delivery: posting ${BURST} leads, limits ${LIMITS.maxPerSecond}/s ${LIMITS.maxPerMinute}/min`,
    );
    const posted = performance.now();
    const sources = ['form', 'unbounce', 'elementor', 'webflow'] as const;
    await Promise.all(
      Array.from({ length: BURST }, async (_, i) => {
        const request = leadRequest(sources[i % sources.length] ?? 'form', 'burst', i);
        const response = await fetch(`${runtime.gatewayUrl}${request.url}`, {
          method: request.method,
          headers: request.headers,
          body: new Uint8Array(request.body),
        });
        if (response.status >= 300) throw new Error(`intake answered ${response.status}`);
      }),
    );
    progress(
      `delivery: ${BURST} accepted in ${((performance.now() - posted) / 1000).toFixed(1)} s; draining`,
    );

    let stats: SandboxStats | undefined;
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    while (Date.now() < deadline) {
      stats = (await (await fetch(`${sandbox}/_sandbox/stats`)).json()) as SandboxStats;
      const created = stats.requests.filter(
        (r) => r.route === 'POST /api/v1/prospects' && r.status >= 200 && r.status < 300,
      );
      if (created.length >= BURST) break;
      await delay(500);
    }
    const creates = (stats?.requests ?? []).filter((r) => r.route === 'POST /api/v1/prospects');
    const ok = creates.filter((r) => r.status >= 200 && r.status < 300);
    const limited = (stats?.requests ?? []).filter((r) => r.status === 429).length;
    const first = ok[0]?.at ?? 0;
    const last = ok.at(-1)?.at ?? 0;
    const achieved = ok.length > 1 ? (ok.length - 1) / ((last - first) / 1000) : 0;
    const limit = Math.min(LIMITS.maxPerSecond, LIMITS.maxPerMinute / 60);
    const intervalMs = slotIntervalMs(
      LIMITS.maxPerSecond,
      LIMITS.maxPerMinute,
      DEFAULT_PACER_MARGIN_MS,
    );
    const drainS = (last - first) / 1000;
    const floorS = (ok.length - 1) / limit;
    progress(
      `delivery: ${ok.length}/${BURST} created in ${drainS.toFixed(2)} s (floor ${floorS.toFixed(2)} s) → ${achieved.toFixed(2)}/s (L ${limit}/s, pacer ${(1000 / intervalMs).toFixed(2)}/s); 429s ${limited}`,
    );
    if (ok.length < BURST)
      progress(`delivery: only ${ok.length} of ${BURST} delivered before the timeout`);
    return [
      figure(
        `delivery burst of ${BURST}: drain time`,
        drainS,
        's',
        `floor (N − 1) / L at L = min(${LIMITS.maxPerSecond}/s, ${LIMITS.maxPerMinute}/min)`,
        floorS,
        `${ok.length}/${BURST} delivered at ${achieved.toFixed(2)}/s; the pacer spaces starts ${intervalMs} ms (the ${DEFAULT_PACER_MARGIN_MS} ms margin once per window); target ≤ 1.05`,
      ),
      figure(
        'delivery burst: sandbox 429 answers',
        limited,
        'count',
        'expected',
        0,
        `sandbox limits ${SANDBOX_LIMITS.perSecond}/s ${SANDBOX_LIMITS.perMinute}/min; ${creates.length} POSTs in all`,
      ),
    ];
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.filename === process.argv[1]) {
  emitFigures(await deliveryBench());
}
