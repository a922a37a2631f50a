import { describe, expect, it } from 'vitest';
import { readFieldList, typedValueOf } from '../../functions/domain/field-list.ts';

describe('readFieldList: lists of fields', () => {
  it('reads a widget’s root array of {id, name, value, type} by name, with the declared type', () => {
    // Act
    const fields = readFieldList('', [
      { id: 'f_1', name: 'Nome completo', value: 'Renata Alves', type: 'text' },
      { id: 'f_2', name: 'E-mail', value: 'renata@exemplo.com', type: 'email' },
      { id: 'f_3', name: 'WhatsApp', value: '(31) 99876-1234', type: 'tel' },
      { id: 'f_4', name: 'Idade', value: 31, type: 'number' },
    ]);

    // Assess
    expect(fields).toEqual([
      { key: 'Nome completo', values: ['Renata Alves'] },
      { key: 'E-mail', type: 'email', values: ['renata@exemplo.com'] },
      { key: 'WhatsApp', type: 'phone', values: ['(31) 99876-1234'] },
      { key: 'Idade', type: 'number', values: ['31'] },
    ]);
  });

  it('reads Meta’s field_data as Make and Zapier relay it: the values, not the name', () => {
    // Act
    const fields = readFieldList('field_data', [
      { name: 'full_name', values: ['João Pedro Costa'] },
      { name: 'objetivo', values: ['Emagrecer', 'Condicionamento'] },
    ]);

    // Assess: under the list's path, labelled by the name.
    expect(fields).toEqual([
      { key: 'field_data[full_name]', label: 'full_name', values: ['João Pedro Costa'] },
      { key: 'field_data[objetivo]', label: 'objetivo', values: ['Emagrecer', 'Condicionamento'] },
    ]);
  });

  it('reads question/answer lists labelled by the question, position left out', () => {
    // Act
    const fields = readFieldList('payload[questions_and_answers]', [
      { question: 'Qual seu WhatsApp [com DDD]?', answer: '(11) 99123-4567', position: 0 },
    ]);

    // Assess: the question's brackets cannot split the path.
    expect(fields).toEqual([
      {
        key: 'payload[questions_and_answers][Qual seu WhatsApp (com DDD)?]',
        label: 'Qual seu WhatsApp [com DDD]?',
        values: ['(11) 99123-4567'],
      },
    ]);
  });

  it('names an entry by its id and labels it by its label when it has no name', () => {
    expect(readFieldList('', [{ id: 'q7', label: 'Telefone', text: '11 98765-4321' }])).toEqual([
      { key: 'q7', label: 'Telefone', values: ['11 98765-4321'] },
    ]);
  });

  it.each([
    ['an empty array', []],
    ['plain values', ['a', 'b']],
    ['objects without a value', [{ name: 'Plano anual', price: 199 }]],
    ['objects without a name', [{ value: 'x', count: 2 }]],
    ['one entry of another shape', [{ name: 'email', value: 'a@b.com' }, { sku: 'x' }]],
  ])('is no list of fields for %s', (_, items) => {
    expect(readFieldList('items', items)).toBeUndefined();
  });
});

describe('readFieldList: labelled phone and e-mail lists', () => {
  it('puts the mobile first by its label and keeps the other numbers labelled in Portuguese', () => {
    // Act: Pipedrive's person, the primary landline first.
    const fields = readFieldList('current[phone]', [
      { label: 'work', value: '(11) 3456-7890', primary: true },
      { label: 'mobile', value: '(11) 98765-1122', primary: false },
      { label: 'home', value: '(11) 2233-4455', primary: false },
    ]);

    // Assess
    expect(fields).toEqual([
      { key: 'current[phone]', values: ['(11) 98765-1122'] },
      {
        key: 'current[phone][trabalho 0]',
        label: 'Telefone (trabalho)',
        values: ['(11) 3456-7890'],
      },
      {
        key: 'current[phone][residencial 2]',
        label: 'Telefone (residencial)',
        values: ['(11) 2233-4455'],
      },
    ]);
  });

  it('puts the mobile first by its shape when no label says so (11 digits, ninth digit 9)', () => {
    // Act
    const fields = readFieldList('phones', [
      { value: '(21) 2555-1234', primary: true },
      { value: '+55 21 99888-7766' },
    ]);

    // Assess
    expect(fields?.map((f) => f.values[0])).toEqual(['+55 21 99888-7766', '(21) 2555-1234']);
    expect(fields?.[1]?.label).toBe('Outro telefone');
  });

  it('puts the primary e-mail first', () => {
    // Act
    const fields = readFieldList('emails', [
      { label: 'work', value: 'ana@empresa.com', primary: false },
      { label: 'home', value: 'ana@exemplo.com', primary: true },
    ]);

    // Assess
    expect(fields).toEqual([
      { key: 'emails', values: ['ana@exemplo.com'] },
      { key: 'emails[trabalho 0]', label: 'E-mail (trabalho)', values: ['ana@empresa.com'] },
    ]);
  });

  it('reads {label, value} under a key that names no phone or e-mail as a list of fields', () => {
    expect(readFieldList('custom', [{ label: 'Objetivo', value: 'Pilates' }])).toEqual([
      { key: 'custom[Objetivo]', label: 'Objetivo', values: ['Pilates'] },
    ]);
  });
});

describe('typedValueOf', () => {
  it('reads a CRM custom field {type, value} as its value, and nothing else as one', () => {
    expect(typedValueOf({ type: 'varchar', value: 'Natação' })).toBe('Natação');
    expect(typedValueOf({ value: 12 })).toBe('12');
    expect(
      typedValueOf({ type: 'address', value: 'Rua A', locality: 'São Paulo' }),
    ).toBeUndefined();
    expect(typedValueOf({ value: { nested: true } })).toBeUndefined();
    expect(typedValueOf('Natação')).toBeUndefined();
  });
});
