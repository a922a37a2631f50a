import { describe, expect, it } from 'vitest';
import {
  computeSummary,
  type Debtor,
  debtorsListSchema,
  MEMBER_STATUS,
  statusName,
} from '../../functions/domain/debtors.ts';
import { describeIssues, parseJson } from '../../functions/domain/json.ts';
import {
  missingRequiredFields,
  prospectCreatedSchema,
  prospectSchema,
} from '../../functions/domain/prospect.ts';

describe('parseJson', () => {
  it('keeps integers above 2^53 as their exact decimal string', () => {
    const parsed = parseJson('{"leadgen_id": 9444444444444449, "form_id": 349080077126, "x": 1.5}');
    expect(parsed).toEqual({ leadgen_id: '9444444444444449', form_id: 349080077126, x: 1.5 });
  });

  it('rejects malformed JSON with an error', () => {
    expect(() => parseJson('{"a": ')).toThrow();
  });
});

describe('prospectSchema', () => {
  it('accepts every field of the seed, null values and extra fields', () => {
    const body = {
      name: 'Maria',
      lastName: 'Souza',
      email: 'maria@example.com',
      idBranch: 1,
      ddi: '55',
      cellphone: '11987654321',
      birthday: '1990-05-12T00:00:00.000Z',
      gender: 'F',
      visit: 4,
      marketingType: 'Site',
      notes: null,
      currentStep: null,
      cpf: '52998224725',
      rg: null,
      tokenPartner: null,
      additionalFieldName: 'utm_source',
      additionalFieldValue: 'google',
      validateCpfDuplication: true,
      temperature: 3,
      financiallyResponsible: { idMember: 10, name: 'João', email: 'j@example.com', cpf: null },
      interests: [101, 102],
      zipCode: '01001-000',
    };
    const result = prospectSchema.safeParse(body);
    expect(result.success).toBe(true);
    expect(result.data).toEqual(body);
  });

  it('names each field of the wrong type', () => {
    const body = { idBranch: '1', interests: [1, 'x'], visit: 1.5, email: 3 };
    const result = prospectSchema.safeParse(body);
    expect(result.success).toBe(false);
    expect(describeIssues(result.error?.issues ?? [], body)).toEqual([
      { field: 'email', message: 'deve ser um texto, não um número inteiro' },
      { field: 'idBranch', message: 'deve ser um número, não um texto' },
      { field: 'visit', message: 'deve ser um número inteiro, não 1.5' },
      { field: 'interests.1', message: 'deve ser um número, não um texto' },
    ]);
  });

  it('lists the required fields that are missing or blank', () => {
    expect(missingRequiredFields({ name: 'Maria', lastName: ' ', idBranch: 0 })).toEqual([
      'lastName',
      'email',
      'cellphone',
    ]);
  });

  it('reads a creation result with a big id as a string', () => {
    const parsed = prospectCreatedSchema.parse(parseJson('{"idProspect": 98765432109876543}'));
    expect(parsed.idProspect).toBe('98765432109876543');
  });
});

describe('debtorsListSchema', () => {
  it('keeps nulls and the fields production adds beyond the seed', () => {
    const text = `{"results":[{"receivableId":987654,"receivableIdOrigin":null,"memberId":11224,
      "name":"JOAO SOUZA","branchId":1,"idMemberMembership":55501,"memberStatus":"Active",
      "debtStatus":"Open","dueDate":"2026-07-10T00:00:00","paymentDate":null,"daysLate":17,
      "debtAmount":149.90,"paymentType":null,"idPaymentType":null,"chargeAttemptsCount":3,
      "lastAcquirerDeclineReason":"Insufficient funds"}],"total":69,
      "summary":{"recoveredValue":0.0,"recoveryAverage":0.0,"pendingValue":10343.10,"pendingAverage":149.90}}`;
    const list = debtorsListSchema.parse(parseJson(text));
    expect(list.results[0]).toMatchObject({
      receivableIdOrigin: null,
      idMemberMembership: 55501,
      chargeAttemptsCount: 3,
      lastAcquirerDeclineReason: 'Insufficient funds',
    });
    expect(list.summary?.pendingAverage).toBe(149.9);
  });

  it('accepts a list without a summary', () => {
    expect(debtorsListSchema.safeParse({ results: [], total: 0 }).success).toBe(true);
  });
});

describe('computeSummary', () => {
  const row = (debtStatus: string, debtAmount: number | null): Debtor => ({
    debtStatus,
    debtAmount,
  });

  it('sums and averages recovered and open rows separately, in cents', () => {
    const summary = computeSummary([
      row('Open', 149.9),
      row('open', 0.1),
      row('Open', 0.2),
      row('Recovered', 89.9),
      row('Recovered', 129.9),
      row('Canceled', 1000),
    ]);
    expect(summary).toEqual({
      pendingValue: 150.2,
      pendingAverage: 50.07,
      recoveredValue: 219.8,
      recoveryAverage: 109.9,
    });
  });

  it('reproduces production sample: 69 open rows of 149.90', () => {
    const summary = computeSummary(Array.from({ length: 69 }, () => row('Open', 149.9)));
    expect(summary.pendingValue).toBe(10343.1);
    expect(summary.pendingAverage).toBe(149.9);
  });

  it('is all zeros for no rows', () => {
    expect(computeSummary([])).toEqual({
      recoveredValue: 0,
      recoveryAverage: 0,
      pendingValue: 0,
      pendingAverage: 0,
    });
  });
});

describe('statusName', () => {
  it('maps codes and names case-insensitively', () => {
    expect(statusName(MEMBER_STATUS, 1)).toBe('Active');
    expect(statusName(MEMBER_STATUS, 'freeze')).toBe('Freeze');
    expect(statusName(MEMBER_STATUS, '9')).toBeUndefined();
  });
});
