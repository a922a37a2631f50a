/**
 * The gateway's REST API. REST rather than HTTP API because only REST has per-method and
 * usage-plan throttling, request validation and AWS WAF, and because the local gateway
 * emulates exactly its v1 Lambda proxy events.
 *
 * - Every body reaches Lambda as its exact bytes (BINARY_MEDIA_TYPES `*\/*`: signature checks).
 * - Access logs as JSON in a log group, execution logs at ERROR (no bodies), X-Ray active.
 * - Stage-wide throttling plus per-method limits (RouteSpec.throttle).
 * - API Gateway's own errors (throttled, unknown route, ...) in the contract's error shape.
 * - `addRoute(route, fn)` adds a Lambda proxy route from the route table (functions/kernel/routes.ts);
 *   a route without a function is answered by the gateway itself (`GET /health`). The stack
 *   passes each function's `live` alias, so integrations and the authorizer invoke the
 *   released version (and its permissions name the alias), never `$LATEST`. API Gateway may
 *   invoke each function's alias from any method of this API: one permission per function
 *   rather than one per method (a stack has at most 500 resources, and the profiles' secrets
 *   use most of them).
 * - Routes marked `auth: 'basic'` get the Basic-auth REQUEST authorizer (`useBasicAuthorizer`,
 *   BASIC_AUTH in functions/kernel/routes.ts): API Gateway answers missing or refused credentials itself,
 *   with a 401 that carries `WWW-Authenticate` (the UNAUTHORIZED gateway response), which a
 *   browser turns into its login prompt; its body is the JSON error for programs and, for a
 *   browser opening a page (first Accept media type `text/html`), a Portuguese page shown
 *   when the prompt is cancelled or the password is wrong. A function's own WWW-Authenticate never reaches a
 *   browser: API Gateway renames it x-amzn-Remapped-WWW-Authenticate.
 */
import { Duration, Lazy, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  type CfnStage,
  ContentHandling,
  EndpointType,
  IdentitySource,
  Integration,
  IntegrationType,
  LogGroupLogDestination,
  type Method,
  MethodLoggingLevel,
  MockIntegration,
  PassthroughBehavior,
  RequestAuthorizer,
  type RequestValidator,
  type Resource,
  ResponseType,
  RestApi,
} from 'aws-cdk-lib/aws-apigateway';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnPermission, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { UNAUTHORIZED_TEMPLATES } from '../../functions/kernel/refusal-page.ts';
import {
  BASIC_AUTH,
  BINARY_MEDIA_TYPES,
  type RouteSpec,
  UNKNOWN_ROUTE,
} from '../../functions/kernel/routes.ts';
import { ACCEPTED_CONTROLS, acknowledgeControls } from './control-tower.ts';
import { nagTarget } from './nag.ts';

/**
 * AWS's managed rule groups behind `wafManagedRules`, in order (about 925 of the web ACL's 1,500
 * WCU; 1 USD a month each). Rules that only count: the Common set's 8 KB body limit (a form
 * builder's webhook with many answers is larger, and an authentic lead must not get a 4xx).
 */
export const MANAGED_RULE_GROUPS = [
  { name: 'AWSManagedRulesAmazonIpReputationList', excluded: [] as string[] },
  { name: 'AWSManagedRulesKnownBadInputsRuleSet', excluded: [] as string[] },
  { name: 'AWSManagedRulesCommonRuleSet', excluded: ['SizeRestrictions_BODY'] },
] as const;

export interface LeadsApiProps {
  /** Stage name and `leads-<stage>` API name. */
  stage: string;
  /** Stage-wide steady rate (requests per second). */
  rateLimit: number;
  /** Stage-wide burst. */
  burstLimit: number;
  /** Regional WAFv2 web ACL to associate with the stage. */
  webAclArn?: string;
  /**
   * Without webAclArn: create a web ACL with a rate-based rule for the stage. @default false
   * (the deploy configuration's `api.waf` defaults to true).
   */
  waf?: boolean;
  /** The rate-based rule's limit: requests per source address in any 5 minutes. @default 1000 */
  wafRateLimit?: number;
  /** AWS's managed rule groups in the web ACL too (MANAGED_RULE_GROUPS). @default false */
  wafManagedRules?: boolean;
  /** Create API Gateway's account-wide CloudWatch role (once per account and Region). */
  cloudWatchRole: boolean;
  /** @default one month */
  logRetention?: RetentionDays;
}

