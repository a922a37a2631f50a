/**
 * The custom metrics the functions emit (Powertools EMF, kernel/observability.ts), named once:
 * the emitters (each function's events) and the constructs that alarm on them or draw them
 * (infra/constructs/delivery-observability.ts, debtors-report.ts) both use these names, so a
 * rename reaches the alarm too. `count`, `seconds` and `ratio` take only these names (a string
 * written in their place does not compile), and test/kernel/metrics.test.ts fails when an
 * emitter writes a name of its own. Pure data.
 *
 * A string enum rather than an object: the bundler writes each name where it is used and drops
 * the rest, so a function reads at init only the names it emits, as when they were literals.
 */
export enum METRICS {
  // The intake (functions/intake/events.ts).
  leadReceived = 'LeadReceived',
  leadDuplicate = 'LeadDuplicate',
  /** Refused requests, for any reason (4xx). */
  leadRefused = 'LeadRefused',
  /** Intake refusals for credentials (401/403): a wrong secret at a platform. */
  leadUnauthentic = 'LeadUnauthentic',
  /** Recorded, but its queue message failed: the reconciler sends it. */
  leadWakeUpDeferred = 'LeadWakeUpDeferred',
  /** Parked for a missing field, by the intake or by delivery. */
  leadParked = 'LeadParked',

  // Delivery: the forwarder (functions/delivery/forward/).
  leadDelivered = 'LeadDelivered',
  leadRejected = 'LeadRejected',
  /** Back to the queue for a later attempt (also an operator's retry, admin). */
  leadRetried = 'LeadRetried',
  leadDead = 'LeadDead',
  leadTest = 'LeadTest',
  /** Seconds since a lead going back for a retry was received (a duration, not a count). */
  leadWaitingSeconds = 'LeadWaitingSeconds',
  /** The upstream (or Meta Graph) refused our credentials. */
  upstreamAuthFailure = 'UpstreamAuthFailure',
  upstreamCircuitOpened = 'UpstreamCircuitOpened',
  upstreamCircuitClosed = 'UpstreamCircuitClosed',
  /**
   * A gauge the reconciler records every minute (functions/delivery/reconcile/events.ts): the
   * accounts whose circuit is open now, and per account (dimension `account`) 1 or 0.
   */
  upstreamCircuitOpen = 'UpstreamCircuitOpen',
  /** The upstream key may not look prospects up: an ambiguous POST cannot be checked. */
  upstreamLookupForbidden = 'UpstreamLookupForbidden',

  // Delivery: the reconciler (functions/delivery/reconcile/).
  leadWoken = 'LeadWoken',
  /** A lead's personal data removed at the end of its retention. */
  leadRedacted = 'LeadRedacted',

  // The operator console (functions/admin/handler.ts) and the quiet-profile watch.
  adminRefused = 'AdminRefused',
  adminUnavailable = 'AdminUnavailable',
  leadReplayed = 'LeadReplayed',
  leadBackfilled = 'LeadBackfilled',
  leadErased = 'LeadErased',
  /** A redelivered lead of a person whose data was erased: acknowledged and dropped (tombstone). */
  erasedLeadDropped = 'ErasedLeadDropped',
  leadCorrected = 'LeadCorrected',
  testLeadSent = 'TestLeadSent',
  profilesQuiet = 'ProfilesQuiet',

  // The Basic-auth authorizer (functions/authorizer/handler.ts).
  /** A wrong password. */
  authFailure = 'AuthFailure',
  /** A sign-in answered 429: its user name or address locked by failures. */
  authThrottled = 'AuthThrottled',
  authThrottleUnavailable = 'AuthThrottleUnavailable',

  // The debtors report: its refresher (functions/report/refresh/events.ts).
  reportRefreshSucceeded = 'ReportRefreshSucceeded',
  reportRefreshFailed = 'ReportRefreshFailed',
  /** The refreshed report's age in seconds (a duration). */
  reportAgeSeconds = 'ReportAgeSeconds',
  /** At each scheduled tick: the oldest account report's age over its refreshSeconds (a ratio). */
  reportAgeRatio = 'ReportAgeRatio',

  // The debtors report: serving it (functions/report/serve/handler.ts).
  reportServed = 'ReportServed',
  reportNotModified = 'ReportNotModified',
  reportNotReady = 'ReportNotReady',
  reportRefused = 'ReportRefused',
  reportRefreshRequested = 'ReportRefreshRequested',
  reportUnavailable = 'ReportUnavailable',
}

/** A metric name of the catalogue. */
export type MetricName = METRICS;
