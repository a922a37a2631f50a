/**
 * What the local runtime (local/runtime.ts) started for in-process handlers: the local DynamoDB
 * and the table names. Handlers reach it through their local wiring; a Lambda never imports
 * this module (its bundle leaves the local wirings out: infra/constructs/node-function.ts).
 */
import type { DynamoDb } from './dynamodb-aws.ts';

export interface LocalServices {
  dynamo: DynamoDb;
  ledgerTable: string;
  queueTable: string;
  /** Receives before a message moves to the dead-letter queue (SQS's maxReceiveCount). */
  maxReceiveCount: number;
  /** The ledger's wake grace; lead-ledger.ts DEFAULT_WAKE_GRACE_MS when absent. */
  wakeGraceMs?: number;
  /**
   * The secret that salts the ledger's erasure tombstones, kept under DATA_DIR
   * (ledger/erasure-salt-local.ts); without it the local ledger cannot record leads.
   */
  erasureSalt?: string;
  /** DATA_DIR: what the runtime keeps on disk (the profiles' rotated secrets among it). */
  dataDir?: string;
}

let services: LocalServices | undefined;

export function setLocalServices(value: LocalServices | undefined): void {
  services = value;
}

/** DATA_DIR while the local runtime runs; undefined otherwise (a Lambda, a unit test). */
export function localDataDir(): string | undefined {
  return services?.dataDir;
}

export function localServices(): LocalServices {
  if (!services) throw new Error('the local runtime has not started its services');
  return services;
}
