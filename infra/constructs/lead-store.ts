/**
 * The lead ledger's DynamoDB table, built from LEDGER_TABLE_DEFINITION (the same shape the
 * local runtime creates in dynalite): partition key `pk`, the sparse status index `gsi1`, TTL
 * on `expiresAt`, on-demand capacity.
 *
 * Leads are never lost to a deploy: point-in-time recovery is on (35 days), deletion
 * protection is switched on by `npm run deploy` after the first create, and it is retained when the stack is deleted or the table replaced
 * (`RetainExceptOnCreate`: only the create that made it, if it fails, takes it back, empty).
 * Encrypted with the AWS managed key (`aws/dynamodb`): no key to manage or grant, and its use
 * shows in CloudTrail.
 *
 * Grants are per role and least privilege: each one lists exactly the DynamoDB actions the
 * ledger operations of that role send (functions/ledger/lead-ledger-dynamodb.ts), on the table
 * (and, for listing, on the status index only), and gives the function LEDGER_TABLE_NAME. The
 * table also holds the account-wide upstream pacer item (functions/upstream/pacer-dynamodb.ts):
 * grantPacer gives a function that item alone; and each account's learned branch names
 * (functions/upstream/branch-names-dynamodb.ts): grantBranchNames lets the refresher
 * write those items alone (every function with the table's GetItem reads them).
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Grant } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { AUTH_THROTTLE_KEY_PREFIX } from '../../functions/kernel/auth-throttle.ts';
import { AUTH_THROTTLE_ACTIONS } from '../../functions/kernel/auth-throttle-dynamodb.ts';
import { ENV } from '../../functions/kernel/env.ts';
import { ERASED_KEY_PREFIX, SUBJECT_KEY_PREFIX } from '../../functions/ledger/erasure-dynamodb.ts';
import {
  DEDUP_KEY_PREFIX,
  type DynamoTableDefinition,
  LEAD_KEY_PREFIX,
  LEDGER_DUE_INDEX,
  LEDGER_STATUS_INDEX,
  LEDGER_TABLE_DEFINITION,
} from '../../functions/ledger/lead-item-dynamodb.ts';
import { BRANCH_NAMES_KEY_PREFIX } from '../../functions/upstream/branch-names-dynamodb.ts';
import { circuitKey } from '../../functions/upstream/circuit-dynamodb.ts';
import { UPSTREAM_PACER_KEY } from '../../functions/upstream/pacer-dynamodb.ts';

/**
 * The DynamoDB actions each ledger operation sends (lead-ledger-dynamodb.ts):
 * - `record()`: BatchGetItem of the lead's two erasure tombstones (`erased#`), UpdateItem of its
 *   subject items (`subject#`), conditional PutItem of the dedup item and of the lead item;
 *   GetItem of the dedup item and of the lead (duplicates, crash recovery);
 * - an erasure (`redact()`): UpdateItem of the tombstones, the dedup item, the lead and its
 *   subject items;
 * - `get()`: GetItem (consistent read);
 * - transitions (`claim`, `markDelivered`, `markRejected`, `release`, `markDead`,
 *   `markParked`, `requeue`): one conditional UpdateItem, then GetItem to explain a refusal;
 * - `listByStatus()`: Query on the status index; `listDue()` and `countInFlight()`: Query on
 *   the due index;
 * - the upstream circuit (circuit-dynamodb.ts): GetItem and a conditional PutItem of its item.
 * No operation scans or deletes (the TTL deletes).
 */
export const LEDGER_ACTIONS = {
  /** get() and record()'s reads on the table; its writes are INTAKE_KEYED_ACTIONS. */
  intake: ['dynamodb:GetItem'],
  /** get() + the delivery transitions (the circuit's PutItem is granted on its item only). */
  forwarder: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
  /** get() + requeue/wake on the table; the listings on the indexes (LEDGER_INDEX_ACTIONS). */
  admin: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
  /** get() + wake() on the table; listDue() on the due index. */
  reconciler: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
} as const;

/**
 * What `record()` may do to items of some kinds only (`dynamodb:LeadingKeys`): put lead and dedup
 * items (never a tombstone, a subject, the pacer or the circuit), add to subject items, and read
 * tombstones in a batch (it never writes one: only an erasure, with the admin's grant, does).
 */
