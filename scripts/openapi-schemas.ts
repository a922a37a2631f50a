/**
 * The zod schemas the OpenAPI document (scripts/openapi-document.ts) is generated from, each
 * under the component name it gets. Where a handler already parses with a zod schema it is
 * used as is (the Prospect, the debtors list); the answers the use cases build as TypeScript
 * objects are described here in zod, and the compile-time checks at the end fail when an
 * answer's type and its schema drift apart. The lead platforms' payloads are not here: each
 * source declares its own (`docs` in defineSource, functions/sources/docs.ts), as far as it reads
 * them, and the tests check every committed fixture against them.
 */
import * as z from 'zod/mini';
import type { BackfillResult } from '../functions/admin/backfill.ts';
import { backfillRequestSchema } from '../functions/admin/backfill.ts';
import type { ErasureResult } from '../functions/admin/erasure.ts';
import type { AdminLeadView } from '../functions/admin/leads/lead.ts';
import { PUBLIC_STATUSES } from '../functions/admin/leads/lead.ts';
import type { ReplayResult } from '../functions/admin/replay.ts';
import type { UpstreamHealth } from '../functions/admin/upstream-health.ts';
import { debtorSchema, debtorsListSchema } from '../functions/domain/debtors.ts';
import { AGEING_BUCKETS } from '../functions/domain/debtors-report.ts';
import { externalId } from '../functions/domain/json.ts';
import type { PublicLeadStatus } from '../functions/domain/lead-lifecycle.ts';
import { prospectCreatedSchema, prospectSchema } from '../functions/domain/prospect.ts';
import { prospectBody } from '../functions/sources/prospect.ts';

/** A component's name and what it says. */
export interface ComponentMeta {
  id: string;
  description: string;
}

/** Component name → what it says; the registry of every schema named here. */
export const components = z.registry<ComponentMeta>();

/** The schemas named here, in order (a document's build adds the sources' bodies to them). */
export const namedSchemas: z.core.$ZodType[] = [];

function named<T extends z.core.$ZodType>(id: string, description: string, schema: T): T {
  components.add(schema, { id, description });
  namedSchemas.push(schema);
  return schema;
}

const isoDateTime = z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}T/, 'an ISO 8601 date-time'));
const count = z.int().check(z.nonnegative());

// ---------------------------------------------------------------------------------------------
// Errors

export const errorSchema = named(
  'Error',
  'Every refusal, ours and the gateway’s own (throttled, unknown route, missing credentials): a code to branch on, a sentence for people, and per-field details when the body or query was wrong.',
  z.object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z.array(z.union([z.string(), z.object({ field: z.string(), message: z.string() })])),
    }),
  }),
);

// ---------------------------------------------------------------------------------------------
// Intake

const publicStatus = z.enum(
  PUBLIC_STATUSES as unknown as [PublicLeadStatus, ...PublicLeadStatus[]],
);

export const leadAcceptedSchema = named(
  'LeadAccepted',
  'The lead is recorded: `leadId` for one lead, `leadIds` when the request carried several (RD Station, Meta). Forms say what became of it: `queued` for delivery, or `parked` with the missing fields as `reason` (it is kept; an operator completes it in the console). `erased`: how many leads of the request were dropped because their person’s data was erased on request (a platform sending them again; nothing stored), and `status: "erased"` when that was all of them (docs/privacy.md).',
  z.object({
    leadId: z.optional(z.string()),
    leadIds: z.optional(z.array(z.string())),
    status: z.optional(z.union([publicStatus, z.literal('erased')])),
    reason: z.optional(z.string()),
    erased: z.optional(count),
  }),
);

/** The Prospect: the prospect source's body (sources/prospect.ts) and `POST /api/v1/prospects`'s. */
const prospect = prospectBody();
export const prospectRequestSchema = named(prospect.id, prospect.description, prospect.schema);

export const prospectCreatedAnswer = named(
  'ProspectCreated',
  'Delivered within the wait: the upstream’s id of the new prospect.',
  prospectCreatedSchema,
);

export const prospectErasedSchema = named(
  'ProspectErased',
  'This person’s data was erased at their request (LGPD): the Prospect was not stored and will not be created; do not send it again (docs/privacy.md).',
  z.object({
    status: z.literal('erased'),
    code: z.literal('personal_data_erased'),
    message: z.string(),
  }),
);

