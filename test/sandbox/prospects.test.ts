import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIRST_PROSPECT_ID } from '../../sandbox/prospects-route.ts';
import { type Harness, NO_LIMITS, startSandbox, validProspect } from './helpers.ts';

let h: Harness;

beforeAll(async () => {
  h = await startSandbox();
  await h.setFaults(NO_LIMITS);
});

afterAll(async () => {
  await h.sandbox.close();
});

beforeEach(async () => {
  await fetch(h.url('/_sandbox/prospects'), { method: 'DELETE' });
  await h.setFaults(NO_LIMITS);
});

async function messagesOf(response: Response): Promise<string[]> {
  expect(response.status).toBe(400);
  const body = (await response.json()) as { mensagens: string[] };
  expect(Array.isArray(body.mensagens)).toBe(true);
  return body.mensagens;
}

describe('POST /api/v1/prospects: authentication', () => {
  it('answers 401 with production body and header without credentials', async () => {
    // Act
    const response = await fetch(h.url('/api/v1/prospects'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(validProspect()),
    });

    // Assess
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Basic realm="Evo-integracao"');
    expect(await response.json()).toEqual({ status: 401, error: 'Unauthorized' });
  });

  it('answers 401 for a wrong password and for a malformed Authorization header', async () => {
    for (const authorization of [
      `Basic ${Buffer.from('demo:wrong').toString('base64')}`,
      `Basic ${Buffer.from('other:demo').toString('base64')}`,
      'Basic !!!',
      'Bearer demo',
    ]) {
      const response = await fetch(h.url('/api/v1/prospects'), {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify(validProspect()),
      });
      expect(response.status, authorization).toBe(401);
      expect(await response.json()).toEqual({ status: 401, error: 'Unauthorized' });
    }
  });

  it('honours custom credentials', async () => {
    // Prepare
    const custom = await startSandbox({ username: 'gym.dns', password: 's3cret' });
    try {
      // Act
      const ok = await fetch(custom.url('/api/v1/receivables/debtors?take=1'), {
        headers: { authorization: `Basic ${Buffer.from('gym.dns:s3cret').toString('base64')}` },
      });
      const demo = await custom.api('/api/v1/receivables/debtors?take=1');

      // Assess
      expect(ok.status).toBe(200);
      expect(demo.status).toBe(401);
    } finally {
      await custom.sandbox.close();
    }
  });
});

describe('POST /api/v1/prospects: content types', () => {
  it.each([
    'application/json',
    'application/json-patch+json',
    'application/json; charset=utf-8',
    'text/json',
    'application/vnd.custom+json',
  ])('accepts %s', async (contentType) => {
    const response = await h.postProspect(validProspect(), contentType);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ idProspect: expect.any(Number) });
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/xml'])(
    'refuses %s with 415',
    async (contentType) => {
      const response = await h.postProspect(validProspect(), contentType);
      expect(response.status).toBe(415);
      const body = (await response.json()) as { mensagens: string[] };
      expect(body.mensagens[0]).toContain(contentType);
    },
  );

  it('refuses a body without Content-Type with 415', async () => {
    const response = await h.api('/api/v1/prospects', {
      method: 'POST',
      body: new Blob([JSON.stringify(validProspect())]),
    });
    expect(response.status).toBe(415);
  });
});

describe('POST /api/v1/prospects: success', () => {
  it('answers 200 with ids counting up from 100001 and stores each prospect', async () => {
    // Act
    const first = await h.postProspect(validProspect({ name: 'Ana' }));
    const second = await h.postProspect(validProspect({ name: 'João' }));

    // Assess
    const a = (await first.json()) as { idProspect: number };
    const b = (await second.json()) as { idProspect: number };
    expect(a.idProspect).toBeGreaterThanOrEqual(FIRST_PROSPECT_ID);
    expect(b.idProspect).toBe(a.idProspect + 1);
    const stored = (await (await fetch(h.url('/_sandbox/prospects'))).json()) as {
      idProspect: number;
      receivedAt: string;
      body: Record<string, unknown>;
    }[];
    expect(stored.map((p) => p.idProspect)).toEqual([a.idProspect, b.idProspect]);
    expect(stored[1]?.body.name).toBe('João');
    expect(stored[0]?.receivedAt).toBe('2026-08-01T12:00:00.000Z');
  });

  it('starts at 100001 on a fresh sandbox', async () => {
    const fresh = await startSandbox();
    try {
      const response = await fresh.postProspect(validProspect());
      expect(await response.json()).toEqual({ idProspect: 100001 });
    } finally {
      await fresh.sandbox.close();
    }
  });

  it('answers the bare integer when the bareId fault is on', async () => {
    // Prepare
    await h.setFaults({ ...NO_LIMITS, bareId: true });

    // Act
    const response = await h.postProspect(validProspect());

    // Assess
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toMatch(/^\d+$/);
    expect(Number(text)).toBeGreaterThanOrEqual(FIRST_PROSPECT_ID);
  });

  it('binds field names case-insensitively, as production does', async () => {
    const response = await h.postProspect({
      Name: 'Maria',
      LastName: 'Souza',
      EMAIL: 'maria@example.com',
      IdBranch: 1,
      Cellphone: '11987654321',
      AdditionalFieldName: 'utm_source',
    });
    expect(response.status).toBe(200);
  });

  it('forgets stored prospects on DELETE /_sandbox/prospects', async () => {
    // Prepare
    await h.postProspect(validProspect());

    // Act
    const deleted = await fetch(h.url('/_sandbox/prospects'), { method: 'DELETE' });

    // Assess
    expect(deleted.status).toBe(204);
    expect(await (await fetch(h.url('/_sandbox/prospects'))).json()).toEqual([]);
  });
});

