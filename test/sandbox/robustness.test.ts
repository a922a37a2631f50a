import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../sandbox/debtors-data.ts';
import { DEMO_AUTH, type Harness, NO_LIMITS, startSandbox, validProspect } from './helpers.ts';

let h: Harness;

beforeAll(async () => {
  h = await startSandbox();
  await h.setFaults(NO_LIMITS);
});

afterAll(async () => {
  await h.sandbox.close();
});

/**
 * Sends raw bytes and returns the status line of the answer ('' if the socket just closed). The
 * socket is closed once the status line has arrived (or by the server), never on a timer.
 */
function rawRequest(text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(h.sandbox.port, '127.0.0.1');
    let answer = '';
    const statusLine = () => answer.split('\r\n')[0] ?? '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer.includes('\r\n')) {
        resolve(statusLine());
        socket.destroy();
      }
    });
    socket.on('end', () => resolve(statusLine()));
    socket.on('close', () => resolve(statusLine()));
    socket.on('error', () => resolve(statusLine()));
    socket.write(text);
  });
}

function statusOf(statusLine: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0);
}

describe('sandbox robustness: malformed input never gives 5xx', () => {
  it('answers 404 JSON for unknown routes and 405 for wrong methods', async () => {
    const unknown = await fetch(h.url('/api/v2/whatever'));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ status: 404, error: 'Not Found' });
    expect((await fetch(h.url('/'))).status).toBe(404);
    expect((await fetch(h.url('/_sandbox/nothing'))).status).toBe(404);

    const wrongMethod = await h.api('/api/v1/prospects', { method: 'DELETE' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, POST');
    expect((await fetch(h.url('/_sandbox/stats'), { method: 'PUT' })).status).toBe(405);
  });

  it('matches API paths case-insensitively and with a trailing slash', async () => {
    expect((await h.api('/API/V1/Receivables/Debtors/?take=1')).status).toBe(200);
  });

  it('answers 413 to a body over 1 MB', async () => {
    const big = JSON.stringify(validProspect({ notes: 'x'.repeat(1_100_000) }));
    const response = await h.postProspect(big);
    expect(response.status).toBe(413);
    expect(((await response.json()) as { mensagens: string[] }).mensagens).toHaveLength(1);
    const control = await fetch(h.url('/_sandbox/meta-leads'), { method: 'POST', body: big });
    expect(control.status).toBe(413);
  });

  it('answers 400 to pathological JSON', async () => {
    for (const body of [
      '['.repeat(200_000),
      `{"name": ${'9'.repeat(5000)}}`,
      '{"idBranch": 1e400}',
      '{"name": "\u0000"}',
      '\uFEFF{"name": 1}',
      '{"__proto__": {"name": "x"}}',
      '{"constructor": {"prototype": {"polluted": true}}}',
      'NaN',
      '{"interests": [1, 2, 3e999]}',
    ]) {
      const response = await h.postProspect(body);
      expect(response.status, body.slice(0, 40)).toBe(400);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('survives malformed request lines, URLs and percent-encoding', async () => {
    for (const request of [
      'GET //%%% HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET http://[bad/ HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /graph/%E0%A4%A?access_token=t HTTP/1.1\r\nHost: x\r\n\r\n',
      `GET /api/v1/receivables/debtors?take=%ZZ HTTP/1.1\r\nHost: x\r\nAuthorization: ${DEMO_AUTH}\r\n\r\n`,
      'NOT A REQUEST\r\n\r\n',
      'POST /api/v1/prospects HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
      'POST /api/v1/prospects HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    ]) {
      const status = statusOf(await rawRequest(request));
      expect(status, request).toBeGreaterThanOrEqual(400);
      expect(status, request).toBeLessThan(500);
    }
    // Still serving afterwards.
    expect((await h.api('/api/v1/receivables/debtors?take=1')).status).toBe(200);
  });

  it('answers < 500 to random bodies on every POST route', async () => {
    // Prepare
    const random = mulberry32(2024);
    const pieces = [
      '{',
      '}',
      '[',
      ']',
      '"name"',
      ':',
      ',',
      '1',
      '-1.5e3',
      '99999999999999999999',
      'null',
      'true',
      '"\\u00e7"',
      '"cpf"',
      '"visit"',
      '"interests"',
      '"field_data"',
      '"id"',
      '"errorRate"',
      '"count"',
      ' ',
    ];
    const routes = [
      '/api/v1/prospects',
      '/_sandbox/faults',
      '/_sandbox/debtors',
      '/_sandbox/meta-leads',
    ];

    // Act
    const statuses: number[] = [];
    for (let i = 0; i < 120; i += 1) {
      const length = 1 + Math.floor(random() * 12);
      let body = '';
      for (let j = 0; j < length; j += 1) body += pieces[Math.floor(random() * pieces.length)];
      const route = routes[i % routes.length] ?? '/api/v1/prospects';
      const response = await fetch(h.url(route), {
        method: 'POST',
        headers: { authorization: DEMO_AUTH, 'content-type': 'application/json' },
        body,
      });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    await h.setFaults(NO_LIMITS);

    // Assess
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
  });

  it('answers < 500 to odd query strings on the debtors list', async () => {
    for (const query of [
      '?take=&skip=',
      '?take=1&take=2',
      '?idBranch=99999999999999999999999',
      '?skip=1e3',
      `?skip=${'9'.repeat(400)}`,
      '?debtStatus=%00',
      '?memberStatus=',
      '?take=+5',
    ]) {
      const response = await h.api(`/api/v1/receivables/debtors${query}`);
      expect(response.status, query).toBeLessThan(500);
    }
  });
});
