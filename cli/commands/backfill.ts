/** `backfill`: recover a platform's leads of a period (POST /admin/backfill/{profile}). */
import type { BackfillResult } from '../../functions/admin/backfill.ts';
import type { PublicLeadStatus } from '../../functions/domain/lead-lifecycle.ts';
import { STATUS_LABELS } from '../../functions/domain/status-labels.ts';
import type { Command } from '../command.ts';
import { fields, usageError } from '../output.ts';

/** An ISO 8601 instant; a bare date (`2026-05-02`) is that day's midnight UTC. */
function instant(option: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || !Number.isFinite(Date.parse(text))) {
    throw usageError(`--${option} precisa ser uma data (2026-05-02) ou um instante ISO 8601`);
  }
  // The gateway wants the offset written out: an instant without one is read as UTC.
  return /([zZ]|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`;
}

/** A lead status as the console names it (`na fila`); one it does not know, as it is. */
function statusWord(status: string): string {
  return STATUS_LABELS[status as PublicLeadStatus]?.toLowerCase() ?? status;
}

/** `--days n`: the instant n days before `until` (the last n days). */
function daysBefore(until: string, days: string | undefined): string | undefined {
  if (days === undefined) return undefined;
  if (!/^\d{1,3}$/.test(days) || Number(days) < 1) {
    throw usageError('--days precisa ser um número inteiro de dias, 1 ou mais');
  }
  return new Date(Date.parse(until) - Number(days) * 86_400_000).toISOString();
}

export const backfill: Command = {
  name: 'backfill',
  summary:
    'Recupera os leads que uma plataforma (Meta, TikTok) guardou de um período; os que já chegaram não são enviados de novo',
  usage: 'backfill <perfil> (--days <n> | --since <data|ISO>) [--until <data|ISO>, padrão: agora]',
  options: {
    since: { type: 'string' },
    until: { type: 'string' },
    days: { type: 'string' },
  },
  positionals: [1, 1],
  async run({ api, io, json }, { values, positionals }) {
    const [profile] = positionals as [string];
    const until = instant('until', values.until as string | undefined) ?? new Date().toISOString();
    const since =
      instant('since', values.since as string | undefined) ??
      daysBefore(until, values.days as string | undefined);
    if (!since) throw usageError('--since é obrigatório (ou --days, os últimos n dias)');
    const { body } = await api().request<BackfillResult>(
      'POST',
      `/admin/backfill/${encodeURIComponent(profile)}`,
      { since, until },
    );
    if (json) {
      io.out(JSON.stringify(body, null, 2));
      return;
    }
    const statuses = Object.entries(body.statuses)
      .map(([status, count]) => `${count} ${statusWord(status)}`)
      .join(', ');
    io.out(
      fields([
        ['perfil', body.profile],
        ['período', `${body.since} a ${body.until}`],
        ['formulários', body.forms.join(', ')],
        ['encontrados', body.found],
        ['já conhecidos', body.alreadyKnown],
        ['novos', `${body.new}${statuses ? ` (${statuses})` : ''}`],
        ...(body.erased
          ? [['apagados a pedido (não gravados de novo)', body.erased] as const]
          : []),
      ]),
    );
    if (body.notice) io.out(`\n${body.notice}`);
    if (body.more) io.out('\no tempo acabou antes de todos os leads serem gravados: rode de novo');
  },
};
