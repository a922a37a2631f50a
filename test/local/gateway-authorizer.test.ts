/**
 * The local gateway's REQUEST Lambda authorizer, as API Gateway runs it: no identity source →
 * 401 without a call; `Unauthorized` → 401; a policy that does not allow the method → 403; any
 * other failure → 500; allowed → the handler runs with requestContext.authorizer. The 401 is the
 * gateway's own answer, so its WWW-Authenticate reaches the client under its real name (a
 * function's own one is still remapped). Then the deployed route table: the Basic-auth routes go
 * through the real authorizer handler, and a client without the role gets the function's 403.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseConfig, setLocalConfig } from '../../functions/config/config-local.ts';
import { UNAUTHORIZED_TEMPLATES } from '../../functions/kernel/refusal-page.ts';
import { BASIC_AUTH, ROUTES } from '../../functions/kernel/routes.ts';
import { setLocalReportDir } from '../../functions/report/store/report-store-file.ts';
import { REPO_ROOT } from '../../infra/config.ts';
import { routesFromTable } from '../../local/gateway.ts';
import {
  type AuthorizerHandler,
  type GatewayAuthorizer,
  policyAllows,
} from '../../local/gateway-authorizer.ts';
import { selectTemplate } from '../../local/gateway-responses.ts';
import {
  type Echo,
  echoHandler,
  fixedHandler,
  send,
  startTestGateway,
  type TestGateway,
} from '../helpers/gateway-http.ts';

const CHALLENGE = 'Basic realm="leads", charset="UTF-8"';
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Allows `good` (any method of the stage), refuses anything else, fails on `boom`. */
const authorize = vi.fn<AuthorizerHandler>(async (event) => {
  const authorization = event.headers?.Authorization ?? event.headers?.authorization;
  if (authorization === 'boom') throw new Error('the clients secret is unreadable');
  if (authorization === 'callback-refusal') throw 'Unauthorized';
  if (authorization === 'deny') {
    return {
      principalId: 'someone',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: event.methodArn }],
      },
    };
  }
  if (authorization !== 'good') throw new Error('Unauthorized');
  const [api, stage] = event.methodArn.split('/');
  return {
    principalId: 'ops',
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${api}/${stage}/*` }],
    },
    context: { username: 'ops', level: 3 },
  };
});
const loads = vi.fn(async () => authorize);

const AUTHORIZER: GatewayAuthorizer = {
  load: loads,
  identityHeader: 'Authorization',
  unauthorized: {
    statusCode: 401,
    headers: { 'WWW-Authenticate': CHALLENGE },
    body: { error: { code: 'unauthorized', message: 'credentials required', details: [] } },
  },
  functionName: 'authorizer',
};

describe('local gateway: a REQUEST authorizer in front of a route', () => {
  let gateway: TestGateway;
  const handler = vi.fn(echoHandler);

  beforeAll(async () => {
    gateway = await startTestGateway({
      stage: 'test',
      routes: [
        { method: 'GET', path: '/private/{id}', handler, authorizer: AUTHORIZER },
        { method: 'POST', path: '/private', handler, authorizer: AUTHORIZER },
        {
          method: 'GET',
          path: '/challenging',
          authorizer: AUTHORIZER,
          handler: fixedHandler({
            statusCode: 401,
            headers: { 'WWW-Authenticate': 'Basic realm="fn"' },
            body: '{}',
          }),
        },
        { method: 'GET', path: '/open', handler },
      ],
    });
  });
  afterAll(() => gateway.close());

  it('answers 401 with a real WWW-Authenticate, without calling the authorizer, when the header is missing', async () => {
    // Prepare
    authorize.mockClear();
    handler.mockClear();

    // Act
    const response = await send(`${gateway.url}/private/7`);

    // Assess
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe(CHALLENGE);
    expect(response.headers['x-amzn-remapped-www-authenticate']).toBeUndefined();
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.headers['x-amzn-errortype']).toBe('UnauthorizedException');
    expect(response.json()).toEqual({
      error: { code: 'unauthorized', message: 'credentials required', details: [] },
    });
    expect(authorize).not.toHaveBeenCalled();
    expect(handler).not.toHaveBeenCalled();
  });

  it("answers the same 401 when the authorizer throws 'Unauthorized' (or calls back with it)", async () => {
    for (const authorization of ['wrong', 'callback-refusal']) {
      handler.mockClear();
      const response = await send(`${gateway.url}/private/7`, { headers: { authorization } });
      expect(response.status, authorization).toBe(401);
      expect(response.headers['www-authenticate']).toBe(CHALLENGE);
      expect(handler).not.toHaveBeenCalled();
    }
  });

  it('runs the handler once allowed, with principalId and the context in requestContext.authorizer', async () => {
    // Act
    const response = await send(`${gateway.url}/private/7?x=1`, {
      headers: { Authorization: 'good' },
    });

    // Assess
    expect(response.status).toBe(200);
    const { event } = response.json() as Echo;
    expect(event.requestContext.authorizer).toEqual({
      principalId: 'ops',
      username: 'ops',
      level: '3',
    });
    expect(event.pathParameters).toEqual({ id: '7' });
  });

  it('hands the authorizer the REST API REQUEST event, method ARN included', async () => {
    // Prepare
    authorize.mockClear();

    // Act
    await send(`${gateway.url}/private/7?x=1`, { headers: { Authorization: 'good' } });

    // Assess
    const event = authorize.mock.calls[0]?.[0] as APIGatewayRequestAuthorizerEvent;
    expect(event).toMatchObject({
      type: 'REQUEST',
      resource: '/private/{id}',
      path: '/private/7',
      httpMethod: 'GET',
      pathParameters: { id: '7' },
      queryStringParameters: { x: '1' },
      headers: { Authorization: 'good' },
      requestContext: { stage: 'test', resourcePath: '/private/{id}' },
    });
    expect(event.methodArn).toMatch(
      /^arn:aws:execute-api:[a-z0-9-]+:123456789012:local\/test\/GET\/private\/7$/,
    );
    expect(event).not.toHaveProperty('body');
  });

  it('answers 403 when the policy does not allow the method, and 500 when the authorizer fails', async () => {
    const denied = await send(`${gateway.url}/private/7`, { headers: { Authorization: 'deny' } });
    expect(denied.status).toBe(403);
    expect(denied.headers['x-amzn-errortype']).toBe('AccessDeniedException');

    const failed = await send(`${gateway.url}/private/7`, { headers: { Authorization: 'boom' } });
    expect(failed.status).toBe(500);
    expect(failed.headers['x-amzn-errortype']).toBe('AuthorizerConfigurationException');
  });

  it('loads an authorizer shared by several routes once', async () => {
    await send(`${gateway.url}/private`, { method: 'POST', headers: { Authorization: 'good' } });
    await send(`${gateway.url}/private/1`, { headers: { Authorization: 'good' } });
    expect(loads).toHaveBeenCalledTimes(1);
  });

  it("still remaps a function's own WWW-Authenticate, and leaves routes without one alone", async () => {
    const own = await send(`${gateway.url}/challenging`, { headers: { Authorization: 'good' } });
    expect(own.status).toBe(401);
    expect(own.headers['www-authenticate']).toBeUndefined();
    expect(own.headers['x-amzn-remapped-www-authenticate']).toBe('Basic realm="fn"');

    expect((await send(`${gateway.url}/open`)).status).toBe(200);
  });
});

describe('selectTemplate: a gateway response’s body for the request’s Accept', () => {
  const templates = { 'application/json': 'json', 'text/html': 'html' };
  const bodyFor = (t: Record<string, string>, accept: string | undefined) =>
    selectTemplate(t, accept)?.body;

  it('takes the first media type of Accept alone, as API Gateway does', () => {
    expect(bodyFor(templates, 'text/html,application/xhtml+xml,*/*;q=0.8')).toBe('html');
    expect(bodyFor(templates, 'TEXT/HTML; charset=utf-8')).toBe('html');
    expect(bodyFor(templates, 'application/json, text/html')).toBe('json');
    expect(bodyFor(templates, 'application/xhtml+xml, text/html')).toBe('json');
  });

  it('labels the body with the chosen template’s media type', () => {
    expect(selectTemplate(templates, 'text/html')?.mediaType).toBe('text/html');
    expect(selectTemplate(templates, '*/*')?.mediaType).toBe('application/json');
  });

  it('takes application/json without an Accept, and the first template for any other', () => {
    expect(bodyFor(templates, undefined)).toBe('json');
    expect(bodyFor(templates, '')).toBe('json');
    expect(bodyFor(templates, '*/*')).toBe('json');
    expect(bodyFor({ 'text/html': 'html', 'application/xml': 'xml' }, undefined)).toBe('html');
  });
});

