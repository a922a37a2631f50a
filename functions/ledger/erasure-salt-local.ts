/**
 * The erasure salt on this machine (what Secrets Manager keeps on AWS: erasure-salt-aws.ts): 32
 * random bytes, hex, generated the first time the local runtime starts with a DATA_DIR and kept
 * there (`<DATA_DIR>/erasure-salt`, readable by its owner only), so that the tombstones of the
 * ledger beside it (ledger/erasure-dynamodb.ts) stay recognisable across restarts. Deleting the
 * file makes the local tombstones unrecognisable, as deleting DATA_DIR/dynamodb erases them.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIN_SALT_LENGTH } from './erasure-dynamodb.ts';

/** The file under DATA_DIR that keeps the salt. */
export const ERASURE_SALT_FILE = 'erasure-salt';

/** The salt kept under `dataDir`, generated and written there the first time. */
export function localErasureSalt(dataDir: string): string {
  const path = join(dataDir, ERASURE_SALT_FILE);
  try {
    // `wx`: only if the file does not exist, so two starts at once keep the same salt.
    writeFileSync(path, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const salt = readFileSync(path, 'utf8').trim();
  if (salt.length < MIN_SALT_LENGTH) {
    throw new Error(
      `${path} holds no usable erasure salt (at least ${MIN_SALT_LENGTH} characters): restore it, or delete it to start over (earlier erasures are then no longer recognised)`,
    );
  }
  return salt;
}
