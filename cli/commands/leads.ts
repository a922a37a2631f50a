/**
 * The lead commands: list, show, retry, move, replay (the admin routes, docs/operations.md).
 * People read the tables: statuses as the console says them (`Parado`: STATUS_LABELS) and times
 * on the account's clock (`26/11/2026 08:41:47`); `--json` prints the gateway's answer as is.
 */
import type { AdminLeadView } from '../../functions/admin/leads/lead.ts';
import type { LeadListing } from '../../functions/admin/leads/list.ts';
import type { RetryResult } from '../../functions/admin/leads/retry.ts';
import type { LeadDetail } from '../../functions/admin/leads/view.ts';
import type { ReplayResult } from '../../functions/admin/replay.ts';
import { localDateTime } from '../../functions/domain/local-time.ts';
import { STATUS_LABELS } from '../../functions/domain/status-labels.ts';
import type { Command, CommandContext } from '../command.ts';
import { clip, fields, table, usageError } from '../output.ts';

/** The statuses `GET /admin/leads?status=` takes. */
export const LEAD_STATUSES = ['queued', 'delivered', 'rejected', 'dead', 'test', 'parked'] as const;
/** `list` without --status: the leads that wait for an operator. */
export const NEEDS_AN_OPERATOR = ['parked', 'dead', 'rejected'] as const;

/** A status as the console says it (`parked` → `Parado`). */
export function statusPt(status: string): string {
  return Object.hasOwn(STATUS_LABELS, status)
    ? STATUS_LABELS[status as keyof typeof STATUS_LABELS]
    : status;
}

/** An instant on the lead's account's clock, when the gateway said its zone. */
function local(instant: string | undefined, timeZone: string | undefined): string | undefined {
  return instant && timeZone ? localDateTime(instant, timeZone) : instant;
}

function leadRows(leads: readonly AdminLeadView[]): string[][] {
  return leads.map((lead) => [
    lead.leadId,
    statusPt(lead.status),
    lead.profile,
    String(lead.attempts),
    lead.receivedAtLocal ?? lead.receivedAt,
    clip(lead.reason ?? lead.lastError),
  ]);
}

const LEAD_COLUMNS = ['LEAD', 'SITUAÇÃO', 'PERFIL', 'FALHAS', 'RECEBIDO', 'MOTIVO'];