describe('policyAllows', () => {
  const arn = 'arn:aws:execute-api:us-east-1:123456789012:local/test/GET/reports/debtors.html';
  const statement = (
    Effect: string,
    Resource: unknown,
    Action: unknown = 'execute-api:Invoke',
  ) => ({
    Effect,
    Action,
    Resource,
  });

  it('allows a matching Allow (wildcards included) unless a Deny matches too', () => {
    const stage = 'arn:aws:execute-api:us-east-1:123456789012:local/test/*';
    expect(policyAllows({ Statement: [statement('Allow', stage)] }, arn)).toBe(true);
    expect(policyAllows({ Statement: [statement('Allow', [arn])] }, arn)).toBe(true);
    expect(policyAllows({ Statement: [statement('Allow', stage, ['execute-api:*'])] }, arn)).toBe(
      true,
    );
    expect(
      policyAllows({ Statement: [statement('Allow', stage), statement('Deny', arn)] }, arn),
    ).toBe(false);
  });

  it('refuses a policy for another method, stage or action, and a malformed one', () => {
    const other = 'arn:aws:execute-api:us-east-1:123456789012:local/test/POST/*';
    expect(policyAllows({ Statement: [statement('Allow', other)] }, arn)).toBe(false);
    expect(
      policyAllows({ Statement: [statement('Allow', arn.replace('/test/', '/prod/'))] }, arn),
    ).toBe(false);
    expect(policyAllows({ Statement: [statement('Allow', arn, 's3:GetObject')] }, arn)).toBe(false);
    expect(policyAllows(undefined, arn)).toBe(false);
    expect(policyAllows({ Statement: 'x' }, arn)).toBe(false);
  });
});

