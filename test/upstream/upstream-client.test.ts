import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Prospect } from '../../functions/domain/prospect.ts';
import { parseRetryAfter } from '../../functions/kernel/http.ts';
import type { Pacer } from '../../functions/upstream/pacer.ts';
import {
  createUpstreamClient,
  type UpstreamClient,
} from '../../functions/upstream/upstream-client.ts';
import {
  classifyStatus,
  errorMessages,
  UpstreamError,
} from '../../functions/upstream/upstream-errors.ts';
import {
  type StubReply,
  type StubServer,
  startStubServer,
} from '../helpers/upstream-stub-server.ts';

const USERNAME = 'minhaacademia';
const PASSWORD = 'S3CRET-key-9f1c';
const BASIC = `Basic ${Buffer.from(`${USERNAME}:${PASSWORD}`).toString('base64')}`;

const prospect: Prospect = {
  name: 'Maria',
  lastName: 'Silva',
  email: 'maria@example.com',
  idBranch: 1,
  cellphone: '11987654321',
  tokenPartner: 'wellhub-123',
  notes: undefined,
  currentStep: null,
};

function debtor(receivableId: number | string, extra: Record<string, unknown> = {}) {
  return { receivableId, memberId: 11224, name: 'JOAO SOUZA', debtStatus: 'Open', ...extra };
}

function page(count: number, total: number, from = 1) {
  return {
    results: Array.from({ length: count }, (_, index) => debtor(from + index)),
    total,
    summary: null,
  };
}

/** Records what the client asks of its pacer. */
function spyPacer() {
  const calls: string[] = [];
  const pauses: number[] = [];
  const pacer: Pacer = {
    async acquire() {
      calls.push('acquire');
    },
    pauseUntil(epochMs) {
      pauses.push(epochMs);
    },
  };
  return { pacer, calls, pauses };
}

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  const upstream = error as UpstreamError;
  // No error, whatever its cause, may leak the secret.
  const text = `${upstream.message} ${upstream.messages.join(' ')}`;
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(BASIC.slice('Basic '.length));
  return upstream;
}

