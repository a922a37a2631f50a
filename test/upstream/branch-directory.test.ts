/**
 * An account's branch directory (functions/upstream/branch-directory.ts): configured names
 * first, then the names the debtors report taught, read through a short cache so the intake
 * does not read per lead; and the learned names' item on a real ledger table (dynalite).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DebtorsSnapshot } from '../../functions/domain/debtors-report.ts';
import {
  branchesOf,
  createBranchDirectory,
  type LearnedBranchNames,
  type LearnedNames,
  learnedNames,
} from '../../functions/upstream/branch-directory.ts';
import {
  branchNamesKey,
  dynamoBranchNames,
} from '../../functions/upstream/branch-names-dynamodb.ts';
import { startTestDynamo, type TestDynamo } from '../helpers/dynalite.ts';

const CONFIGURED = [
  { idBranch: 1, account: 'default', name: 'Centro', aliases: ['Sé'] },
  { idBranch: 2, account: 'default', name: 'Moema' },
  { idBranch: 7, account: 'south', name: 'Batel' },
];

/** Learned names kept in memory, counting the reads. */
function memoryNames(initial: Record<string, LearnedNames> = {}) {
  const kept = { ...initial };
  let reads = 0;
  let failing = false;
  const names: LearnedBranchNames = {
    async read(account) {
      reads += 1;
      if (failing) throw new Error('table unavailable');
      return kept[account] ?? {};
    },
    async write(account, learned) {
      kept[account] = learned;
    },
  };
  return {
    names,
    reads: () => reads,
    fail: (value: boolean) => {
      failing = value;
    },
  };
}

describe('learned branch names', () => {
  it('are the names the report’s branches carry, by branch id', () => {
    const snapshot = {
      byBranch: [
        { branchId: 1, branchName: 'Unidade Centro' },
        { branchId: 3, branchName: ' Unidade Savassi ' },
        { branchId: 4 },
      ],
    } as unknown as Pick<DebtorsSnapshot, 'byBranch'>;
    expect(learnedNames(snapshot)).toEqual({ 1: 'Unidade Centro', 3: 'Unidade Savassi' });
  });
});

describe('an account’s branch directory', () => {
  it('lists the account’s configured branches, then the learned ones; a configured name wins', async () => {
    // Prepare
    const { names } = memoryNames({ default: { 2: 'Unidade Moema', 3: 'Unidade Savassi' } });
    const directory = createBranchDirectory({ configured: async () => CONFIGURED, learned: names });

    // Act
    const branches = await directory('default');

    // Assess
    expect(branches).toEqual([
      { idBranch: 1, account: 'default', name: 'Centro', aliases: ['Sé'] },
      { idBranch: 2, account: 'default', name: 'Moema' },
      { idBranch: 3, account: 'default', name: 'Unidade Savassi' },
    ]);
    expect(await directory('south')).toEqual([{ idBranch: 7, account: 'south', name: 'Batel' }]);
  });

  it('reads the learned names once per account within its cache life, again after it', async () => {
    // Prepare
    let now = 1_000_000;
    const learned = memoryNames({ default: { 3: 'Unidade Savassi' } });
    const directory = createBranchDirectory({
      configured: async () => CONFIGURED,
      learned: learned.names,
      ttlMs: 60_000,
      now: () => now,
    });

    // Act
    for (let lead = 0; lead < 20; lead++) await directory('default');
    const readsWithinTtl = learned.reads();
    await learned.names.write('default', { 3: 'Unidade Savassi', 4: 'Unidade Batel' });
    const beforeExpiry = await directory('default');
    now += 60_000;
    const afterExpiry = await directory('default');

    // Assess
    expect(readsWithinTtl).toBe(1);
    expect(beforeExpiry.map((b) => b.idBranch)).toEqual([1, 2, 3]);
    expect(afterExpiry.map((b) => b.idBranch)).toEqual([1, 2, 3, 4]);
    expect(learned.reads()).toBe(2);
  });

  it('keeps the configured names and the last list read when the learned ones cannot be read', async () => {
    // Prepare
    let now = 0;
    const learned = memoryNames({ default: { 3: 'Unidade Savassi' } });
    const errors: string[] = [];
    const directory = createBranchDirectory({
      configured: async () => CONFIGURED,
      learned: learned.names,
      ttlMs: 1_000,
      now: () => now,
      onLearnedError: ({ account }) => errors.push(account),
    });
    await directory('default');

    // Act
    learned.fail(true);
    now += 1_000;
    const kept = await directory('default');
    const neverRead = await directory('south');

    // Assess
    expect(kept.map((b) => b.name)).toEqual(['Centro', 'Moema', 'Unidade Savassi']);
    expect(neverRead.map((b) => b.name)).toEqual(['Batel']);
    expect(errors).toEqual(['default', 'south']);
  });

  it('is no branches at all for a caller given no directory', async () => {
    expect(await branchesOf(undefined, 'default')).toEqual([]);
  });
});

describe('the learned names’ item in the ledger table', () => {
  let dynamo: TestDynamo;
  beforeAll(async () => {
    dynamo = await startTestDynamo();
  });
  afterAll(() => dynamo?.close());

  it('is written per account and read back; an account never written reads as none', async () => {
    // Prepare
    const tableName = await dynamo.createLedgerTable();
    const names = dynamoBranchNames({ client: dynamo.client, tableName });

    // Act
    await names.write('default', { 1: 'Unidade Centro', 3: 'Unidade Savassi' });
    await names.write('south', { 7: 'Unidade Batel' });
    await names.write('default', { 3: 'Unidade Savassi' });

    // Assess
    expect(await names.read('default')).toEqual({ 3: 'Unidade Savassi' });
    expect(await names.read('south')).toEqual({ 7: 'Unidade Batel' });
    expect(await names.read('north')).toEqual({});
    const item = await dynamo.client.get({
      TableName: tableName,
      Key: { pk: branchNamesKey('south') },
    });
    expect(item.Item).toMatchObject({ pk: 'branches#south', kind: 'branch-names' });
  });
});
