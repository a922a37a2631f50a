/**
 * The admin function's AWS adapters: configuration (clients) from Secrets Manager, the DynamoDB
 * ledger, the SQS lead queue (send) and the dead-letter redrive (StartMessageMoveTask).
 */
import { createAwsConfigSource } from '../config/config-aws.ts';
import { PROFILE_RULES } from '../config/profile-rules.ts';
import { describeEntry } from '../config/secret-shards.ts';
import { secretNamesFrom } from '../config/secrets-aws.ts';
import { createDynamoDb } from '../kernel/dynamodb-aws.ts';
import { ENV, requireEnv } from '../kernel/env.ts';
import { createSqs } from '../kernel/sqs-aws.ts';
import { awsErasureSalt } from '../ledger/erasure-salt-aws.ts';
import { createDynamoLedger } from '../ledger/lead-ledger-dynamodb.ts';
import { createSqsLeadQueue } from '../ledger/lead-queue-sqs.ts';
import { dynamoBranchDirectory } from '../upstream/branch-names-dynamodb.ts';
import { dynamoUpstreamHealth } from '../upstream/health-dynamodb.ts';
import type { AdminDeps } from './admin.ts';
import { createSqsDlqRedrive } from './dlq-redrive-sqs.ts';
import { awsProfileSecrets } from './profile-secrets-aws.ts';

/**
 * IAM it needs: the ledger table and its indexes (GetItem, Query, UpdateItem; the circuit,
 * pacer and learned branch names items are read with GetItem), the erasure salt secret,
 * sqs:SendMessage on the lead queue, the redrive's permissions (dlq-redrive-sqs.ts), and
 * PutSecretValue on the profiles' secrets (the kit's rotation, profile-secrets-aws.ts).
 */
export function awsAdminDeps(env: NodeJS.ProcessEnv = process.env): Omit<AdminDeps, 'events'> {
  const sqs = createSqs();
  // The profiles too: a backfill reads the profile and its platform token.
  const config = createAwsConfigSource(env, { rules: PROFILE_RULES });
  const table = { client: createDynamoDb(), tableName: requireEnv(ENV.ledgerTable, env) };
  return {
    config,
    // A preview, a lead's page, a correction and a backfill map with the named branches.
    branches: dynamoBranchDirectory(config, table),
    // The kit reveals and rotates a profile's own secret (its secretName, else its name).
    profileSecrets: awsProfileSecrets({
      entry: async (profile) => {
        const secretName = (await config.profileSettings())[profile]?.secretName;
        return secretNamesFrom(env).profile(typeof secretName === 'string' ? secretName : profile);
      },
    }),
    // A deployed kit never prints a secret: its curl reads its entry from Secrets Manager in the
    // shell (the shard, then the profile's entry in it).
    kit: {
      secretsWhere: (profile) =>
        `o Secrets Manager, ${describeEntry(secretNamesFrom(env).profile(profile))}`,
      secretValues: {
        secretId: (profile) => secretNamesFrom(env).profile(profile).secret,
        entry: (profile) => secretNamesFrom(env).profile(profile).entry,
      },
    },
    // The salt: an erasure leaves salted tombstones, a backfill checks them.
    ledger: createDynamoLedger({ ...table, erasureSalt: awsErasureSalt(env) }),
    upstream: dynamoUpstreamHealth(table),
    queue: createSqsLeadQueue({ client: sqs, queueUrl: requireEnv(ENV.leadQueueUrl, env) }),
    redrive: createSqsDlqRedrive({
      client: sqs,
      deadLetterQueueArn: requireEnv(ENV.leadDlqArn, env),
      queueArn: requireEnv(ENV.leadQueueArn, env),
    }),
  };
}