/** A route answered by API Gateway itself (a MOCK integration). */
interface GatewayRoute {
  statusCode: number;
  body: unknown;
  throttle: NonNullable<RouteSpec['throttle']>;
}

const GATEWAY_ROUTES: Record<string, GatewayRoute> = {
  'GET /health': {
    statusCode: 200,
    body: { status: 'ok' },
    throttle: { rateLimit: 5, burstLimit: 10 },
  },
};

/**
 * Lambda routes without credentials that are not webhooks, and why they may be called by
 * anyone (cdk-nag's APIG4 and COG4 acknowledgements). Every other route without `auth` is a
 * webhook whose function authenticates the platform itself.
 */
const PUBLIC_ROUTES: Record<string, string> = {
  'GET /openapi.json':
    'The API description is public, as a published OpenAPI document is: it holds routes and shapes only, no data and no secret, and the route is throttled.',
};

const JSON_CONTENT = "'application/json'";

/** Gateway responses in the contract's `{"error": {"code", "message", "details"}}` shape. */
const ERROR_TEMPLATE = JSON.stringify({
  error: { code: '$context.error.responseType', message: '__MESSAGE__', details: [] },
}).replace('"__MESSAGE__"', '$context.error.messageString');

function methodSettingsPath(path: string): string {
  // API Gateway's method settings escape the resource path's slashes as `~1`.
  return `/${path.replaceAll('/', '~1')}`;
}

export class LeadsApi extends Construct {
  readonly api: RestApi;
  readonly accessLogs: LogGroup;
  private readonly validator: RequestValidator;
  /** The Basic-auth authorizer's function (useBasicAuthorizer) and, once a route uses it, itself. */
  private basicAuthorizerFn: IFunction | undefined;
  private basicAuthorizer: RequestAuthorizer | undefined;
  private readonly methodThrottles: Array<{
    httpMethod: string;
    resourcePath: string;
    throttlingRateLimit: number;
    throttlingBurstLimit: number;
  }> = [];

