/**
 * `erase --email <e-mail> | --phone <phone> | --cpf <cpf>`: a person's request to have their data
 * erased (LGPD), over `POST /admin/erasure` (docs/privacy.md). Every lead that names the person
 * keeps only its anonymous record; the answer lists them and the upstream's prospects whose copy
 * has to be erased there.
 */
import type { ErasureResult } from '../../functions/admin/erasure.ts';
import type { Command } from '../command.ts';
import { table, usageError } from '../output.ts';
import { statusPt } from './leads.ts';

const FIELDS = ['email', 'phone', 'cpf'] as const;

export const erase: Command = {
  name: 'erase',
  summary: 'Apaga os dados de uma pessoa (por e-mail, telefone ou CPF) de todo lead que a cita',
  usage: 'erase [--email <e-mail>] [--phone <telefone>] [--cpf <cpf>]',
  options: {
    email: { type: 'string' },
    phone: { type: 'string' },
    cpf: { type: 'string' },
  },
  async run({ api, io, json }, { values }) {
    const subject: Partial<Record<(typeof FIELDS)[number], string>> = {};
    for (const field of FIELDS) {
      const value = values[field];
      if (typeof value === 'string') subject[field] = value;
    }
    if (Object.keys(subject).length === 0) {
      throw usageError('informe --email, --phone ou --cpf da pessoa cujos dados serão apagados');
    }
    const { body } = await api().request<ErasureResult>('POST', '/admin/erasure', subject);
    if (json) {
      io.out(JSON.stringify(body, null, 2));
      return;
    }
    if (body.found === 0) {
      io.out('nenhum lead cita esta pessoa: nada a apagar aqui');
      return;
    }
    io.out(
      table(
        ['LEAD', 'PERFIL', 'SITUAÇÃO', 'RECEBIDO (UTC)', 'PROSPECT'],
        body.erased.map((lead) => [
          lead.leadId,
          lead.profile,
          statusPt(lead.status),
          lead.receivedAt,
          lead.idProspect === undefined ? '' : String(lead.idProspect),
        ]),
      ),
    );
    io.out(
      `\n${body.erased.length} de ${body.found} ${body.found === 1 ? 'lead apagado' : 'leads apagados'}`,
    );
    if (body.upstream.idProspects.length > 0) io.out(body.upstream.action);
  },
};
