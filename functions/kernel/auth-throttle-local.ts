/**
 * The failed-sign-in counters and familiar addresses as the local runtime keeps them: the same DynamoDB code as on AWS
 * (auth-throttle-dynamodb.ts), on the local ledger table the runtime started.
 */
import type { AuthThrottleStore } from './auth-throttle.ts';
import { createDynamoAuthThrottleStore } from './auth-throttle-dynamodb.ts';
import { localServices } from './local-services.ts';

/** Looked up per call: the runtime registers its services after modules load. */
export function localAuthThrottleStore(): AuthThrottleStore {
  const store = () => {
    const services = localServices();
    return createDynamoAuthThrottleStore({
      client: services.dynamo,
      tableName: services.ledgerTable,
    });
  };
  return {
    read: (key) => store().read(key),
    recordFailure: (key, now, forgetBefore, expiresAt) =>
      store().recordFailure(key, now, forgetBefore, expiresAt),
    readSeen: (key) => store().readSeen(key),
    recordSeen: (key, now, expiresAt) => store().recordSeen(key, now, expiresAt),
  };
}