describe('POST /api/v1/prospects: validation', () => {
  it('names every missing required field in one 400', async () => {
    const messages = await messagesOf(await h.postProspect({ gender: 'F' }));
    expect(messages).toEqual([
      "O campo 'name' é obrigatório.",
      "O campo 'lastName' é obrigatório.",
      "O campo 'email' é obrigatório.",
      "O campo 'idBranch' é obrigatório.",
      "O campo 'cellphone' é obrigatório.",
    ]);
  });

  it('treats blank and null required fields as missing', async () => {
    const messages = await messagesOf(
      await h.postProspect(validProspect({ name: '   ', email: null })),
    );
    expect(messages).toEqual(["O campo 'name' é obrigatório.", "O campo 'email' é obrigatório."]);
  });

  it('gives exactly one message per bad field, naming it', async () => {
    // Prepare
    const body = validProspect({
      email: 'not-an-email',
      gender: 'X',
      visit: 7,
      birthday: '1990-02-30',
      cpf: '12345678900',
      ddi: '+55',
      cellphone: '(11) 98765-4321',
      interests: [1, 'two'],
      idBranch: 1.5,
      temperature: 'hot',
      validateCpfDuplication: 'yes',
      financiallyResponsible: { idMember: 'x', email: 'bad', cpf: '11111111111' },
    });

    // Act
    const messages = await messagesOf(await h.postProspect(body));

    // Assess
    const expectedFields = [
      'email',
      'idBranch',
      'ddi',
      'cellphone',
      'birthday',
      'gender',
      'visit',
      'cpf',
      'validateCpfDuplication',
      'temperature',
      'financiallyResponsible.idMember',
      'financiallyResponsible.email',
      'financiallyResponsible.cpf',
      'interests',
    ];
    expect(messages).toHaveLength(expectedFields.length);
    for (const field of expectedFields) {
      expect(
        messages.filter((m) => m.includes(`'${field}'`)),
        field,
      ).toHaveLength(1);
    }
    expect(messages).toContain("O campo 'gender' deve ser M, F ou P.");
    expect(messages).toContain("O campo 'email' deve ser um e-mail válido.");
  });

  it.each([
    ['name', 42],
    ['idBranch', '1'],
    ['visit', 0],
    ['visit', 5],
    ['gender', 'm'],
    ['birthday', '12/05/1990'],
    ['birthday', '1990-13-01T00:00:00'],
    ['cpf', '529.982.247-24'],
    ['cpf', '5299822472'],
    ['cellphone', '11-98765-4321'],
    ['interests', 'a'],
    ['interests', [1.5]],
    ['financiallyResponsible', 'João'],
  ])('refuses %s = %j naming the field', async (field, value) => {
    const messages = await messagesOf(await h.postProspect(validProspect({ [field]: value })));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(`'${field}'`);
  });

  it.each([
    ['birthday', '1990-05-12'],
    ['birthday', '1990-05-12T00:00:00'],
    ['birthday', '1990-05-12T00:00:00-03:00'],
    ['cpf', '529.982.247-25'],
    ['cpf', ''],
    ['gender', null],
    ['interests', []],
    ['tokenPartner', 'abc'],
    ['financiallyResponsible', { idMember: 10, name: 'João', email: 'j@example.com', cpf: null }],
  ])('accepts %s = %j', async (field, value) => {
    const response = await h.postProspect(validProspect({ [field]: value }));
    expect(response.status).toBe(200);
  });

  it('refuses an integer too big to be exact, naming the field', async () => {
    const body = JSON.stringify(validProspect()).replace(
      '"idBranch":1',
      '"idBranch":99999999999999999999',
    );
    const messages = await messagesOf(await h.postProspect(body));
    expect(messages).toEqual(["O campo 'idBranch' deve ser um número inteiro."]);
  });

  it('answers 400 mensagens for invalid JSON, empty bodies and non-objects', async () => {
    for (const body of ['{"name": ', '', '[1,2]', '"text"', 'null', '{"a":1}}']) {
      const messages = await messagesOf(await h.postProspect(body));
      expect(messages.length, body).toBe(1);
    }
  });

  it('requires a cpf when validateCpf is true', async () => {
    const messages = await messagesOf(await h.postProspect(validProspect({ validateCpf: true })));
    expect(messages).toEqual(["O campo 'cpf' é obrigatório quando 'validateCpf' é verdadeiro."]);
  });
});

describe('POST /api/v1/prospects: validateCpfDuplication', () => {
  it('refuses a CPF already stored only when the client asks for the check', async () => {
    // Prepare
    const first = await h.postProspect(validProspect({ cpf: '52998224725' }));
    expect(first.status).toBe(200);

    // Act
    const unchecked = await h.postProspect(validProspect({ cpf: '529.982.247-25' }));
    const checked = await h.postProspect(
      validProspect({ cpf: '529.982.247-25', validateCpfDuplication: true }),
    );
    const other = await h.postProspect(
      validProspect({ cpf: '11144477735', validateCpfDuplication: true }),
    );

    // Assess
    expect(unchecked.status).toBe(200);
    const messages = await messagesOf(checked);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain("'cpf'");
    expect(other.status).toBe(200);
  });

  it('forgets CPFs together with the prospects', async () => {
    await h.postProspect(validProspect({ cpf: '52998224725' }));
    await fetch(h.url('/_sandbox/prospects'), { method: 'DELETE' });
    const again = await h.postProspect(
      validProspect({ cpf: '52998224725', validateCpfDuplication: true }),
    );
    expect(again.status).toBe(200);
  });
});