describe('local gateway: the Basic-auth routes of the deployed table', () => {
  let gateway: TestGateway;
  let reportDir: string;

  beforeAll(async () => {
    process.env.LEADS_RUNTIME = 'local';
    setLocalConfig(
      parseConfig({
        upstream: {
          baseUrl: 'http://127.0.0.1:4010',
          username: 'demo',
          password: 'demo',
          maxPerSecond: 4,
          maxPerMinute: 36,
        },
        clients: [
          { username: 'reporter', password: 'reporter-secret', roles: ['report:read'] },
          { username: 'writer', password: 'writer-secret', roles: ['prospects:write'] },
        ],
        profiles: {},
        report: { branches: [1], refreshSeconds: 900 },
      }),
    );
    // An empty report store: the report function answers, but has no snapshot yet.
    reportDir = mkdtempSync(join(tmpdir(), 'leads-gateway-auth-'));
    setLocalReportDir(reportDir);
    gateway = await startTestGateway({ routes: routesFromTable(REPO_ROOT) });
  });
  afterAll(async () => {
    await gateway.close();
    setLocalReportDir(undefined);
    setLocalConfig(undefined);
    rmSync(reportDir, { recursive: true, force: true });
  });

  it('answers a browser without credentials with 401, a real Basic challenge and a Portuguese page', async () => {
    // Act: Chromium's Accept when it opens a page
    const response = await send(`${gateway.url}/reports/debtors.html`, {
      headers: {
        Accept:
          'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
      },
    });

    // Assess
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe(CHALLENGE);
    expect(response.headers['content-type']).toBe('text/html; charset=UTF-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.text()).toBe(UNAUTHORIZED_TEMPLATES['text/html']);
    expect(response.text()).toContain('Entre com seu usuário e senha');
    // The operator console too: the gateway answers every Basic route the same.
    const admin = await send(`${gateway.url}/admin`, {
      headers: { Accept: 'text/html', Authorization: basic('reporter', 'nope') },
    });
    expect(admin.status).toBe(401);
    expect(admin.text()).toBe(UNAUTHORIZED_TEMPLATES['text/html']);
  });

  it('answers programs the same 401 with the JSON error body and its stable code', async () => {
    for (const accept of [undefined, 'application/json', '*/*', 'application/json, text/html']) {
      const response = await send(`${gateway.url}/reports/debtors.html`, {
        headers: accept === undefined ? {} : { Accept: accept },
      });
      expect(response.status, accept).toBe(401);
      expect(response.headers['www-authenticate']).toBe(CHALLENGE);
      expect(response.json(), accept).toEqual(BASIC_AUTH.unauthorized.body);
    }
  });

  it('answers a wrong password with the same 401, before the function runs', async () => {
    const response = await send(`${gateway.url}/admin/replay`, {
      method: 'POST',
      headers: { Authorization: basic('reporter', 'nope') },
    });
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe(CHALLENGE);
  });

  it('lets valid credentials through to the function, which answers a missing role with 403', async () => {
    // Act
    const wrongRole = await send(`${gateway.url}/reports/debtors`, {
      headers: { Authorization: basic('writer', 'writer-secret') },
    });
    const rightRole = await send(`${gateway.url}/reports/debtors`, {
      headers: { Authorization: basic('reporter', 'reporter-secret') },
    });

    // Assess
    expect(wrongRole.status).toBe(403);
    expect(wrongRole.json()).toMatchObject({ error: { code: 'forbidden' } });
    // The report function ran: no snapshot in the empty store yet.
    expect(rightRole.status).toBe(503);
    expect(rightRole.json()).toMatchObject({ error: { code: 'report_not_ready' } });
  });
});

describe('routesFromTable and Basic auth', () => {
  it("gives the routes marked auth: 'basic' one shared authorizer, and the others none", () => {
    // Act
    const routes = routesFromTable(REPO_ROOT);

    // Assess
    const guarded = routes.filter((r) => r.authorizer).map((r) => `${r.method} ${r.path}`);
    expect(guarded.sort()).toEqual(
      ROUTES.filter((r) => r.auth === 'basic')
        .map((r) => `${r.method} ${r.path}`)
        .sort(),
    );
    expect(new Set(routes.map((r) => r.authorizer).filter(Boolean)).size).toBe(1);
    expect(routes.find((r) => r.path === '/leads/{profile}')?.authorizer).toBeUndefined();
    expect(routes.find((r) => r.authorizer)?.authorizer).toMatchObject({
      identityHeader: 'Authorization',
      functionName: 'authorizer',
      unauthorized: { statusCode: 401, headers: { 'WWW-Authenticate': CHALLENGE } },
    });
  });
});
