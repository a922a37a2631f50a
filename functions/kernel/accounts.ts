/**
 * Upstream accounts by name (docs/configuration.md). A stack may serve several upstream
 * accounts (a chain whose branches hold separate keys, an agency with several gyms); each has
 * its own credentials, limits, pacer, circuit and debtors report. The configuration's single
 * `upstream` is the account `default`.
 */
import * as z from 'zod/mini';

export const DEFAULT_ACCOUNT = 'default';
export const ACCOUNT_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;
export const accountName = z
  .string()
  .check(z.regex(ACCOUNT_NAME, 'account names are 1 to 32 lower-case letters, digits and -'));
