/**
 * The ledger grants' `dynamodb:LeadingKeys` prefixes (infra/constructs/lead-store.ts, LEDGER_KEYS
 * and the item grants) proved from behaviour, not from reading the code: the use-case and flow
 * tests of every function that uses the ledger (FLOW_FILES) run again with a recorder on the
 * SDK's DynamoDB document client (test/leading-keys/recorder.ts), which writes down each request's
 * IAM action, table, index and partition keys, and which function's code sent it (from its call
 * stack). Each request a function sent must be one its role in the synthesized stack allows: an
 * action on the table under a LeadingKeys pattern matching every key it names, or Query on an
 * index it is granted. A request sent by shared code whose caller the stack no longer shows (a
 * detached write) must be allowed for every function that runs that code.
 *
 * What it covers: the operations those tests exercise (intake: recording, duplicates, erasure
 * tombstones, token guessing; forwarder: delivery, retries, pauses, circuits, mappings; reconciler:
 * wakes and retention; admin: listings, requeues, corrections, erasures, backfill, upstream
 * health; report refresher: pacing and learned branch names; watch: listings; authorizer:
 * sign-in counters; the learned branch names read through the local runtime). Not covered: the
 * report refresher's lease (the local runtime keeps it elsewhere; its adapter is tested on its
 * own, test/report/refresh/lease.test.ts) and the reconciler's circuit writes (its tests use an
 * in-memory circuit).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/config.ts';
import { LeadsStack } from '../../infra/leads-stack.ts';
import { reportResult } from '../helpers/results.ts';
import type { Touch } from '../leading-keys/recorder.ts';
import { deployConfig, onlyLogicalId, testApp } from './helpers.ts';

/** The tests whose flows are recorded: each function's use cases, on dynalite. */
const FLOW_FILES = [
  'test/intake/consent.test.ts',
  'test/intake/dedup-window.test.ts',
  'test/intake/erased-redelivery.test.ts',
  'test/intake/token-guessing.test.ts',
  'test/intake/wake-up.test.ts',
  'test/delivery/forward/forward.test.ts',
  'test/delivery/forward/branches.test.ts',
  'test/delivery/forward/circuit-wait.test.ts',
  'test/delivery/reconcile/reconcile.test.ts',
  'test/delivery/reconcile/retention.test.ts',
  'test/admin/admin.test.ts',
  'test/admin/branches.test.ts',
  'test/admin/erasure.test.ts',
  'test/report/refresh/refresh-local.test.ts',
  'test/report/refresh/refresh-shared-pacer.test.ts',
  'test/report/refresh/refresh-branch-names.test.ts',
  'test/watch/quiet-profiles.test.ts',
  // Through the local runtime's handlers and wirings: sign-ins (the authorizer), learned branch
  // names read by the intake, the forwarder and the admin, several accounts' pacers and circuits.
  'test/e2e/admin.test.ts',
  'test/e2e/accounts.test.ts',
  'test/e2e/prospect-wait.test.ts',
];

/** The functions whose code the recorder names, and the ones that must show up. */
const EXERCISED = [
  'intake',
  'forwarder',
  'reconciler',
  'admin',
  'report-refresher',
  'watch',
  'authorizer',
];

/** Shared code a detached write may come from, and the functions that run it. */
const SHARED_CALLERS: Record<string, readonly string[]> = {
  'functions/delivery/waiting.ts': ['forwarder', 'reconciler'],
  'functions/upstream/pacer-dynamodb.ts': ['forwarder', 'report-refresher'],
  'functions/upstream/circuit.ts': ['forwarder', 'reconciler', 'admin'],
};

interface Statement {
  Action: string | string[];
  Resource: unknown;
  Condition?: { 'ForAllValues:StringLike'?: { 'dynamodb:LeadingKeys'?: string[] } };
}

let dir: string;
let touches: Touch[] = [];
let template: Template;
let table: string;
let inner = { code: 0, output: '' };

/** The statements of the role of function `leads-prod-<name>`. */
function statementsOf(name: string): Statement[] {
  const fns = template.findResources('AWS::Lambda::Function') as Record<
    string,
    { Properties: { FunctionName?: string; Role: { 'Fn::GetAtt': [string, string] } } }
  >;
  const fn = Object.values(fns).find((f) => f.Properties.FunctionName === `leads-prod-${name}`);
  if (!fn) throw new Error(`no function leads-prod-${name}`);
  const role = fn.Properties.Role['Fn::GetAtt'][0];
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Array<{
    Properties: { Roles: unknown[]; PolicyDocument: { Statement: Statement[] } };
  }>;
  return policies
    .filter((p) => JSON.stringify(p.Properties.Roles).includes(`"${role}"`))
    .flatMap((p) => p.Properties.PolicyDocument.Statement);
}

