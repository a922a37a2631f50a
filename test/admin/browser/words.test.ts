import { describe, expect, it } from 'vitest';
import type { LeadDetail } from '../../../functions/admin/browser/page-data.ts';
import {
  branchName,
  followText,
  problemText,
  prospectValue,
  timelineLines,
  when,
} from '../../../functions/admin/browser/words.ts';

const BRANCHES = [
  { idBranch: 2, name: 'Centro' },
  { idBranch: '5', name: 'Moema' },
];

describe('the console’s words', () => {
  it('shows a time on the account’s clock, whatever the browser’s', () => {
    expect(when('2026-07-10T12:30:00Z', 'America/Sao_Paulo')).toBe('10/07/2026, 09:30');
    expect(when('2026-07-10T12:30:00Z', 'Europe/Lisbon')).toBe('10/07/2026, 13:30');
    expect(when(undefined, 'America/Sao_Paulo')).toBe('');
    expect(when('amanhã', 'America/Sao_Paulo')).toBe('amanhã');
  });

  it('says what a route refused, with its details, or the status when it said nothing', () => {
    const refusal = {
      error: {
        message: 'correção inválida',
        details: [{ field: 'cellphone', message: 'não é um celular' }, 'tente de novo'],
      },
    };
    expect(problemText(400, refusal)).toBe(
      'correção inválida (cellphone: não é um celular; tente de novo)',
    );
    expect(problemText(502, { text: '<html>Bad gateway</html>' })).toBe('Erro 502');
    expect(problemText(500, null)).toBe('Erro 500');
  });

  it('names a branch among the lead’s own, and a Prospect’s values in words', () => {
    expect(branchName(5, BRANCHES)).toBe('Moema (5)');
    expect(branchName('9', BRANCHES)).toBe('9');
    expect(prospectValue('idBranch', 2, BRANCHES)).toBe('Centro (2)');
    expect(prospectValue('validateCpfDuplication', true, [])).toBe('sim');
    expect(prospectValue('interests', ['musculação'], [])).toBe('["musculação"]');
    expect(prospectValue('name', 'Ana', [])).toBe('Ana');
  });

  it('tells a lead’s story in order: received, corrected, tried, refused, delivered', () => {
    const lead: LeadDetail = {
      leadId: 'ld_1',
      status: 'delivered',
      profile: 'site',
      receivedAt: 'r',
      correctedAt: 'c',
      correctedBy: 'ops',
      tries: 2,
      triesText: 'Tentativas de entrega: 2 (1 falha deste lead)',
      lastError: 'HTTP 500',
      messages: ['CPF inválido'],
      deliveredAt: 'd',
      idProspect: 77,
    };
    expect(timelineLines(lead, (iso) => `[${iso}]`)).toEqual([
      { text: 'Recebido [r] pelo perfil site' },
      { text: 'Corrigido por ops em [c]' },
      { text: 'Tentativas de entrega: 2 (1 falha deste lead)' },
      { text: 'Último erro: HTTP 500' },
      { text: 'Resposta do sistema da academia: CPF inválido' },
      { text: 'Entregue [d] como prospect 77', delivered: true },
    ]);
    const parked = { ...lead, status: 'parked', reason: 'falta o celular', deliveredAt: undefined };
    expect(timelineLines(parked, String).map((l) => l.text)).toContain('Parado: falta o celular');
  });

  it('says what became of a lead after a resend', () => {
    const base = { leadId: 'ld_1', profile: 'site', receivedAt: '' };
    expect(followText({ ...base, status: 'delivered', idProspect: 9 })).toEqual({
      text: 'Entregue como prospect 9.',
      kind: 'ok',
    });
    expect(followText({ ...base, status: 'queued' }).kind).toBe('');
    expect(followText({ ...base, status: 'parked', reason: 'sem unidade' })).toEqual({
      text: 'Situação: Parado (sem unidade)',
      kind: 'error',
    });
  });
});
