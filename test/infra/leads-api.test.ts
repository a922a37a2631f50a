import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { BASIC_CHALLENGE } from '../../functions/kernel/client-auth.ts';
import { UNAUTHORIZED_TEMPLATES } from '../../functions/kernel/refusal-page.ts';
import { BASIC_AUTH } from '../../functions/kernel/routes.ts';
import { LeadsApi, type LeadsApiProps } from '../../infra/constructs/leads-api.ts';
import { NodeFunction } from '../../infra/constructs/node-function.ts';
import { onlyLogicalId, removeTempOutdirs, testStack } from './helpers.ts';

/** A GET route behind Basic auth, for the tests that add their own. */
const BASIC_ROUTE = (path: string) =>
  ({ method: 'GET', path, auth: 'basic', role: 'report:read', name: 'test' }) as const;

const PROPS: LeadsApiProps = { stage: 'prod', rateLimit: 25, burstLimit: 50, cloudWatchRole: true };
const HEALTH = { method: 'GET', path: '/health' } as const;
const ENTRY = 'test/fixtures/functions/hello.ts';

function apiTemplate(props: Partial<LeadsApiProps> = {}, build?: (api: LeadsApi) => void) {
  const stack = testStack();
  const api = new LeadsApi(stack, 'Gateway', { ...PROPS, ...props });
  api.addRoute(HEALTH);
  build?.(api);
  return Template.fromStack(stack);
}

/** A gateway-response template with its VTL variables filled in, parsed. */
function renderErrorTemplate(template: string): unknown {
  return JSON.parse(
    template
      .replace('$context.error.messageString', '"Too Many Requests"')
      .replace('$context.error.responseType', 'THROTTLED'),
  );
}

afterAll(removeTempOutdirs);

