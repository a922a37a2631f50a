import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { routesFromTable } from '../../local/gateway.ts';
import { formatRequestTime, isBinaryMediaType, toProxyEvent } from '../../local/gateway-event.ts';
import type { GatewayRoute, ProxyHandler } from '../../local/gateway-integration.ts';
import { DEPLOYED_UNKNOWN_ROUTE } from '../../local/gateway-responses.ts';
import { createRouteTable } from '../../local/gateway-routing.ts';
import {
  bytesHandler,
  type Echo,
  echoHandler,
  fixedHandler,
  send,
  sleep,
  startTestGateway,
  type TestGateway,
} from '../helpers/gateway-http.ts';

const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

function echoRoutes(): GatewayRoute[] {
  return [
    { method: 'GET', path: '/echo', handler: echoHandler },
    { method: 'POST', path: '/echo', handler: echoHandler, functionName: 'echo', memoryMb: 256 },
    { method: 'GET', path: '/items/{id}/parts/{part}', handler: echoHandler },
    { method: 'GET', path: '/items/special', handler: echoHandler },
    { method: 'GET', path: '/items/{id}', handler: echoHandler },
    { method: 'GET', path: '/files/{proxy+}', handler: echoHandler },
    { method: 'POST', path: '/bytes', handler: bytesHandler },
  ];
}

async function echo(gateway: TestGateway, path: string, init: Parameters<typeof send>[1] = {}) {
  const response = await send(`${gateway.url}${path}`, init);
  expect(response.status, response.text()).toBe(200);
  return response.json() as Echo;
}