describe('createUpstreamClient against a loopback stub', () => {
  let stub: StubServer;
  let client: UpstreamClient;
  let spy: ReturnType<typeof spyPacer>;

  beforeAll(async () => {
    stub = await startStubServer();
  });

  afterAll(async () => {
    await stub.close();
  });

  beforeEach(() => {
    stub.requests.length = 0;
    spy = spyPacer();
    client = createUpstreamClient({
      baseUrl: `${stub.url}/`,
      username: USERNAME,
      password: PASSWORD,
      timeoutMs: 5_000,
      pacer: spy.pacer,
    });
  });

  describe('createProspect', () => {
    it('posts json-patch+json with Basic auth, without undefined fields', async () => {
      // Prepare
      stub.reply({ body: { idProspect: 1 } });

      // Act
      const created = await client.createProspect(prospect);

      // Assess
      expect(created).toEqual({ idProspect: 1 });
      const [request] = stub.requests;
      expect(request?.method).toBe('POST');
      expect(request?.url.pathname).toBe('/api/v1/prospects');
      expect(request?.headers['content-type']).toBe('application/json-patch+json');
      expect(request?.headers.accept).toBe('application/json');
      expect(request?.headers.authorization).toBe(BASIC);
      expect(JSON.parse(request?.body ?? '')).toEqual({
        name: 'Maria',
        lastName: 'Silva',
        email: 'maria@example.com',
        idBranch: 1,
        cellphone: '11987654321',
        tokenPartner: 'wellhub-123',
        currentStep: null,
      });
      expect(spy.calls).toEqual(['acquire']);
    });

    it('sends the partner token as tokenGympass when told to', async () => {
      // Prepare
      stub.reply({ body: { idProspect: 2 } });
      const gympass = createUpstreamClient({
        baseUrl: stub.url,
        username: USERNAME,
        password: PASSWORD,
        partnerTokenField: 'tokenGympass',
      });

      // Act
      await gympass.createProspect(prospect);

      // Assess
      const sent = JSON.parse(stub.requests[0]?.body ?? '');
      expect(sent.tokenGympass).toBe('wellhub-123');
      expect(sent).not.toHaveProperty('tokenPartner');
    });

    it.each([
      { body: '{"idProspect":778899}', expected: 778899 },
      { body: '123', expected: 123 },
      { body: '12345678901234567890', expected: '12345678901234567890' },
      { body: '{"idProspect":12345678901234567890}', expected: '12345678901234567890' },
      { body: '{"idProspect":5,"extra":true}', expected: 5 },
    ])('reads the id from $body', async ({ body, expected }) => {
      // Prepare
      stub.reply({ body, headers: { 'content-type': 'text/plain' } });

      // Act
      const created = await client.createProspect(prospect);

      // Assess
      expect(created).toEqual({ idProspect: expected });
    });

    it.each([
      { reply: { status: 200 }, says: 'corpo vazio' },
      { reply: { status: 204 }, says: 'corpo vazio' },
      { reply: { body: '<html>ok</html>' }, says: 'não é JSON ("<html>ok</html>")' },
      { reply: { body: { id: 7 } }, says: 'sem o id do prospect (idProspect' },
      { reply: { body: '"abc"' }, says: 'sem o id do prospect' },
    ])('treats an unusable 2xx body as unavailable: $says', async ({ reply, says }) => {
      // Prepare
      stub.reply(reply as StubReply);

      // Act
      const error = await failure(client.createProspect(prospect));

      // Assess
      expect(error.kind).toBe('unavailable');
      expect(error.message).toContain(says);
      expect(error.message).toContain('o id dele é desconhecido');
    });
  });

  describe('error classification', () => {
    it.each([
      {
        reply: { status: 400, body: { mensagens: ['E-mail inválido', 'CPF já cadastrado'] } },
        kind: 'rejected',
        messages: ['E-mail inválido', 'CPF já cadastrado'],
      },
      {
        reply: { status: 400, body: 'Bad things in the body' },
        kind: 'rejected',
        messages: ['Bad things in the body'],
      },
      {
        reply: { status: 400, body: { message: 'idBranch is required' } },
        kind: 'rejected',
        messages: ['idBranch is required'],
      },
      {
        reply: {
          status: 400,
          body: { title: 'One or more validation errors occurred.', errors: { Email: ['bad'] } },
        },
        kind: 'rejected',
        messages: ['Email: bad'],
      },
      {
        reply: { status: 409, body: { mensagens: ['Prospect já cadastrado'] } },
        kind: 'rejected',
        messages: ['Prospect já cadastrado'],
      },
      { reply: { status: 415, body: '' }, kind: 'rejected', messages: [] },
      {
        reply: {
          status: 401,
          body: { status: 401, error: 'Unauthorized' },
          headers: { 'www-authenticate': 'Basic realm="Evo-integracao"' },
        },
        kind: 'unauthorized',
        messages: ['Unauthorized'],
      },
      { reply: { status: 403 }, kind: 'unauthorized', messages: [] },
      { reply: { status: 404, body: 'Not Found' }, kind: 'unavailable', messages: ['Not Found'] },
      { reply: { status: 408 }, kind: 'unavailable', messages: [] },
      { reply: { status: 500 }, kind: 'unavailable', messages: [] },
      {
        reply: { status: 503, body: 'Service Unavailable' },
        kind: 'unavailable',
        messages: ['Service Unavailable'],
      },
      {
        reply: { status: 302, headers: { location: 'https://elsewhere.example/login' } },
        kind: 'unavailable',
        messages: [],
      },
    ])('answers $reply.status as $kind', async ({ reply, kind, messages }) => {
      // Prepare
      stub.reply(reply as StubReply);

      // Act
      const error = await failure(client.createProspect(prospect));

      // Assess
      expect(error.kind).toBe(kind);
      expect(error.status).toBe(reply.status);
      expect(error.messages).toEqual(messages);
      expect(error.retryAfterMs).toBeUndefined();
      expect(spy.pauses).toEqual([]);
    });

    it('says a 500 came with an empty body', async () => {
      // Prepare
      stub.reply({ status: 500 });

      // Act
      const error = await failure(client.listDebtors({ idBranch: 1 }));

      // Assess
      expect(error.message).toBe('GET /api/v1/receivables/debtors falhou (500) com o corpo vazio');
    });

    it('reads Retry-After seconds on 429 and pauses the pacer until then', async () => {
      // Prepare
      stub.reply({
        status: 429,
        body: 'API calls quota exceeded! maximum admitted 5 per 1s.',
        headers: { 'retry-after': '3' },
      });
      const before = Date.now();

      // Act
      const error = await failure(client.createProspect(prospect));

      // Assess
      const after = Date.now();
      expect(error.kind).toBe('rate-limited');
      expect(error.status).toBe(429);
      expect(error.retryAfterMs).toBe(3000);
      expect(error.messages).toEqual(['API calls quota exceeded! maximum admitted 5 per 1s.']);
      expect(spy.pauses).toHaveLength(1);
      expect(spy.pauses[0]).toBeGreaterThanOrEqual(before + 3000);
      expect(spy.pauses[0]).toBeLessThanOrEqual(after + 3000);
    });

    it('reads a Retry-After HTTP date on 429 and pauses the pacer until that date', async () => {
      // Prepare
      const before = Date.now();
      const until = new Date(Math.ceil(before / 1000) * 1000 + 5000);
      stub.reply({ status: 429, headers: { 'retry-after': until.toUTCString() } });

      // Act
      const error = await failure(client.listDebtors({}));

      // Assess
      expect(error.kind).toBe('rate-limited');
      expect(error.retryAfterMs).toBeGreaterThan(0);
      expect(error.retryAfterMs).toBeLessThanOrEqual(until.getTime() - before);
      expect(spy.pauses).toEqual([until.getTime()]);
    });

    it('classifies a 429 without Retry-After, still pausing the pacer briefly', async () => {
      // Prepare
      stub.reply({ status: 429, body: { message: 'Too many requests' } });
      const before = Date.now();

      // Act
      const error = await failure(client.createProspect(prospect));

      // Assess
      expect(error.kind).toBe('rate-limited');
      expect(error.retryAfterMs).toBeUndefined();
      expect(error.messages).toEqual(['Too many requests']);
      expect(spy.pauses).toHaveLength(1);
      expect(spy.pauses[0]).toBeGreaterThanOrEqual(before + 1000);
    });

    it('caps the pause a huge Retry-After imposes on the pacer at one hour', async () => {
      // Prepare
      stub.reply({ status: 429, headers: { 'retry-after': '864000' } });
      const before = Date.now();

      // Act
      const error = await failure(client.createProspect(prospect));

      // Assess
      expect(error.retryAfterMs).toBe(864_000_000);
      expect(spy.pauses[0]).toBeGreaterThanOrEqual(before + 3_600_000);
      expect(spy.pauses[0]).toBeLessThanOrEqual(Date.now() + 3_600_000);
    });

    it('treats a connection reset as unavailable without a status', async () => {
      // Prepare
      stub.reply({ reset: true });

      // Act
      const error = await failure(client.createProspect(prospect));

      // Assess
      expect(error.kind).toBe('unavailable');
      expect(error.status).toBeUndefined();
      expect(error.message).toMatch(
        /^POST \/api\/v1\/prospects falhou: .+pode ter sido feito mesmo assim$/,
      );
    });

    it('treats a refused connection as unavailable', async () => {
      // Prepare: a port nobody listens on (the stub's, once closed)
      const closed = await startStubServer();
      await closed.close();
      const offline = createUpstreamClient({
        baseUrl: closed.url,
        username: USERNAME,
        password: PASSWORD,
      });

      // Act
      const error = await failure(offline.listDebtors({}));

      // Assess
      expect(error.kind).toBe('unavailable');
      expect(error.message).toContain('ECONNREFUSED');
    });

    it('times out a slow answer as unavailable', async () => {
      // Prepare
      stub.reply({ delayMs: 5_000, body: { idProspect: 9 } });
      const impatient = createUpstreamClient({
        baseUrl: stub.url,
        username: USERNAME,
        password: PASSWORD,
        timeoutMs: 300,
      });

      // Act
      const error = await failure(impatient.createProspect(prospect));

      // Assess
      expect(error.kind).toBe('unavailable');
      expect(error.status).toBeUndefined();
      expect(error.message).toContain('ficou sem resposta por 300 ms');
    });

    it("passes the caller's own abort through untouched", async () => {
      // Prepare
      stub.reply({ delayMs: 3000, body: { idProspect: 9 } });
      const cancel = new AbortController();
      const reason = new Error('shutting down');

      // Act
      const pending = client.createProspect(prospect, { signal: cancel.signal });
      setTimeout(() => cancel.abort(reason), 20);

      // Assess
      await expect(pending).rejects.toBe(reason);
    });

    it('never repeats the password or the Authorization header, even when echoed back', async () => {
      // Prepare
      stub.reply({
        status: 400,
        body: { mensagens: [`bad credentials ${PASSWORD}`, `header was ${BASIC}`] },
      });

      // Act
      const error = await failure(client.createProspect(prospect));

      // Assess
      expect(error.messages).toEqual(['bad credentials [redacted]', 'header was [redacted]']);
    });
  });

  describe('listDebtors', () => {
    it('sends the query, clamps take to 50 and keeps nulls and unknown fields', async () => {
      // Prepare
      const row = debtor('98765432109876543210', {
        paymentDate: null,
        idPaymentType: null,
        chargeAttemptsCount: 3,
        lastAcquirerDeclineReason: 'Insufficient funds',
      });
      stub.reply({
        body: `{"results":[${JSON.stringify(row).replace('"98765432109876543210"', '98765432109876543210')}],"total":1,"summary":{"recoveredValue":0.0,"pendingValue":149.9,"newFigure":1}}`,
      });

      // Act
      const list = await client.listDebtors({
        idBranch: 3,
        debtStatus: 'open',
        memberStatus: 1,
        take: 500,
        skip: 100,
      });

      // Assess
      const query = Object.fromEntries(stub.requests[0]?.url.searchParams ?? []);
      expect(query).toEqual({
        idBranch: '3',
        debtStatus: '1',
        memberStatus: '1',
        take: '50',
        skip: '100',
      });
      expect(stub.requests[0]?.headers.authorization).toBe(BASIC);
      expect(list.results).toEqual([row]);
      expect(list.summary).toEqual({ recoveredValue: 0, pendingValue: 149.9, newFigure: 1 });
      expect(spy.calls).toEqual(['acquire']);
    });

    it('says what is wrong with an invalid body', async () => {
      // Prepare
      stub.reply({ body: { results: [{ receivableId: 'x1', daysLate: 1.5 }] } });

      // Act
      const error = await failure(client.listDebtors({}));

      // Assess
      expect(error.kind).toBe('unavailable');
      expect(error.status).toBe(200);
      expect(error.message).toContain('lista de devedores inválida');
      expect(error.message).toContain('results.0.receivableId');
      expect(error.message).toContain('total é obrigatório');
    });
  });

  describe('pageDebtors', () => {
    async function collect(pageSize?: number) {
      const pages = [];
      for await (const one of client.pageDebtors(
        { idBranch: 1 },
        pageSize === undefined ? {} : { pageSize },
      )) {
        pages.push(one);
      }
      return pages;
    }

    it('stops after a short page', async () => {
      // Prepare: total claims more than there is
      stub.reply(
        { body: page(50, 500, 1) },
        { body: page(50, 500, 51) },
        { body: page(7, 500, 101) },
      );

      // Act
      const pages = await collect();

      // Assess
      expect(pages.map((one) => one.results.length)).toEqual([50, 50, 7]);
      expect(stub.requests.map((r) => r.url.searchParams.get('skip'))).toEqual(['0', '50', '100']);
      expect(stub.requests.every((r) => r.url.searchParams.get('take') === '50')).toBe(true);
    });

    it('stops once skip reaches total, without asking for an empty page', async () => {
      // Prepare
      stub.reply({ body: page(20, 40, 1) }, { body: page(20, 40, 21) });

      // Act
      const pages = await collect(20);

      // Assess
      expect(pages.flatMap((one) => one.results.map((row) => row.receivableId))).toHaveLength(40);
      expect(stub.requests).toHaveLength(2);
    });

    it('yields the single empty page when total is 0', async () => {
      // Prepare
      stub.reply({ body: { results: [], total: 0, summary: null } });

      // Act
      const pages = await collect();

      // Assess
      expect(pages).toEqual([{ results: [], total: 0, summary: null }]);
      expect(stub.requests).toHaveLength(1);
    });

    it('clamps a page size above 50', async () => {
      // Prepare
      stub.reply({ body: page(3, 3) });

      // Act
      await collect(80);

      // Assess
      expect(stub.requests[0]?.url.searchParams.get('take')).toBe('50');
    });
  });
});