describe('LeadsApi', () => {
  it('is a regional REST API that hands every body to Lambda as bytes', () => {
    // Act
    const template = apiTemplate();

    // Assess
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      Name: 'leads-prod',
      BinaryMediaTypes: ['*/*'],
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
  });

  it('writes JSON access logs to a log group kept one month, and traces with X-Ray', () => {
    // Act
    const template = apiTemplate();

    // Assess
    const stage = Object.values(template.findResources('AWS::ApiGateway::Stage'))[0] as {
      Properties: { AccessLogSetting: { DestinationArn: unknown; Format: string } };
    };
    const format = JSON.parse(stage.Properties.AccessLogSetting.Format) as Record<string, string>;
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      ip: '$context.identity.sourceIp',
      errorMessage: '$context.error.message',
    });
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'prod',
      TracingEnabled: true,
    });
    const accessLogs = onlyLogicalId(template, 'AWS::Logs::LogGroup');
    expect(JSON.stringify(stage.Properties.AccessLogSetting.DestinationArn)).toContain(accessLogs);
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it('throttles the stage and each method that sets a limit; logs errors only, no bodies', () => {
    // Act
    const template = apiTemplate();

    // Assess
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: '*',
          ResourcePath: '/*',
          ThrottlingRateLimit: 25,
          ThrottlingBurstLimit: 50,
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
        }),
        Match.objectLike({
          HttpMethod: 'GET',
          ResourcePath: '/~1health',
          ThrottlingRateLimit: 5,
          ThrottlingBurstLimit: 10,
        }),
      ]),
    });
  });

  it('answers GET /health itself with {"status":"ok"}', () => {
    // Act
    const template = apiTemplate();

    // Assess
    const methods = template.findResources('AWS::ApiGateway::Method', {
      Properties: { HttpMethod: 'GET', Integration: { Type: 'MOCK' } },
    });
    const [health] = Object.values(methods) as Array<{
      Properties: {
        Integration: {
          ContentHandling: string;
          RequestTemplates: Record<string, string>;
          IntegrationResponses: Array<{
            StatusCode: string;
            ResponseTemplates: Record<string, string>;
          }>;
        };
      };
    }>;
    expect(health).toBeDefined();
    const integration = health?.Properties.Integration;
    expect(integration?.ContentHandling).toBe('CONVERT_TO_TEXT');
    expect(JSON.parse(integration?.RequestTemplates['application/json'] ?? '')).toEqual({
      statusCode: 200,
    });
    const response = integration?.IntegrationResponses[0];
    expect(response?.StatusCode).toBe('200');
    expect(JSON.parse(response?.ResponseTemplates['application/json'] ?? '')).toEqual({
      status: 'ok',
    });
  });

  it("answers API Gateway's own errors in the contract's error shape", () => {
    // Act
    const template = apiTemplate();

    // Assess
    const responses = template.findResources('AWS::ApiGateway::GatewayResponse');
    const byType = new Map(
      Object.values(responses).map((r) => {
        const p = (r as { Properties: Record<string, unknown> }).Properties;
        return [p.ResponseType as string, p] as const;
      }),
    );
    const jsonTemplate = (type: string) =>
      (byType.get(type)?.ResponseTemplates as Record<string, string> | undefined)?.[
        'application/json'
      ] ?? '';
    for (const type of ['DEFAULT_4XX', 'DEFAULT_5XX']) {
      expect(renderErrorTemplate(jsonTemplate(type))).toEqual({
        error: { code: 'THROTTLED', message: 'Too Many Requests', details: [] },
      });
    }
    expect(byType.get('MISSING_AUTHENTICATION_TOKEN')?.StatusCode).toBe('404');
    expect(JSON.parse(jsonTemplate('MISSING_AUTHENTICATION_TOKEN'))).toMatchObject({
      error: { code: 'NOT_FOUND' },
    });
  });

  it('adds Lambda proxy routes from the route table, with their own throttles', () => {
    // Act
    const template = apiTemplate({}, (api) => {
      const fn = new NodeFunction(api, 'Intake', { entry: 'test/fixtures/functions/hello.ts' });
      api.addRoute(
        { method: 'POST', path: '/leads/{profile}', throttle: { rateLimit: 10, burstLimit: 20 } },
        fn,
      );
    });

    // Assess
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'POST',
      AuthorizationType: 'NONE',
      RequestParameters: { 'method.request.path.profile': true },
      RequestValidatorId: Match.anyValue(),
      Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' },
    });
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          HttpMethod: 'POST',
          ResourcePath: '/~1leads~1{profile}',
          ThrottlingRateLimit: 10,
          ThrottlingBurstLimit: 20,
        }),
      ]),
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'apigateway.amazonaws.com',
    });
  });

  it("puts the Basic-auth REQUEST authorizer in front of a route marked auth: 'basic'", () => {
    // Act
    const template = apiTemplate({}, (api) => {
      const authorizer = new NodeFunction(api, 'Authorizer', { entry: ENTRY });
      const fn = new NodeFunction(api, 'Report', { entry: ENTRY });
      api.useBasicAuthorizer(authorizer);
      api.addRoute(BASIC_ROUTE('/reports/debtors'), fn);
      api.addRoute(BASIC_ROUTE('/reports/other'), fn);
      api.addRoute({ method: 'POST', path: '/leads/{profile}' }, fn);
    });

    // Assess: one authorizer on the Authorization header, its decisions never cached
    const authorizerId = onlyLogicalId(template, 'AWS::ApiGateway::Authorizer');
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: 0,
      AuthorizerUri: Match.anyValue(),
    });
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method')) as Array<{
      Properties: { HttpMethod: string; AuthorizationType?: string; AuthorizerId?: unknown };
    }>;
    const custom = methods.filter((m) => m.Properties.AuthorizationType === 'CUSTOM');
    expect(custom).toHaveLength(2);
    for (const method of custom) {
      expect(method.Properties.AuthorizerId).toEqual({ Ref: authorizerId });
    }
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'POST',
      AuthorizationType: 'NONE',
    });
    // API Gateway may invoke the authorizer function.
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'apigateway.amazonaws.com',
      SourceArn: Match.objectLike({
        'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('/authorizers/')])],
      }),
    });
  });

  it('answers missing or refused Basic credentials with 401, a challenge, the error shape for programs and a page for browsers', () => {
    // Act
    const template = apiTemplate();

    // Assess
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'UNAUTHORIZED',
      StatusCode: '401',
      ResponseParameters: {
        'gatewayresponse.header.WWW-Authenticate': `'Basic realm="leads", charset="UTF-8"'`,
        'gatewayresponse.header.Cache-Control': "'no-store'",
        'gatewayresponse.header.X-Content-Type-Options': "'nosniff'",
        'gatewayresponse.header.X-Frame-Options': "'DENY'",
        'gatewayresponse.header.Referrer-Policy': "'no-referrer'",
      },
    });
    const [response] = Object.values(
      template.findResources('AWS::ApiGateway::GatewayResponse', {
        Properties: { ResponseType: 'UNAUTHORIZED' },
      }),
    ) as Array<{
      Properties: {
        ResponseTemplates: Record<string, string>;
        ResponseParameters: Record<string, string>;
      };
    }>;
    // No Content-Type of its own: the chosen template's media type labels the body.
    expect(response?.Properties.ResponseParameters).not.toHaveProperty(
      'gatewayresponse.header.Content-Type',
    );
    const templates = response?.Properties.ResponseTemplates ?? {};
    // The JSON first: API Gateway answers it without an Accept header, or for */*.
    expect(Object.keys(templates)).toEqual(['application/json', 'text/html']);
    expect(JSON.parse(templates['application/json'] ?? '')).toEqual({
      error: { code: 'unauthorized', message: expect.any(String), details: [] },
    });
    expect(templates['text/html']).toBe(UNAUTHORIZED_TEMPLATES['text/html']);
    expect(templates['text/html']).toContain('Entre com seu usuário e senha');
    expect(templates['text/html']).not.toContain('$');
    // The same challenge the functions send (functions/kernel/client-auth.ts).
    expect(BASIC_AUTH.unauthorized.headers['WWW-Authenticate']).toBe(
      BASIC_CHALLENGE['www-authenticate'],
    );
  });

  it("refuses an auth: 'basic' route before the authorizer's function is set", () => {
    // Prepare
    const api = new LeadsApi(testStack(), 'Gateway', PROPS);
    const fn = new NodeFunction(api, 'Report', { entry: ENTRY });

    // Act
    const add = () => api.addRoute(BASIC_ROUTE('/reports/x'), fn);

    // Assess
    expect(add).toThrow(/needs Basic auth: call useBasicAuthorizer/);
  });

  it('refuses a route with no function that the gateway cannot answer itself', () => {
    // Prepare
    const api = new LeadsApi(testStack(), 'Gateway', PROPS);

    // Act
    const add = () => api.addRoute({ method: 'GET', path: '/reports/debtors' });

    // Assess
    expect(add).toThrow('route GET /reports/debtors has no function');
  });

  it('associates a WAF web ACL when the config names one', () => {
    // Prepare
    const webAclArn = 'arn:aws:wafv2:us-east-1:123456789012:regional/webacl/leads/abc';

    // Act
    const template = apiTemplate({ webAclArn });

    // Assess
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', { WebACLArn: webAclArn });
  });

  it('creates a web ACL with a rate-based rule per address when waf is on, answering 429 in the contract shape', () => {
    // Act
    const template = apiTemplate({ waf: true, wafRateLimit: 500 });
    const without = apiTemplate({ waf: false });

    // Assess: the rule, its 429, and the ACL associated with the stage
    const aclId = onlyLogicalId(template, 'AWS::WAFv2::WebACL');
    const acl = template.findResources('AWS::WAFv2::WebACL')[aclId]?.Properties;
    expect(acl).toMatchObject({ Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
    expect(acl.Rules).toEqual([
      expect.objectContaining({
        Statement: {
          RateBasedStatement: { Limit: 500, AggregateKeyType: 'IP', EvaluationWindowSec: 300 },
        },
        Action: {
          Block: {
            CustomResponse: expect.objectContaining({
              ResponseCode: 429,
              CustomResponseBodyKey: 'TooManyRequests',
            }),
          },
        },
      }),
    ]);
    expect(JSON.parse(acl.CustomResponseBodies.TooManyRequests.Content)).toMatchObject({
      error: { code: 'rate_limited', details: [] },
    });
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      WebACLArn: { 'Fn::GetAtt': [aclId, 'Arn'] },
    });
    without.resourceCountIs('AWS::WAFv2::WebACL', 0);
    without.resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
  });

  it("creates API Gateway's CloudWatch role unless the account already has one", () => {
    // Act
    const withRole = apiTemplate();
    const withoutRole = apiTemplate({ cloudWatchRole: false });

    // Assess
    withRole.resourceCountIs('AWS::ApiGateway::Account', 1);
    withoutRole.resourceCountIs('AWS::ApiGateway::Account', 0);
  });
});
