/**
 * The erasure salt on AWS: the secret `<prefix>/erasure-salt` that the stack generates
 * (infra/constructs/leads-secrets.ts: `{"salt": <64 random letters and digits>}`) and grants
 * to the functions that record leads or erase people (the intake and the admin API). Read at
 * the first lead a container records, through the same cached reader as the configuration's
 * secrets; the value never leaves the ledger's HMAC (ledger/erasure-dynamodb.ts).
 */
import { pickKeys, secretNamesFrom, secretReader } from '../config/secrets-aws.ts';
import type { ErasureSalt } from './lead-ledger.ts';

/** The key of the secret's JSON object that holds the salt. */
export const ERASURE_SALT_KEY = 'salt';

export function awsErasureSalt(
  env: NodeJS.ProcessEnv = process.env,
  reader = secretReader(),
): ErasureSalt {
  // The name is checked at wiring time: a function without LEADS_SECRETS_PREFIX fails to start.
  const name = secretNamesFrom(env).erasureSalt;
  return async () => {
    const { [ERASURE_SALT_KEY]: salt } = pickKeys(name, await reader.read(name), [
      ERASURE_SALT_KEY,
    ]);
    return String(salt);
  };
}
