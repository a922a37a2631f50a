/** The lead commands: list, show, retry, replay (the admin routes, docs/operations.md). */
import type {
  AdminLeadView,
  LeadDetail,
  LeadListing,
  ReplayResult,
  RetryResult,
} from '../../functions/admin/admin.ts';
import type { Command, CommandContext } from '../command.ts';
import { clip, fields, table, usageError } from '../output.ts';

/** The statuses `GET /admin/leads?status=` takes. */
export const LEAD_STATUSES = ['queued', 'delivered', 'rejected', 'dead', 'test', 'parked'] as const;
/** `list` without --status: the leads that wait for an operator. */
export const NEEDS_AN_OPERATOR = ['parked', 'dead', 'rejected'] as const;

function leadRows(leads: readonly AdminLeadView[]): string[][] {
  return leads.map((lead) => [
    lead.leadId,
    lead.status,
    lead.profile,
    String(lead.attempts),
    lead.receivedAt,
    clip(lead.reason ?? lead.lastError),
  ]);
}

const LEAD_COLUMNS = ['LEAD', 'STATUS', 'PROFILE', 'ATTEMPTS', 'RECEIVED', 'WHY'];

function leadPath(leadId: string): string {
  return `/admin/leads/${encodeURIComponent(leadId)}`;
}

export const list: Command = {
  name: 'list',
  summary: `Leads of a status (${LEAD_STATUSES.join(', ')}); default: parked, dead and rejected`,
  usage: 'list [--status <status>] [--limit <n>] [--all]',
  options: {
    status: { type: 'string' },
    limit: { type: 'string' },
    cursor: { type: 'string' },
    all: { type: 'boolean' },
  },
  async run({ api, io, json }, { values }) {
    const status = values.status as string | undefined;
    if (status !== undefined && !(LEAD_STATUSES as readonly string[]).includes(status)) {
      throw usageError(`--status must be one of: ${LEAD_STATUSES.join(', ')}`);
    }
    const limit = values.limit as string | undefined;
    if (limit !== undefined && !/^\d+$/.test(limit)) throw usageError('--limit must be a number');
    const statuses = status ? [status] : [...NEEDS_AN_OPERATOR];
    const leads: AdminLeadView[] = [];
    let cursor: string | undefined;
    for (const wanted of statuses) {
      let next = status ? (values.cursor as string | undefined) : undefined;
      do {
        const query = new URLSearchParams({ status: wanted });
        if (limit) query.set('limit', limit);
        if (next) query.set('cursor', next);
        const { body } = await api().request<LeadListing>('GET', `/admin/leads?${query}`);
        leads.push(...body.leads);
        next = body.cursor;
      } while (next && values.all);
      if (next) cursor = next;
    }
    if (json) {
      io.out(JSON.stringify({ leads, ...(cursor && { cursor }) }, null, 2));
      return;
    }
    if (leads.length === 0) {
      io.out(`no ${statuses.join(', ')} leads`);
      return;
    }
    io.out(table(LEAD_COLUMNS, leadRows(leads)));
    if (cursor) io.out(`\nmore: --cursor ${cursor} (or --all)`);
  },
};

export const show: Command = {
  name: 'show',
  summary: 'One lead: its status, attempts and why',
  usage: 'show <leadId>',
  positionals: [1, 1],
  async run({ api, io, json }, { positionals }) {
    const [leadId] = positionals as [string];
    const { body: lead } = await api().request<LeadDetail>('GET', leadPath(leadId));
    if (json) {
      io.out(JSON.stringify(lead, null, 2));
      return;
    }
    io.out(
      fields([
        ['lead', lead.leadId],
        ['status', lead.status],
        ['profile', lead.profile],
        ['attempts', lead.attempts],
        ['tries', lead.tries],
        ['next attempt', lead.nextAttemptAt],
        ['received', lead.receivedAt],
        ['delivered', lead.deliveredAt],
        ['prospect', lead.idProspect],
        ['reason', lead.reason],
        ['last error', lead.lastError],
        ['upstream said', lead.messages],
        ['upstream', circuitLine(lead.upstream?.circuit)],
      ]),
    );
  },
};

/** The circuit of a lead on its way, in one line; undefined for a settled lead. */
function circuitLine(circuit: NonNullable<LeadDetail['upstream']>['circuit'] | undefined) {
  if (!circuit) return undefined;
  if (circuit.state === 'closed') return 'answering';
  const why = circuit.reason ? ` (${circuit.reason})` : '';
  const probe = circuit.nextProbeAt ? `; next probe ${circuit.nextProbeAt}` : '';
  return `down${why}: leads wait, uncounted${probe}`;
}

export const retry: Command = {
  name: 'retry',
  summary: 'Queue a parked, dead, rejected or test lead again, or try a queued one now',
  usage: 'retry <leadId>',
  positionals: [1, 1],
  async run({ api, io, json }, { positionals }) {
    const [leadId] = positionals as [string];
    const { body } = await api().request<RetryResult>('POST', `${leadPath(leadId)}/retry`);
    if (json) {
      io.out(JSON.stringify(body, null, 2));
      return;
    }
    io.out(`lead ${body.leadId} is queued for delivery now${body.note ? ` (${body.note})` : ''}`);
  },
};

function describeRedrive(redrive: ReplayResult['redrive']): string {
  switch (redrive.status) {
    case 'moved':
      return `${redrive.moved ?? 0} dead-letter messages moved back to the queue`;
    case 'started':
      return 'dead-letter queue redrive started';
    case 'skipped':
      return 'dead-letter queue left alone (this operator sees only some accounts or branches)';
    default:
      return 'a dead-letter queue redrive was already running';
  }
}

export const replay: Command = {
  name: 'replay',
  summary: 'Queue every dead lead again and redrive the dead-letter queue (safe to repeat)',
  usage: 'replay',
  async run({ api, io, json }: CommandContext) {
    const { body } = await api().request<ReplayResult>('POST', '/admin/replay');
    if (json) {
      io.out(JSON.stringify(body, null, 2));
      return;
    }
    io.out(
      [
        `requeued ${body.requeued} dead leads` +
          (body.skipped ? ` (${body.skipped} were no longer dead)` : ''),
        describeRedrive(body.redrive),
        ...(body.note ? [body.note] : []),
        ...(body.more ? ['more dead leads are left: run replay again'] : []),
      ].join('\n'),
    );
  },
};
