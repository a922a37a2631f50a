/**
 * The profile rules the deployed intake and delivery give createAwsConfigSource: every source's
 * profile schema (config-schema.ts composes them from sources/registry.ts) and secret keys.
 */
import { secretKeysOf } from '../sources/registry.ts';
import type { ProfileRules } from './config-aws.ts';
import { profileSchema } from './config-schema.ts';

export const PROFILE_RULES: ProfileRules = { profileSchema, secretKeysOf };