export const prospectPendingSchema = named(
  'ProspectPending',
  'Recorded but not (yet) delivered: `queued` when the wait ended first (it is still delivered), `parked` with the missing fields as `reason`, or `dead`/`test`.',
  z.object({
    leadId: z.string(),
    status: publicStatus,
    reason: z.optional(z.string()),
  }),
);

export const prospectRejectedSchema = named(
  'ProspectRejected',
  'The upstream refused the Prospect: its messages as `details`, and the lead id.',
  z.object({ error: errorSchema.shape.error, leadId: z.string() }),
);

// ---------------------------------------------------------------------------------------------
// Admin

const circuitSchema = named(
  'UpstreamCircuit',
  'The upstream circuit shared by every instance: `open` while the upstream answers nobody (leads wait for a probe, uncounted).',
  z.object({
    state: z.enum(['closed', 'open']),
    failures: count,
    openedAt: z.optional(isoDateTime),
    reason: z.optional(z.string()),
    nextProbeAt: z.optional(isoDateTime),
    lastSuccessAt: z.optional(isoDateTime),
    lastFailureAt: z.optional(isoDateTime),
  }),
);

export const adminLeadSchema = named(
  'AdminLead',
  'A lead as operators see it: ids, status and why, never its content (personal data). `attempts` counts its own failures, `tries` every attempt; a lead on its way shows when it is tried next and the upstream circuit.',
  z.object({
    leadId: z.string(),
    profile: z.string(),
    status: publicStatus,
    idProspect: z.optional(externalId),
    attempts: count,
    tries: z.optional(count),
    nextAttemptAt: z.optional(isoDateTime),
    lastError: z.optional(z.string()),
    reason: z.optional(z.string()),
    receivedAt: isoDateTime,
    deliveredAt: z.optional(isoDateTime),
    messages: z.optional(z.array(z.string())),
    upstream: z.optional(z.object({ circuit: circuitSchema })),
  }),
);

const contactSchema = z.object({
  name: z.optional(z.string()),
  email: z.optional(z.string()),
  phone: z.optional(z.string()),
});

const answerSchema = z.object({
  key: z.string(),
  label: z.optional(z.string()),
  type: z.optional(z.string()),
  value: z.union([z.string(), z.array(z.string())]),
});

export const adminLeadDetailSchema = named(
  'AdminLeadDetail',
  'A lead in full, for the operator console (`admin` role only: personal data): its status and why, `contact` (the person), `submitted` (the fields as received), `prospect` (as mapped, the correction laid over it) and the operator’s `correction`; `triesText`, once it was sent, says `tries` and `attempts` as one count for a person ("Tentativas de entrega: 3 (2 falhas deste lead)").',
  z.looseObject({
    ...adminLeadSchema.shape,
    contact: contactSchema,
    submitted: z.looseObject({
      answers: z.array(answerSchema),
      attribution: z.record(z.string(), z.string()),
      submittedAt: z.optional(z.string()),
      externalId: z.optional(z.string()),
      prospect: z.optional(prospectSchema),
      pending: z.optional(z.boolean()),
      test: z.boolean(),
    }),
    prospect: z.optional(prospectSchema),
    correction: z.optional(z.record(z.string(), z.unknown())),
    correctedAt: z.optional(isoDateTime),
    correctedBy: z.optional(z.string()),
    correctable: z.boolean(),
    missing: z.optional(z.array(z.string())),
    triesText: z.optional(z.string()),
  }),
);

export const leadCorrectionSchema = named(
  'LeadCorrection',
  'Prospect fields an operator corrects (validated like the Prospect API; an unknown field is refused; `null` or "" clears one; a phone is split into `ddi` and `cellphone`), kept apart and laid over every mapping of the lead, so delivery never maps it away; and/or `profile`: another profile of the same source to move the lead to (a lead whose profile left the configuration; a queued one too, woken at once). At least one of the two.',
  z.object({
    prospect: z.optional(z.record(z.string(), z.unknown())),
    profile: z.optional(z.string()),
  }),
);

