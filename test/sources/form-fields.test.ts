import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BodyRequest,
  bracketLists,
  flattenJson,
  groupFields,
  listOf,
  MAX_FIELDS,
  nestBrackets,
  parseUrlencoded,
  readFields,
  textOf,
} from '../../functions/sources/form-fields.ts';
import { mediaType } from '../helpers/lead-fixtures.ts';

function request(contentType: string, body: string | Buffer): BodyRequest {
  return {
    headers: contentType ? { 'content-type': contentType } : {},
    contentType: mediaType(contentType),
    body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body,
  };
}

const pairs = (fields: readonly { key: string; value: string }[]) =>
  fields.map((f) => [f.key, f.value]);

describe('readFields', () => {
  describe('application/x-www-form-urlencoded', () => {
    it('keeps repeated keys in order and reads + as a space', async () => {
      // Act
      const result = await readFields(
        request(
          'application/x-www-form-urlencoded',
          'nome=Maria+Jos%C3%A9&objetivo%5B%5D=Emagrecer&objetivo%5B%5D=Condicionamento&website=',
        ),
      );
      // Assess
      expect(result).toEqual({
        fields: [
          { key: 'nome', value: 'Maria José' },
          { key: 'objetivo[]', value: 'Emagrecer' },
          { key: 'objetivo[]', value: 'Condicionamento' },
          { key: 'website', value: '' },
        ],
        files: [],
      });
    });

    it('tolerates bad percent-encoding, empty sequences and keys without =', () => {
      expect(pairs(parseUrlencoded('a=%zz&&b=100%&c=%4&d&=e&f=%2B1%20x'))).toEqual([
        ['a', '%zz'],
        ['b', '100%'],
        ['c', '%4'],
        ['d', ''],
        ['', 'e'],
        ['f', '+1 x'],
      ]);
    });

    it('reads a value that is not UTF-8 as Windows-1252 (a page served as ISO-8859-1)', () => {
      expect(pairs(parseUrlencoded('nome=Jo%E3o+Concei%E7%E3o&cidade=S%C3%A3o+Paulo'))).toEqual([
        ['nome', 'João Conceição'],
        ['cidade', 'São Paulo'],
      ]);
    });

    it('reads raw UTF-8 bytes that a client forgot to percent-encode', () => {
      expect(pairs(parseUrlencoded(Buffer.from('nome=Ângela Müller', 'utf8')))).toEqual([
        ['nome', 'Ângela Müller'],
      ]);
    });

    it('refuses a body with more fields than any form has', async () => {
      const body = Array.from({ length: MAX_FIELDS + 1 }, (_, i) => `f${i}=x`).join('&');
      expect(await readFields(request('application/x-www-form-urlencoded', body))).toEqual({
        problem: `mais de ${MAX_FIELDS} campos`,
      });
    });
  });

  describe('multipart/form-data', () => {
    const boundary = '----WebKitFormBoundaryZx81';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="nome"\r\n\r\nAna Luíza\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="interesse"\r\n\r\nNatação\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="interesse"\r\n\r\nPilates\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="foto"; filename="ana-luiza.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
      ),
      Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);

    it('reads the fields in order, and names the ignored file fields (not the file names)', async () => {
      // Act
      const result = await readFields(request(`multipart/form-data; boundary=${boundary}`, body));
      // Assess
      expect(result).toEqual({
        fields: [
          { key: 'nome', value: 'Ana Luíza' },
          { key: 'interesse', value: 'Natação' },
          { key: 'interesse', value: 'Pilates' },
        ],
        files: ['foto'],
      });
    });

    it('says what is wrong when the boundary is missing or does not match', async () => {
      expect(await readFields(request('multipart/form-data', body))).toEqual({
        problem: 'multipart/form-data sem boundary no Content-Type',
      });
      const mismatched = await readFields(request('multipart/form-data; boundary=other', body));
      expect(mismatched).toEqual({
        problem: 'o corpo multipart/form-data não pôde ser lido (o boundary confere?)',
      });
    });
  });

  describe('JSON', () => {
    it('flattens nested objects into bracket keys and repeats the key of a list', async () => {
      // Prepare
      const body = JSON.stringify({
        nome: 'João',
        contato: { email: 'joao@exemplo.com', telefones: ['11987654321', '1133334444'] },
        dependentes: [{ nome: 'Ana' }, { nome: 'Léo' }],
        idade: 39,
        aceita: true,
        obs: null,
        vazio: {},
      });
      // Act
      const result = await readFields(request('application/json', body));
      // Assess
      expect(result).toEqual({
        fields: [
          { key: 'nome', value: 'João' },
          { key: 'contato[email]', value: 'joao@exemplo.com' },
          { key: 'contato[telefones]', value: '11987654321' },
          { key: 'contato[telefones]', value: '1133334444' },
          { key: 'dependentes[0][nome]', value: 'Ana' },
          { key: 'dependentes[1][nome]', value: 'Léo' },
          { key: 'idade', value: '39' },
          { key: 'aceita', value: 'true' },
          { key: 'obs', value: '' },
        ],
        files: [],
      });
    });

    it('keeps every digit of numbers beyond 2^53 and of phones sent as numbers', async () => {
      const result = await readFields(
        request('application/json', '{"lead_id": 12345678901234567890, "phone": 5511987654321}'),
      );
      expect(result).toEqual({
        fields: [
          { key: 'lead_id', value: '12345678901234567890' },
          { key: 'phone', value: '5511987654321' },
        ],
        files: [],
      });
    });

    it('accepts text/json and the +json family', async () => {
      for (const type of ['text/json', 'application/vnd.api+json; charset=utf-8']) {
        expect(await readFields(request(type, '{"a":"1"}'))).toEqual({
          fields: [{ key: 'a', value: '1' }],
          files: [],
        });
      }
    });

    it('says what is wrong without quoting the body', async () => {
      const broken = await readFields(request('application/json', '{"nome": "Maria Sigilosa'));
      expect(broken).toEqual({ problem: 'o corpo não é um JSON válido' });
      expect(await readFields(request('application/json', '["Maria"]'))).toEqual({
        problem: 'o corpo JSON não é um objeto',
      });
      const deep = `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`;
      expect(await readFields(request('application/json', deep))).toEqual({
        problem: 'o corpo JSON tem mais de 32 níveis',
      });
    });
  });

  describe('text/plain and no content type', () => {
    it('reads a JSON object (a fetch avoiding the CORS preflight)', async () => {
      expect(await readFields(request('text/plain;charset=UTF-8', '{"nome":"Bia"}'))).toEqual({
        fields: [{ key: 'nome', value: 'Bia' }],
        files: [],
      });
    });

    it('reads anything else as urlencoded', async () => {
      expect(await readFields(request('text/plain', 'nome=Bia&email=bia%40exemplo.com'))).toEqual({
        fields: [
          { key: 'nome', value: 'Bia' },
          { key: 'email', value: 'bia@exemplo.com' },
        ],
        files: [],
      });
      expect(await readFields(request('', '{"nome": broken'))).toEqual({
        fields: [{ key: '{"nome": broken', value: '' }],
        files: [],
      });
    });
  });

  it('gives no fields for an empty body, whatever the type', async () => {
    for (const type of ['application/json', 'multipart/form-data', 'text/plain', '']) {
      expect(await readFields(request(type, ' \r\n'))).toEqual({ fields: [], files: [] });
    }
  });

  it('refuses other content types by name only', async () => {
    expect(await readFields(request('application/xml', '<nome>Maria</nome>'))).toEqual({
      problem: 'tipo de conteúdo "application/xml" não suportado',
    });
  });

  describe('properties', () => {
    it('gives back what URLSearchParams encoded, in order', async () => {
      const anyText = fc.string({ unit: 'binary', maxLength: 20 });
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(anyText, anyText), { maxLength: 15 }), async (input) => {
          // Prepare
          const body = new URLSearchParams(input).toString();
          // Act
          const result = await readFields(request('application/x-www-form-urlencoded', body));
          // Assess
          const expected = input.map(([key, value]) => ({ key, value }));
          expect(result).toEqual({ fields: body ? expected : [], files: [] });
        }),
      );
    });

    it('never throws, whatever the bytes and the content type', async () => {
      const contentType = fc.oneof(
        fc.constantFrom(
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'multipart/form-data',
          'application/json',
          'application/json-patch+json',
          'text/plain',
          '',
        ),
        fc.string({ maxLength: 40 }),
      );
      const bytes = fc.oneof(
        fc.uint8Array({ maxLength: 200 }),
        fc.string({ unit: 'binary', maxLength: 100 }).map((s) => new TextEncoder().encode(s)),
      );
      await fc.assert(
        fc.asyncProperty(contentType, bytes, async (type, body) => {
          const result = await readFields(request(type, Buffer.from(body)));
          expect('fields' in result || 'problem' in result).toBe(true);
        }),
      );
    });

    it('nestBrackets never throws and never touches Object.prototype', () => {
      const key = fc.stringMatching(/^[a-z_[\]]{0,12}$/);
      fc.assert(
        fc.property(
          fc.array(
            fc.record({ key: fc.oneof(key, fc.constant('__proto__[x]')), value: fc.string() }),
          ),
          (fields) => {
            nestBrackets(fields);
            expect(({} as Record<string, unknown>).x).toBeUndefined();
          },
        ),
      );
    });
  });
});

