/**
 * What every lead source implements. The intake use case (intake.ts) authenticates the request
 * with the source's profile, captures its leads, hands them to delivery and answers the way the
 * platform expects. Sources are pure: no AWS, no process.env, no network.
 */

import type { Profile, SourceName } from '../config/config-schema.ts';
import type { IssueDetail } from '../domain/json.ts';
import type { LeadCapture } from '../domain/lead.ts';
import type { HttpRequest } from '../kernel/http.ts';

/** An HTTP request as the intake sees it, independent of API Gateway. */
export type IntakeRequest = HttpRequest;

export type Authenticity =
  | { ok: true }
  | { ok: false; status: 401 | 403; code: string; message: string };

/** A source's answer to an accepted request, shaped the way its platform expects. */
export interface PlatformResponse {
  statusCode: number;
  headers?: Record<string, string>;
  body: string;
}

/** Captures of one request. `problem` means the body could not be read as this source's payload. */
export type CaptureResult =
  | {
      leads: LeadCapture[];
      /**
       * The profile's honeypot field was filled (a bot): answer as if accepted, deliver nothing.
       * The leads are still captured, for a look at what the bots send.
       */
      spam?: true;
    }
  | {
      problem: string;
      /** One entry per offending field, for a 400 answer (never the values sent). */
      details?: readonly IssueDetail[];
      /** Dedup key for the unreadable body itself. */
      dedupKey: string;
    };

export interface SourceAdapter<S extends SourceName = SourceName> {
  source: S;
  /** Checks who sent the request, in constant time, over the raw body. */
  authenticate(request: IntakeRequest, profile: Extract<Profile, { source: S }>): Authenticity;
  /**
   * Reads the leads a request carries (RD Station can send several in one). May be async:
   * multipart bodies are parsed by the platform, which is (functions/sources/body.ts).
   */
  capture(
    request: IntakeRequest,
    profile: Extract<Profile, { source: S }>,
  ): CaptureResult | Promise<CaptureResult>;
  /**
   * True for sources whose senders drop a lead on any 4xx (ad platforms, form builders): once
   * authentic, an unreadable body is accepted and parked with its reason instead of refused.
   */
  parkUnreadable: boolean;
  /** The success answer the platform expects, given the lead ids accepted. */
  accepted(leadIds: readonly string[]): PlatformResponse;
  /** Optional GET handler (Meta's subscription handshake). */
  handshake?(request: IntakeRequest, profile: Extract<Profile, { source: S }>): PlatformResponse;
}
