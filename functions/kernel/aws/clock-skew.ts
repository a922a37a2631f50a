/**
 * Clock-skew correction as the AWS SDK's SigV4 signer does it (@aws-sdk/core's
 * AwsSdkSigV4Signer): each answer's `Date` header (or an S3 error's `ServerTime`) tells how far
 * this machine's clock is from AWS's; requests are signed at the corrected time. When an error
 * arrives with the clock 4 minutes or more off and the offset it gives is not the one the request
 * was signed with (`RequestTimeTooSkewed`, `InvalidSignatureException`, `SignatureDoesNotMatch`,
 * whatever the service called it), the error is marked `clockSkewCorrected`, which makes it a
 * transient error: it is tried again, signed with the new offset.
 *
 * The offset is not touched when the answer has an `Age` header (a cache's copy) or when the
 * request took over 15 minutes. One offset per client, as the SDK keeps one per client. (As in
 * the SDK, while the clock is 4 minutes or more off every error answer counts as corrected, so
 * any error is tried again up to the attempts: the offset it gives is never exactly the one
 * signed with, the server's Date having whole seconds.)
 */

import type { AwsHeaders } from './transport.ts';

/** How far the clock must be off for an error to count as one the correction fixed. */
export const CLOCK_SKEW_THRESHOLD_MS = 240_000;
/** A round trip longer than this says nothing about the clocks. */
const MAX_ROUND_TRIP_MS = 900_000;

export class ClockSkew {
  /** Server time minus local time, in ms. */
  offsetMs = 0;

  /** The time to sign a request with. */
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /**
   * Takes the server's time of an answer to a request sent at `sentAt` (local epoch ms,
   * uncorrected) and signed with `signedOffset`. Returns whether an error with this answer
   * counts as corrected (the SDK's `$metadata.clockSkewCorrected`).
   */
  sample(headers: AwsHeaders, sentAt: number, signedOffset: number, serverTime?: string): boolean {
    const time = serverTime ?? headers.get('date');
    if (!time) return false;
    const server = Date.parse(time);
    const received = Date.now();
    // A cache's copy, an unreadable date or a very long round trip leave the offset as it is.
    if (!headers.has('age') && !Number.isNaN(server) && received - sentAt <= MAX_ROUND_TRIP_MS) {
      this.offsetMs = server - received;
    }
    return Math.abs(this.offsetMs) >= CLOCK_SKEW_THRESHOLD_MS && this.offsetMs !== signedOffset;
  }
}
