/**
 * The JSON protocol of DynamoDB and SQS (`awsJson1_0`): POST `/` with
 * `X-Amz-Target: <prefix>.<operation>` and a JSON body; errors named as the SDK's protocol names
 * them (@aws-sdk/core's AwsJsonRpcProtocol): from the body's `__type`
 * (`com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException`), its `code`, or the
 * `x-amzn-errortype` header, `Unknown` when none says, the message `UnknownError` when the body
 * has none.
 *
 * SQS is "query compatible": requests say `x-amzn-query-mode: true`, errors carry the old Query
 * API's code in `x-amzn-query-error` (`AWS.SimpleQueueService.NonExistentQueue;Sender`), which
 * the SDK reads first and turns back into the modeled name (`QueueDoesNotExist`) with the
 * service's table (`queryErrors`); the code and its type stay in `details.Code` and
 * `details.Type`.
 */
import { AwsError, type AwsHttp } from './http.ts';
import type { AwsHeaders, AwsResponse } from './transport.ts';

export interface JsonProtocolOptions {
  /** `<prefix>` of X-Amz-Target (`DynamoDB_20120810`, `AmazonSQS`). */
  targetPrefix: string;
  /** For a query-compatible service: Query API codes whose modeled error has another name. */
  queryErrors?: Readonly<Record<string, string>>;
  /** Error codes the service's model marks retryable (the SDK's `$retryable`). */
  retryableErrors?: readonly string[];
}

export type JsonCall = <T = Record<string, unknown>>(
  operation: string,
  input: object,
  /** Where the request goes (SQS sends to the queue URL's origin); the endpoint by default. */
  origin?: string,
) => Promise<T>;

export function createJsonProtocol(http: AwsHttp, options: JsonProtocolOptions): JsonCall {
  const queryCompatible = options.queryErrors !== undefined;
  const reader = {
    async ok(response: AwsResponse) {
      const text = await response.text();
      return text ? JSON.parse(text) : {};
    },
    error: (response: AwsResponse) => parseJsonError(response, options),
  };
  // async: a missing region throws at `http.endpoint`, which must reject, not throw.
  return async (operation, input, origin) =>
    http.send(
      {
        method: 'POST',
        url: `${origin ?? http.endpoint}/`,
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': `${options.targetPrefix}.${operation}`,
          ...(queryCompatible && { 'x-amzn-query-mode': 'true' }),
        },
        body: JSON.stringify(input),
      },
      reader,
    );
}

/** The SDK's sanitizeErrorCode: `ns#Name:uri,more` → `Name`. */
function sanitize(raw: unknown): string {
  let value = String(raw);
  if (value.includes(',')) value = value.split(',')[0] ?? '';
  if (value.includes(':')) value = value.split(':')[0] ?? '';
  if (value.includes('#')) value = value.split('#')[1] ?? '';
  return value;
}

function errorCode(
  body: Record<string, unknown>,
  headers: AwsHeaders,
  queryCompatible: boolean,
): string | undefined {
  const fromType = () => (body.__type !== undefined ? sanitize(body.__type) : undefined);
  const fromCode = () => {
    const key = Object.keys(body).find((k) => k.toLowerCase() === 'code');
    return key && body[key] !== undefined ? sanitize(body[key]) : undefined;
  };
  const fromHeader = () => {
    const header = headers.get('x-amzn-errortype');
    return header === null ? undefined : sanitize(header);
  };
  return queryCompatible
    ? (fromCode() ?? fromHeader() ?? fromType())
    : (fromType() ?? fromCode() ?? fromHeader());
}

export async function parseJsonError(
  response: AwsResponse,
  options: Pick<JsonProtocolOptions, 'queryErrors' | 'retryableErrors'> = {},
): Promise<AwsError> {
  const requestId =
    response.headers.get('x-amzn-requestid') ??
    response.headers.get('x-amzn-request-id') ??
    response.headers.get('x-amz-request-id') ??
    undefined;
  const text = await response.text().catch(() => '');
  let parsed: unknown = {};
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch (error) {
    // Not JSON (a proxy's page): the SDK's deserializer fails with the parser's SyntaxError;
    // the status still decides whether it is tried again.
    return new AwsError('SyntaxError', (error as Error).message, response.status, requestId);
  }
  const body: Record<string, unknown> =
    parsed && typeof parsed === 'object' ? { ...(parsed as Record<string, unknown>) } : {};
  const queryError = response.headers.get('x-amzn-query-error');
  if (options.queryErrors && queryError !== null) {
    const [Code, Type] = queryError.split(';');
    Object.assign(body, { Code, Type });
  }
  const code = errorCode(body, response.headers, options.queryErrors !== undefined) ?? 'Unknown';
  const name = options.queryErrors?.[code] ?? code;
  const { __type, message, Message, ...details } = body;
  const said = message ?? Message;
  const error = new AwsError(
    name,
    said === undefined ? 'UnknownError' : String(said),
    response.status,
    requestId,
    details,
  );
  if (options.retryableErrors?.includes(name)) error.$retryable = {};
  return error;
}
