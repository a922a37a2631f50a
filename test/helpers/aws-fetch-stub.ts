/**
 * A `fetch` for tests of the AWS wirings, whose clients (kernel/aws/) call AWS's regional
 * endpoints: JSON-protocol calls (DynamoDB, SQS: `X-Amz-Target`) are recorded with their host,
 * operation and input and answered by `answer` (`{}` by default); anything else goes to `other`.
 * Each recorded call also says whether it was signed (SigV4 `Authorization` header).
 */
import { onTestFinished, vi } from 'vitest';
import { answerAwsRequestsWith } from '../../functions/kernel/aws/transport.ts';

/**
 * For the running test: `fetch` answers the AWS clients' requests (kernel/aws/transport.ts sends
 * them with node:http otherwise) and stands in for the global fetch (the upstream's calls).
 */
export function stubFetch(fetch: typeof globalThis.fetch): void {
  vi.stubGlobal('fetch', fetch);
  answerAwsRequestsWith(fetch);
  onTestFinished(() => answerAwsRequestsWith(undefined));
}
export interface AwsCall {
  host: string;
  operation: string;
  input: Record<string, unknown>;
  signed: boolean;
}

export function awsFetchStub(
  answer: (call: AwsCall) => unknown = () => ({}),
  other: (request: Request) => Promise<Response> = async (request) =>
    new Response(`no stub for ${request.url}`, { status: 599 }),
) {
  const calls: AwsCall[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const target = request.headers.get('x-amz-target');
    if (!target) return other(request);
    const call: AwsCall = {
      host: new URL(request.url).host,
      operation: target.split('.').pop() ?? target,
      input: JSON.parse(await request.text()) as Record<string, unknown>,
      signed: /^AWS4-HMAC-SHA256 Credential=/.test(request.headers.get('authorization') ?? ''),
    };
    calls.push(call);
    return Response.json(answer(call) ?? {}, {
      headers: { 'content-type': 'application/x-amz-json-1.0' },
    });
  };
  return { fetch, calls };
}