export const leadPreviewSchema = named(
  'LeadPreview',
  'What a body would become: per lead, the Prospect, the required fields missing (it would be parked), warnings and notices. Nothing is stored or delivered.',
  z.object({
    profile: z.string(),
    source: z.string(),
    spam: z.optional(z.boolean()),
    leads: z.array(
      z.looseObject({
        prospect: z.optional(prospectSchema),
        missing: z.optional(z.array(z.string())),
        warnings: z.optional(z.array(z.string())),
        notices: z.optional(z.array(z.string())),
        reason: z.optional(z.string()),
        pending: z.optional(z.boolean()),
      }),
    ),
  }),
);

export const setupKitSchema = named(
  'SetupKit',
  'How to connect each profile: the URL to paste, where in the platform, its secrets (where they live; values only in a local configuration), a curl that sends a sample lead with its signature computed, and a ready HTML form for landing pages.',
  z.object({
    urlPattern: z.string(),
    profiles: z.array(
      z.object({
        profile: z.string(),
        source: z.string(),
        label: z.string(),
        url: z.string(),
        steps: z.array(z.string()),
        secrets: z.array(z.object({ key: z.string(), what: z.string(), where: z.string() })),
        curl: z.string(),
        htmlForm: z.optional(z.string()),
        notes: z.array(z.string()),
      }),
    ),
  }),
);

export const testLeadSchema = named(
  'TestLeadSent',
  'The sample lead was sent to the profile’s URL, signed as its platform would: the intake’s HTTP `status`, its `answer`, and the lead ids it gave.',
  z.object({
    profile: z.string(),
    url: z.string(),
    status: z.int(),
    answer: z.unknown(),
    leadIds: z.array(z.string()),
  }),
);

export const upstreamHealthSchema = named(
  'UpstreamHealth',
  'The upstream as delivery sees it: the circuit, the shared pacer’s next free slot, and the leads queued or being sent.',
  z.object({
    circuit: circuitSchema,
    pacer: z.optional(z.object({ nextSlotAt: z.optional(isoDateTime) })),
    backlog: z.optional(count),
  }),
);

export const leadListSchema = named(
  'LeadList',
  'One page of leads; pass `cursor` back for the next page. With `status` alone, oldest first; otherwise (the console) newest first, each with its `contact`.',
  z.object({
    leads: z.array(z.looseObject({ ...adminLeadSchema.shape, contact: z.optional(contactSchema) })),
    cursor: z.optional(z.string()),
  }),
);

export const leadRequeuedSchema = named(
  'LeadRequeued',
  'The lead is queued for delivery now; `note` says when its wake-up message could not be sent (the reconciler sends it).',
  z.object({ leadId: z.string(), status: z.literal('queued'), note: z.optional(z.string()) }),
);

export const backfillRequest = named(
  'BackfillRequest',
  'The period to recover: lead creation times from `since` (inclusive) to `until` (exclusive), ISO 8601 with their offset; at most 90 days, `until` not in the future.',
  backfillRequestSchema,
);

export const backfillResultSchema = named(
  'BackfillResult',
  'What the platform listed for the period on the profile’s forms: `found`, of which `alreadyKnown` (they did arrive), `new` (recorded now, by first status) and `erased` (erased at their person’s request: not recorded again); `more`: the time ran out, run it again.',
  z.object({
    profile: z.string(),
    since: isoDateTime,
    until: isoDateTime,
    forms: z.array(z.string()),
    found: count,
    alreadyKnown: count,
    new: count,
    erased: count,
    statuses: z.record(z.string(), count),
    more: z.boolean(),
  }),
);

export const replayResultSchema = named(
  'ReplayResult',
  'Dead leads requeued (`skipped`: no longer dead when their turn came; `more`: run it again) and the dead-letter queue’s redrive.',
  z.object({
    requeued: count,
    skipped: count,
    more: z.boolean(),
    redrive: z.union([
      z.object({ status: z.literal('moved'), moved: count }),
      z.object({ status: z.literal('started'), taskHandle: z.string() }),
      z.object({
        status: z.literal('running'),
        taskHandle: z.optional(z.string()),
        moved: z.optional(count),
        toMove: z.optional(count),
      }),
      // A client scoped to some accounts or branches: the queue holds every account's messages.
      z.object({ status: z.literal('skipped') }),
    ]),
    unsent: z.optional(count),
    note: z.optional(z.string()),
  }),
);

