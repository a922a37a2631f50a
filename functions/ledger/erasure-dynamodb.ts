/**
 * What the ledger table keeps for erasure requests (docs/privacy.md), beside the leads
 * (lead-ledger-dynamodb.ts):
 *
 * | item    | pk                                | attributes |
 * |---------|-----------------------------------|------------|
 * | subject | `subject#<sha256(subject)>`       | kind='subject', leadIds (a string set): the leads that named one e-mail, phone or CPF (domain/personal-data.ts); expiresAt once empty |
 * | erased  | `erased#<hmac(salt, mark)>`       | kind='erased', erasedAt, expiresAt: one mark of an erased lead (its dedup key, the digest of what was sent: personal-data.ts `erasureMarks`) |
 *
 * Subject items let an erasure request find a person's leads with one GetItem per e-mail, phone
 * or CPF instead of reading every lead. Erasure tombstones (`erased#`) let the intake and the
 * admin backfill recognise a lead that was erased when its platform sends it again, with one
 * BatchGetItem of the new lead's two marks, before anything of it is written.
 *
 * A tombstone's key is an HMAC-SHA256 of the mark under a secret salt (Secrets Manager on AWS,
 * a file under DATA_DIR locally): without the salt nobody can tell from the table whether a given
 * e-mail, form answer or lead id was erased, which a plain hash of a guessable value (a platform
 * lead id, a short form) would tell. Tombstones live ERASURE_TOMBSTONE_DAYS (lead-ledger.ts).
 * Changing the salt makes every tombstone unrecognisable: the stack never rotates it.
 */
import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type DynamoDb, isConditionFailed } from '../kernel/dynamodb-aws.ts';
import { ERASURE_TOMBSTONE_DAYS, type ErasureSalt, hashDedupKey } from './lead-ledger.ts';

/** The subject item of one e-mail, phone or CPF: its SHA-256, never the value. */
export const SUBJECT_KEY_PREFIX = 'subject#';
/** The tombstone of one mark of an erased lead: its HMAC under the salt. */
export const ERASED_KEY_PREFIX = 'erased#';

/** A salt shorter than this is refused: it would not keep a guessable mark from being guessed. */
export const MIN_SALT_LENGTH = 32;

/** How often a BatchGetItem's unprocessed keys (throttling) are asked for again. */
const BATCH_ROUNDS = 4;

const DAY_SECONDS = 86_400;
const epochSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** The subject item's key of one subject (`email:ana@example.com`). */
export const subjectKey = (subject: string) => `${SUBJECT_KEY_PREFIX}${hashDedupKey(subject)}`;

/** The salt is missing or too short: the function's wiring is wrong. */
export class ErasureSaltError extends Error {
  override readonly name = 'ErasureSaltError';
}

export interface ErasureStore {
  /** Adds `leadId` to each subject item (`subjectKey`s). */
  addSubjects(leadId: string, keys: readonly string[]): Promise<void>;
  /** Takes `leadId` off each subject item; an item left empty expires now (TTL). */
  removeSubjects(leadId: string, keys: readonly string[], now: Date): Promise<void>;
  /** The lead ids listed on the subject items of these subjects: one GetItem each. */
  leadsOf(subjects: readonly string[]): Promise<Set<unknown>>;
  /** Whether any of these marks was left by an erasure still within its life: one BatchGetItem. */
  isErased(marks: readonly string[], now: Date): Promise<boolean>;
  /** Leaves a tombstone per mark, for ERASURE_TOMBSTONE_DAYS from `now`. */
  remember(marks: readonly string[], now: Date): Promise<void>;
}

