/**
 * The report function's local adapters: the config file, the file report store under
 * DATA_DIR/reports and the in-process refresh trigger, both registered by the local runtime.
 */
import { localConfigSource } from '../../config/config-local.ts';
import { localReportStore } from '../store/report-store-file.ts';
import type { ReportTrigger } from '../trigger/report-trigger.ts';
import { localReportTrigger } from '../trigger/report-trigger-local.ts';
import type { ReportDeps } from './serve.ts';

export function localReportDeps(): Omit<ReportDeps, 'events'> {
  // Looked up per use: the runtime registers the store and the trigger after modules load, and
  // a restarted runtime (tests) registers new ones.
  const trigger: ReportTrigger = {
    requestRefresh: (request) => localReportTrigger().requestRefresh(request),
  };
  return {
    config: localConfigSource(),
    stores: (account) => ({
      readSnapshot: () => localReportStore(account).readSnapshot(),
      readStatus: () => localReportStore(account).readStatus(),
    }),
    trigger,
  };
}