describe('flattenJson', () => {
  it('refuses anything but an object', () => {
    for (const value of [null, 1, 'a', [1]]) {
      expect(flattenJson(value)).toEqual({ problem: 'o corpo JSON não é um objeto' });
    }
  });

  it('reads lists of fields only when asked (fieldLists), leaving other sources’ bodies as they were', () => {
    // Prepare
    const body = { lead: { fields: [{ name: 'email', value: 'ana@exemplo.com' }] } };

    // Act / Assess
    expect(flattenJson(body)).toEqual({
      fields: [
        { key: 'lead[fields][0][name]', value: 'email' },
        { key: 'lead[fields][0][value]', value: 'ana@exemplo.com' },
      ],
      files: [],
    });
    expect(flattenJson(body, { fieldLists: true })).toEqual({
      fields: [{ key: 'lead[fields][email]', label: 'email', value: 'ana@exemplo.com' }],
      files: [],
    });
  });

  it('with fieldLists, reads a root array: a list of fields, or objects each read as the root', () => {
    // Act
    const list = flattenJson(
      [
        { name: 'nome', value: 'Ana' },
        { name: 'objetivo', values: [] },
      ],
      {
        fieldLists: true,
      },
    );
    const objects = flattenJson([{ nome: 'Ana' }, { email: 'ana@exemplo.com' }, 'x'], {
      fieldLists: true,
    });

    // Assess
    expect(list).toEqual({
      fields: [
        { key: 'nome', value: 'Ana' },
        { key: 'objetivo', value: '' },
      ],
      files: [],
    });
    expect(objects).toEqual({
      fields: [
        { key: 'nome', value: 'Ana' },
        { key: 'email', value: 'ana@exemplo.com' },
      ],
      files: [],
    });
    expect(flattenJson([1, 2], { fieldLists: true })).toEqual({ fields: [], files: [] });
  });
});