export function createErasureStore(options: {
  client: DynamoDb;
  tableName: string;
  /** Only the functions that record leads or erase people have it. */
  salt?: ErasureSalt | undefined;
}): ErasureStore {
  const { client: doc, tableName } = options;
  let salt: Promise<string> | undefined;

  /** The salt, read once (a failed read is tried again next time). */
  function saltOnce(): Promise<string> {
    const read = options.salt;
    if (!read) {
      return Promise.reject(
        new ErasureSaltError(
          'this ledger has no erasure salt: it can neither record leads nor erase a person (the intake and admin wirings give it one)',
        ),
      );
    }
    salt ??= read().then((value) => {
      if (typeof value !== 'string' || value.length < MIN_SALT_LENGTH) {
        throw new ErasureSaltError(
          `the erasure salt must be a text of at least ${MIN_SALT_LENGTH} characters`,
        );
      }
      return value;
    });
    salt.catch(() => {
      salt = undefined;
    });
    return salt;
  }

  async function tombstoneKeys(marks: readonly string[]): Promise<string[]> {
    const key = await saltOnce();
    const keys = marks.map(
      (mark) =>
        `${ERASED_KEY_PREFIX}${createHmac('sha256', key).update(mark, 'utf8').digest('hex')}`,
    );
    return [...new Set(keys)];
  }

  return {
    async addSubjects(leadId, keys) {
      await Promise.all(
        keys.map((pk) =>
          doc.update({
            TableName: tableName,
            Key: { pk },
            UpdateExpression: 'ADD leadIds :ids SET kind = :kind REMOVE expiresAt',
            ExpressionAttributeValues: { ':ids': new Set([leadId]), ':kind': 'subject' },
          }),
        ),
      );
    },

    async removeSubjects(leadId, keys, now) {
      await Promise.all(
        [...new Set(keys)].map((pk) => removeSubject(doc, tableName, pk, leadId, now)),
      );
    },

    async leadsOf(subjects) {
      const items = await Promise.all(
        subjects.map(async (subject) => {
          const out = await doc.get({
            TableName: tableName,
            Key: { pk: subjectKey(subject) },
            ConsistentRead: true,
          });
          return out.Item;
        }),
      );
      const ids = new Set<unknown>();
      for (const item of items) {
        const leadIds = item?.leadIds;
        if (leadIds instanceof Set) for (const id of leadIds) ids.add(id);
      }
      return ids;
    },

    async isErased(marks, now) {
      if (marks.length === 0) return false;
      let keys = (await tombstoneKeys(marks)).map((pk) => ({ pk }));
      for (let round = 0; round < BATCH_ROUNDS; round++) {
        const out = await doc.batchGet({
          RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true } },
        });
        // DynamoDB deletes expired items up to ~48 h late: the life is compared here.
        const alive = (out.Responses[tableName] ?? []).some(
          (item) => typeof item.expiresAt !== 'number' || item.expiresAt >= epochSeconds(now),
        );
        if (alive) return true;
        keys = (out.UnprocessedKeys[tableName]?.Keys ?? []) as { pk: string }[];
        if (keys.length === 0) return false;
        await sleep(50 * 2 ** round);
      }
      throw new Error('the erasure tombstones could not be read (throttled); try again');
    },

    async remember(marks, now) {
      if (marks.length === 0) return;
      const keys = await tombstoneKeys(marks);
      const expiresAt = epochSeconds(now) + ERASURE_TOMBSTONE_DAYS * DAY_SECONDS;
      await Promise.all(
        keys.map((pk) =>
          doc.update({
            TableName: tableName,
            Key: { pk },
            UpdateExpression: 'SET kind = :kind, erasedAt = :at, expiresAt = :exp',
            ExpressionAttributeValues: {
              ':kind': 'erased',
              ':at': now.toISOString(),
              ':exp': expiresAt,
            },
          }),
        ),
      );
    },
  };
}

/** Takes `leadId` off one subject item; when it was the last, the item expires now. */
async function removeSubject(
  doc: DynamoDb,
  tableName: string,
  pk: string,
  leadId: string,
  now: Date,
): Promise<void> {
  const out = await doc
    .update({
      TableName: tableName,
      Key: { pk },
      UpdateExpression: 'DELETE leadIds :ids',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':ids': new Set([leadId]) },
      ReturnValues: 'ALL_NEW',
    })
    .catch((error: unknown) => {
      if (isConditionFailed(error)) return undefined;
      throw error;
    });
  if (!out || out.Attributes?.leadIds !== undefined) return;
  await doc
    .update({
      TableName: tableName,
      Key: { pk },
      UpdateExpression: 'SET expiresAt = :now',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(leadIds)',
      ExpressionAttributeValues: { ':now': epochSeconds(now) },
    })
    .catch((error: unknown) => {
      if (!isConditionFailed(error)) throw error;
    });
}
