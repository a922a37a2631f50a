import { describe, expect, it } from 'vitest';
import { circuitReasonPt, leadReasonPt } from '../../functions/domain/lead-reasons.ts';
import { listPt } from '../../functions/domain/portuguese-list.ts';
import { missingFieldsReason } from '../../functions/domain/prospect.ts';
import { STATUS_LABELS } from '../../functions/domain/status-labels.ts';

describe('a parked lead’s reason', () => {
  it('names the missing fields as the people who fix the lead know them', () => {
    expect(missingFieldsReason(['cellphone'])).toBe('falta o campo obrigatório celular');
    expect(missingFieldsReason(['lastName', 'cellphone'])).toBe(
      'faltam os campos obrigatórios sobrenome e celular',
    );
    expect(missingFieldsReason(['name', 'email', 'cellphone'])).toBe(
      'faltam os campos obrigatórios nome, e-mail e celular',
    );
  });

  it('tells a lead with a phone and no e-mail of the profile’s emailPlaceholder', () => {
    expect(missingFieldsReason(['email'])).toBe(
      'falta o campo obrigatório e-mail; para leads só com telefone, o perfil pode ter "emailPlaceholder": "{phone}@sem-email.invalid" (docs/configuration.md)',
    );
    expect(missingFieldsReason(['name', 'email', 'idBranch'])).toContain('emailPlaceholder');
  });

  it('lists as a Portuguese sentence does', () => {
    expect(listPt([])).toBe('');
    expect(listPt(['a'])).toBe('a');
    expect(listPt(['a', 'b'])).toBe('a e b');
    expect(listPt([1, 2, 3])).toBe('1, 2 e 3');
  });
});

describe('circuitReasonPt', () => {
  it.each([
    ['unavailable', 'o sistema da academia não respondeu'],
    ['unavailable 503', 'o sistema da academia não respondeu (HTTP 503)'],
    ['unauthorized 401', 'o sistema da academia recusou a nossa chave de acesso (HTTP 401)'],
    ['rate-limited 429', 'o sistema da academia pediu para esperar (limite de pedidos) (HTTP 429)'],
    ['something else', 'something else'],
  ])('says %j as %j', (reason, said) => {
    expect(circuitReasonPt(reason)).toBe(said);
  });
});

describe('leadReasonPt', () => {
  it('says in Portuguese the English reasons the ledger may still hold', () => {
    expect(leadReasonPt('required fields missing: cellphone')).toBe(
      'falta o campo obrigatório celular',
    );
    expect(leadReasonPt('required fields missing: lastName, cellphone')).toBe(
      'faltam os campos obrigatórios sobrenome e celular',
    );
    expect(leadReasonPt('unreadable body: body is not JSON')).toMatch(/^corpo ilegível: /);
    expect(leadReasonPt("profile 'lp' is not configured")).toBe(
      "o perfil 'lp' não está configurado",
    );
    expect(leadReasonPt('rejected by the upstream')).toBe('recusado pelo sistema da academia');
    expect(leadReasonPt('unavailable')).toBe('o sistema da academia não respondeu');
  });

  it('leaves a Portuguese reason as it is', () => {
    for (const reason of ['falta o campo obrigatório celular', 'corpo ilegível: falta lead_id']) {
      expect(leadReasonPt(reason)).toBe(reason);
    }
  });

  it('names every status in Portuguese', () => {
    expect(Object.values(STATUS_LABELS)).toEqual([
      'Na fila',
      'Entregue',
      'Recusado',
      'Esgotado',
      'Teste',
      'Parado',
    ]);
  });
});
