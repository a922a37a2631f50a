/** The debtors report commands: refresh (docs/report.md). */
import type { Command } from '../command.ts';

export const refresh: Command = {
  name: 'refresh',
  summary: 'Pede agora a atualização do relatório de inadimplentes',
  usage: 'refresh',
  async run({ api, io, json }) {
    const { body } = await api().request<{ status: string }>(
      'POST',
      '/admin/reports/debtors/refresh',
    );
    io.out(
      json
        ? JSON.stringify(body, null, 2)
        : 'atualização do relatório de inadimplentes pedida: o relatório mostra os novos números quando ficarem prontos',
    );
  },
};
