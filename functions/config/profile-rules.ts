/**
 * The profile rules: every source's profile schema (config-schema.ts composes them from
 * sources/registry.ts) and secret keys. The functions that read profiles (intake, delivery, admin)
 * give them to createAwsConfigSource; the configuration's checks (config-check.ts: the local
 * loader, the deploy file, the store's validator) check each profile with them.
 */
import { secretKeysOf } from '../sources/registry.ts';
import type { ProfileRules } from './config-aws.ts';
import { profileSchema } from './config-schema.ts';

export const PROFILE_RULES: ProfileRules = { profileSchema, secretKeysOf };
