/**
 * The authorizer's local adapters: the API clients of the configuration file and the
 * failed-sign-in counters and familiar addresses on the local DynamoDB (the same items as on AWS).
 */
import { localConfigSource } from '../config/config-local.ts';
import { createAuthThrottle } from '../kernel/auth-throttle.ts';
import { localAuthThrottleStore } from '../kernel/auth-throttle-local.ts';
import type { AuthorizerDeps } from './handler.ts';

export function localAuthorizerDeps(): AuthorizerDeps {
  return { config: localConfigSource(), throttle: createAuthThrottle(localAuthThrottleStore()) };
}