describe('bracketLists', () => {
  it('reads a list of fields written as bracket keys, in place, leaving the other keys alone', () => {
    // Prepare: a form-encoded relay of an array, and an array that is no list of fields.
    const fields = parseUrlencoded(
      'origem=zap&campos[0][name]=email&campos[0][value]=ana%40exemplo.com' +
        '&campos[1][name]=WhatsApp&campos[1][value]=11+98765-4321&itens[0][sku]=plano-anual',
    );

    // Act
    const read = bracketLists(fields);

    // Assess
    expect(read).toEqual([
      { key: 'origem', value: 'zap' },
      { key: 'campos[email]', label: 'email', value: 'ana@exemplo.com' },
      { key: 'campos[WhatsApp]', label: 'WhatsApp', value: '11 98765-4321' },
      { key: 'itens[0][sku]', value: 'plano-anual' },
    ]);
  });

  it('leaves a list that does not start at index 0 as it was', () => {
    const fields = parseUrlencoded('campos[5][name]=email&campos[5][value]=ana%40exemplo.com');
    expect(bracketLists(fields)).toEqual(fields);
  });

  it('puts the mobile of a bracket-key phone list first', () => {
    const read = bracketLists(
      parseUrlencoded(
        'phone[0][label]=work&phone[0][value]=(11)+3456-7890&phone[1][label]=mobile&phone[1][value]=(11)+98765-4321',
      ),
    );
    expect(read.map((f) => [f.key, f.value])).toEqual([
      ['phone', '(11) 98765-4321'],
      ['phone[trabalho 0]', '(11) 3456-7890'],
    ]);
  });
});

