/**
 * The gateway's route table: one source of truth for the deployed REST API (infra/) and the
 * local gateway (local/gateway.ts). Pure data: no CDK imports, so the local runtime can load it.
 *
 * `fn` names an entry of FUNCTIONS; a route without `fn` is answered by the gateway itself
 * (a mock integration on AWS, the gateway's own code locally).
 */
export interface FunctionSpec {
  /** Entry file, relative to the repository root; it exports `handler`. */
  entry: string;
  timeoutSeconds: number;
  memoryMb: number;
  description: string;
  /**
   * The Secrets Manager parts of the configuration it reads (least privilege): `upstream`
   * credentials, the API `clients` list, or every profile's keys. Every function gets the
   * non-secret settings.
   */
  secrets?: readonly ConfigSecret[];
}

/** The configuration secrets a deployed stack keeps (docs/deploy.md). */
export type ConfigSecret = 'upstream' | 'clients' | 'profiles';

export const FUNCTIONS = {} as const satisfies Record<string, FunctionSpec>;
export type FunctionName = keyof typeof FUNCTIONS;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

export interface RouteSpec {
  method: HttpMethod;
  /** API Gateway resource path, `{name}` for a path parameter. */
  path: string;
  fn?: FunctionName;
  /** Per-method throttling on AWS (below the stage's); local ignores it. */
  throttle?: { rateLimit: number; burstLimit: number };
}

export const ROUTES: readonly RouteSpec[] = [{ method: 'GET', path: '/health' }];

/**
 * Request bodies API Gateway hands to Lambda base64-encoded. `*\/*` makes every body arrive as
 * its exact bytes, which signature checks over the raw body need.
 */
export const BINARY_MEDIA_TYPES = ['*/*'] as const;
