/**
 * Abuse suite, parsing: the lenient readings the gateway once allowed, end to end against the
 * local runtime (the same handlers and authorizer as on AWS). Each answer is SECURITY.md's
 * ("What the product refuses to read"):
 * - Basic credentials: trailing garbage after valid base64, the base64url alphabet, missing
 *   padding → 401 like wrong credentials; a user name sent in NFD matches one configured in NFC
 *   and the reverse;
 * - a state-changing request with Referer (foreign or not) but neither Origin nor
 *   Sec-Fetch-Site → 403 `cross_site_refused`; the CLI's requests (no browser header) and the
 *   console's (Origin, Sec-Fetch-Site and its token) go through;
 * - a JSON route's body sent as text/plain or without Content-Type → 415
 *   `unsupported_media_type`; `application/*+json` and `charset=utf-8` are JSON; a form post to
 *   an intake route is not affected;
 * - wrong tokens to a profile from one address → 403, then 429 `too_many_failures` with
 *   Retry-After, while the right token from the same address is still accepted.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../../cli/client.ts';
import {
  ABUSE_SECRETS,
  abuseConfig,
  basicHeader,
  CLIENTS,
  rawRequest,
} from '../helpers/abuse-kit.ts';
import { loadLeadFixture } from '../helpers/lead-fixtures.ts';
import type { TestRuntime } from '../helpers/local-runtime.ts';

const NFC_NAME = 'jos\u00e9';
const NFD_NAME = 'rene\u0301';
const ACCENTED_PASSWORD = 'Accented-Pw-0c9d8e7f-abuse';

let rt: TestRuntime;

beforeAll(async () => {
  vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'ERROR');
  const base = abuseConfig();
  const config = {
    ...base,
    clients: [
      ...base.clients,
      { username: NFC_NAME, password: ACCENTED_PASSWORD, roles: ['admin'] },
      { username: NFD_NAME, password: ACCENTED_PASSWORD, roles: ['admin'] },
    ],
  };
  const { startTestRuntime } = await import('../helpers/local-runtime.ts');
  rt = await startTestRuntime(config);
}, 40_000);

afterAll(async () => {
  await rt?.stop();
  vi.unstubAllEnvs();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  code: string | undefined;
  message: string | undefined;
}

/** One request with exactly these headers (no fetch defaults), its answer read. */
async function call(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  const result = await rawRequest(rt.url, {
    method,
    path,
    headers: Object.entries(headers).flat(),
    ...(body !== undefined && { body: Buffer.from(body, 'utf8') }),
  });
  if (!result.ok) throw new Error(result.error);
  let parsed: { error?: { code?: string; message?: string } } = {};
  try {
    parsed = JSON.parse(result.body.toString('utf8'));
  } catch {}
  return {
    status: result.status,
    headers: result.headers,
    code: parsed.error?.code,
    message: parsed.error?.message,
  };
}

const ops = () => basicHeader(CLIENTS.ops.username, CLIENTS.ops.password);
const opsToken = () =>
  Buffer.from(`${CLIENTS.ops.username}:${CLIENTS.ops.password}`).toString('base64');
const PT = { 'Accept-Language': 'pt-BR' };

describe('Basic credentials are read strictly', () => {
  it('accepts the canonical form (the control)', async () => {
    expect((await call('GET', '/admin/upstream', { Authorization: ops() })).status).toBe(200);
  });

  it.each([
    ['trailing garbage after valid base64', () => `Basic ${opsToken()}garbage`],
    ['a second padded block after it', () => `Basic ${opsToken()}AAA=`],
    ['the base64url alphabet', () => `Basic ${Buffer.from('ops:??>>~~').toString('base64url')}`],
    ['missing padding', () => `Basic ${opsToken().replace(/=+$/, '')}`],
    ['text after a space', () => `Basic ${opsToken()} x`],
  ])('answers 401 to %s', async (_, header) => {
    const token = header().slice('Basic '.length);
    // The cases are what they say: the missing-padding case had padding to lose.
    if (_ === 'missing padding') expect(opsToken()).toMatch(/=$/);
    if (_ === 'the base64url alphabet') expect(token).toMatch(/[-_]/);
    const answer = await call('GET', '/admin/upstream', { Authorization: header() });
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toMatch(/^Basic /);
  });

  it('matches a user name sent in NFD to one configured in NFC, and the reverse', async () => {
    const nfd = NFC_NAME.normalize('NFD');
    const nfc = NFD_NAME.normalize('NFC');
    expect(nfd).not.toBe(NFC_NAME);
    expect(nfc).not.toBe(NFD_NAME);
    for (const name of [nfd, NFC_NAME, nfc, NFD_NAME]) {
      const answer = await call('GET', '/admin/upstream', {
        Authorization: basicHeader(name, ACCENTED_PASSWORD),
      });
      expect(answer.status, name).toBe(200);
    }
  });
});

