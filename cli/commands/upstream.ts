/**
 * `upstream`: each upstream account's health as delivery sees it (GET /admin/upstream): its
 * circuit, its pacer's next slot and the leads on their way (docs/operations.md).
 */
import type { UpstreamHealth } from '../../functions/admin/admin.ts';
import type { Command } from '../command.ts';
import { table } from '../output.ts';

function path(account: string | undefined): string {
  return account === undefined
    ? '/admin/upstream'
    : `/admin/upstream?${new URLSearchParams({ upstream: account })}`;
}

function circuitCell(circuit: UpstreamHealth['circuit']): string {
  if (circuit.state === 'closed') {
    return circuit.failures > 0 ? `answering (${circuit.failures} failures)` : 'answering';
  }
  const why = circuit.reason ? ` (${circuit.reason})` : '';
  const probe = circuit.nextProbeAt ? `; next probe ${circuit.nextProbeAt}` : '';
  return `down${why}${probe}`;
}

export const upstream: Command = {
  name: 'upstream',
  summary: "Each upstream account's circuit, pace and backlog (--upstream <name>: one account)",
  usage: 'upstream [--upstream <name>]',
  options: { upstream: { type: 'string' } },
  async run({ api, io, json }, { values }) {
    const asked = values.upstream as string | undefined;
    const { body: first } = await api().request<UpstreamHealth>('GET', path(asked));
    // Without --upstream, the first answer names every account when there are several.
    const rows: { account: string; health: UpstreamHealth }[] = [
      { account: first.upstream ?? asked ?? 'default', health: first },
    ];
    if (asked === undefined) {
      for (const account of first.accounts ?? []) {
        if (rows.some((row) => row.account === account)) continue;
        const { body } = await api().request<UpstreamHealth>('GET', path(account));
        rows.push({ account, health: body });
      }
    }
    if (json) {
      io.out(JSON.stringify(asked === undefined ? rows : first, null, 2));
      return;
    }
    io.out(
      table(
        ['ACCOUNT', 'BACKLOG', 'NEXT SLOT', 'CIRCUIT'],
        rows.map(({ account, health }) => [
          account,
          String(health.backlog ?? 0),
          health.pacer?.nextSlotAt ?? 'free',
          circuitCell(health.circuit),
        ]),
      ),
    );
  },
};
