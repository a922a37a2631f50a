/** `backfill`: recover a platform's leads of a period (POST /admin/backfill/{profile}). */
import type { BackfillResult } from '../../functions/admin/admin.ts';
import type { Command } from '../command.ts';
import { fields, usageError } from '../output.ts';

/** An ISO 8601 instant; a bare date (`2026-05-02`) is that day's midnight UTC. */
function instant(option: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || !Number.isFinite(Date.parse(text))) {
    throw usageError(`--${option} must be a date (2026-05-02) or an ISO 8601 instant`);
  }
  // The gateway wants the offset written out: an instant without one is read as UTC.
  return /([zZ]|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`;
}

/** `--days n`: the instant n days before `until` (the last n days). */
function daysBefore(until: string, days: string | undefined): string | undefined {
  if (days === undefined) return undefined;
  if (!/^\d{1,3}$/.test(days) || Number(days) < 1) {
    throw usageError('--days must be a whole number of days, 1 or more');
  }
  return new Date(Date.parse(until) - Number(days) * 86_400_000).toISOString();
}

export const backfill: Command = {
  name: 'backfill',
  summary:
    'Recover the leads a platform (Meta, TikTok) kept for a period; leads that did arrive are not sent twice',
  usage: 'backfill <profile> (--days <n> | --since <date|ISO>) [--until <date|ISO>, default now]',
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
    if (!since) throw usageError('--since is required (or --days, the last n days)');
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
      .map(([status, count]) => `${count} ${status}`)
      .join(', ');
    io.out(
      fields([
        ['profile', body.profile],
        ['period', `${body.since} to ${body.until}`],
        ['forms', body.forms.join(', ')],
        ['found', body.found],
        ['already known', body.alreadyKnown],
        ['new', `${body.new}${statuses ? ` (${statuses})` : ''}`],
        ...(body.erased ? [['erased on request (not recorded again)', body.erased] as const] : []),
      ]),
    );
    if (body.notice) io.out(`\n${body.notice}`);
    if (body.more) io.out('\nthe time ran out before every lead was recorded: run it again');
  },
};