  constructor(scope: Construct, id: string, props: LeadsApiProps) {
    super(scope, id);
    const retention = props.logRetention ?? RetentionDays.ONE_MONTH;
    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention,
      // Kept when the stack goes, not when its first create fails (a retry starts clean).
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });
    acknowledgeControls(this.accessLogs, ACCEPTED_CONTROLS.logRetention, ACCEPTED_CONTROLS.logKms);

    this.api = new RestApi(this, 'Api', {
      restApiName: `leads-${props.stage}`,
      description: 'Leads gateway: lead intake, prospects, debtors report, admin',
      endpointTypes: [EndpointType.REGIONAL],
      binaryMediaTypes: [...BINARY_MEDIA_TYPES],
      cloudWatchRole: props.cloudWatchRole,
      // The Region's API Gateway logging role is kept when the stack goes (other APIs of the
      // account may log through it), but a failed first create takes it back with the rest.
      ...(props.cloudWatchRole && {
        cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
      }),
      deployOptions: {
        stageName: props.stage,
        tracingEnabled: true,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: AccessLogFormat.custom(
          JSON.stringify({
            requestId: AccessLogField.contextRequestId(),
            extendedRequestId: AccessLogField.contextExtendedRequestId(),
            requestTime: AccessLogField.contextRequestTime(),
            ip: AccessLogField.contextIdentitySourceIp(),
            userAgent: AccessLogField.contextIdentityUserAgent(),
            httpMethod: AccessLogField.contextHttpMethod(),
            resourcePath: AccessLogField.contextResourcePath(),
            path: AccessLogField.contextPath(),
            status: AccessLogField.contextStatus(),
            responseLength: AccessLogField.contextResponseLength(),
            responseLatency: AccessLogField.contextResponseLatency(),
            integrationStatus: AccessLogField.contextIntegrationStatus(),
            integrationLatency: AccessLogField.contextIntegrationLatency(),
            errorType: AccessLogField.contextErrorResponseType(),
            // The unquoted message: messageString comes with its own quotes.
            errorMessage: AccessLogField.contextErrorMessage(),
            xrayTraceId: AccessLogField.contextXrayTraceId(),
          }),
        ),
        // Execution logs for failures only; never request or response bodies (PII, tokens).
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        metricsEnabled: false,
        throttlingRateLimit: props.rateLimit,
        throttlingBurstLimit: props.burstLimit,
      },
    });

    // The stack outputs the URL under a stable name (ApiUrl) instead of RestApi's hashed one.
    this.api.node.tryRemoveChild('Endpoint');

    // Routes add their own method throttles after the stage exists.
    const stage = this.api.deploymentStage.node.defaultChild as CfnStage;
    const stageSettings = (Stack.of(this).resolve(stage.methodSettings) ?? []) as unknown[];
    stage.methodSettings = Lazy.any({
      produce: () => [...stageSettings, ...this.methodThrottles],
    });

    // Parameters declared by a route are required; a route may add a body model later.
    this.validator = this.api.addRequestValidator('Validator', {
      validateRequestBody: true,
      validateRequestParameters: true,
    });

    this.addGatewayResponses();

    const webAclArn = props.webAclArn ?? (props.waf ? this.createWebAcl(props) : undefined);
    if (webAclArn) {
      new CfnWebACLAssociation(this, 'WebAcl', {
        resourceArn: this.api.deploymentStage.stageArn,
        webAclArn,
      });
    } else {
      Validations.of(this.api.deploymentStage).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason:
          'WAF costs a monthly fee per web ACL and rule; each route authenticates its caller (signature, token or Basic) and the stage and methods are throttled. Set api.webAclArn in the deploy config to associate a web ACL.',
      });
    }
    if (props.cloudWatchRole) {
      const role = this.api.node.tryFindChild('CloudWatchRole');
      if (role) {
        Validations.of(role).acknowledge({
          id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
          reason:
            "API Gateway's account-wide logging role: the AWS managed policy is the documented one for it and is kept current by AWS.",
        });
      }
    }
  }

  /**
   * A regional web ACL for the stage: everything allowed except an address that sent more than
   * `wafRateLimit` requests in the last 5 minutes (blocked with 429 in the contract's error shape
   * until its rate falls). The Basic routes have their own, finer throttle of failed sign-ins
   * (functions/kernel/auth-throttle.ts); this rule stops floods before they cost a Lambda
   * invocation.
   */
  private createWebAcl(props: LeadsApiProps): string {
    const metrics = (name: string) => ({
      cloudWatchMetricsEnabled: true,
      metricName: `leads-${props.stage}-${name}`,
      sampledRequestsEnabled: true,
    });
    const acl = new CfnWebACL(this, 'RateLimitAcl', {
      name: `leads-${props.stage}`,
      description: 'Leads gateway: a rate-based rule per source address',
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: metrics('waf'),
      customResponseBodies: {
        TooManyRequests: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({
            error: {
              code: 'rate_limited',
              message: 'too many requests from this address; try again in a few minutes',
              details: [],
            },
          }),
        },
      },
      rules: [
        {
          name: 'RatePerAddress',
          priority: 0,
          action: {
            block: {
              customResponse: {
                responseCode: 429,
                customResponseBodyKey: 'TooManyRequests',
                responseHeaders: [{ name: 'Retry-After', value: '300' }],
              },
            },
          },
          statement: {
            rateBasedStatement: {
              limit: props.wafRateLimit ?? 1000,
              aggregateKeyType: 'IP',
              evaluationWindowSec: 300,
            },
          },
          visibilityConfig: metrics('rate-per-address'),
        },
        ...(props.wafManagedRules
          ? MANAGED_RULE_GROUPS.map(({ name, excluded }, index) => ({
              name,
              priority: index + 1,
              overrideAction: { none: {} },
              statement: {
                managedRuleGroupStatement: {
                  vendorName: 'AWS',
                  name,
                  ...(excluded.length > 0 && {
                    ruleActionOverrides: excluded.map((rule) => ({
                      name: rule,
                      actionToUse: { count: {} },
                    })),
                  }),
                },
              },
              visibilityConfig: metrics(name),
            }))
          : []),
      ],
    });
    return acl.attrArn;
  }

  /** The stage's invoke URL (`https://.../<stage>/`). */
  get url(): string {
    return this.api.url;
  }

  /**
   * The function of the Basic-auth REQUEST authorizer (functions/authorizer/handler.ts) for the
   * routes marked `auth: 'basic'`; call it before adding them.
   */
  useBasicAuthorizer(fn: IFunction): void {
    if (this.basicAuthorizerFn)
      throw new Error('LeadsApi: the Basic-auth authorizer is already set');
    this.basicAuthorizerFn = fn;
    Validations.of(nagTarget(fn)).acknowledge(
      {
        id: 'Serverless-LambdaDLQ',
        reason:
          'Invoked synchronously by API Gateway as a request authorizer: the gateway answers the caller from its result, so an asynchronous dead-letter queue never applies.',
      },
      {
        id: 'Serverless-LambdaAsyncFailureDestination',
        reason:
          'Invoked synchronously by API Gateway as a request authorizer: asynchronous failure destinations never apply.',
      },
    );
  }

  /** The REQUEST authorizer on the Authorization header, created for the first route using it. */
  private requestAuthorizer(route: RouteSpec): RequestAuthorizer {
    if (this.basicAuthorizer) return this.basicAuthorizer;
    const handler = this.basicAuthorizerFn;
    if (!handler) {
      throw new Error(
        `route ${route.method} ${route.path} needs Basic auth: call useBasicAuthorizer(fn) first`,
      );
    }
    this.basicAuthorizer = new RequestAuthorizer(this, 'BasicAuthorizer', {
      handler,
      authorizerName: 'basic',
      identitySources: [IdentitySource.header(BASIC_AUTH.identityHeader)],
      resultsCacheTtl: Duration.seconds(BASIC_AUTH.resultsCacheTtlSeconds),
    });
    // The invoke permission CDK adds names this authorizer's ARN; this account only as well
    // (CT.LAMBDA.PR.2).
    const permission = handler.permissionsNode.children.find(
      (child): child is CfnPermission =>
        child instanceof CfnPermission && child.node.id.endsWith(':Permissions'),
    );
    if (!permission) throw new Error('LeadsApi: the authorizer has no invoke permission');
    permission.sourceAccount = Stack.of(this).account;
    return this.basicAuthorizer;
  }

  /**
   * Adds a route of the table: a Lambda proxy integration when `fn` is given, else the
   * gateway's own answer (only known gateway routes, such as `GET /health`).
   */
  addRoute(route: RouteSpec, fn?: IFunction): Method {
    const resource = this.api.root.resourceForPath(route.path);
    const method = fn
      ? this.addProxyMethod(resource, route, fn)
      : this.addMockMethod(resource, route);
    const throttle = route.throttle ?? GATEWAY_ROUTES[`${route.method} ${route.path}`]?.throttle;
    if (throttle) {
      this.methodThrottles.push({
        httpMethod: route.method,
        resourcePath: methodSettingsPath(route.path),
        throttlingRateLimit: throttle.rateLimit,
        throttlingBurstLimit: throttle.burstLimit,
      });
    }
    return method;
  }

  private addProxyMethod(resource: Resource, route: RouteSpec, fn: IFunction): Method {
    const pathParameters = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const basic = route.auth === 'basic';
    const method = resource.addMethod(
      route.method,
      new Integration({
        type: IntegrationType.AWS_PROXY,
        integrationHttpMethod: 'POST',
        uri: Stack.of(this).formatArn({
          service: 'apigateway',
          account: 'lambda',
          resource: 'path/2015-03-31/functions',
          resourceName: `${fn.functionArn}/invocations`,
        }),
      }),
      {
        requestValidator: this.validator,
        requestParameters: Object.fromEntries(
          pathParameters.map((name) => [`method.request.path.${name}`, true]),
        ),
        ...(basic && { authorizer: this.requestAuthorizer(route) }),
      },
    );
    this.allowInvoke(fn, method, route);
    if (basic) {
      Validations.of(method).acknowledge({
        id: 'AwsSolutions-COG4',
        reason:
          'Callers are Basic-auth API clients (scripts, integrations, a manager in a browser) that cannot hold Cognito tokens; a Lambda REQUEST authorizer checks their credentials against the clients secret, and the function checks their role.',
      });
    } else {
      const reason =
        PUBLIC_ROUTES[`${route.method} ${route.path}`] ??
        'Callers are lead platforms that can neither sign AWS requests nor hold Cognito tokens; the function authenticates each request itself (platform signature over the raw body, profile token or key).';
      Validations.of(method).acknowledge(
        { id: 'AwsSolutions-APIG4', reason },
        { id: 'AwsSolutions-COG4', reason },
      );
    }
    Validations.of(nagTarget(fn)).acknowledge(
      {
        id: 'Serverless-LambdaDLQ',
        reason:
          'Invoked synchronously by API Gateway: the caller gets the error, so an asynchronous dead-letter queue never applies. Accepted leads are made durable by the function itself.',
      },
      {
        id: 'Serverless-LambdaAsyncFailureDestination',
        reason:
          'Invoked synchronously by API Gateway: asynchronous failure destinations never apply.',
      },
    );
    return method;
  }

  /**
   * API Gateway may invoke `fn` for this one method, on this API's stage only (its execute-api
   * ARN, path parameters as `*`), and only for this account (`SourceAccount`): Control Tower's
   * CT.LAMBDA.PR.2. One permission per route keeps each function's policy to its own routes.
   */
  private allowInvoke(fn: IFunction, method: Method, route: RouteSpec): void {
    const id = `ApiInvoke${route.method}${route.path.replace(/[^A-Za-z0-9]/g, '')}`;
    fn.addPermission(id, {
      principal: new ServicePrincipal('apigateway.amazonaws.com'),
      sourceArn: method.methodArn,
      sourceAccount: Stack.of(this).account,
    });
  }

  private addMockMethod(resource: Resource, route: RouteSpec): Method {
    const key = `${route.method} ${route.path}`;
    const answer = GATEWAY_ROUTES[key];
    if (!answer) {
      throw new Error(`route ${key} has no function and is not one the gateway answers itself`);
    }
    const statusCode = String(answer.statusCode);
    const method = resource.addMethod(
      route.method,
      new MockIntegration({
        // With binary media types `*/*` the request must be text for the template to apply.
        contentHandling: ContentHandling.CONVERT_TO_TEXT,
        passthroughBehavior: PassthroughBehavior.NEVER,
        requestTemplates: { 'application/json': `{"statusCode": ${statusCode}}` },
        integrationResponses: [
          {
            statusCode,
            responseTemplates: { 'application/json': JSON.stringify(answer.body) },
            responseParameters: { 'method.response.header.Content-Type': JSON_CONTENT },
          },
        ],
      }),
      {
        requestValidator: this.validator,
        methodResponses: [
          { statusCode, responseParameters: { 'method.response.header.Content-Type': true } },
        ],
      },
    );
    const reason = `${key} is answered by API Gateway itself with a fixed body and reveals nothing; probes and monitors call it without credentials.`;
    Validations.of(method).acknowledge(
      { id: 'AwsSolutions-APIG4', reason },
      { id: 'AwsSolutions-COG4', reason },
    );
    return method;
  }

  private addGatewayResponses(): void {
    const responses: Array<[string, ResponseType, string?]> = [
      ['Default4xx', ResponseType.DEFAULT_4XX],
      ['Default5xx', ResponseType.DEFAULT_5XX],
      // An unknown route: API Gateway says 403 "Missing Authentication Token"; say 404.
      ['UnknownRoute', ResponseType.MISSING_AUTHENTICATION_TOKEN, String(UNKNOWN_ROUTE.statusCode)],
    ];
    // Missing or refused Basic credentials (the authorizer): a challenge a browser answers, and
    // a body by the request's first Accept media type: the JSON for programs, the Portuguese
    // page for a browser (functions/kernel/refusal-page.ts). Static header values are quoted.
    const { unauthorized } = BASIC_AUTH;
    this.api.addGatewayResponse('Unauthorized', {
      type: ResponseType.UNAUTHORIZED,
      statusCode: String(unauthorized.statusCode),
      responseHeaders: Object.fromEntries(
        Object.entries(unauthorized.headers).map(([name, value]) => [name, `'${value}'`]),
      ),
      templates: { ...UNAUTHORIZED_TEMPLATES },
    });
    for (const [id, type, statusCode] of responses) {
      this.api.addGatewayResponse(id, {
        type,
        ...(statusCode && { statusCode }),
        responseHeaders: { 'Content-Type': JSON_CONTENT },
        templates: {
          'application/json':
            type === ResponseType.MISSING_AUTHENTICATION_TOKEN
              ? JSON.stringify(UNKNOWN_ROUTE.body)
              : ERROR_TEMPLATE,
        },
      });
    }
  }
}
