import { describe, expect, it } from 'vitest';
import { cleanProspect, cleanText, FIELD_LIMITS } from '../../functions/domain/clean-prospect.ts';

describe('the input cleaner', () => {
  it('removes bidi overrides, zero-width characters, NUL and other controls from a name', () => {
    expect(cleanText('Ana\u202E \u200DSouza\u0000\u200B\uFEFF')).toBe('Ana Souza');
    expect(cleanText('\u2066Bia\u2069\u061C Lima\u0007')).toBe('Bia Lima');
  });

  it('puts text in NFC and folds line breaks of a one-line field, keeping them in notes', () => {
    const nfd = 'Jos\u0065\u0301';
    expect(cleanText(nfd)).toBe('José');
    expect(cleanText(nfd)).toHaveLength(4);
    expect(cleanText('Ana\r\n\tSouza')).toBe('Ana Souza');
    expect(cleanText('linha 1\nlinha\u202E 2', true)).toBe('linha 1\nlinha 2');
  });

  it('caps each field and says the cut in the notes', () => {
    const { prospect, cuts } = cleanProspect({
      name: 'A'.repeat(10_240),
      lastName: 'Souza',
      notes: 'Lead recebido via API.',
    });
    expect([...(prospect.name ?? '')]).toHaveLength(FIELD_LIMITS.name as number);
    expect(prospect.name?.endsWith('…')).toBe(true);
    expect(prospect.lastName).toBe('Souza');
    expect(cuts).toEqual(['O nome foi cortado em 60 caracteres (tinha 10.240).']);
    expect(prospect.notes).toBe(
      'Lead recebido via API.\n\nAvisos de tamanho:\n- O nome foi cortado em 60 caracteres (tinha 10.240).',
    );
  });

  it('keeps long notes within their limit, the cut said at their end', () => {
    const { prospect } = cleanProspect({ name: 'B'.repeat(100), notes: 'x'.repeat(5000) });
    expect(prospect.notes?.length).toBeLessThanOrEqual(FIELD_LIMITS.notes as number);
    expect(prospect.notes?.endsWith('(tinha 100).')).toBe(true);
  });

  it('cleans the financially responsible person as well, and leaves other values alone', () => {
    const { prospect } = cleanProspect({
      idBranch: 2,
      interests: [1, 2],
      financiallyResponsible: { name: 'Rui\u200B Lima', idMember: 3 },
    });
    expect(prospect).toEqual({
      idBranch: 2,
      interests: [1, 2],
      financiallyResponsible: { name: 'Rui Lima', idMember: 3 },
    });
  });
});
