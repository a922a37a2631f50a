/** The debtors report commands: refresh (docs/report.md). */
import type { Command } from '../command.ts';

export const refresh: Command = {
  name: 'refresh',
  summary: 'Ask for a refresh of the debtors report now',
  usage: 'refresh',
  async run({ api, io, json }) {
    const { body } = await api().request<{ status: string }>(
      'POST',
      '/admin/reports/debtors/refresh',
    );
    io.out(
      json
        ? JSON.stringify(body, null, 2)
        : 'debtors report refresh requested: the report shows the new snapshot once it is built',
    );
  },
};
