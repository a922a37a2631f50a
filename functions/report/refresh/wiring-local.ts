/**
 * The refresher on one machine: the same use case as on AWS, run by an in-process trigger
 * (report-trigger-local.ts) instead of the SQS queue, with each account's report kept as files
 * under DATA_DIR/reports.
 *
 * `startLocalRefresher` is the local runtime's refresh service: it registers the report
 * directory and the trigger (the admin route's local wiring reaches them through
 * localReportStore() and localReportTrigger()), asks at start for a refresh of every account
 * whose stored report is not fresh, then every `tickSeconds` (60) for the accounts that are due,
 * as the schedule does on AWS. Each run gets the Lambda's time budget
 * (REFRESHER_TIMEOUT_SECONDS), so a long refresh is cut short and continued through the trigger
 * exactly as on AWS. Stopping aborts the run in progress (its checkpoint is kept). Upstream
 * calls are paced by the accounts' pacer items of the local ledger table, the ones the local
 * delivery worker uses, so the two share each account's limits as on AWS; the branch names a
 * refresh learns are kept on that table too (upstream/branch-names-local.ts).
 */
import { join } from 'node:path';
import { localConfigSource } from '../../config/config-local.ts';
import { localServices } from '../../kernel/local-services.ts';
import { logger } from '../../kernel/observability.ts';
import { localBranchNames } from '../../upstream/branch-names-local.ts';
import { pacedUpstream } from '../../upstream/paced-client.ts';
import type { Pacer } from '../../upstream/pacer.ts';
import { LOCAL_PACER_MARGIN_MS, sharedPacerFactory } from '../../upstream/pacer-dynamodb.ts';
import {
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
  type AccountsRefreshDeps,
  REFRESHER_TIMEOUT_SECONDS,
  refreshRequest,
  refreshSource,
  YIELD_TO_LEADS_MS,
} from './refresh.ts';

/**
 * The local adapters; the local runtime must have started the refresher (startLocalRefresher)
 * and its services: unless given a pacer, a refresh paces on the shared item of the local
 * ledger table (localServices(), looked up when a refresh runs), as delivery does.
 */
export function localRefreshDeps(options: { pacer?: Pacer } = {}): AccountsRefreshDeps {
  const { pacer } = options;
  const config = localConfigSource();
  return {
    config,
    branchNames: localBranchNames(),
    stores: (account) => localReportStore(account),
    trigger: localReportTrigger(),
    source: refreshSource(
      config,
      pacedUpstream(config, (limits, account) => {
        if (pacer) return pacer;
        const services = localServices();
        // No maxWaitMs: the refresh's own deadline bounds each wait (see refresh.ts).
        // Leads first: it yields while the account's leads are being sent.
        return sharedPacerFactory(
          { client: services.dynamo, tableName: services.ledgerTable },
          { yieldToLeadsMs: YIELD_TO_LEADS_MS, marginMs: LOCAL_PACER_MARGIN_MS },
        )(limits, account);
      }),
    ),
    events: refreshEvents,
  };
}

export interface LocalRefresherOptions {
  /** DATA_DIR: the report lives in its `reports` directory. */
  dataDir: string;
  /** How often the accounts' reports are checked and refreshed when due (as AWS's schedule). */
  tickSeconds?: number;
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
      return refreshRequest(
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

  // Restarting the runtime does not page the upstream again while a report is fresh.
  if (options.refreshAtStart) {
    const config = localConfigSource();
    for (const upstream of await config.accounts()) {
      if ((await config.report(upstream)).branches.length === 0) continue;
      await trigger.requestRefresh({ reason: 'admin', upstream });
    }
  } else await trigger.requestRefresh({ reason: 'start' });

  const timer = setInterval(
    () => {
      void trigger.requestRefresh({ reason: 'timer' });
    },
    (options.tickSeconds ?? 60) * 1000,
  );
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
