/**
 * "Cobrar" (functions/report/serve/dashboard-charge.ts): the pay-now link chosen for a member,
 * the Portuguese message, the WhatsApp link with and without the member's phone.
 */
import { describe, expect, it } from 'vitest';
import {
  chargeMessage,
  firstName,
  internationalPhone,
  memberCharge,
  whatsappLink,
} from '../../../functions/report/serve/dashboard-charge.ts';
import type { ReportRow } from '../../../functions/report/serve/report-json.ts';

function row(fields: Partial<ReportRow> & Record<string, unknown>): ReportRow {
  return {
    memberId: 7,
    name: 'MARIA APARECIDA DA SILVA',
    debtStatus: 'Open',
    debtAmount: 119.9,
    checkoutLink: 'https://pay.example/r/1',
    checkoutLinkFullDebt: null,
    daysOverdue: 40,
    ageingBucket: '31-60',
    ...fields,
  };
}

/** The message a wa.me link carries. */
const textOf = (link: string) => new URL(link).searchParams.get('text');

describe('the message', () => {
  it('greets the member by first name, says from where, how many debts and how much, and links', () => {
    expect(
      chargeMessage({
        name: 'JOÃO DA CONCEIÇÃO',
        branch: 'Unidade Moema',
        openCount: 3,
        openAmount: 359.7,
        links: ['https://pay.example/m/7'],
      }),
    ).toBe(
      'Olá João, tudo bem? Aqui é da Unidade Moema. Identificamos 3 pagamentos em aberto no ' +
        'total de R$\u00a0359,70. Você pode regularizar por este link: https://pay.example/m/7',
    );
    expect(
      chargeMessage({
        name: '',
        branch: '',
        openCount: 1,
        openAmount: 1234.5,
        links: ['https://a.example/1', 'https://a.example/2'],
      }),
    ).toBe(
      'Olá, tudo bem? Aqui é da academia. Identificamos 1 pagamento em aberto no total de ' +
        'R$\u00a01.234,50. Você pode regularizar por estes links:\nhttps://a.example/1\nhttps://a.example/2',
    );
  });

  it('writes first names as people write them', () => {
    expect(firstName('ÂNGELA MARIA')).toBe('Ângela');
    expect(firstName('  josé  ')).toBe('José');
    expect(firstName(null)).toBe('');
  });
});

describe('memberCharge', () => {
  it('uses the link for the whole debt when a debt has one, and counts only open debts', () => {
    // Act
    const charge = memberCharge(
      [
        row({ checkoutLinkFullDebt: 'https://pay.example/m/7' }),
        row({ debtAmount: 239.8, checkoutLink: 'https://pay.example/r/2' }),
        row({ debtStatus: 'Recovered', debtAmount: 50, checkoutLink: null }),
      ],
      'Unidade Moema',
    );

    // Assess
    expect(charge?.links).toEqual(['https://pay.example/m/7']);
    expect(charge?.openCount).toBe(2);
    expect(charge?.openAmount).toBe(359.7);
    expect(charge?.message).toContain('Olá Maria, tudo bem? Aqui é da Unidade Moema.');
    expect(charge?.message).toContain('2 pagamentos em aberto no total de R$\u00a0359,70.');
    expect(charge?.message).toMatch(/por este link: https:\/\/pay\.example\/m\/7$/);
  });

  it('falls back to each open debt’s own link, and offers nothing without a web link', () => {
    const each = memberCharge(
      [row({}), row({ checkoutLink: 'https://pay.example/r/2' }), row({})],
      'X',
    );
    expect(each?.links).toEqual(['https://pay.example/r/1', 'https://pay.example/r/2']);
    expect(memberCharge([row({ checkoutLink: 'javascript:alert(1)' })], 'X')).toBeUndefined();
    expect(memberCharge([row({ debtStatus: 'Recovered' })], 'X')).toBeUndefined();
  });

  it('opens a chat with the member when a row has their phone, else lets WhatsApp ask', () => {
    // Act
    const withPhone = memberCharge([row({ cellphone: '(11) 98765-4321' })], 'Unidade Moema');
    const withDdi = memberCharge([row({ celular: '987654321', ddi: '+351' })], 'Lisboa');
    const without = memberCharge([row({})], 'Unidade Moema');

    // Assess
    expect(withPhone?.phone).toBe('5511987654321');
    expect(withPhone?.whatsapp).toMatch(/^https:\/\/wa\.me\/5511987654321\?text=/);
    expect(textOf(withPhone?.whatsapp ?? '')).toBe(withPhone?.message);
    expect(withDdi?.whatsapp).toMatch(/^https:\/\/wa\.me\/351987654321\?text=/);
    expect(without?.phone).toBeUndefined();
    expect(without?.whatsapp).toMatch(/^https:\/\/wa\.me\/\?text=Ol%C3%A1%20Maria/);
    expect(textOf(without?.whatsapp ?? '')).toBe(without?.message);
  });

  it('reads phone numbers in the ways they come, and refuses what cannot be one', () => {
    expect(internationalPhone('11987654321')).toBe('5511987654321');
    expect(internationalPhone('+55 (21) 3456-7890')).toBe('552134567890');
    expect(internationalPhone(5511987654321)).toBe('5511987654321');
    expect(internationalPhone('011 98765-4321')).toBe('5511987654321');
    expect(internationalPhone('123')).toBeUndefined();
    expect(internationalPhone('')).toBeUndefined();
    expect(internationalPhone(null)).toBeUndefined();
    expect(whatsappLink('a b&c')).toBe('https://wa.me/?text=a%20b%26c');
  });
});
