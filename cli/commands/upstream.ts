/**
 * `upstream`: each upstream account's health as delivery sees it (GET /admin/upstream): its
 * circuit, its pacer's next slot and the leads on their way (docs/operations.md).
 */
import type { UpstreamHealth } from '../../functions/admin/upstream-health.ts';
import type { Command } from '../command.ts';
import { table } from '../output.ts';

function path(account: string | undefined): string {
  return account === undefined
    ? '/admin/upstream'
    : `/admin/upstream?${new URLSearchParams({ upstream: account })}`;
}

function circuitCell(circuit: UpstreamHealth['circuit']): string {
  if (circuit.state === 'closed') {
    return circuit.failures > 0 ? `respondendo (${circuit.failures} falhas)` : 'respondendo';
  }
  const why = circuit.reason ? ` (${circuit.reason})` : '';
  const probe = circuit.nextProbeAt ? `; próximo teste ${circuit.nextProbeAt}` : '';
  return `fora do ar${why}${probe}`;
}

export const upstream: Command = {
  name: 'upstream',
  summary:
    'Circuito, ritmo e fila de cada conta do sistema da academia (--upstream <nome>: uma conta)',
  usage: 'upstream [--upstream <nome>]',
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
        ['CONTA', 'NA FILA', 'PRÓXIMA VAGA', 'CIRCUITO'],
        rows.map(({ account, health }) => [
          account,
          String(health.backlog ?? 0),
          health.pacer?.nextSlotAt ?? 'livre',
          circuitCell(health.circuit),
        ]),
      ),
    );
  },
};