describe('local gateway: request to proxy event', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ routes: echoRoutes(), stage: 'test' });
  });
  afterAll(() => gateway.close());

  it('builds the REST API event fields and the request context', async () => {
    // Act
    const { event } = await echo(gateway, '/echo', { headers: { 'User-Agent': 'vitest/1' } });

    // Assess
    expect(event).toMatchObject({
      resource: '/echo',
      path: '/echo',
      httpMethod: 'GET',
      pathParameters: null,
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
    });
    const context = event.requestContext;
    expect(context).toMatchObject({
      accountId: '123456789012',
      resourcePath: '/echo',
      httpMethod: 'GET',
      path: '/test/echo',
      stage: 'test',
      protocol: 'HTTP/1.1',
      identity: { sourceIp: '127.0.0.1', userAgent: 'vitest/1', apiKey: null, user: null },
    });
    expect(context.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(context.resourceId).toMatch(/^[0-9a-z]{6}$/);
    expect(context.apiId).toBeTruthy();
    expect(context.domainName).toBe(new URL(gateway.url).host);
    expect(context.requestTime).toMatch(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
    expect(Math.abs(context.requestTimeEpoch - Date.now())).toBeLessThan(10_000);
  });

  it('decodes query strings, keeps repeated keys and gives null when there are none', async () => {
    // Act
    const withQuery = await echo(gateway, '/echo?x=1&x=2&y=hello%20world&z=a+b&e=&amp=%26%3D');
    const without = await echo(gateway, '/echo');

    // Assess
    expect(withQuery.event.queryStringParameters).toEqual({
      x: '2',
      y: 'hello world',
      z: 'a b',
      e: '',
      amp: '&=',
    });
    expect(withQuery.event.multiValueQueryStringParameters).toEqual({
      x: ['1', '2'],
      y: ['hello world'],
      z: ['a b'],
      e: [''],
      amp: ['&='],
    });
    expect(without.event.queryStringParameters).toBeNull();
    expect(without.event.multiValueQueryStringParameters).toBeNull();
  });

  it('gives the last value in headers and every value in multiValueHeaders, in sender casing', async () => {
    // Act
    const { event } = await echo(gateway, '/echo', {
      headers: {
        'X-Repeated': ['first', 'second'],
        'x-lower-case': 'v',
        'X-Forwarded-For': '10.0.0.1',
      },
    });

    // Assess
    expect(event.headers['X-Repeated']).toBe('second');
    expect(event.multiValueHeaders['X-Repeated']).toEqual(['first', 'second']);
    expect(event.headers['x-lower-case']).toBe('v');
    expect(event.headers['X-Forwarded-For']).toBe('10.0.0.1, 127.0.0.1');
    expect(event.headers['X-Forwarded-Proto']).toBe('http');
    expect(event.headers['X-Amzn-Trace-Id']).toMatch(/^Root=1-[0-9a-f]{8}-[0-9a-f]{24}$/);
  });

  it('decodes path parameters and keeps the path as sent', async () => {
    // Act
    const { event } = await echo(gateway, '/items/a%20b+c/parts/x%2Fy');

    // Assess
    expect(event.resource).toBe('/items/{id}/parts/{part}');
    expect(event.pathParameters).toEqual({ id: 'a b+c', part: 'x/y' });
    expect(event.path).toBe('/items/a%20b+c/parts/x%2Fy');
    expect(event.requestContext.resourcePath).toBe('/items/{id}/parts/{part}');
    expect(event.requestContext.path).toBe('/test/items/a%20b+c/parts/x%2Fy');
  });

  it('prefers a literal segment over a parameter, and takes the rest of the path for {proxy+}', async () => {
    // Act
    const special = await echo(gateway, '/items/special');
    const other = await echo(gateway, '/items/42');
    const files = await echo(gateway, '/files/a/b%20c/d.txt');

    // Assess
    expect(special.event.resource).toBe('/items/special');
    expect(special.event.pathParameters).toBeNull();
    expect(other.event.pathParameters).toEqual({ id: '42' });
    expect(files.event.resource).toBe('/files/{proxy+}');
    expect(files.event.pathParameters).toEqual({ proxy: 'a/b c/d.txt' });
  });

  it('answers the unknown-route gateway response it is given, as a stack that overrides it does', async () => {
    // Prepare
    const deployed = await startTestGateway({
      routes: echoRoutes(),
      unknownRoute: DEPLOYED_UNKNOWN_ROUTE,
    });

    // Act
    const response = await send(`${deployed.url}/nowhere`);
    await deployed.close();

    // Assess
    expect(response.status).toBe(404);
    expect(response.json()).toEqual({
      error: { code: 'NOT_FOUND', message: 'rota inexistente', details: [] },
    });
    expect(response.headers['x-amzn-errortype']).toBe('MissingAuthenticationTokenException');
  });

  it("answers API Gateway's default 403 Missing Authentication Token for an unknown path or method", async () => {
    for (const [method, path] of [
      ['GET', '/nowhere'],
      ['DELETE', '/echo'],
      ['GET', '/files'],
      ['GET', '/echo//'],
    ] as const) {
      // Act
      const response = await send(`${gateway.url}${path}`, { method });

      // Assess
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.json()).toEqual({ message: 'Missing Authentication Token' });
      expect(response.headers['x-amzn-errortype']).toBe('MissingAuthenticationTokenException');
    }
  });

  it('routes a trailing slash to the resource and keeps it in the event path, as API Gateway does', async () => {
    const { event } = await echo(gateway, '/echo/', { method: 'POST', body: '{}' });
    expect(event.resource).toBe('/echo');
    expect(event.path).toBe('/echo/');
  });

  it('passes an empty body as null', async () => {
    const { event } = await echo(gateway, '/echo', { method: 'POST', body: '' });
    expect(event.body).toBeNull();
    expect(event.isBase64Encoded).toBe(false);
  });

  it('gives the handler a Lambda context', async () => {
    // Act
    const { context } = await echo(gateway, '/echo', { method: 'POST', body: '{}' });

    // Assess
    expect(context.functionName).toBe('echo');
    expect(context.memoryLimitInMB).toBe('256');
    expect(context.logGroupName).toBe('/aws/lambda/echo');
    expect(context.invokedFunctionArn).toMatch(
      /^arn:aws:lambda:[a-z0-9-]+:123456789012:function:echo$/,
    );
    expect(context.awsRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(context.remainingMs).toBeGreaterThan(2_000);
    expect(context.remainingMs).toBeLessThanOrEqual(3_000);
  });
});

