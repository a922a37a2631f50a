import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startSandbox } from './helpers.ts';

let h: Harness;

beforeAll(async () => {
  h = await startSandbox();
});

afterAll(async () => {
  await h.sandbox.close();
});

function register(body: string | object): Promise<Response> {
  return fetch(h.url('/_sandbox/meta-leads'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const FIELD_DATA = [
  { name: 'full_name', values: ['Maria Souza'] },
  { name: 'email', values: ['maria@example.com'] },
  { name: 'phone_number', values: ['+5511987654321'] },
];

describe('Meta Graph lead lookup', () => {
  it('registers a lead and serves it on /graph/{id} and /graph/v{NN}.0/{id}', async () => {
    // Prepare
    const registered = await register({
      id: '1234567890123',
      form_id: '1234567890',
      ad_id: '2384',
      created_time: '2024-05-02T13:10:07+0000',
      field_data: FIELD_DATA,
    });
    expect(registered.status).toBe(201);

    // Act
    const plain = await fetch(h.url('/graph/1234567890123?access_token=token'));
    const versioned = await fetch(h.url('/graph/v19.0/1234567890123?access_token=token'));

    // Assess
    const expected = {
      id: '1234567890123',
      created_time: '2024-05-02T13:10:07+0000',
      form_id: '1234567890',
      ad_id: '2384',
      field_data: FIELD_DATA,
    };
    expect(plain.status).toBe(200);
    expect(await plain.json()).toEqual(expected);
    expect(await versioned.json()).toEqual(expected);
  });

  it('keeps a 16-digit id sent as a JSON number exactly, as a string', async () => {
    // Prepare: 9444444444444449 is above 2^53; JSON.parse would round it.
    const registered = await register(
      '{"id": 9444444444444449, "form_id": 349080077126, "field_data": [{"name": "email", "values": ["a@b.co"]}]}',
    );
    expect(registered.status).toBe(201);
    const stored = (await registered.json()) as Record<string, unknown>;
    expect(stored.id).toBe('9444444444444449');
    expect(stored.form_id).toBe('349080077126');
    expect(stored.created_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$/);
    expect(stored.created_time).toBe('2026-08-01T12:00:00+0000');

    // Act
    const response = await fetch(h.url('/graph/9444444444444449?access_token=t'));
    const rounded = await fetch(h.url('/graph/9444444444444448?access_token=t'));

    // Assess
    const text = await response.text();
    expect(text).toContain('"id":"9444444444444449"');
    expect(JSON.parse(text)).not.toHaveProperty('ad_id');
    expect(rounded.status).toBe(400);
  });

  it('requires an access token', async () => {
    const response = await fetch(h.url('/graph/1234567890123'));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message: 'An access token is required to request this resource.',
        type: 'OAuthException',
        code: 104,
      },
    });
  });

  it('answers Graph error 100/33 for an unknown id', async () => {
    const response = await fetch(h.url('/graph/555?access_token=t'));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message:
          "Unsupported get request. Object with ID '555' does not exist, cannot be loaded due to missing permissions, or does not support this operation.",
        type: 'GraphMethodException',
        code: 100,
        error_subcode: 33,
      },
    });
  });

  it('restricts keys with fields, always keeping id', async () => {
    // Prepare
    await register({ id: 77, form_id: 1, ad_id: 2, field_data: FIELD_DATA });

    // Act
    const selected = await fetch(h.url('/graph/77?access_token=t&fields=field_data,form_id'));
    const nested = await fetch(h.url('/graph/77?access_token=t&fields=field_data{name,values}'));
    const unknown = await fetch(h.url('/graph/77?access_token=t&fields=colour'));

    // Assess
    expect(await selected.json()).toEqual({ field_data: FIELD_DATA, form_id: '1', id: '77' });
    expect(await nested.json()).toEqual({ field_data: FIELD_DATA, id: '77' });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain(
      'colour',
    );
  });

  it.each([
    [{ form_id: '1', field_data: [] }],
    [{ id: 'abc', form_id: '1', field_data: [] }],
    [{ id: '1', form_id: '1', field_data: [{ name: '', values: [] }] }],
    [{ id: '1', form_id: '1', field_data: [{ name: 'x', values: 'y' }] }],
    [{ id: '1', form_id: '1', field_data: [], created_time: 'yesterday' }],
    [{ id: '1', form_id: '1', field_data: [], surprise: true }],
    ['{"id": '],
    [''],
  ])('refuses registration %j with 400', async (body) => {
    const response = await register(body);
    expect(response.status).toBe(400);
  });

  it('normalises created_time to Meta format and lists and forgets leads', async () => {
    // Act
    const registered = await register({
      id: '88',
      form_id: '1',
      created_time: '2024-05-02T10:10:07-03:00',
      field_data: [{ name: 'n', values: [1, true] }],
    });

    // Assess
    const stored = (await registered.json()) as { created_time: string; field_data: unknown };
    expect(stored.created_time).toBe('2024-05-02T13:10:07+0000');
    expect(stored.field_data).toEqual([{ name: 'n', values: ['1', 'true'] }]);
    const list = (await (await fetch(h.url('/_sandbox/meta-leads'))).json()) as { id: string }[];
    expect(list.map((lead) => lead.id)).toContain('88');
    expect((await fetch(h.url('/_sandbox/meta-leads'), { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(h.url('/graph/88?access_token=t'))).status).toBe(400);
  });
});

describe('Meta Graph form leads (backfill)', () => {
  const FORM = '5550000000001';

  it('lists a form’s leads of a period only, 100 a page, following the after cursor', async () => {
    // Prepare: 130 leads on 2 May 2024, one the day before, one on another form.
    for (let i = 0; i < 130; i += 1) {
      const id = `77700000000${String(i).padStart(3, '0')}`;
      const at = `2024-05-02T10:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}+0000`;
      expect(
        (await register({ id, form_id: FORM, created_time: at, field_data: FIELD_DATA })).status,
      ).toBe(201);
    }
    await register({
      id: '77799999999001',
      form_id: FORM,
      created_time: '2024-05-01T23:59:59+0000',
      field_data: FIELD_DATA,
    });
    await register({
      id: '77799999999002',
      form_id: '5550000000002',
      created_time: '2024-05-02T11:00:00+0000',
      field_data: FIELD_DATA,
    });
    const filtering = JSON.stringify([
      { field: 'time_created', operator: 'GREATER_THAN', value: 1714607999 },
      { field: 'time_created', operator: 'LESS_THAN', value: 1714694400 },
    ]);
    const page = (after?: string) =>
      fetch(
        h.url(
          `/graph/v21.0/${FORM}/leads?access_token=token&limit=100&filtering=${encodeURIComponent(filtering)}${after ? `&after=${after}` : ''}`,
        ),
      );

    // Act
    const first = (await (await page()).json()) as {
      data: { id: string }[];
      paging?: { cursors?: { after?: string }; next?: string };
    };
    const second = (await (await page(first.paging?.cursors?.after)).json()) as {
      data: { id: string }[];
      paging?: { next?: string };
    };
    const anonymous = await fetch(h.url(`/graph/${FORM}/leads`));

    // Assess
    expect(first.data).toHaveLength(100);
    expect(first.paging?.next).toBeTypeOf('string');
    expect(second.data).toHaveLength(30);
    expect(second.paging?.next).toBeUndefined();
    const ids = new Set([...first.data, ...second.data].map((lead) => lead.id));
    expect(ids.size).toBe(130);
    expect(ids.has('77799999999001')).toBe(false);
    expect(ids.has('77799999999002')).toBe(false);
    expect(anonymous.status).toBe(400);
  });
});
