/**
 * How a debtors report refresh is asked for: the schedule, the admin route and the refresher
 * itself (to continue a refresh that did not fit in one invocation) send a refresh message.
 * One port; on AWS a message on the `refresh` SQS queue (report-trigger-sqs.ts), locally an
 * in-process runner (report-trigger-local.ts). The refresher decides what a message means
 * (functions/report/refresh/refresh.ts): `refresh` runs a refresh unless one that started after the
 * request already succeeded, and continues a refresh in progress rather than starting over;
 * `continue` resumes the checkpoint, and is ignored when there is none.
 */
import * as z from 'zod/mini';
import { accountName } from '../../kernel/accounts.ts';

export const REFRESH_KINDS = ['refresh', 'continue'] as const;
export type RefreshKind = (typeof REFRESH_KINDS)[number];

/** Who asked; logged only. */
export const REFRESH_REASONS = ['schedule', 'admin', 'start', 'timer', 'continuation'] as const;
export type RefreshReason = (typeof REFRESH_REASONS)[number];

export interface RefreshMessage {
  kind: RefreshKind;
  /** ISO 8601: when it was asked for. */
  requestedAt: string;
  reason?: RefreshReason | undefined;
  /** The refresh a `continue` message continues. */
  refreshId?: string | undefined;
  /**
   * The upstream account whose report to refresh. Absent on a `schedule`, `timer` or `start`
   * request: every account whose report is due; otherwise the account `default`.
   */
  upstream?: string | undefined;
}

export interface RefreshRequest {
  /** @default 'refresh' */
  kind?: RefreshKind;
  reason?: RefreshReason;
  refreshId?: string;
  upstream?: string;
  /** Run it no sooner than this (a continuation that yields to leads); not in the message. */
  delaySeconds?: number;
}

export interface ReportTrigger {
  /** Asks for a refresh (or its continuation); resolves once the request is queued, not run. */
  requestRefresh(request?: RefreshRequest): Promise<void>;
}

const messageSchema = z.object({
  kind: z.enum(REFRESH_KINDS),
  requestedAt: z.optional(z.iso.datetime({ offset: true })),
  reason: z.optional(z.enum(REFRESH_REASONS)),
  refreshId: z.optional(z.string().check(z.minLength(1), z.maxLength(100))),
  upstream: z.optional(accountName),
});

/** The message for a request made at `now`. */
export function refreshMessage(request: RefreshRequest = {}, now = new Date()): RefreshMessage {
  return {
    kind: request.kind ?? 'refresh',
    requestedAt: now.toISOString(),
    ...(request.reason !== undefined && { reason: request.reason }),
    ...(request.refreshId !== undefined && { refreshId: request.refreshId }),
    ...(request.upstream !== undefined && { upstream: request.upstream }),
  };
}

export function encodeRefreshMessage(message: RefreshMessage): string {
  return JSON.stringify(message);
}

/**
 * Reads a message body. A body without `requestedAt` (the schedule sends a fixed body) takes
 * `sentAt` (SQS's SentTimestamp). Undefined for anything that is not a refresh message.
 */
export function decodeRefreshMessage(body: string, sentAt: Date): RefreshMessage | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return undefined;
  }
  const parsed = messageSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const { kind, requestedAt, reason, refreshId, upstream } = parsed.data;
  const fallback = Number.isNaN(sentAt.getTime()) ? new Date() : sentAt;
  return {
    kind,
    requestedAt: requestedAt ?? fallback.toISOString(),
    ...(reason !== undefined && { reason }),
    ...(refreshId !== undefined && { refreshId }),
    ...(upstream !== undefined && { upstream }),
  };
}