describe('state-changing routes need Origin or Sec-Fetch-Site from a browser', () => {
  const retry = '/admin/leads/ld_01M8T550Z8KBW27AYMBP3S/retry';

  it.each([
    ['only a foreign Referer', { Referer: 'https://evil.example/page' }],
    ['only a same-origin Referer', { Referer: 'http://127.0.0.1/admin' }],
    ['a Cookie and no Origin', { Cookie: 'x=1' }],
  ])('answers 403 cross_site_refused with %s', async (_, headers) => {
    const answer = await call('POST', retry, { Authorization: ops(), ...PT, ...headers });
    expect(answer.status).toBe(403);
    expect(answer.code).toBe('cross_site_refused');
    expect(answer.message).toContain('Origin ou Sec-Fetch-Site');
  });

  it('lets a program through without any browser header, as the CLI sends', async () => {
    // No browser header: the guard passes and the route answers (no such lead).
    const bare = await call('POST', retry, { Authorization: ops() });
    expect(bare.status).toBe(404);
    // The CLI's own client: a replay (202) and a correction (JSON, no such lead: 404).
    const cli = new ApiClient(rt.url, {
      user: CLIENTS.ops.username,
      password: CLIENTS.ops.password,
    });
    const replay = await cli.request<{ requeued: number }>('POST', '/admin/replay');
    expect(replay.status).toBe(202);
    const correction = await cli
      .request('PATCH', '/admin/leads/ld_01M8T550Z8KBW27AYMBP3S', { prospect: { name: 'A' } })
      .then(
        () => 'accepted',
        (error: Error) => error.message,
      );
    // Past the guard (not 403 cross-site nor 415): the route's own 404 for an unknown lead.
    expect(correction).not.toMatch(/Origin|JSON/);
    expect(correction).toMatch(/404|não há|não existe|desconhecid/i);
  });

  it('lets the console through: Origin, Sec-Fetch-Site and its token', async () => {
    const host = new URL(rt.url).host;
    const page = await fetch(new URL('/admin', rt.url), { headers: { authorization: ops() } });
    const token = /name="csrf-token" content="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    expect(token).not.toBe('');
    const answer = await call('POST', retry, {
      Authorization: ops(),
      Origin: `http://${host}`,
      'Sec-Fetch-Site': 'same-origin',
      Referer: `http://${host}/admin`,
      'X-CSRF-Token': token,
    });
    expect(answer.status).toBe(404);
  });
});

describe('routes that read JSON need a JSON body', () => {
  const lead = '/admin/leads/ld_01M8T550Z8KBW27AYMBP3S';
  const change = JSON.stringify({ prospect: { name: 'Ana' } });

  it.each([
    ['text/plain', { 'Content-Type': 'text/plain' }],
    ['text/plain; charset=utf-8', { 'Content-Type': 'text/plain; charset=utf-8' }],
    ['no Content-Type', {}],
  ])('answers 415 unsupported_media_type to a correction sent as %s', async (_, headers) => {
    const answer = await call('PATCH', lead, { Authorization: ops(), ...PT, ...headers }, change);
    expect(answer.status).toBe(415);
    expect(answer.code).toBe('unsupported_media_type');
    expect(answer.message).toContain('esta rota recebe JSON');
  });

  it('takes application/json with charset=utf-8 (the route answers: no such lead)', async () => {
    const headers = { Authorization: ops(), 'Content-Type': 'application/json; charset=utf-8' };
    expect((await call('PATCH', lead, headers, change)).status).toBe(404);
  });

  it('answers 415 to a Prospect sent as text/plain, and stores nothing', async () => {
    const fixture = loadLeadFixture('prospect', 'valid');
    const before = await rt.countLeads();
    const answer = await call(
      'POST',
      '/api/v1/prospects',
      {
        Authorization: basicHeader(CLIENTS.writer.username, CLIENTS.writer.password),
        'Content-Type': 'text/plain',
        ...PT,
      },
      fixture.body,
    );
    expect(answer.status).toBe(415);
    expect(answer.code).toBe('unsupported_media_type');
    expect(await rt.countLeads()).toBe(before);
  });

  it('takes a Prospect sent as application/json-patch+json (the upstream’s own type)', async () => {
    const fixture = loadLeadFixture('prospect', 'valid');
    const before = await rt.countLeads();
    const answer = await call(
      'POST',
      '/api/v1/prospects',
      {
        Authorization: basicHeader(CLIENTS.writer.username, CLIENTS.writer.password),
        'Content-Type': 'application/json-patch+json',
      },
      fixture.body,
    );
    expect(answer.status).toBe(202);
    expect(await rt.countLeads()).toBe(before + 1);
  });

  it('does not touch a form post to an intake route', async () => {
    const answer = await call(
      'POST',
      '/leads/site',
      {
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-Lead-Token': ABUSE_SECRETS.siteToken,
      },
      'nome=Ana+Souza&email=ana.form%40example.com',
    );
    expect(answer.status).toBe(202);
  });
});

describe('wrong intake tokens are throttled per profile and address', () => {
  const post = (profile: string, token: string, email: string) =>
    call(
      'POST',
      `/leads/${profile}`,
      { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Lead-Token': token, ...PT },
      `nome=Ana+Souza&email=${encodeURIComponent(email)}`,
    );

  it('answers 403 to 20 wrong tokens, then 429 with Retry-After, and still takes the right one', async () => {
    const first: number[] = [];
    for (let i = 0; i < 20; i += 1)
      first.push((await post('site', `guess-${i}`, 'x@example.com')).status);
    expect(first).toEqual(Array(20).fill(403));

    const locked = await post('site', 'guess-20', 'x@example.com');
    expect(locked.status).toBe(429);
    expect(locked.code).toBe('too_many_failures');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(locked.message).toContain('tente de novo em');

    // Guesses go on; the right token from the same address passes between them, every time.
    const before = await rt.countLeads('site');
    const statuses: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      statuses.push((await post('site', `guess-more-${i}`, 'x@example.com')).status);
      const right = await post('site', ABUSE_SECRETS.siteToken, `ana.guess${i}@example.com`);
      expect(right.status, `right token #${i}`).toBe(202);
    }
    expect(statuses).toContain(429);
    expect(statuses.every((status) => status === 403 || status === 429)).toBe(true);
    expect(await rt.countLeads('site')).toBe(before + 10);
    // Another profile from the same address has its own counter.
    expect((await post('rd', 'wrong', 'x@example.com')).status).toBe(403);
  });
});
