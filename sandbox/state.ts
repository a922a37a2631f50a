/**
 * Everything the sandbox's routes read and change, in one object: the union of what each room
 * declares it needs (exchange.ts `Outlet`, admission.ts, prospects-route.ts, debtors-route.ts,
 * platform-routes.ts, faults.ts). createSandbox (server.ts) builds it once; the routes are
 * module-level functions that take it, so no route holds state of its own.
 */
import type { AdmissionRoom, Credentials } from './admission.ts';
import { createDebtorsState, type DebtorsRoom } from './debtors-route.ts';
import { Delays, type Outlet } from './exchange.ts';
import { initialFaultState } from './faults.ts';
import { createKommoStore } from './kommo.ts';
import type { PlatformRoom } from './platform-routes.ts';
import { emptyProspects, type ProspectsRoom } from './prospects-route.ts';
import { SlidingWindowRateLimiter } from './rate-limit.ts';
import { RequestStats } from './stats.ts';
import { TikTokTasks } from './tiktok-leads.ts';

export interface SandboxState
  extends Outlet,
    AdmissionRoom,
    ProspectsRoom,
    DebtorsRoom,
    PlatformRoom {}

export interface StateOptions {
  /** The accepted credentials, the main user first. */
  users: readonly Credentials[];
  /** The `debtors` option (debtors-route.ts); throws when invalid. */
  debtors: unknown;
  /** The sandbox's clock for dates; default real time. */
  now: (() => Date) | undefined;
}

export function createSandboxState(options: StateOptions): SandboxState {
  const clock = options.now ?? (() => new Date());
  /** The configured clock, falling back to real time if it ever gives an invalid date. */
  const now = () => {
    const date = clock();
    return date instanceof Date && Number.isFinite(date.getTime()) ? date : new Date();
  };
  const debtors = createDebtorsState(options.debtors);
  return {
    users: options.users,
    now,
    stats: new RequestStats(),
    delays: new Delays(),
    limiter: new SlidingWindowRateLimiter(),
    ...initialFaultState(),
    ...emptyProspects(),
    debtors,
    metaLeads: new Map(),
    tiktokLeads: new Map(),
    tiktokTasks: new TikTokTasks(),
    kommo: createKommoStore(),
  };
}