describe('nestBrackets', () => {
  it('rebuilds Elementor advanced-mode structure, raw_value lists included', () => {
    // Act
    const tree = nestBrackets([
      { key: 'form[id]', value: 'a1b2c3d' },
      { key: 'fields[email][title]', value: 'E-mail' },
      { key: 'fields[email][value]', value: 'carlos@exemplo.com' },
      { key: 'fields[modalidades][raw_value][0]', value: 'Musculação' },
      { key: 'fields[modalidades][raw_value][1]', value: 'Natação' },
      { key: 'meta[remote_ip][value]', value: '177.10.20.30' },
    ]);
    // Assess
    expect(JSON.parse(JSON.stringify(tree))).toEqual({
      form: { id: 'a1b2c3d' },
      fields: {
        email: { title: 'E-mail', value: 'carlos@exemplo.com' },
        modalidades: { raw_value: { 0: 'Musculação', 1: 'Natação' } },
      },
      meta: { remote_ip: { value: '177.10.20.30' } },
    });
    const modalidades = tree.fields as Record<string, Record<string, never>>;
    expect(listOf(modalidades.modalidades?.raw_value)).toEqual(['Musculação', 'Natação']);
  });

  it('makes lists of a[] and of repeated keys; an empty inner segment is the next index', () => {
    const tree = nestBrackets([
      { key: 'a[]', value: 'x' },
      { key: 'a[]', value: 'y' },
      { key: 'b', value: '1' },
      { key: 'b', value: '2' },
      { key: 'c[][n]', value: 'p' },
      { key: 'c[][n]', value: 'q' },
    ]);
    expect(JSON.parse(JSON.stringify(tree))).toEqual({
      a: ['x', 'y'],
      b: ['1', '2'],
      c: { 0: { n: 'p' }, 1: { n: 'q' } },
    });
  });

  it('keeps malformed keys whole, sub-keys over a plain value, and __proto__ as data', () => {
    const tree = nestBrackets([
      { key: 'a[b', value: '1' },
      { key: '[x]', value: '2' },
      { key: 'c', value: 'plain' },
      { key: 'c[d]', value: 'nested' },
      { key: 'c', value: 'ignored' },
      { key: '__proto__[polluted]', value: 'yes' },
    ]);
    expect(tree['a[b']).toBe('1');
    expect(tree['[x]']).toBe('2');
    expect(JSON.parse(JSON.stringify(tree.c))).toEqual({ d: 'nested' });
    expect(Object.getPrototypeOf(tree)).toBeNull();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('reads text and lists out of nested values', () => {
    expect(textOf('x')).toBe('x');
    expect(textOf(['x', 'y'])).toBe('x');
    expect(textOf(undefined)).toBeUndefined();
    expect(listOf(undefined)).toEqual([]);
    expect(listOf(['x', 'y'])).toEqual(['x', 'y']);
  });
});

describe('groupFields', () => {
  it('groups repeated keys in order of first appearance', () => {
    expect(
      groupFields([
        { key: 'b', value: '1' },
        { key: 'a', value: '2' },
        { key: 'b', value: '3' },
      ]),
    ).toEqual([
      { key: 'b', values: ['1', '3'] },
      { key: 'a', values: ['2'] },
    ]);
  });
});
