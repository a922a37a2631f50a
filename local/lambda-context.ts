/**
 * A stand-in for the Lambda runtime around one invocation: the `Context` object the Node.js
 * runtime passes to a handler, and the call itself (async or callback style) bounded by the
 * function's timeout.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Callback, Context, Handler } from 'aws-lambda';

export const LOCAL_ACCOUNT_ID = '123456789012';

export interface LambdaContextOptions {
  functionName: string;
  timeoutMs: number;
  /** Default 128, Lambda's minimum. */
  memoryMb?: number;
  awsRequestId?: string;
  /** Default AWS_REGION, else us-east-1. */
  region?: string;
  /** Start of the invocation (ms since the epoch); default now. */
  startedAt?: number;
}

function logStreamName(startedAt: number): string {
  const day = new Date(startedAt).toISOString().slice(0, 10).replaceAll('-', '/');
  return `${day}/[$LATEST]${randomBytes(16).toString('hex')}`;
}

/** The Context of one invocation; getRemainingTimeInMillis counts down from the timeout. */
export function createLambdaContext(options: LambdaContextOptions): Context {
  const startedAt = options.startedAt ?? Date.now();
  const deadline = startedAt + options.timeoutMs;
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const outside = () => {
    throw new Error('context.done/fail/succeed only work inside invokeHandler');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: options.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${LOCAL_ACCOUNT_ID}:function:${options.functionName}`,
    memoryLimitInMB: String(options.memoryMb ?? 128),
    awsRequestId: options.awsRequestId ?? randomUUID(),
    logGroupName: `/aws/lambda/${options.functionName}`,
    logStreamName: logStreamName(startedAt),
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: outside,
    fail: outside,
    succeed: outside,
  };
}

/** The handler did not finish within its timeout. */
export class LambdaTimeoutError extends Error {
  override readonly name = 'LambdaTimeoutError';

  constructor(readonly timeoutMs: number) {
    super(`Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`);
  }
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Runs a handler as the Node.js runtime does: a returned promise, or else the callback, gives
 * the result. Rejects with the handler's error, or LambdaTimeoutError after `timeoutMs`.
 * The handler itself cannot be stopped: it keeps running in this process after a timeout.
 */
export function invokeHandler<TEvent, TResult>(
  handler: Handler<TEvent, TResult>,
  event: TEvent,
  context: Context,
  timeoutMs: number,
): Promise<TResult> {
  return new Promise<TResult>((resolve, reject) => {
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      finish();
    };
    const timer = setTimeout(
      () => settle(() => reject(new LambdaTimeoutError(timeoutMs))),
      timeoutMs,
    );
    const callback: Callback<TResult> = (error, result) =>
      settle(() => {
        if (error) reject(toError(error));
        else resolve(result as TResult);
      });
    // The deprecated completion methods still work in the Node.js 20 runtime.
    const invocation: Context = {
      ...context,
      done: (error, result) => callback(error, result),
      fail: (error) => callback(error),
      succeed: (result: unknown) => callback(null, result as TResult),
    };
    try {
      const returned = handler(event, invocation, callback);
      if (returned && typeof returned.then === 'function') {
        returned.then(
          (result) => settle(() => resolve(result)),
          (error: unknown) => settle(() => reject(toError(error))),
        );
      }
    } catch (error) {
      settle(() => reject(toError(error)));
    }
  });
}
