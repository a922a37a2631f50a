/**
 * The OpenAPI descriptions of the debtors routes: the upstream's own receivables operation and
 * the cached report (JSON, CSV, HTML), with their filters.
 */
import * as z from 'zod/mini';
import { DEBT_STATUS, MAX_DEBTORS_PAGE, MEMBER_STATUS } from '../functions/domain/debtors.ts';
import {
  DEFAULT_REPORT_TAKE,
  MAX_REPORT_TAKE,
  SORT_FIELDS,
} from '../functions/report/serve/report-json.ts';
import {
  answer,
  type Json,
  type Operation,
  pageScript,
  problem,
  query,
  RETRY_AFTER,
  ref,
  SERVICE_UNAVAILABLE,
} from './openapi-parts.ts';
import {
  debtorsListComponent,
  debtorsReportSchema,
  errorSchema,
  refreshRequestedSchema,
} from './openapi-schemas.ts';

const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'The ETag of an earlier answer: 304 while the snapshot and the query are the same.',
  schema: { type: 'string' },
};

const statusCodes = (vocabulary: Record<string, number>) =>
  Object.entries(vocabulary)
    .map(([name, code]) => `${code} or ${name}`)
    .join(', ');

const REPORT_FILTERS: Json[] = [
  query('branch', 'Branch ids, comma-separated or repeated.', z.string()),
  query('debtStatus', 'Status names, comma-separated or repeated.', z.string()),
  query('memberStatus', 'Status names, comma-separated or repeated.', z.string()),
  query('daysOverdueMin', 'Open debts at least this many days past due.', z.int()),
  query('daysOverdueMax', 'Open debts at most this many days past due.', z.int()),
  query('dueFrom', 'Due on or after this day (`YYYY-MM-DD`).', z.iso.date()),
  query('dueTo', 'Due on or before this day (`YYYY-MM-DD`).', z.iso.date()),
  query('q', 'Name search: every word must appear, ignoring case and accents.', z.string()),
  query(
    'sort',
    `Comma-separated fields, \`-\` first for descending: ${SORT_FIELDS.join(', ')}.`,
    z.string(),
  ),
];

export const REPORT_OPERATIONS: Record<string, Operation> = {
  'GET /api/v1/receivables/debtors': {
    operationId: 'listDebtors',
    summary: 'The debtors list, as the upstream’s own operation, from the stored snapshot',
    description:
      'The upstream’s parameters with its meaning (names case-insensitive, empty values absent, `take` above 50 clamped to 50), answered from the snapshot: never a call upstream.',
    tags: ['report'],
    parameters: [
      query('idBranch', 'A branch id.', z.int()),
      query('debtStatus', `${statusCodes(DEBT_STATUS)}.`, z.string()),
      query('memberStatus', `${statusCodes(MEMBER_STATUS)}.`, z.string()),
      query('take', `Page size, at most ${MAX_DEBTORS_PAGE}.`, z.int().check(z.nonnegative())),
      query('skip', 'Rows to skip.', z.int().check(z.nonnegative())),
      IF_NONE_MATCH,
    ],
    responses: {
      '200': answer('One page of the filtered debtors.', ref(debtorsListComponent)),
      '304': { description: 'Not modified (If-None-Match).' },
      '400': problem('An invalid parameter (`invalid_query`), or an answer too large.'),
      '503': answer(
        'No snapshot yet (`report_not_ready`) or the store failed: retry after Retry-After.',
        ref(errorSchema),
        RETRY_AFTER,
      ),
    },
  },
  'GET /reports/debtors': {
    operationId: 'debtorsReport',
    summary: 'The debtors report as JSON',
    tags: ['report'],
    parameters: [
      ...REPORT_FILTERS,
      query(
        'take',
        `Rows per page (default ${DEFAULT_REPORT_TAKE}, at most ${MAX_REPORT_TAKE}).`,
        z.int().check(z.minimum(0), z.maximum(MAX_REPORT_TAKE)),
      ),
      query('skip', 'Rows to skip.', z.int().check(z.nonnegative())),
      IF_NONE_MATCH,
    ],
    responses: {
      '200': answer('The report.', ref(debtorsReportSchema)),
      '304': { description: 'Not modified (If-None-Match).' },
      '400': problem('An unknown or invalid parameter (`invalid_query`), one detail per field.'),
      '503': answer('No snapshot yet, or the store failed.', ref(errorSchema), RETRY_AFTER),
    },
  },
  'GET /reports/debtors.csv': {
    operationId: 'debtorsCsv',
    summary: 'The debtors report as CSV',
    tags: ['report'],
    parameters: [
      ...REPORT_FILTERS,
      query('take', 'Rows per file; the whole report when absent.', z.int().check(z.nonnegative())),
      query('skip', 'Rows to skip.', z.int().check(z.nonnegative())),
      query(
        'dialect',
        '`br` (`;`, decimal comma; default) or `intl` (`,`, decimal point).',
        z.enum(['br', 'intl']),
      ),
      IF_NONE_MATCH,
    ],
    responses: {
      '200': {
        description: 'The CSV file (`Content-Disposition: attachment`, `X-Total-Count`).',
        content: { 'text/csv': { schema: { type: 'string' } } },
      },
      '304': { description: 'Not modified (If-None-Match).' },
      '400': problem('An invalid parameter, or a CSV too large for one answer (`csv_too_large`).'),
      '503': answer('No snapshot yet, or the store failed.', ref(errorSchema), RETRY_AFTER),
    },
  },
  'GET /reports/debtors.html': {
    operationId: 'debtorsDashboard',
    summary: 'The debtors dashboard, a page for people',
    tags: ['report'],
    parameters: [IF_NONE_MATCH],
    responses: {
      '200': {
        description: 'The dashboard.',
        content: { 'text/html': { schema: { type: 'string' } } },
      },
      '304': { description: 'Not modified (If-None-Match).' },
      '503': answer('No snapshot yet, or the store failed.', ref(errorSchema), RETRY_AFTER),
    },
  },
  'GET /reports/assets/{file}': pageScript('dashboardScript', 'the debtors dashboard', 'report'),
  'POST /admin/reports/debtors/refresh': {
    operationId: 'refreshDebtors',
    summary: 'Ask for a refresh of the debtors snapshot now',
    tags: ['admin'],
    responses: {
      '202': answer('Queued.', ref(refreshRequestedSchema)),
      '503': SERVICE_UNAVAILABLE,
    },
  },
};
