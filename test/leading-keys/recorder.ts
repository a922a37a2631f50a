/**
 * A vitest setup file (test/leading-keys/record.config.ts): every DynamoDB request the code under
 * test sends through the SDK's document client is appended to LEADS_KEYS_RECORD as one JSON line:
 * the IAM action it needs, the table, the index, the partition keys (`pk`) it names, and which
 * function's code sent it, read from the request's call stack (V8 keeps the awaiting async
 * callers): the innermost frame in a function's own folder (functions/intake/,
 * functions/delivery/forward/, ...; ledger/, upstream/, kernel/ are modules every function shares).
 * A request no function's code sent (a test preparing its data, or test code a function was
 * handed and called) is recorded with no function, and where it came from.
 */
import { appendFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const REPO_ROOT = join(import.meta.dirname, '..', '..');

/** A function's folders under functions/, innermost first where they nest. */
export const FUNCTION_FOLDERS: Readonly<Record<string, string>> = {
  'functions/intake/': 'intake',
  'functions/delivery/forward/': 'forwarder',
  'functions/delivery/service-local.ts': 'forwarder',
  'functions/delivery/reconcile/': 'reconciler',
  'functions/admin/': 'admin',
  'functions/report/refresh/': 'report-refresher',
  'functions/report/serve/': 'report',
  'functions/watch/': 'watch',
  'functions/authorizer/': 'authorizer',
  'functions/openapi/': 'openapi',
  'functions/config/validator/': 'config-validator',
};

/** The lib-dynamodb command → the IAM action (and each item of a batch or transaction). */
const ACTIONS: Record<string, string> = {
  GetCommand: 'dynamodb:GetItem',
  PutCommand: 'dynamodb:PutItem',
  UpdateCommand: 'dynamodb:UpdateItem',
  DeleteCommand: 'dynamodb:DeleteItem',
  QueryCommand: 'dynamodb:Query',
  ScanCommand: 'dynamodb:Scan',
  BatchGetCommand: 'dynamodb:BatchGetItem',
  BatchWriteCommand: 'dynamodb:BatchWriteItem',
  TransactGetCommand: 'dynamodb:GetItem',
  TransactWriteCommand: 'dynamodb:TransactWriteItems',
};

export interface Touch {
  fn?: string;
  action: string;
  table: string;
  index?: string;
  /** The partition keys (`pk`) the request names; a query's are its index's, not recorded. */
  keys: string[];
  /** Where the request came from (the function's frame, or the innermost project frame). */
  at?: string;
}

type Item = Record<string, unknown>;
const pk = (item: unknown): string[] => {
  const value = (item as Item | undefined)?.pk;
  return typeof value === 'string' ? [value] : [];
};

/** One touch per table and action of a command's input. */
export function touchesOf(command: string, input: Item): Touch[] {
  const action = ACTIONS[command] ?? `dynamodb:${command.replace(/Command$/, '')}`;
  if (command === 'BatchGetCommand') {
    return Object.entries((input.RequestItems ?? {}) as Record<string, { Keys: Item[] }>).map(
      ([table, { Keys }]) => ({ action, table, keys: Keys.flatMap(pk) }),
    );
  }
  if (command === 'BatchWriteCommand') {
    return Object.entries((input.RequestItems ?? {}) as Record<string, Item[]>).flatMap(
      ([table, requests]) =>
        requests.map((r) => {
          const put = r.PutRequest as { Item: Item } | undefined;
          const del = r.DeleteRequest as { Key: Item } | undefined;
          return {
            action: put ? 'dynamodb:PutItem' : 'dynamodb:DeleteItem',
            table,
            keys: pk(put?.Item ?? del?.Key),
          };
        }),
    );
  }
  if (command === 'TransactWriteCommand' || command === 'TransactGetCommand') {
    const kinds: Record<string, string> = {
      Put: 'dynamodb:PutItem',
      Update: 'dynamodb:UpdateItem',
      Delete: 'dynamodb:DeleteItem',
      ConditionCheck: 'dynamodb:ConditionCheckItem',
      Get: 'dynamodb:GetItem',
    };
    return ((input.TransactItems ?? []) as Item[]).flatMap((entry) =>
      Object.entries(entry).map(([kind, op]) => {
        const o = op as { TableName: string; Key?: Item; Item?: Item };
        return { action: kinds[kind] ?? kind, table: o.TableName, keys: pk(o.Key ?? o.Item) };
      }),
    );
  }
  const table = String(input.TableName);
  if (command === 'QueryCommand' || command === 'ScanCommand') {
    const index = typeof input.IndexName === 'string' ? input.IndexName : undefined;
    return [{ action, table, ...(index !== undefined && { index }), keys: [] }];
  }
  return [{ action, table, keys: pk(input.Key ?? input.Item) }];
}

/** The function whose code is on the stack (innermost first), and the frame that says so. */
export function callerOf(stack: string): { fn?: string; at?: string } {
  const files: string[] = [];
  for (const line of stack.split('\n').slice(1)) {
    const path = /\(?((?:file:\/\/)?\/[^():]+\.ts):\d+:\d+\)?\s*$/.exec(line)?.[1];
    if (!path) continue;
    const file = relative(REPO_ROOT, path.replace(/^file:\/\//, ''));
    if (file.startsWith('test/leading-keys/') || file.startsWith('node_modules/')) continue;
    if (files.at(-1) !== file) files.push(file);
    // Test code the function was handed (a stand-in worker in its sleep): the test's request.
    if (file.startsWith('test/')) break;
    for (const [folder, fn] of Object.entries(FUNCTION_FOLDERS)) {
      if (file.startsWith(folder)) return { fn, at: file };
    }
  }
  return files.length === 0 ? {} : { at: files.slice(0, 6).join(' < ') };
}

const target = process.env.LEADS_KEYS_RECORD;
if (target) {
  Error.stackTraceLimit = 200;
  const send = DynamoDBDocumentClient.prototype.send;
  // biome-ignore lint/suspicious/noExplicitAny: the client's overloads, passed on as they are.
  DynamoDBDocumentClient.prototype.send = function recorded(this: any, ...args: any[]) {
    const command = args[0] as { constructor: { name: string }; input: Item };
    const caller = callerOf(new Error().stack ?? '');
    const lines = touchesOf(command.constructor.name, command.input).map(
      (touch) => `${JSON.stringify({ ...touch, ...caller })}\n`,
    );
    appendFileSync(target, lines.join(''));
    return send.apply(this, args as never);
  } as typeof send;
}