describe('upstream client helpers', () => {
  it.each([
    [400, 'rejected'],
    [401, 'unauthorized'],
    [403, 'unauthorized'],
    [404, 'unavailable'],
    [405, 'unavailable'],
    [408, 'unavailable'],
    [409, 'rejected'],
    [410, 'unavailable'],
    [413, 'rejected'],
    [415, 'rejected'],
    [422, 'rejected'],
    [425, 'unavailable'],
    [429, 'rate-limited'],
    [451, 'rejected'],
    [500, 'unavailable'],
    [502, 'unavailable'],
    [503, 'unavailable'],
    [504, 'unavailable'],
  ] as const)('classifies %i as %s', (status, kind) => {
    expect(classifyStatus(status)).toBe(kind);
  });

  it('parses Retry-After forms', () => {
    const now = Date.parse('2026-07-10T12:00:00Z');
    expect(parseRetryAfter('7', now)).toEqual({ untilMs: now + 7000, afterMs: 7000 });
    expect(parseRetryAfter('Fri, 10 Jul 2026 12:00:30 GMT', now)).toEqual({
      untilMs: now + 30_000,
      afterMs: 30_000,
    });
    expect(parseRetryAfter('Fri, 10 Jul 2026 11:00:00 GMT', now)?.afterMs).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('reads messages from the error bodies seen in the wild', () => {
    expect(errorMessages('{"mensagens":["a","b"]}')).toEqual(['a', 'b']);
    expect(errorMessages('{"errors":["x"]}')).toEqual(['x']);
    expect(errorMessages('{"errors":[{"message":"y"}]}')).toEqual(['y']);
    expect(errorMessages('"just a string"')).toEqual(['just a string']);
    expect(errorMessages('{"unknown":1}')).toEqual(['{"unknown":1}']);
    expect(errorMessages('  ')).toEqual([]);
  });

  it('refuses a base URL that carries credentials', () => {
    expect(() =>
      createUpstreamClient({ baseUrl: 'https://u:p@host.example', username: 'u', password: 'p' }),
    ).toThrow('must not carry credentials');
  });
});
