import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  classifyGraphCode,
  createMetaGraph,
  GRAPH_LEAD_FIELDS,
  MetaGraphError,
  readGraphLead,
} from '../../functions/sources/meta/graph.ts';
import { createSandbox, type Sandbox } from '../../sandbox/server.ts';
import { PLATFORM_SECRETS, platformBody, platformJson } from '../helpers/platform-fixtures.ts';
import { type StubServer, startStubServer } from '../helpers/upstream-stub-server.ts';

/** A token that must never show up in an error. */
const TOKEN = 'EAAGm0PX4ZCpsBAKZC-secret-page-token';

async function failure(promise: Promise<unknown>): Promise<MetaGraphError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof MetaGraphError) return error;
    throw error;
  }
  throw new Error('expected a MetaGraphError');
}

function expectNoSecret(error: MetaGraphError): void {
  const everything = `${error.message} ${error.stack ?? ''} ${JSON.stringify(error)}`;
  expect(everything).not.toContain(TOKEN);
  expect(everything).not.toContain(encodeURIComponent(TOKEN));
  expect(error.cause).toBeUndefined();
}

describe('createMetaGraph against the sandbox', () => {
  let sandbox: Sandbox;
  const graph = createMetaGraph();
  const base = () => ({ graphBaseUrl: `${sandbox.url}/graph`, accessToken: TOKEN });

  beforeAll(async () => {
    sandbox = await createSandbox({ port: 0 });
    for (const file of ['graph-lead.json', 'graph-test-lead.json']) {
      const registered = await fetch(`${sandbox.url}/_sandbox/meta-leads`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: platformBody('meta', file),
      });
      expect(registered.status).toBe(201);
    }
  });

  afterAll(async () => {
    await sandbox.close();
  });

  it('fetches a registered lead: answers, ids exact, time in ISO 8601', async () => {
    // Act
    const lead = await graph.fetchLead('9444444444444449', base());

    // Assess
    expect(lead).toEqual({
      answers: [
        { key: 'full_name', value: 'Maria Souza' },
        // Meta's standard questions declare their input: the birthday is Meta's date picker.
        { key: 'email', type: 'email', value: 'maria.souza@example.com' },
        { key: 'phone_number', type: 'phone', value: '+5511987654321' },
        { key: 'date_of_birth', type: 'date', value: '05/12/1990' },
        { key: 'gender', value: 'female' },
        { key: 'qual_o_seu_cpf?', value: '529.982.247-25' },
        { key: 'qual_unidade_voce_prefere?', value: 'Centro' },
      ],
      formId: '9234567890123457',
      adId: '23851234567890129',
      createdTime: '2025-05-02T13:10:07.000Z',
      attribution: {
        ad_id: '23851234567890129',
        adset_id: '23851234567890127',
        campaign_id: '23851234567890125',
        platform: 'ig',
        is_organic: 'false',
      },
    });
  });

  it('works with a versioned base URL and a trailing slash', async () => {
    const lead = await graph.fetchLead('9444444444444449', {
      ...base(),
      graphBaseUrl: `${sandbox.url}/graph/v21.0/`,
    });
    expect(lead.formId).toBe('9234567890123457');
  });

  it('marks a testing-tool lead (placeholder answers) as a test', async () => {
    const lead = await graph.fetchLead('9555555555555557', base());
    expect(lead.isTest).toBe(true);
    expect(lead.adId).toBeUndefined();
    expect(lead.attribution).toEqual({ platform: 'fb', is_organic: 'true' });
  });

  it('classifies an unknown lead as rejected (code 100), without the token', async () => {
    const error = await failure(graph.fetchLead('9444444444444448', base()));
    expect(error).toMatchObject({ kind: 'rejected', status: 400, code: 100, subcode: 33 });
    expectNoSecret(error);
  });

  it('classifies a missing token as unauthorized (code 104)', async () => {
    const error = await failure(
      graph.fetchLead('9444444444444449', { ...base(), accessToken: '' }),
    );
    expect(error).toMatchObject({ kind: 'unauthorized', status: 400, code: 104 });
  });

  it('refuses an id that is not a number without calling Graph', async () => {
    const error = await failure(graph.fetchLead('../_sandbox/prospects', base()));
    expect(error.kind).toBe('rejected');
  });
});