describe('local gateway: request bodies', () => {
  const form = 'name=Ana+Souza&email=ana%40example.com&qual_seu_cpf=123';
  const formHeaders = { 'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8' };

  async function withGateway<T>(
    binaryMediaTypes: string[],
    act: (gateway: TestGateway) => Promise<T>,
  ): Promise<T> {
    const gateway = await startTestGateway({ routes: echoRoutes(), binaryMediaTypes });
    try {
      return await act(gateway);
    } finally {
      await gateway.close();
    }
  }

  it('passes a urlencoded form as text when no binary media type matches', async () => {
    const { event } = await withGateway([], (gateway) =>
      echo(gateway, '/echo', { method: 'POST', headers: formHeaders, body: form }),
    );
    expect(event.isBase64Encoded).toBe(false);
    expect(event.body).toBe(form);
  });

  it('passes a urlencoded form as base64 when its media type is binary', async () => {
    for (const types of [['application/x-www-form-urlencoded'], ['application/*'], ['*/*']]) {
      const { event } = await withGateway(types, (gateway) =>
        echo(gateway, '/echo', { method: 'POST', headers: formHeaders, body: form }),
      );
      expect(event.isBase64Encoded, types.join()).toBe(true);
      expect(Buffer.from(event.body ?? '', 'base64').toString('utf8')).toBe(form);
    }
  });

  it('round-trips a multipart body and all 256 byte values exactly through base64', async () => {
    // Prepare
    const boundary = 'XyZ';
    const multipart = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.bin"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      ),
      ALL_BYTES,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const cases = [
      { body: multipart, contentType: `multipart/form-data; boundary=${boundary}` },
      { body: ALL_BYTES, contentType: 'application/octet-stream' },
    ];

    await withGateway(['multipart/*', 'application/octet-stream'], async (gateway) => {
      for (const { body, contentType } of cases) {
        // Act
        const { event } = await echo(gateway, '/echo', {
          method: 'POST',
          headers: { 'Content-Type': contentType },
          body,
        });
        const echoed = await send(`${gateway.url}/bytes`, {
          method: 'POST',
          headers: { 'Content-Type': contentType },
          body,
        });

        // Assess
        expect(event.isBase64Encoded).toBe(true);
        expect(Buffer.from(event.body ?? '', 'base64').equals(body)).toBe(true);
        expect(echoed.status).toBe(200);
        expect(echoed.body.equals(body)).toBe(true);
      }
    });
  });

  it('answers 413 Request Too Long over the body limit', async () => {
    const gateway = await startTestGateway({ routes: echoRoutes(), maxBodyBytes: 16 });
    try {
      const atLimit = await send(`${gateway.url}/echo`, { method: 'POST', body: 'x'.repeat(16) });
      const over = await send(`${gateway.url}/echo`, { method: 'POST', body: 'x'.repeat(17) });
      expect(atLimit.status).toBe(200);
      expect(over.status).toBe(413);
      expect(over.json()).toEqual({ message: 'Request Too Long' });
    } finally {
      await gateway.close();
    }
  });
});

