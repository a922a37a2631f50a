import { describe, expect, it } from 'vitest';
import {
  correctionChange,
  EDITABLE,
  initialValue,
} from '../../../functions/admin/browser/correction.ts';

/** What the form holds when the operator touched nothing. */
const untouched = (prospect: Record<string, unknown>) =>
  Object.fromEntries(EDITABLE.map((f) => [f.key, initialValue(f.key, prospect[f.key])]));

describe('the console’s correction of a lead', () => {
  it('opens phone keyboards for the phone fields and the branch by name', () => {
    const byKey = Object.fromEntries(EDITABLE.map((f) => [f.key, f]));
    expect(byKey.cellphone).toMatchObject({ type: 'tel', inputmode: 'tel' });
    expect(byKey.email).toMatchObject({ type: 'email', inputmode: 'email' });
    expect(byKey.ddi).toMatchObject({ inputmode: 'numeric' });
    expect(byKey.idBranch?.type).toBe('branch');
  });

  it('sends nothing when nothing was changed, not even the DDI 55 it offers', () => {
    const prospect = { name: 'Ana', email: 'ana@example.com' };
    expect(initialValue('ddi', undefined)).toBe('55');
    expect(correctionChange(prospect, untouched(prospect))).toEqual({});
  });

  it('sends what was typed, trimmed: a branch as a number, an emptied field as null', () => {
    const prospect = { name: 'Ana', cpf: '123', idBranch: 2 };
    const typed = { ...untouched(prospect), name: ' Ana Souza ', cpf: '', idBranch: '5' };
    expect(correctionChange(prospect, typed)).toEqual({
      name: 'Ana Souza',
      cpf: null,
      idBranch: 5,
    });
  });

  it('sends the DDI with a new phone: the lead’s, else the one typed, else 55', () => {
    const typed = (prospect: Record<string, unknown>, changes: Record<string, string>) =>
      correctionChange(prospect, { ...untouched(prospect), ...changes });
    expect(typed({ name: 'Ana' }, { cellphone: '11987654321' })).toEqual({
      cellphone: '11987654321',
      ddi: '55',
    });
    expect(typed({ ddi: '351' }, { cellphone: '912345678' })).toEqual({
      cellphone: '912345678',
      ddi: '351',
    });
    expect(typed({ ddi: '351' }, { cellphone: '912345678', ddi: '44' })).toEqual({
      cellphone: '912345678',
      ddi: '44',
    });
    expect(typed({}, { cellphone: '912345678', ddi: '351' })).toEqual({
      cellphone: '912345678',
      ddi: '351',
    });
  });
});
