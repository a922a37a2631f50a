/**
 * Test helpers for the local gateway: start one on a free loopback port, a raw HTTP client that
 * can repeat headers and send exact bytes, and handlers that echo what they receive.
 */
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { createGateway, type GatewayOptions } from '../../local/gateway.ts';
import type { ProxyHandler } from '../../local/gateway-integration.ts';

export interface TestGateway {
  url: string;
  /** `graceMs` for requests in flight: default 100. */
  close(graceMs?: number): Promise<void>;
}

/** A gateway on 127.0.0.1 and a free port; `binaryMediaTypes` defaults to `[]`. */
export async function startTestGateway(
  options: Partial<GatewayOptions> & Pick<GatewayOptions, 'routes'>,
): Promise<TestGateway> {
  const gateway = createGateway({ binaryMediaTypes: [], ...options });
  const url = await gateway.listen(0);
  return { url, close: (graceMs = 100) => gateway.close(graceMs) };
}

export interface RawResponse {
  status: number;
  /** Node's parsed headers (lower-case names; set-cookie is an array). */
  headers: Record<string, string | string[] | undefined>;
  /** Header names and values as received, in order. */
  rawHeaders: string[];
  body: Buffer;
  text(): string;
  json(): unknown;
}

export interface RawRequest {
  method?: string;
  /** An array value sends the header once per value. */
  headers?: OutgoingHttpHeaders;
  body?: Buffer | string;
}

/** One HTTP request with node:http (fetch would merge repeated headers). */
export function send(url: string, options: RawRequest = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body,
          text: () => body.toString('utf8'),
          json: () => JSON.parse(body.toString('utf8')),
        });
      });
    });
    req.end(options.body);
  });
}

export interface Echo {
  event: APIGatewayProxyEvent;
  context: {
    functionName: string;
    awsRequestId: string;
    memoryLimitInMB: string;
    logGroupName: string;
    invokedFunctionArn: string;
    remainingMs: number;
  };
}

function echoOf(event: APIGatewayProxyEvent, context: Context): Echo {
  return {
    event,
    context: {
      functionName: context.functionName,
      awsRequestId: context.awsRequestId,
      memoryLimitInMB: context.memoryLimitInMB,
      logGroupName: context.logGroupName,
      invokedFunctionArn: context.invokedFunctionArn,
      remainingMs: context.getRemainingTimeInMillis(),
    },
  };
}

/** Answers 200 with the event and a summary of the context as JSON. */
export const echoHandler: ProxyHandler = async (event, context) => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(echoOf(event, context)),
});

/** Answers with the exact request bytes, base64-encoded as a binary response. */
export const bytesHandler: ProxyHandler = async (event) => ({
  statusCode: 200,
  headers: { 'Content-Type': 'application/octet-stream' },
  body: event.isBase64Encoded
    ? (event.body ?? '')
    : Buffer.from(event.body ?? '').toString('base64'),
  isBase64Encoded: true,
});

/** A handler that answers `result` as is (for response-writing tests). */
export function fixedHandler(result: APIGatewayProxyResult): ProxyHandler {
  return async () => result;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
