/**
 * An operator's correction (domain/lead-correction.ts): read and checked as the Prospect API
 * checks a Prospect (one detail per bad field, never its value), a phone and an e-mail typed as
 * people type them, and laid over a mapping so that it wins field by field.
 */
import { describe, expect, it } from 'vitest';
import type { MappedLead } from '../../functions/domain/lead.ts';
import { applyCorrection, readCorrection } from '../../functions/domain/lead-correction.ts';

describe('readCorrection', () => {
  it('reads a phone and an e-mail as a person types them', () => {
    // Act
    const read = readCorrection({
      cellphone: ' (11) 98765-4321 ',
      email: ' Ana.Lima@Example.COM',
      name: '  Ana ',
      idBranch: 2,
    });

    // Assess
    expect(read).toEqual({
      ok: true,
      correction: {
        ddi: '55',
        cellphone: '11987654321',
        email: 'ana.lima@example.com',
        name: 'Ana',
        idBranch: 2,
      },
    });
  });

  it('reads a blank field as clearing it, and a foreign number with its ddi', () => {
    expect(readCorrection({ cpf: '   ', ddi: '351', cellphone: '912 345 678' })).toEqual({
      ok: true,
      correction: { cpf: null, ddi: '351', cellphone: '912345678' },
    });
  });

  it('refuses each bad field with its name and why, never its value', () => {
    // Act
    const read = readCorrection({
      idBranch: 'dois',
      celphone: '11987654321',
      email: 'ana(at)example.com',
      cellphone: '123',
    });

    // Assess
    expect(read.ok).toBe(false);
    const details = read.ok ? [] : read.details;
    expect(details.map((d) => d.field).sort()).toEqual(['celphone', 'idBranch']);
    expect(details.find((d) => d.field === 'celphone')?.message).toBe('não é um campo do Prospect');
    expect(details.find((d) => d.field === 'idBranch')?.message).toMatch(/deve ser um número/);
    expect(JSON.stringify(details)).not.toContain('dois');

    // The value checks come once the types are right.
    const values = readCorrection({ email: 'ana(at)example.com', cellphone: '123' });
    expect(values.ok ? [] : values.details.map((d) => d.field)).toEqual(['email', 'cellphone']);
  });

  it('refuses anything but an object', () => {
    for (const input of [null, [], 'x', 3]) expect(readCorrection(input).ok).toBe(false);
  });
});

describe('applyCorrection', () => {
  const mapped: MappedLead = {
    prospect: {
      name: 'Ana',
      lastName: 'Lima',
      email: 'ana@example.com',
      idBranch: 1,
      cpf: '52998224725',
      notes: 'Lead recebido via Site.',
    },
    missing: ['cellphone'],
    warnings: [],
    notices: [],
  };

  it('lays the corrected fields over the mapping, clears the nulled ones, and recomputes what is missing', () => {
    // Act
    const corrected = applyCorrection(mapped, { ddi: '55', cellphone: '11987654321', cpf: null });

    // Assess
    expect(corrected.missing).toEqual([]);
    expect(corrected.prospect).toMatchObject({ cellphone: '11987654321', idBranch: 1 });
    expect(corrected.prospect).not.toHaveProperty('cpf');
    expect(corrected.prospect.notes).toBe(
      'Lead recebido via Site.\nCorrigido por um operador: DDI, celular e CPF.',
    );
  });

  it('changes nothing without a correction', () => {
    expect(applyCorrection(mapped, undefined)).toBe(mapped);
    expect(applyCorrection(mapped, {})).toBe(mapped);
  });
});