/** `a`, `a ou b`, `a, b ou c`. */
function orList(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} ou ${words.at(-1)}`;
}

function leadPath(leadId: string): string {
  return `/admin/leads/${encodeURIComponent(leadId)}`;
}

export const list: Command = {
  name: 'list',
  summary: `Leads de um status (${LEAD_STATUSES.join(', ')}); padrão: parked, dead e rejected`,
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
      throw usageError(`--status precisa ser um destes: ${LEAD_STATUSES.join(', ')}`);
    }
    const limit = values.limit as string | undefined;
    if (limit !== undefined && !/^\d+$/.test(limit))
      throw usageError('--limit precisa ser um número');
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
      const words = statuses.map((s) => STATUS_LABELS[s as keyof typeof STATUS_LABELS] ?? s);
      io.out(`nenhum lead na situação ${orList(words)}`);
      return;
    }
    io.out(table(LEAD_COLUMNS, leadRows(leads)));
    if (cursor) io.out(`\nhá mais: --cursor ${cursor} (ou --all)`);
  },
};

export const show: Command = {
  name: 'show',
  summary: 'Um lead: o status, as tentativas e o motivo',
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
        ['situação', statusPt(lead.status)],
        ['perfil', lead.profile],
        ['falhas', lead.attempts],
        ['tentativas', lead.tries],
        ['próxima tentativa', local(lead.nextAttemptAt, lead.timeZone)],
        ['recebido', lead.receivedAtLocal ?? lead.receivedAt],
        ['entregue', local(lead.deliveredAt, lead.timeZone)],
        ['fuso', lead.timeZone],
        ['prospect', lead.idProspect],
        ['motivo', lead.reason],
        ['último erro', lead.lastError],
        ['o sistema disse', lead.messages],
        ['sistema', circuitLine(lead.upstream?.circuit)],
      ]),
    );
  },
};

/** The circuit of a lead on its way, in one line; undefined for a settled lead. */
function circuitLine(circuit: NonNullable<LeadDetail['upstream']>['circuit'] | undefined) {
  if (!circuit) return undefined;
  if (circuit.state === 'closed') return 'respondendo';
  const why = circuit.reason ? ` (${circuit.reason})` : '';
  const probe = circuit.nextProbeAt ? `; próximo teste ${circuit.nextProbeAt}` : '';
  return `fora do ar${why}: os leads esperam, sem contar falhas${probe}`;
}

export const retry: Command = {
  name: 'retry',
  summary: 'Põe de novo na fila um lead parked, dead, rejected ou test, ou tenta agora um queued',
  usage: 'retry <leadId>',
  positionals: [1, 1],
  async run({ api, io, json }, { positionals }) {
    const [leadId] = positionals as [string];
    const { body } = await api().request<RetryResult>('POST', `${leadPath(leadId)}/retry`);
    if (json) {
      io.out(JSON.stringify(body, null, 2));
      return;
    }
    // The gateway's note says the wake-up message could not be sent now: said here in the CLI's words.
    io.out(
      body.note
        ? `lead ${body.leadId} na fila; o envio não saiu agora, o reconciliador o envia em instantes`
        : `lead ${body.leadId} na fila para envio agora`,
    );
  },
};

export const move: Command = {
  name: 'move',
  summary: 'Move um lead para outro perfil da mesma origem (o perfil dele saiu da configuração)',
  usage: 'move <leadId> <perfil>',
  positionals: [2, 2],
  async run({ api, io, json }, { positionals }) {
    const [leadId, profile] = positionals as [string, string];
    const { body } = await api().request<{ leadId: string; status: string; profile: string }>(
      'PATCH',
      leadPath(leadId),
      { profile },
    );
    if (json) {
      io.out(JSON.stringify(body, null, 2));
      return;
    }
    io.out(
      body.status === 'queued'
        ? `lead ${body.leadId} movido para o perfil ${profile} e na fila para envio agora`
        : `lead ${body.leadId} movido para o perfil ${profile}; reenvie-o com: retry ${body.leadId}`,
    );
  },
};

function describeRedrive(redrive: ReplayResult['redrive']): string {
  switch (redrive.status) {
    case 'moved':
      return `${redrive.moved ?? 0} mensagens da fila de mensagens mortas voltaram para a fila`;
    case 'started':
      return 'reprocessamento da fila de mensagens mortas iniciado';
    case 'skipped':
      return 'fila de mensagens mortas não mexida (este operador só vê algumas contas ou unidades)';
    default:
      return 'a fila de mensagens mortas já estava sendo reprocessada';
  }
}

export const replay: Command = {
  name: 'replay',
  summary:
    'Põe de novo na fila todo lead dead e reprocessa a fila de mensagens mortas (pode repetir)',
  usage: 'replay',
  async run({ api, io, json }: CommandContext) {
    const { body } = await api().request<ReplayResult>('POST', '/admin/replay');
    if (json) {
      io.out(JSON.stringify(body, null, 2));
      return;
    }
    io.out(
      [
        `leads esgotados (dead) de volta à fila: ${body.requeued}` +
          (body.skipped ? ` (${body.skipped} já não estavam esgotados)` : ''),
        describeRedrive(body.redrive),
        // The gateway's note counts them in `unsent`: said here in the CLI's words.
        ...(body.unsent
          ? [`${body.unsent} não puderam ser enviados agora; o reconciliador os envia em instantes`]
          : []),
        ...(body.more ? ['ainda há leads esgotados: rode replay de novo'] : []),
      ].join('\n'),
    );
  },
};
