/**
 * The refresher on one machine: the same use case as on AWS, run by an in-process trigger
 * (report-trigger-local.ts) instead of the SQS queue, with the report kept as files under
 * DATA_DIR/reports.
 *
 * `startLocalRefresher` is the local runtime's refresh service: it registers the report
 * directory and the trigger (the admin route's local wiring reaches them through
 * localReportStore() and localReportTrigger()), asks for a refresh at start unless the stored
 * snapshot is still fresh, then every `report.refreshSeconds`. Each run gets the Lambda's time
 * budget (REFRESHER_TIMEOUT_SECONDS), so a long refresh is cut short and continued through the
 * trigger exactly as on AWS. Stopping aborts the run in progress (its checkpoint is kept).
 * Upstream calls are paced by the pacer item of the local ledger table, the one the local
 * delivery worker uses, so the two share the upstream's limits as on AWS.
 */
import { join } from 'node:path';
import { localConfigSource } from '../../config/config-local.ts';
import { snapshotAgeSeconds } from '../../domain/debtors-report.ts';
import { localServices } from '../../kernel/local-services.ts';
import { logger } from '../../kernel/observability.ts';
import { pacedUpstream } from '../../upstream/paced-client.ts';
import type { Pacer } from '../../upstream/pacer.ts';
import { sharedPacerFactory } from '../../upstream/pacer-dynamodb.ts';
import {
  createFileReportStore,
  LOCAL_REPORT_DIR,
  localReportStore,
  setLocalReportDir,
} from '../store/report-store-file.ts';
import {
  createLocalReportTrigger,
  type LocalReportTrigger,
  localReportTrigger,
  setLocalReportTrigger,
} from '../trigger/report-trigger-local.ts';
import { refreshEvents } from './events.ts';
import {
  REFRESHER_TIMEOUT_SECONDS,
  type RefreshDeps,
  refreshDebtors,
  refreshSource,
} from './refresh.ts';

/**
 * The local adapters; the local runtime must have started the refresher (startLocalRefresher)
 * and its services: unless given a pacer, a refresh paces on the shared item of the local
 * ledger table (localServices(), looked up when a refresh runs), as delivery does.
 */
export function localRefreshDeps(options: { pacer?: Pacer } = {}): RefreshDeps {
  const { pacer } = options;
  const config = localConfigSource();
  return {
    store: localReportStore(),
    trigger: localReportTrigger(),
    source: refreshSource(
      config,
      pacedUpstream(config, (limits) => {
        if (pacer) return pacer;
        const services = localServices();
        // No maxWaitMs: the refresh's own deadline bounds each wait (see refresh.ts).
        return sharedPacerFactory({ client: services.dynamo, tableName: services.ledgerTable })(
          limits,
        );
      }),
    ),
    events: refreshEvents,
  };
}

export interface LocalRefresherOptions {
  /** DATA_DIR: the report lives in its `reports` directory. */
  dataDir: string;
  /** report.refreshSeconds of the configuration. */
  refreshSeconds: number;
  /** Default: the pacer item of the local ledger table (localServices()), shared with delivery. */
  pacer?: Pacer;
  /** Time budget of one run, as the Lambda's timeout. */
  budgetMs?: number;
  /** Ask for a refresh at start even when the stored snapshot is fresh. */
  refreshAtStart?: boolean;
}

export interface LocalRefresher {
  trigger: LocalReportTrigger;
  stop(): Promise<void>;
}

/** Starts the local refresh service (see the module comment). */
export async function startLocalRefresher(options: LocalRefresherOptions): Promise<LocalRefresher> {
  const dir = join(options.dataDir, LOCAL_REPORT_DIR);
  const budgetMs = options.budgetMs ?? REFRESHER_TIMEOUT_SECONDS * 1000;
  const stopping = new AbortController();
  setLocalReportDir(dir);

  const trigger = createLocalReportTrigger({
    run: (message) => {
      const deadline = Date.now() + budgetMs;
      return refreshDebtors(
        {
          ...localRefreshDeps(options.pacer ? { pacer: options.pacer } : {}),
          remainingMs: () => deadline - Date.now(),
          signal: stopping.signal,
        },
        message,
      );
    },
    onError: (error, message) => {
      logger.error('local refresh could not record its outcome', { kind: message.kind, error });
    },
  });
  setLocalReportTrigger(trigger);

  // Restarting the runtime does not page the upstream again while the snapshot is fresh.
  const store = createFileReportStore({ dir });
  const [stored, status, checkpoint] = await Promise.all([
    store.readSnapshot().catch(() => undefined),
    store.readStatus().catch(() => ({ failures: 1 })),
    store.readCheckpoint().catch(() => undefined),
  ]);
  const fresh =
    stored !== undefined &&
    status.failures === 0 &&
    checkpoint === undefined &&
    snapshotAgeSeconds(stored.snapshot, Date.now()) < options.refreshSeconds;
  if (options.refreshAtStart || !fresh) await trigger.requestRefresh({ reason: 'start' });

  const timer = setInterval(() => {
    void trigger.requestRefresh({ reason: 'timer' });
  }, options.refreshSeconds * 1000);
  timer.unref();

  return {
    trigger,
    async stop() {
      clearInterval(timer);
      stopping.abort(new Error('the local runtime is stopping'));
      await trigger.close();
      setLocalReportTrigger(undefined);
      setLocalReportDir(undefined);
    },
  };
}
