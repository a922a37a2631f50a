/**
 * The Basic-auth REQUEST authorizer: the decision (basic-auth.ts) over plain and hashed
 * passwords, the policy it returns, and the thin handler's answers (Allow, `Unauthorized`, or a
 * failure of its own when the clients cannot be read).
 */
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { authorizeBasic, stageWildcard } from '../../functions/authorizer/authorizer-event.ts';
import { parseConfig, setLocalConfig } from '../../functions/config/config-local.ts';
import { hashPassword } from '../../functions/kernel/client-auth.ts';
import type { Client } from '../../functions/kernel/client-schema.ts';

const METHOD_ARN =
  'arn:aws:execute-api:sa-east-1:123456789012:abc123defg/prod/GET/reports/debtors.html';
const TEST_UPSTREAM = {
  baseUrl: 'http://127.0.0.1:4010',
  username: 'demo',
  password: 'demo',
  maxPerSecond: 4,
  maxPerMinute: 36,
};
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

let clients: Client[];

beforeAll(async () => {
  clients = [
    { username: 'ops', password: 'ops-secret', roles: ['admin', 'prospects:write'] },
    // What a deployed stack keeps (a cheap scrypt cost, so the test stays fast).
    {
      username: 'manager',
      passwordHash: await hashPassword('manager-secret', { N: 1024, r: 8, p: 1 }),
      roles: ['report:read'],
    },
    // No role at all: the gateway lets it through; the functions answer 403.
    { username: 'nobody', password: 'nobody-secret', roles: [] },
  ];
});

function request(headers: Record<string, string> | null) {
  return { methodArn: METHOD_ARN, headers };
}

describe('authorizeBasic', () => {
  it('parses Basic strictly and compares user names after NFC', async () => {
    const nfc: Client[] = [{ username: 'jos\u00e9', password: 'pw', roles: ['admin'] }];
    const allowed = await authorizeBasic(
      request({ Authorization: basic('jose\u0301', 'pw') }),
      nfc,
    );
    expect(allowed).toMatchObject({ allow: true, username: 'jos\u00e9' });
    const token = Buffer.from('ops:ops-secret').toString('base64');
    for (const header of [`Basic ${token}garbage`, `Basic ${token.replace(/=+$/, '')}x`]) {
      expect(await authorizeBasic(request({ Authorization: header }), clients)).toEqual({
        allow: false,
        reason: 'invalid',
      });
    }
  });

  it.each([
    ['ops', 'ops-secret', 'a plain password'],
    ['manager', 'manager-secret', 'a scrypt password hash'],
    ['nobody', 'nobody-secret', 'a client without any role'],
  ])('allows %s (%s… %s) on every method of the stage, naming the client', async (user, pw) => {
    // Act
    const decision = await authorizeBasic(request({ Authorization: basic(user, pw) }), clients);

    // Assess
    expect(decision).toEqual({
      allow: true,
      username: user,
      result: {
        principalId: user,
        policyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Action: 'execute-api:Invoke',
              Effect: 'Allow',
              Resource: 'arn:aws:execute-api:sa-east-1:123456789012:abc123defg/prod/*',
            },
          ],
        },
        context: { username: user, verified: 'true' },
      },
    });
  });

  it('reads the header whatever its casing', async () => {
    const decision = await authorizeBasic(
      request({ authorization: basic('ops', 'ops-secret') }),
      clients,
    );
    expect(decision.allow).toBe(true);
  });

  it.each([
    ['no headers at all', null, 'missing'],
    ['no Authorization header', { Accept: 'text/html' }, 'missing'],
    ['an empty Authorization header', { Authorization: '' }, 'missing'],
    ['a wrong password', { Authorization: basic('ops', 'not-it') }, 'invalid'],
    ['a wrong password for a hashed client', { Authorization: basic('manager', 'x') }, 'invalid'],
    ['an unknown username', { Authorization: basic('eve', 'ops-secret') }, 'invalid'],
    ['another scheme', { Authorization: 'Bearer abc.def.ghi' }, 'invalid'],
    ['no colon in the credentials', { Authorization: 'Basic b3Bz' }, 'invalid'],
  ] as const)('refuses %s', async (_what, headers, reason) => {
    const decision = await authorizeBasic(request(headers), clients);
    expect(decision).toEqual({ allow: false, reason });
  });

  it('refuses everyone when no client is configured', async () => {
    const decision = await authorizeBasic(
      request({ Authorization: basic('ops', 'ops-secret') }),
      [],
    );
    expect(decision).toEqual({ allow: false, reason: 'invalid' });
  });
});

describe('stageWildcard', () => {
  it('keeps the API and the stage of a method ARN', () => {
    expect(stageWildcard(METHOD_ARN)).toBe(
      'arn:aws:execute-api:sa-east-1:123456789012:abc123defg/prod/*',
    );
    expect(stageWildcard('arn:aws:execute-api:us-east-1:1:api/local/POST/admin/replay')).toBe(
      'arn:aws:execute-api:us-east-1:1:api/local/*',
    );
  });

  it('refuses what is not a method ARN', () => {
    expect(() => stageWildcard('')).toThrow(/not an API Gateway method ARN/);
    expect(() => stageWildcard('arn:aws:execute-api:us-east-1:1:api')).toThrow();
  });
});

describe('the authorizer handler (local wiring)', () => {
  const event = (authorization?: string): APIGatewayRequestAuthorizerEvent =>
    ({
      type: 'REQUEST',
      methodArn: METHOD_ARN,
      resource: '/reports/debtors.html',
      path: '/reports/debtors.html',
      httpMethod: 'GET',
      headers: authorization === undefined ? {} : { Authorization: authorization },
    }) as APIGatewayRequestAuthorizerEvent;

  async function handler() {
    process.env.LEADS_RUNTIME = 'local';
    return (await import('../../functions/authorizer/handler.ts')).handler;
  }

  afterEach(() => setLocalConfig(undefined));

  function configure(): void {
    setLocalConfig(parseConfig({ upstream: TEST_UPSTREAM, clients, profiles: {} }));
  }

  it('returns the Allow policy for valid credentials', async () => {
    configure();
    const result = await (await handler())(event(basic('manager', 'manager-secret')));
    expect(result).toMatchObject({ principalId: 'manager', context: { username: 'manager' } });
  });

  it("throws 'Unauthorized' (API Gateway's 401) for missing or wrong credentials", async () => {
    configure();
    const authorize = await handler();
    await expect(authorize(event())).rejects.toThrow(/^Unauthorized$/);
    await expect(authorize(event(basic('ops', 'wrong')))).rejects.toThrow(/^Unauthorized$/);
  });

  it('fails with its own error (a 500 at the gateway, not a 401) when the clients cannot be read', async () => {
    const authorize = await handler();
    const error = await authorize(event(basic('ops', 'ops-secret'))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).not.toBe('Unauthorized');
  });
});