describe('local gateway: handler results', () => {
  let gateway: TestGateway;
  const loads = vi.fn(async () => echoHandler);

  beforeAll(async () => {
    gateway = await startTestGateway({
      routes: [
        { method: 'GET', path: '/lazy', load: loads },
        {
          method: 'GET',
          path: '/broken-module',
          load: async () => {
            throw new Error('SyntaxError in the module');
          },
        },
        {
          method: 'GET',
          path: '/throws',
          handler: async () => {
            throw new Error('boom');
          },
        },
        {
          method: 'GET',
          path: '/invalid/{kind}',
          handler: async (event) => {
            const results: Record<string, unknown> = {
              string: 'ok',
              undefined: undefined,
              'object-body': { statusCode: 200, body: { a: 1 } },
              'no-status': { body: 'x' },
              'bad-status': { statusCode: 42, body: 'x' },
            };
            return results[event.pathParameters?.kind ?? ''] as never;
          },
        },
        {
          method: 'GET',
          path: '/slow',
          timeoutSeconds: 0.05,
          handler: async () => {
            await sleep(300);
            return { statusCode: 200, body: 'too late' };
          },
        },
        {
          method: 'GET',
          path: '/callback',
          handler: ((_event, _context, callback) => {
            setTimeout(() => callback(null, { statusCode: 201, body: 'called back' }), 5);
          }) as ProxyHandler,
        },
        {
          method: 'GET',
          path: '/succeed',
          handler: ((_event, context) => {
            context.succeed({ statusCode: 200, body: 'legacy' });
          }) as ProxyHandler,
        },
        {
          method: 'GET',
          path: '/headers',
          handler: fixedHandler({
            statusCode: 401,
            headers: { 'X-One': 'single', 'X-Number': 7, 'WWW-Authenticate': 'Basic realm="x"' },
            multiValueHeaders: { 'Set-Cookie': ['a=1', 'b=2'], 'x-one': ['multi'] },
            body: '{"error":"nope"}',
          }),
        },
        {
          method: 'GET',
          path: '/text',
          handler: fixedHandler({
            statusCode: 200,
            headers: { 'Content-Type': 'text/plain; charset=utf-8' },
            body: 'olá',
          }),
        },
        {
          method: 'GET',
          path: '/png',
          handler: fixedHandler({
            statusCode: 200,
            headers: { 'Content-Type': 'image/png' },
            body: ALL_BYTES.toString('base64'),
            isBase64Encoded: true,
          }),
        },
      ],
    });
  });
  afterAll(() => gateway.close());

  it('loads a handler on first use, once', async () => {
    expect(loads).not.toHaveBeenCalled();
    expect((await send(`${gateway.url}/lazy`)).status).toBe(200);
    expect((await send(`${gateway.url}/lazy`)).status).toBe(200);
    expect(loads).toHaveBeenCalledTimes(1);
  });

  it('supports callback-style handlers', async () => {
    const response = await send(`${gateway.url}/callback`);
    expect(response.status).toBe(201);
    expect(response.text()).toBe('called back');
  });

  it('supports the deprecated context.succeed', async () => {
    const response = await send(`${gateway.url}/succeed`);
    expect(response.status).toBe(200);
    expect(response.text()).toBe('legacy');
  });

  it('answers 502 Internal server error when the handler throws or cannot load', async () => {
    for (const path of ['/throws', '/broken-module']) {
      const response = await send(`${gateway.url}${path}`);
      expect(response.status, path).toBe(502);
      expect(response.json()).toEqual({ message: 'Internal server error' });
    }
  });

  it('answers 502 for a malformed proxy result', async () => {
    for (const kind of ['string', 'undefined', 'object-body', 'no-status', 'bad-status']) {
      const response = await send(`${gateway.url}/invalid/${kind}`);
      expect(response.status, kind).toBe(502);
      expect(response.json()).toEqual({ message: 'Internal server error' });
    }
  });

  it('answers 504 Endpoint request timed out past the function timeout', async () => {
    // The handler would answer 200 after 300 ms; its timeout is 50 ms.
    const response = await send(`${gateway.url}/slow`);
    expect(response.status).toBe(504);
    expect(response.json()).toEqual({ message: 'Endpoint request timed out' });
  });

  it('writes status, headers and multiValueHeaders back (multiValueHeaders win)', async () => {
    // Act
    const response = await send(`${gateway.url}/headers`);

    // Assess
    expect(response.status).toBe(401);
    expect(response.headers['x-one']).toBe('multi');
    expect(response.headers['x-number']).toBe('7');
    expect(response.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.headers['x-amzn-requestid']).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.text()).toBe('{"error":"nope"}');
  });

  it('remaps WWW-Authenticate as API Gateway does', async () => {
    const response = await send(`${gateway.url}/headers`);
    expect(response.headers['www-authenticate']).toBeUndefined();
    expect(response.headers['x-amzn-remapped-www-authenticate']).toBe('Basic realm="x"');
  });

  it('writes text bodies as UTF-8 and decodes base64 bodies to bytes', async () => {
    const text = await send(`${gateway.url}/text`);
    expect(text.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(text.text()).toBe('olá');
    expect(text.headers['content-length']).toBe(String(Buffer.byteLength('olá')));

    const png = await send(`${gateway.url}/png`);
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.body.equals(ALL_BYTES)).toBe(true);
  });
});

describe('local gateway: close', () => {
  it('lets a request in flight finish before it closes', async () => {
    // Prepare: a handler that is running when close() is called
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const gateway = await startTestGateway({
      routes: [
        {
          method: 'POST',
          path: '/slow',
          handler: async () => {
            started();
            await sleep(150);
            return { statusCode: 202, body: '{"status":"queued"}' };
          },
        },
      ],
    });
    const inFlight = send(`${gateway.url}/slow`, { method: 'POST', body: '{}' });
    await running;

    // Act
    const closed = gateway.close(10_000);
    const response = await inFlight;
    await closed;

    // Assess
    expect(response.status).toBe(202);
    await expect(send(`${gateway.url}/slow`, { method: 'POST' })).rejects.toThrow();
  });
});

describe('local gateway: /health', () => {
  it('answers 200 ok when healthy and 503 starting before', async () => {
    let ready = false;
    const gateway = await startTestGateway({ routes: [], health: async () => ready });
    try {
      const before = await send(`${gateway.url}/health`);
      ready = true;
      const after = await send(`${gateway.url}/health`);

      expect(before.status).toBe(503);
      expect(before.json()).toEqual({ status: 'starting' });
      expect(after.status).toBe(200);
      expect(after.json()).toEqual({ status: 'ok' });
      expect(after.headers['content-type']).toBe('application/json');
    } finally {
      await gateway.close();
    }
  });
});