export const erasureRequestSchema = named(
  'ErasureRequest',
  'Who is to be erased: their e-mail, phone or CPF (at least one; each normalised as the mapping normalises it).',
  z.object({
    email: z.optional(z.string()),
    phone: z.optional(z.string()),
    cpf: z.optional(z.string()),
  }),
);

export const erasureResultSchema = named(
  'ErasureResult',
  'The leads that named this person, now without personal data (an anonymous record stays), and what the upstream still holds: it has no delete operation, so its prospects must be erased there.',
  z.object({
    found: count,
    erased: z.array(
      z.object({
        leadId: z.string(),
        profile: z.string(),
        status: publicStatus,
        receivedAt: isoDateTime,
        erasedAt: isoDateTime,
        idProspect: z.optional(externalId),
      }),
    ),
    upstream: z.object({ idProspects: z.array(externalId), action: z.string() }),
  }),
);

// ---------------------------------------------------------------------------------------------
// Report

export const debtorComponent = named(
  'Debtor',
  'One debtor row exactly as the upstream sent it (nulls and extra fields kept).',
  debtorSchema,
);

export const debtorsListComponent = named(
  'DebtorsList',
  'The upstream’s answer, from the stored snapshot: one page, the filtered total and its summary.',
  debtorsListSchema,
);

const figures = z.object({
  recoveredValue: z.number(),
  recoveryAverage: z.number(),
  pendingValue: z.number(),
  pendingAverage: z.number(),
});
const bucket = z.object({ count: count, amount: z.number() });

export const debtorsReportSchema = named(
  'DebtorsReport',
  'The debtors report (docs/report.md): the snapshot’s age and refresh status, totals by branch, status and ageing, then the filtered rows (each with `daysOverdue` and `ageingBucket`).',
  z.looseObject({
    generatedAt: isoDateTime,
    ageSeconds: count,
    stale: z.boolean(),
    refreshStatus: z.object({
      lastSucceededAt: z.nullable(z.string()),
      lastFailedAt: z.nullable(z.string()),
      lastError: z.nullable(z.string()),
      failures: count,
    }),
    timeZone: z.string(),
    branches: z.array(z.int()),
    summary: figures,
    summarySource: z.enum(['upstream', 'upstream-combined', 'computed']),
    byBranch: z.array(z.looseObject({ branchId: z.int(), total: count, rows: count })),
    byDebtStatus: z.record(z.string(), bucket),
    byMemberStatus: z.record(z.string(), bucket),
    ageing: z.record(z.enum(AGEING_BUCKETS), bucket),
    ageingUndated: bucket,
    warnings: z.array(z.string()),
    filters: z.record(z.string(), z.unknown()),
    total: count,
    filteredSummary: z.looseObject({}),
    take: count,
    skip: count,
    results: z.array(
      z.looseObject({
        ...debtorSchema.shape,
        daysOverdue: z.nullable(z.int()),
        ageingBucket: z.nullable(z.enum(AGEING_BUCKETS)),
      }),
    ),
  }),
);

export const refreshRequestedSchema = named(
  'RefreshRequested',
  'A refresh of the debtors snapshot is queued; the report shows it once done.',
  z.object({ status: z.literal('refresh_requested') }),
);

// ---------------------------------------------------------------------------------------------
// The gateway

export const healthSchema = named(
  'Health',
  'The gateway is up (`starting` locally while the runtime starts).',
  z.object({ status: z.enum(['ok', 'starting']) }),
);

// ---------------------------------------------------------------------------------------------
// Compile-time checks: an answer type the use cases build must fit its schema.

type Fits<Built, Described> = [Built] extends [Described] ? true : false;
const fits = <T extends true>(_proof: T): void => {};
fits<Fits<AdminLeadView, z.output<typeof adminLeadSchema>>>(true);
fits<Fits<ReplayResult, z.output<typeof replayResultSchema>>>(true);
fits<Fits<BackfillResult, z.output<typeof backfillResultSchema>>>(true);
fits<Fits<ErasureResult, z.output<typeof erasureResultSchema>>>(true);
fits<Fits<UpstreamHealth, z.output<typeof upstreamHealthSchema>>>(true);