/** IAM's StringLike: `*` any run of characters, `?` one. */
function like(pattern: string, value: string): boolean {
  const escaped = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replaceAll('*', '.*').replaceAll('?', '.')}$`).test(value);
}

/** Whether one of `statements` allows `touch` on the ledger table (see the module comment). */
function allows(statements: Statement[], touch: Touch): boolean {
  const tableArn = JSON.stringify({ 'Fn::GetAtt': [table, 'Arn'] });
  return statements.some((s) => {
    if (![s.Action].flat().includes(touch.action)) return false;
    const resources = [s.Resource].flat().map((r) => JSON.stringify(r));
    if (touch.index !== undefined) {
      return resources.some((r) => r.includes(tableArn) && r.includes(`/index/${touch.index}`));
    }
    if (!resources.includes(tableArn)) return false;
    const patterns = s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
    if (patterns === undefined) return true;
    return touch.keys.every((key) => patterns.some((p) => like(p, key)));
  });
}

const kind = (touch: Touch) =>
  touch.index !== undefined ? `index ${touch.index}` : (touch.keys[0] ?? '').replace(/#.*/, '#');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'leads-keys-'));
  const record = join(dir, 'touches.jsonl');
  inner = await new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        join(REPO_ROOT, 'node_modules', 'vitest', 'vitest.mjs'),
        'run',
        '--config',
        'test/leading-keys/record.config.ts',
        // One file at a time, beside the suite's own: dynalite answers slowly on a loaded
        // machine, and a flow test that timed out is tried again rather than failing this one.
        '--maxWorkers=1',
        '--retry=2',
        ...FLOW_FILES,
      ],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, LEADS_KEYS_RECORD: record },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? 1 : 0, output: `${stdout}\n${stderr}`.slice(-4000) }),
    );
  });
  touches = readFileSync(record, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Touch);
  const stack = new LeadsStack(testApp(), 'leads-prod', { config: deployConfig() });
  template = Template.fromStack(stack);
  table = onlyLogicalId(template, 'AWS::DynamoDB::Table');
}, 900_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The requests on ledger tables (those named by a `pk`: the local queue's are SQS's stand-in). */
function ledgerTouches(): Touch[] {
  const ledgers = new Set(touches.filter((t) => t.keys.length > 0).map((t) => t.table));
  return touches.filter((t) => ledgers.has(t.table));
}

/** `<function> <action> <pattern>` of every keyed grant no recorded request of it matched. */
function unusedGrants(): string[] {
  const unused: string[] = [];
  for (const fn of EXERCISED) {
    const own = ledgerTouches().filter((t) => t.fn === fn);
    for (const s of statementsOf(fn)) {
      const patterns = s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? [];
      for (const action of [s.Action].flat().filter((a) => a.startsWith('dynamodb:'))) {
        for (const pattern of patterns) {
          const used = own.some((t) => t.action === action && t.keys.some((k) => like(pattern, k)));
          if (!used) unused.push(`${fn} ${action.replace('dynamodb:', '')} ${pattern}`);
        }
      }
    }
  }
  return unused;
}

describe("the ledger's LeadingKeys grants, from what each function's code sends", () => {
  it('records every flow, each function with requests of its own', () => {
    expect(inner.code, inner.output).toBe(0);
    const byFunction = new Map<string, Set<string>>();
    for (const touch of ledgerTouches()) {
      if (!touch.fn) continue;
      const seen = byFunction.get(touch.fn) ?? new Set<string>();
      seen.add(`${touch.action.replace('dynamodb:', '')} ${kind(touch)}`);
      byFunction.set(touch.fn, seen);
    }
    for (const [fn, seen] of [...byFunction].sort()) {
      reportResult(`${fn}: ${[...seen].sort().join(', ')}`);
    }
    expect([...byFunction.keys()].sort()).toEqual([...EXERCISED].sort());
    // For least privilege: what each role may do that no recorded flow did (some are used by
    // flows no test here drives, see the module comment).
    reportResult(`granted, not used by the recorded flows: ${unusedGrants().join('; ')}`);
  });

  it("allows every request a function sent by that function's role in the template", () => {
    const refused = new Set<string>();
    for (const touch of ledgerTouches()) {
      if (!touch.fn) continue;
      if (!allows(statementsOf(touch.fn), touch)) {
        refused.add(`${touch.fn}: ${touch.action} ${kind(touch)} (from ${touch.at})`);
      }
    }
    expect([...refused]).toEqual([]);
  });

  it('allows a detached write of shared code for every function that runs it, and finds no other request without its function', () => {
    const refused = new Set<string>();
    for (const touch of ledgerTouches()) {
      if (touch.fn || touch.at?.includes('test/')) continue;
      const shared = Object.keys(SHARED_CALLERS).find((file) => touch.at?.includes(file));
      if (!shared) {
        refused.add(`no function on the stack: ${touch.action} ${kind(touch)} (${touch.at})`);
        continue;
      }
      for (const fn of SHARED_CALLERS[shared] ?? []) {
        if (!allows(statementsOf(fn), touch)) {
          refused.add(`${fn}: ${touch.action} ${kind(touch)} (from ${touch.at})`);
        }
      }
    }
    expect([...refused]).toEqual([]);
  });

  it('would refuse a request outside the grants: the forwarder writing a tombstone, the watch reading a lead', () => {
    // A check that passes everything proves nothing: the same rule on requests no role allows.
    const tombstone = { action: 'dynamodb:UpdateItem', table: 'x', keys: ['erased#abc'] };
    const lead = { action: 'dynamodb:GetItem', table: 'x', keys: ['lead#01J'] };
    expect(allows(statementsOf('forwarder'), tombstone)).toBe(false);
    expect(allows(statementsOf('admin'), tombstone)).toBe(true);
    expect(allows(statementsOf('watch'), lead)).toBe(false);
    expect(
      allows(statementsOf('watch'), { ...lead, action: 'dynamodb:Query', index: 'gsi1' }),
    ).toBe(true);
  });
});