describe('createMetaGraph against a scripted server', () => {
  let stub: StubServer;
  const lead = platformJson('meta', 'graph-lead.json') as object;

  beforeAll(async () => {
    stub = await startStubServer();
  });

  afterAll(async () => {
    await stub.close();
  });

  beforeEach(() => {
    stub.requests.length = 0;
  });

  const options = () => ({ graphBaseUrl: `${stub.url}/v21.0`, accessToken: TOKEN });

  it('asks only for fields Graph and the sandbox know, with the token and appsecret_proof', async () => {
    // Prepare
    stub.reply({ body: lead });

    // Act
    await createMetaGraph().fetchLead('9444444444444449', {
      ...options(),
      appSecret: PLATFORM_SECRETS.metaAppSecret,
    });

    // Assess
    const url = stub.requests[0]?.url;
    expect(url?.pathname).toBe('/v21.0/9444444444444449');
    expect(url?.searchParams.get('access_token')).toBe(TOKEN);
    expect(url?.searchParams.get('fields')).toBe(GRAPH_LEAD_FIELDS.join(','));
    expect(url?.searchParams.get('appsecret_proof')).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['an expired token (190)', 400, { code: 190, type: 'OAuthException' }, 'unauthorized'],
    ['a session key error (102)', 400, { code: 102, type: 'OAuthException' }, 'unauthorized'],
    ['a missing permission (200)', 403, { code: 200, type: 'OAuthException' }, 'unauthorized'],
    ['an app rate limit (4)', 400, { code: 4 }, 'rate-limited'],
    ['a user rate limit (17)', 400, { code: 17 }, 'rate-limited'],
    ['a page rate limit (32)', 400, { code: 32 }, 'rate-limited'],
    ['a custom rate limit (613)', 400, { code: 613 }, 'rate-limited'],
    ['a business use case limit (80001)', 400, { code: 80001 }, 'rate-limited'],
    ['an unknown object (100)', 400, { code: 100, error_subcode: 33 }, 'rejected'],
    ['a transient error (2)', 500, { code: 2, is_transient: true }, 'unavailable'],
    ['an unknown code on a 400', 400, { code: 12345 }, 'rejected'],
    ['an unknown code on a 503', 503, { code: 12345 }, 'unavailable'],
  ])('classifies %s', async (_, status, error, kind) => {
    // Prepare: Graph may echo what it was given; the token must still not show.
    stub.reply({ status, body: { error: { message: `Bad request with ${TOKEN}`, ...error } } });

    // Act
    const failed = await failure(createMetaGraph().fetchLead('1', options()));

    // Assess
    expect(failed.kind).toBe(kind);
    expect(failed.status).toBe(status);
    expect(failed.message).toContain('[redacted]');
    expectNoSecret(failed);
  });

  it.each([
    ['a 429 without a Graph body', { status: 429, body: 'Too Many Requests' }, 'rate-limited'],
    ['a 500', { status: 500, body: 'oops' }, 'unavailable'],
    ['a 502 with an empty body', { status: 502 }, 'unavailable'],
    ['a 401 without a Graph body', { status: 401, body: '' }, 'unauthorized'],
    ['a 404 without a Graph body', { status: 404, body: 'Not Found' }, 'rejected'],
    ['a 200 that is not JSON', { status: 200, body: '<html>' }, 'unavailable'],
    ['a 200 that is not a lead', { status: 200, body: { data: [] } }, 'unavailable'],
    ['a redirect', { status: 302, headers: { location: '/login' } }, 'unavailable'],
  ])('classifies %s', async (_, reply, kind) => {
    stub.reply(reply);
    const failed = await failure(createMetaGraph().fetchLead('1', options()));
    expect(failed.kind).toBe(kind);
    expectNoSecret(failed);
  });

  it('reads Retry-After on a rate limit', async () => {
    stub.reply({ status: 429, headers: { 'retry-after': '7' }, body: { error: { code: 4 } } });
    const failed = await failure(createMetaGraph().fetchLead('1', options()));
    expect(failed).toMatchObject({ kind: 'rate-limited', retryAfterMs: 7000 });
  });

  it('times out as unavailable', async () => {
    // Prepare
    stub.reply({ body: lead, delayMs: 1_000 });

    // Act
    const failed = await failure(createMetaGraph({ timeoutMs: 50 }).fetchLead('1', options()));

    // Assess
    expect(failed.kind).toBe('unavailable');
    expect(failed.message).toContain('timed out after 50 ms');
    expectNoSecret(failed);
  });

  it('treats a dropped connection as unavailable', async () => {
    stub.reply({ reset: true });
    const failed = await failure(createMetaGraph().fetchLead('1', options()));
    expect(failed.kind).toBe('unavailable');
    expectNoSecret(failed);
  });

  it('treats a refused connection as unavailable', async () => {
    // Prepare: a port nothing listens on (the stub's, once closed).
    const closed = await startStubServer();
    const url = closed.url;
    await closed.close();

    // Act
    const failed = await failure(
      createMetaGraph().fetchLead('1', { graphBaseUrl: url, accessToken: TOKEN }),
    );

    // Assess
    expect(failed.kind).toBe('unavailable');
    expectNoSecret(failed);
  });

  it("rejects with the caller's own reason when the caller aborts", async () => {
    stub.reply({ body: lead, delayMs: 1_000 });
    const controller = new AbortController();
    const call = createMetaGraph().fetchLead('1', { ...options(), signal: controller.signal });
    controller.abort(new Error('shutting down'));
    await expect(call).rejects.toThrow('shutting down');
  });

  it('uses an injected fetch', async () => {
    const seen: string[] = [];
    const graph = createMetaGraph({
      fetch: async (input) => {
        seen.push(String(input));
        return new Response(JSON.stringify(lead), { status: 200 });
      },
    });
    const fetched = await graph.fetchLead('9444444444444449', options());
    expect(fetched.answers).toHaveLength(7);
    expect(seen).toHaveLength(1);
  });
});

describe('readGraphLead', () => {
  it('keeps several values as a list and ids beyond 2^53 exact', () => {
    const lead = readGraphLead({
      id: '9444444444444449',
      form_id: '9234567890123457',
      ad_id: 0,
      field_data: [
        { name: 'quais_modalidades?', values: ['Musculação', 'Pilates'] },
        { name: 'idade', values: [34] },
        { name: '', values: ['ignored'] },
      ],
    });
    expect(lead).toEqual({
      answers: [
        { key: 'quais_modalidades?', value: ['Musculação', 'Pilates'] },
        { key: 'idade', value: '34' },
      ],
      formId: '9234567890123457',
      attribution: {},
    });
  });

  it('is undefined for a body that is not a lead', () => {
    expect(readGraphLead({ error: { code: 100 } })).toBeUndefined();
    expect(readGraphLead([])).toBeUndefined();
  });
});

describe('classifyGraphCode', () => {
  it.each([
    [190, 'unauthorized'],
    [104, 'unauthorized'],
    [10, 'unauthorized'],
    [4, 'rate-limited'],
    [100, 'rejected'],
    [1, 'unavailable'],
    [999, undefined],
  ])('%d → %s', (code, kind) => {
    expect(classifyGraphCode(code)).toBe(kind);
  });
});