describe('toProxyEvent', () => {
  const request = {
    method: 'POST',
    url: '/leads/site?token=t',
    rawHeaders: ['Host', 'localhost:3000', 'Content-Type', 'application/json'],
    body: Buffer.from('{"a":1}'),
    remoteAddress: '::ffff:192.168.0.9',
  };
  const route = { resource: '/leads/{profile}', pathParameters: { profile: 'site' } };

  it('uses the given request id and time', () => {
    const now = new Date(Date.UTC(2026, 10, 21, 18, 52, 0));
    const event: APIGatewayProxyEvent = toProxyEvent(request, route, {
      binaryMediaTypes: [],
      stage: 'prod',
      requestId: 'r-1',
      now,
    });
    expect(event.requestContext.requestId).toBe('r-1');
    expect(event.requestContext.requestTime).toBe('21/Nov/2026:18:52:00 +0000');
    expect(event.requestContext.requestTimeEpoch).toBe(now.getTime());
    expect(event.requestContext.path).toBe('/prod/leads/site');
    expect(event.requestContext.identity.sourceIp).toBe('192.168.0.9');
    expect(event.headers['X-Forwarded-Port']).toBe('3000');
    expect(event.body).toBe('{"a":1}');
  });

  it('treats a body without Content-Type as application/json', () => {
    const bare = { ...request, rawHeaders: [] };
    expect(
      toProxyEvent(bare, route, { binaryMediaTypes: ['application/json'], stage: 's' })
        .isBase64Encoded,
    ).toBe(true);
    expect(
      toProxyEvent(bare, route, { binaryMediaTypes: ['text/*'], stage: 's' }).isBase64Encoded,
    ).toBe(false);
  });
});

describe('formatRequestTime', () => {
  it('formats as API Gateway does, in UTC', () => {
    expect(formatRequestTime(new Date(Date.UTC(2026, 0, 5, 3, 4, 5)))).toBe(
      '05/Jan/2026:03:04:05 +0000',
    );
  });
});

describe('isBinaryMediaType', () => {
  it.each([
    ['application/octet-stream', ['application/octet-stream'], true],
    ['Application/Octet-Stream; x=1', ['application/octet-stream'], true],
    ['image/png', ['image/*'], true],
    ['text/plain', ['image/*'], false],
    ['text/plain; charset=utf-8', ['*/*'], true],
    [undefined, ['*/*'], true],
    ['application/json', [], false],
  ] as const)('%s against %j is %s', (contentType, types, expected) => {
    expect(isBinaryMediaType(contentType, types)).toBe(expected);
  });
});

describe('createRouteTable', () => {
  const table = createRouteTable([
    { method: 'GET', path: '/' },
    { method: 'ANY', path: '/any' },
    { method: 'GET', path: '/{proxy+}' },
    { method: 'GET', path: '/a/{x}' },
    { method: 'POST', path: '/a/b' },
  ]);

  it('matches the root, ANY, and the most specific resource first', () => {
    expect(table.match('GET', '/')?.matched.resource).toBe('/');
    expect(table.match('PATCH', '/any')?.matched.resource).toBe('/any');
    expect(table.match('GET', '/a/c')?.matched).toEqual({
      resource: '/a/{x}',
      pathParameters: { x: 'c' },
    });
    expect(table.match('GET', '/z/y')?.matched.resource).toBe('/{proxy+}');
  });

  it('does not fall back to a less specific resource when the method is missing', () => {
    expect(table.match('GET', '/a/b')).toBeUndefined();
  });

  it('routes one trailing slash to the resource without it, as API Gateway (REST) does', () => {
    expect(table.match('POST', '/a/b/')?.matched.resource).toBe('/a/b');
    expect(table.match('GET', '/a/c/')?.matched.pathParameters).toEqual({ x: 'c' });
    expect(table.match('POST', '/a/b//')).toBeUndefined();
  });
});

describe('routesFromTable', () => {
  it('maps routes with a function to lazy loaders and leaves the rest to the gateway', async () => {
    // Prepare
    const routes = routesFromTable(
      process.cwd(),
      [
        { method: 'GET', path: '/health' },
        { method: 'POST', path: '/x', fn: 'fake' as never },
      ],
      {
        fake: {
          entry: 'test/helpers/gateway-http.ts',
          timeoutSeconds: 7,
          memoryMb: 512,
          description: 'a module without a handler export',
        },
      },
    );

    // Assess
    expect(routes).toHaveLength(1);
    expect(routes[0]).toMatchObject({
      method: 'POST',
      path: '/x',
      functionName: 'fake',
      timeoutSeconds: 7,
      memoryMb: 512,
    });
    await expect(routes[0]?.load?.()).rejects.toThrow(/does not export a handler/);
  });
});