export const INTAKE_KEYED_ACTIONS = [
  { actions: ['dynamodb:PutItem'], keys: [`${LEAD_KEY_PREFIX}*`, `${DEDUP_KEY_PREFIX}*`] },
  { actions: ['dynamodb:UpdateItem'], keys: [`${SUBJECT_KEY_PREFIX}*`] },
  { actions: ['dynamodb:BatchGetItem'], keys: [`${ERASED_KEY_PREFIX}*`] },
] as const;

const PACER_KEYS = [UPSTREAM_PACER_KEY, `${UPSTREAM_PACER_KEY}#*`];
const CIRCUIT_KEYS = [circuitKey(), `${circuitKey()}#*`];
const BRANCH_NAMES_KEYS = [`${BRANCH_NAMES_KEY_PREFIX}*`];

/**
 * The items each role's LEDGER_ACTIONS may touch (`dynamodb:LeadingKeys`): no function may read
 * or write the whole table, so none can rewrite an erasure tombstone (`erased#`) it has no
 * business with, the sign-in counters (`authfail#`, the authorizer's) or the report lease.
 * - intake: reads leads and dedup items (duplicates, crash recovery) and the learned branch
 *   names;
 * - forwarder: reads leads, branch names and the pacer; moves leads through delivery, adds a
 *   mapped lead to its subject items (saveMapping) and takes pacer slots;
 * - admin: reads leads, dedup items, subject items (an erasure by subject), branch names, the
 *   pacer and the circuit (upstream health); updates leads, subject items, dedup items and
 *   tombstones (requeue, corrections, erasures);
 * - reconciler: reads leads; wakes them, and the retention's redact() updates the lead, its
 *   dedup item, its subject items and its tombstones.
 */
export const LEDGER_KEYS = {
  intake: {
    'dynamodb:GetItem': [`${LEAD_KEY_PREFIX}*`, `${DEDUP_KEY_PREFIX}*`, ...BRANCH_NAMES_KEYS],
  },
  forwarder: {
    'dynamodb:GetItem': [`${LEAD_KEY_PREFIX}*`, ...BRANCH_NAMES_KEYS, ...PACER_KEYS],
    'dynamodb:UpdateItem': [`${LEAD_KEY_PREFIX}*`, `${SUBJECT_KEY_PREFIX}*`, ...PACER_KEYS],
  },
  admin: {
    'dynamodb:GetItem': [
      `${LEAD_KEY_PREFIX}*`,
      `${DEDUP_KEY_PREFIX}*`,
      `${SUBJECT_KEY_PREFIX}*`,
      ...BRANCH_NAMES_KEYS,
      ...PACER_KEYS,
      ...CIRCUIT_KEYS,
    ],
    'dynamodb:UpdateItem': [
      `${LEAD_KEY_PREFIX}*`,
      `${DEDUP_KEY_PREFIX}*`,
      `${SUBJECT_KEY_PREFIX}*`,
      `${ERASED_KEY_PREFIX}*`,
    ],
  },
  reconciler: {
    'dynamodb:GetItem': [`${LEAD_KEY_PREFIX}*`],
    'dynamodb:UpdateItem': [
      `${LEAD_KEY_PREFIX}*`,
      `${DEDUP_KEY_PREFIX}*`,
      `${SUBJECT_KEY_PREFIX}*`,
      `${ERASED_KEY_PREFIX}*`,
    ],
  },
} as const satisfies Record<keyof typeof LEDGER_ACTIONS, Record<string, readonly string[]>>;

/** Actions on the indexes: only the listings read them. */
export const LEDGER_INDEX_ACTIONS = ['dynamodb:Query'] as const;

/** The circuit item's actions (circuit-dynamodb.ts): read it, replace it conditionally. */
export const CIRCUIT_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem'] as const;

/**
 * The DynamoDB actions of the account-wide upstream pacer (pacer-dynamodb.ts): conditional
 * UpdateItem to take a slot or pause the schedule, GetItem (consistent) to read it back.
 */
export const PACER_ACTIONS = ['dynamodb:GetItem', 'dynamodb:UpdateItem'] as const;

/** The learned branch names' writer (the refresher): PutItem of those items only. */
export const BRANCH_NAMES_ACTIONS = ['dynamodb:PutItem'] as const;

/** A lease item's actions: take, renew or release it with a conditional UpdateItem, read it. */
export const LEASE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:UpdateItem'] as const;

const ATTRIBUTE_TYPES = {
  S: AttributeType.STRING,
  N: AttributeType.NUMBER,
  B: AttributeType.BINARY,
} as const;

