/**
 * The correction form's fields and the change it sends (`PATCH /admin/leads/{leadId}`): only
 * what the operator changed, `null` for a field emptied, the branch as a number, and the DDI 55
 * unless typed when a phone is given. DOM-free (test/admin/browser/correction.test.ts).
 */
import type { Prospect } from './page-data.ts';

export interface EditableField {
  key: string;
  label: string;
  /** The input's type; `branch`: a menu of the lead's branches by name (text without one). */
  type: 'text' | 'email' | 'tel' | 'branch';
  /** The keyboard a phone opens. */
  inputmode: string;
  autocomplete: string;
}

const field = (
  key: string,
  label: string,
  type: EditableField['type'],
  inputmode: string,
  autocomplete: string,
): EditableField => ({ key, label, type, inputmode, autocomplete });

export const EDITABLE: readonly EditableField[] = [
  field('name', 'Nome', 'text', 'text', 'given-name'),
  field('lastName', 'Sobrenome', 'text', 'text', 'family-name'),
  field('email', 'E-mail', 'email', 'email', 'email'),
  field('ddi', 'DDI (55 é o Brasil)', 'tel', 'numeric', 'tel-country-code'),
  field('cellphone', 'Celular com DDD', 'tel', 'tel', 'tel-national'),
  field('idBranch', 'Unidade', 'branch', 'numeric', 'off'),
  field('cpf', 'CPF', 'text', 'numeric', 'off'),
  field('marketingType', 'Origem do lead', 'text', 'text', 'off'),
];

const shown = (value: unknown) => (value === undefined || value === null ? '' : String(value));

/** What an input of `key` starts with: the lead's value, the DDI 55 when it has none. */
export function initialValue(key: string, value: unknown): string {
  const text = shown(value);
  return key === 'ddi' && text === '' ? '55' : text;
}

/** The change the form sends, from what was typed (`typed[key]`, trimmed here). */
export function correctionChange(
  prospect: Prospect,
  typed: Readonly<Record<string, string>>,
): Record<string, string | number | null> {
  const change: Record<string, string | number | null> = {};
  const value = (key: string) => (typed[key] ?? '').trim();
  for (const { key } of EDITABLE) {
    const now = value(key);
    const before = shown(prospect[key]);
    if (now === before) continue;
    // The 55 the form offers is not a change while no phone is typed.
    if (key === 'ddi' && before === '' && now === '55' && !value('cellphone')) continue;
    change[key] = now === '' ? null : key === 'idBranch' ? Number(now) : now;
  }
  if (change.cellphone && change.ddi === undefined) {
    change.ddi = shown(prospect.ddi) || value('ddi') || '55';
  }
  return change;
}
