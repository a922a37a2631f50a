/**
 * The OpenAPI descriptions of the operators' routes under /admin: leads, previews and test
 * leads, the setup kit, replay, backfill and erasure.
 */
import * as z from 'zod/mini';
import { PUBLIC_STATUSES } from '../functions/admin/leads/lead.ts';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT } from '../functions/admin/leads/list.ts';
import {
  answer,
  JSON_TYPE,
  jsonContent,
  LEAD_ID,
  type Operation,
  PROFILE,
  pageScript,
  problem,
  query,
  RETRY_AFTER,
  ref,
  SERVICE_UNAVAILABLE,
  URLENCODED,
} from './openapi-parts.ts';
import {
  adminLeadDetailSchema,
  backfillRequest,
  backfillResultSchema,
  erasureRequestSchema,
  erasureResultSchema,
  errorSchema,
  leadCorrectionSchema,
  leadListSchema,
  leadPreviewSchema,
  leadRequeuedSchema,
  replayResultSchema,
  setupKitSchema,
  testLeadSchema,
  upstreamHealthSchema,
} from './openapi-schemas.ts';

export const ADMIN_OPERATIONS: Record<string, Operation> = {
  'GET /admin/leads/{leadId}': {
    operationId: 'getLead',
    summary: 'One lead: its status and why, what the person sent, the Prospect it became',
    tags: ['admin'],
    parameters: [LEAD_ID],
    responses: {
      '200': answer('The lead.', ref(adminLeadDetailSchema)),
      '400': problem('Not a lead id (`invalid_lead_id`).'),
      '404': problem('No such lead (`lead_not_found`).'),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'GET /admin/leads': {
    operationId: 'listLeads',
    summary: 'Leads: the most recent first, or those of a status oldest first',
    description:
      'Without `status`, or with any of `profile`, `q`, `since`, `until`, `order`: every status merged, newest first (the console’s list), narrowed by profile, period and a search over name, e-mail and phone. With `status` alone: that status, oldest first.',
    tags: ['admin'],
    parameters: [
      query('status', 'Which leads.', z.enum(PUBLIC_STATUSES as [string, ...string[]])),
      query('profile', 'Only this profile’s leads.', z.string()),
      query('q', 'Search: words of a name or e-mail, or a phone’s digits.', z.string()),
      query('since', 'Received at or after (a date or an ISO 8601 instant).', z.string()),
      query(
        'until',
        'Received before (an ISO 8601 instant; a date includes that day).',
        z.string(),
      ),
      query('order', '`newest` (default) or `oldest` first.', z.enum(['newest', 'oldest'])),
      query(
        'limit',
        `Leads per page (default ${DEFAULT_LIST_LIMIT}).`,
        z.int().check(z.minimum(1), z.maximum(MAX_LIST_LIMIT)),
      ),
      query('cursor', 'The previous page’s `cursor`.', z.string()),
    ],
    responses: {
      '200': answer('One page.', ref(leadListSchema)),
      '400': problem(
        'An invalid parameter (`invalid_status`, `invalid_limit`, `invalid_query`...).',
      ),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'PATCH /admin/leads/{leadId}': {
    operationId: 'correctLead',
    summary:
      'Correct a parked, rejected, dead or test lead’s fields (then retry it), or move a lead to another profile',
    description:
      'A browser must send the console’s `X-CSRF-Token` and come from this site (docs/operations.md).',
    tags: ['admin'],
    parameters: [LEAD_ID],
    requestBody: { required: true, content: jsonContent(ref(leadCorrectionSchema)) },
    responses: {
      '200': answer(
        'The lead as corrected; `missing`: what it still lacks.',
        ref(adminLeadDetailSchema),
      ),
      '400': problem(
        'Not JSON, or fields that cannot be used (`invalid_prospect`, one detail each).',
      ),
      '403': problem(
        'A browser request from another site or without the token (`cross_site_refused`); a branch or profile outside the scoped operator’s scope (`outside_scope`, nothing changed).',
      ),
      '404': problem('No such lead.'),
      '409': problem(
        'Not correctable now (`not_correctable`), its profile is gone (`unknown_profile`: move it), the profile named has another source (`other_source`), or it changed meanwhile (`conflict`).',
      ),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'GET /admin/leads.csv': {
    operationId: 'exportLeads',
    summary: 'Leads of a status (parked by default) as a CSV for a sales team',
    tags: ['admin'],
    parameters: [
      query(
        'status',
        'Which leads (default `parked`).',
        z.enum(PUBLIC_STATUSES as [string, ...string[]]),
      ),
      query('profile', 'Only this profile’s leads.', z.string()),
      query('since', 'Received at or after.', z.string()),
      query('until', 'Received before.', z.string()),
    ],
    responses: {
      '200': {
        description: 'The CSV (`;`, UTF-8 with BOM, Portuguese headers: Excel-ready).',
        content: { 'text/csv': { schema: { type: 'string' } } },
      },
      '400': problem('An invalid parameter.'),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'GET /admin': {
    operationId: 'operatorConsole',
    summary: 'The operator console, a page for people (also at /admin/)',
    tags: ['admin'],
    responses: {
      '200': {
        description: 'The console.',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
    },
  },
  'GET /admin/assets/{file}': pageScript('consoleScript', 'the operator console', 'admin'),
  'POST /admin/preview/{profile}': {
    operationId: 'previewLead',
    summary: 'Map a body as the profile’s platform would send it; store and deliver nothing',
    tags: ['admin'],
    parameters: [PROFILE],
    requestBody: {
      required: true,
      content: { [JSON_TYPE]: { schema: {} }, [URLENCODED]: { schema: { type: 'object' } } },
    },
    responses: {
      '200': answer('What it would become.', ref(leadPreviewSchema)),
      '400': problem('A body the source cannot read (`unreadable_body`).'),
      '404': problem('No such profile (`unknown_profile`).'),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'POST /admin/test-lead/{profile}': {
    operationId: 'sendTestLead',
    summary: 'Send the profile’s sample lead through the real path, signed as its platform would',
    description:
      'The lead is real: it is recorded and delivered upstream (the person is “Ana Teste”).',
    tags: ['admin'],
    parameters: [PROFILE],
    responses: {
      '200': answer('What the intake answered.', ref(testLeadSchema)),
      '404': problem('No such profile.'),
      '409': problem('No sample for this source (`no_sample`).'),
      '502': problem('The intake could not be reached (`test_lead_failed`).'),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'GET /admin/setup': {
    operationId: 'setupKit',
    summary:
      'How to connect each profile’s platform: URL, where to paste it, secrets, a curl, an HTML form',
    tags: ['admin'],
    responses: {
      '200': answer('Every profile’s kit.', ref(setupKitSchema)),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'POST /admin/setup/{profile}/reveal': {
    operationId: 'revealProfileSecrets',
    summary: 'The profile’s secret values, the URL to paste with its token, which keys rotate',
    description:
      'Audited (who, which keys; never a value) and never cached. Replaced values still accepted are listed by key and end of grace, not shown.',
    tags: ['admin'],
    parameters: [PROFILE],
    responses: {
      '200': answer('The secrets.', {
        type: 'object',
        required: ['profile', 'url', 'secrets', 'previous'],
        properties: {
          profile: { type: 'string' },
          url: { type: 'string' },
          secrets: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                key: { type: 'string' },
                value: { type: ['string', 'null'] },
                rotatable: { type: 'boolean' },
              },
            },
          },
          previous: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                key: { type: 'string' },
                until: { type: 'string', format: 'date-time' },
              },
            },
          },
        },
      }),
      '404': problem('No such profile (`unknown_profile`).'),
      '409': problem('A profile without secrets (`no_secrets`).'),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'POST /admin/setup/{profile}/rotate': {
    operationId: 'rotateProfileSecret',
    summary:
      'A new random value for a key the platform is given (a token); the old one stays valid 7 days',
    tags: ['admin'],
    parameters: [PROFILE],
    requestBody: {
      required: true,
      content: {
        [JSON_TYPE]: {
          schema: { type: 'object', required: ['key'], properties: { key: { type: 'string' } } },
        },
      },
    },
    responses: {
      '200': answer('The new value and the URL to paste.', {
        type: 'object',
        properties: {
          profile: { type: 'string' },
          key: { type: 'string' },
          value: { type: 'string' },
          url: { type: 'string' },
          previousUntil: { type: ['string', 'null'], format: 'date-time' },
        },
      }),
      '400': problem('No key, or a key the profile does not have (`invalid_body`).'),
      '404': problem('No such profile (`unknown_profile`).'),
      '409': problem('A key the platform issues (`not_rotatable`), or no secrets (`no_secrets`).'),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'POST /admin/leads/{leadId}/retry': {
    operationId: 'retryLead',
    summary: 'Queue a parked, dead, rejected or test lead again, or try a queued one now',
    description:
      'A final lead starts a new delivery chain with its attempts reset; a queued lead is woken: its next attempt is due now.',
    tags: ['admin'],
    parameters: [LEAD_ID],
    responses: {
      '202': answer('Queued for delivery now.', ref(leadRequeuedSchema)),
      '400': problem('Not a lead id.'),
      '404': problem('No such lead.'),
      '409': problem(
        'Already delivered (`already_delivered`), or it changed meanwhile (`conflict`).',
      ),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'GET /admin/upstream': {
    operationId: 'getUpstreamHealth',
    summary: 'The upstream as delivery sees it: circuit, pacer, backlog',
    tags: ['admin'],
    responses: {
      '200': answer('The upstream’s health.', ref(upstreamHealthSchema)),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'POST /admin/replay': {
    operationId: 'replayDeadLeads',
    summary: 'Queue every dead lead again and redrive the dead-letter queue',
    description: 'Safe to run twice, or twice at once: nothing is sent twice.',
    tags: ['admin'],
    responses: {
      '202': answer('What was requeued.', ref(replayResultSchema)),
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'POST /admin/backfill/{profile}': {
    operationId: 'backfillLeads',
    summary: 'Recover the leads a platform kept for a period (Meta, TikTok)',
    description:
      'Lists the leads the profile’s platform kept for the period on the profile’s forms (its `forms` keys) and records each one the ledger does not have, as the webhook would have (same dedup key), then wakes it for delivery. Leads that did arrive are counted as already known and not posted again. Safe to run twice.',
    tags: ['admin'],
    parameters: [PROFILE],
    requestBody: { required: true, content: jsonContent(ref(backfillRequest)) },
    responses: {
      '200': answer('What the platform listed and what was recorded.', ref(backfillResultSchema)),
      '400': problem(
        'A bad body or period (`invalid_body`, `invalid_period`, `period_too_long`), or a period that ended before the days the platform keeps (`period_not_kept`; one that began before them is cut there and the answer’s `notice` says so).',
      ),
      '404': problem('No such profile (`unknown_profile`).'),
      '409': problem(
        'The profile’s source keeps no leads to list (`backfill_unsupported`), or it names no forms (`no_forms`).',
      ),
      '502': problem('The platform refused the listing (`platform_refused`: a token, a form id).'),
      '503': answer(
        'The platform or the lead store is unavailable, or too slow: try again (nothing is posted twice).',
        ref(errorSchema),
        RETRY_AFTER,
      ),
    },
  },
  'POST /admin/erasure': {
    operationId: 'erasePerson',
    summary: 'Erase a person’s personal data (LGPD) from the gateway',
    description:
      'Finds the leads naming this e-mail, phone or CPF (what the person sent or an operator typed), removes their personal data (an anonymous record that each lead existed and was erased stays; a lead still queued is stopped, dead), leaves salted tombstones so that a platform sending the same lead again, or a backfill, is acknowledged and dropped, and says which upstream prospects hold the person’s data (leads erased earlier and found again included): the upstream has no delete operation, so erase those there. An erased lead can be neither retried nor corrected (409 `personal_data_removed`). Safe to repeat. docs/privacy.md.',
    tags: ['admin'],
    requestBody: {
      required: true,
      content: { [JSON_TYPE]: { schema: ref(erasureRequestSchema) } },
    },
    responses: {
      '200': answer(
        'What was erased, and what the upstream still holds.',
        ref(erasureResultSchema),
      ),
      '400': problem(
        'The body is not JSON naming a valid e-mail, phone or CPF (`invalid_body`, `invalid_subject`).',
      ),
      '503': SERVICE_UNAVAILABLE,
    },
  },
};