const PROJECTIONS = { ALL: ProjectionType.ALL, KEYS_ONLY: ProjectionType.KEYS_ONLY } as const;

type KeyDefinition = DynamoTableDefinition['partitionKey'];

function attribute(key: KeyDefinition) {
  return { name: key.name, type: ATTRIBUTE_TYPES[key.type] };
}

export class LeadStore extends Construct {
  readonly table: Table;
  /** ARN of the status index (`<table ARN>/index/gsi1`): the admin's listings. */
  readonly statusIndexArn: string;
  /** ARN of the due index (`<table ARN>/index/gsi2`): the reconciler's and the backlog count. */
  readonly dueIndexArn: string;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const definition: DynamoTableDefinition = LEDGER_TABLE_DEFINITION;

    this.table = new Table(this, 'Table', {
      partitionKey: attribute(definition.partitionKey),
      ...(definition.sortKey && { sortKey: attribute(definition.sortKey) }),
      billingMode: BillingMode.PAY_PER_REQUEST,
      ...(definition.timeToLiveAttribute && {
        timeToLiveAttribute: definition.timeToLiveAttribute,
      }),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      // No deletion protection here: a failed first create must delete its empty table as it
      // rolls back (RetainExceptOnCreate), which protection would refuse (ROLLBACK_FAILED).
      // `npm run deploy` switches it on after each successful deploy
      // (scripts/stack-protection.ts); the template leaves the property out, so CloudFormation
      // never switches it off again.
      // Retained on stack deletion and on replacement: a lead is never lost to a deploy. A
      // failed first create takes back the (empty) table it made, so a retry starts clean.
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });
    for (const index of definition.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: attribute(index.partitionKey),
        ...(index.sortKey && { sortKey: attribute(index.sortKey) }),
        projectionType: PROJECTIONS[index.projection],
      });
    }
    this.statusIndexArn = `${this.table.tableArn}/index/${LEDGER_STATUS_INDEX}`;
    this.dueIndexArn = `${this.table.tableArn}/index/${LEDGER_DUE_INDEX}`;
  }

  /**
   * The intake: record() and get() only. GetItem on the table; PutItem of lead and dedup items,
   * UpdateItem of subject items (the lead's id added: it cannot change a lead) and BatchGetItem
   * of erasure tombstones, each restricted by `dynamodb:LeadingKeys` (INTAKE_KEYED_ACTIONS): it
   * can neither write nor overwrite a tombstone, so no request can undo an erasure.
   */
  grantIntake(fn: LambdaFunction): void {
    this.bind(fn);
    this.grantTable(fn, 'intake');
    for (const { actions, keys } of INTAKE_KEYED_ACTIONS) this.grantItems(fn, actions, [...keys]);
  }

  /**
   * The forwarder: get() and the delivery transitions (GetItem, UpdateItem on the table), the
   * upstream circuit's item (PutItem restricted to it by `dynamodb:LeadingKeys`), and
   * listWaiting() (Query on the due index only: the attempt that closes a circuit wakes the
   * leads that waited for it, functions/delivery/waiting.ts).
   */
  grantForwarder(fn: LambdaFunction): void {
    this.bind(fn);
    this.grantTable(fn, 'forwarder');
    this.grantItems(fn, CIRCUIT_ACTIONS, [circuitKey(), `${circuitKey()}#*`]);
    Grant.addToPrincipal({
      grantee: fn,
      actions: [...LEDGER_INDEX_ACTIONS],
      resourceArns: [this.dueIndexArn],
    });
  }

  /**
   * The admin API: get(), requeue/wake, corrections and erasures (GetItem, UpdateItem on the
   * table: an erasure's tombstones are UpdateItems; GetItem reads the circuit and pacer items
   * too) and the listings (Query on the two indexes only; never on the table, so no one lists by
   * `pk`). Its backfill records leads with the intake's grant (routes.ts `ledger:intake`).
   */
  grantAdmin(fn: LambdaFunction): void {
    this.bind(fn);
    this.grantTable(fn, 'admin');
    Grant.addToPrincipal({
      grantee: fn,
      actions: [...LEDGER_INDEX_ACTIONS],
      resourceArns: [this.statusIndexArn, this.dueIndexArn],
    });
  }

  /**
   * The reconciler: listDue() (Query on the due index), wake() (UpdateItem) and reads of the
   * leads and of the circuit item (GetItem); the circuit's item written (PutItem restricted to it
   * by `dynamodb:LeadingKeys`) to release a probe's carrier that was settled another way; and the
   * personal-data retention: the old parked, dead and test leads (Query on the status index) and
   * redact() (UpdateItem).
   */
  grantReconciler(fn: LambdaFunction): void {
    this.bind(fn);
    this.grantTable(fn, 'reconciler');
    this.grantItems(fn, CIRCUIT_ACTIONS, [circuitKey(), `${circuitKey()}#*`]);
    Grant.addToPrincipal({
      grantee: fn,
      actions: [...LEDGER_INDEX_ACTIONS],
      resourceArns: [this.dueIndexArn, this.statusIndexArn],
    });
  }

  /**
   * The quiet-profile watch: listRecent() only (Query on the status index); no table access, so
   * it can neither read a lead by id nor change one.
   */
  grantWatch(fn: LambdaFunction): void {
    this.bind(fn);
    Grant.addToPrincipal({
      grantee: fn,
      actions: [...LEDGER_INDEX_ACTIONS],
      resourceArns: [this.statusIndexArn],
    });
  }

  /**
   * A function that only paces its upstream calls (the report refresher): GetItem and
   * UpdateItem on the table, restricted by `dynamodb:LeadingKeys` to the pacer item
   * (`pacer#upstream`, `pacer#upstream#<account>`), so it can neither read nor change a lead. The forwarder needs no extra
   * grant: its own covers the pacer item.
   */
  grantPacer(fn: LambdaFunction): void {
    this.bind(fn);
    this.grantItems(fn, PACER_ACTIONS, [UPSTREAM_PACER_KEY, `${UPSTREAM_PACER_KEY}#*`]);
  }

  /**
   * The refresher records each account's learned branch names: PutItem restricted by
   * `dynamodb:LeadingKeys` to the `branches#<account>` items, so it can neither read nor change
   * a lead (the readers' GetItem on the table covers those items).
   */
  grantBranchNames(fn: LambdaFunction): void {
    this.bind(fn);
    this.grantItems(fn, BRANCH_NAMES_ACTIONS, [`${BRANCH_NAMES_KEY_PREFIX}*`]);
  }

  /**
   * A lease item of the table (`key`, e.g. the report refresher's `lease#report-refresh`):
   * GetItem and UpdateItem restricted to that one key by `dynamodb:LeadingKeys`, so the holder can
   * neither read nor change anything else.
   */
  grantLease(fn: LambdaFunction, key: string): void {
    this.bind(fn);
    this.grantItems(fn, LEASE_ACTIONS, [key]);
  }

  /**
   * The Basic-auth authorizer: the failed-sign-in counters and familiar addresses
   * (kernel/auth-throttle-dynamodb.ts), GetItem and UpdateItem restricted by
   * `dynamodb:LeadingKeys` to the keys that start with `authfail#`, so it can neither read nor
   * change a lead.
   */
  grantAuthThrottle(fn: LambdaFunction): void {
    this.bind(fn);
    Grant.addToPrincipal({
      grantee: fn,
      actions: [...AUTH_THROTTLE_ACTIONS],
      resourceArns: [this.table.tableArn],
      conditions: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${AUTH_THROTTLE_KEY_PREFIX}*`] },
      },
    });
  }

  /**
   * `actions` on the table, restricted by `dynamodb:LeadingKeys` to the items `keys` (an item
   * per upstream account: `pacer#upstream` for `default`, `pacer#upstream#<name>` for others).
   */
  private grantItems(fn: LambdaFunction, actions: readonly string[], keys: string[]): void {
    Grant.addToPrincipal({
      grantee: fn,
      actions: [...actions],
      resourceArns: [this.table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': keys } },
    });
  }

  private bind(fn: LambdaFunction): void {
    fn.addEnvironment(ENV.ledgerTable, this.table.tableName);
  }

  /**
   * `role`'s LEDGER_ACTIONS on the table ARN, each on its LEDGER_KEYS only (Table.grant() would
   * add `<table>/index/*` as well and no condition). No KMS
   * statement: the AWS managed key authorises callers through DynamoDB itself.
   */
  private grantTable(fn: LambdaFunction, role: keyof typeof LEDGER_ACTIONS): void {
    const keys: Record<string, readonly string[]> = LEDGER_KEYS[role];
    for (const action of LEDGER_ACTIONS[role]) {
      const items = keys[action];
      if (!items) throw new Error(`LeadStore: no LEDGER_KEYS for ${role}'s ${action}`);
      this.grantItems(fn, [action], [...items]);
    }
  }
}
