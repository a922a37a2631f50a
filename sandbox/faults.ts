/**
 * The sandbox's fault settings (`POST /_sandbox/faults`) and the draws that apply them. A body
 * replaces the whole set: keys it leaves out (or sets to `null`) go back to their defaults, so
 * `{}` restores production-like behaviour. Unknown keys are refused, so a typo never silently
 * does nothing.
 *
 * Where each fault acts: `outage` and `latencyMs` in the API dispatch (api-routes.ts),
 * `perSecond`/`perMinute` and `errorRate` at admission (admission.ts, drawing `drawsError`),
 * `postStatus`/`postCount` (counted down by `takePostFault`) and `bareId` at prospect creation,
 * `lookupForbidden` at prospect lookup (both in prospects-route.ts).
 */
import * as z from 'zod/mini';
import { describeIssues, type IssueDetail } from '../functions/domain/json.ts';
import { mulberry32 } from './debtors-data.ts';
import { PRODUCTION_RATE_LIMITS } from './rate-limit.ts';

export interface SandboxFaults {
  /** Fraction (0..1) of admitted API requests answered `errorStatus` with an empty body. */
  errorRate: number;
  /** Status of those answers, 400..599 (default 500, like production's broken-key 500s). */
  errorStatus: number;
  /** Delay, in ms, before each API answer (the work itself happens on arrival). */
  latencyMs: number;
  /** API requests have their connection destroyed without an answer. */
  outage: boolean;
  /** Admitted API requests per 1 s window, per username (production: 5). */
  perSecond: number;
  /** Admitted API requests per 60 s window, per username (production: 40). */
  perMinute: number;
  /** Prospect creation answers the bare integer `n` instead of `{"idProspect": n}`. */
  bareId: boolean;
  /** Every prospect creation (POST) is answered this status with an empty body; lookups work. */
  postStatus: number | null;
  /** With postStatus: only the next `postCount` POSTs are so answered (null: every one). */
  postCount: number | null;
  /** Prospect lookups (GET) are answered 403: a key without "Prospects - Consulta". */
  lookupForbidden: boolean;
}

export const DEFAULT_FAULTS: Readonly<SandboxFaults> = Object.freeze({
  errorRate: 0,
  errorStatus: 500,
  latencyMs: 0,
  outage: false,
  perSecond: PRODUCTION_RATE_LIMITS.perSecond,
  perMinute: PRODUCTION_RATE_LIMITS.perMinute,
  bareId: false,
  postStatus: null,
  postCount: null,
  lookupForbidden: false,
});

const optional = <T extends z.core.SomeType>(schema: T) => z.optional(z.nullable(schema));

const faultsSchema = z.strictObject({
  errorRate: optional(z.number().check(z.gte(0), z.lte(1))),
  errorStatus: optional(z.int().check(z.gte(400), z.lte(599))),
  latencyMs: optional(z.int().check(z.gte(0), z.lte(120_000))),
  outage: optional(z.boolean()),
  perSecond: optional(z.int().check(z.gte(1), z.lte(1_000_000))),
  perMinute: optional(z.int().check(z.gte(1), z.lte(100_000_000))),
  bareId: optional(z.boolean()),
  postStatus: optional(z.int().check(z.gte(400), z.lte(599))),
  postCount: optional(z.int().check(z.gte(1), z.lte(1_000_000))),
  lookupForbidden: optional(z.boolean()),
});

export type FaultsParse =
  | { ok: true; faults: SandboxFaults }
  | { ok: false; details: IssueDetail[] };

export function parseFaults(input: unknown): FaultsParse {
  const parsed = faultsSchema.safeParse(input);
  if (!parsed.success) return { ok: false, details: describeIssues(parsed.error.issues, input) };
  const faults: SandboxFaults = { ...DEFAULT_FAULTS };
  for (const key of Object.keys(DEFAULT_FAULTS) as (keyof SandboxFaults)[]) {
    const value = parsed.data[key];
    if (value !== undefined && value !== null) Object.assign(faults, { [key]: value });
  }
  return { ok: true, faults };
}

/** The faults in force and the deterministic draws of `errorRate`. */
export interface FaultState {
  faults: SandboxFaults;
  /** Uniform [0, 1) draws for errorRate; restarted whenever the faults are set. */
  errorDraw: () => number;
}

/** Production-like behaviour: the defaults, draws from the start. */
export function initialFaultState(): FaultState {
  return { faults: { ...DEFAULT_FAULTS }, errorDraw: mulberry32(1) };
}

/** Puts `faults` in force (`POST /_sandbox/faults`); the errorRate draws start over. */
export function setFaults(state: FaultState, faults: SandboxFaults): void {
  state.faults = faults;
  state.errorDraw = mulberry32(1);
}

/** True when this admitted request is to be answered `errorStatus` (errorRate). */
export function drawsError(state: FaultState): boolean {
  const { errorRate } = state.faults;
  return errorRate > 0 && state.errorDraw() < errorRate;
}

/**
 * The status a prospect creation is to be answered instead (postStatus), or undefined. A blip of
 * postCount POSTs counts down here: the last one restores normal answers.
 */
export function takePostFault(state: FaultState): number | undefined {
  const { faults } = state;
  if (faults.postStatus === null) return undefined;
  const status = faults.postStatus;
  if (faults.postCount !== null) {
    faults.postCount -= 1;
    if (faults.postCount <= 0) state.faults = { ...faults, postStatus: null, postCount: null };
  }
  return status;
}
