/**
 * The system configuration (the `LEADS_CONFIG` file of the contract), as a zod/mini schema.
 * Locally the whole file, secrets included, is read by config-local.ts. A deployed stack gets
 * the non-secret part as settings and reads each source's secret keys (and the upstream and
 * clients secrets) from AWS Secrets Manager: see config-aws.ts.
 */
import * as z from 'zod/mini';
import type { IssueDetail } from '../domain/json.ts';
import { accountName, DEFAULT_ACCOUNT } from '../kernel/accounts.ts';
import { clientSchema } from '../kernel/client-schema.ts';
import { SOURCES, type SourceName } from '../sources/registry.ts';
import {
  DEFAULT_DELIVERY,
  DEFAULT_REPORT,
  deliveryConfigSchema,
  PROFILE_NAME,
  type ReportConfig,
  reportConfigSchema,
  upstreamAccountSchema,
  upstreamConfigSchema,
} from './config-parts.ts';

export { type Client, clientSchema, ROLES, type Role } from '../kernel/client-schema.ts';
export {
  DEFAULT_ACCOUNT,
  type DeliveryConfig,
  PROFILE_NAME,
  type ReportConfig,
  reportConfigSchema,
  type UpstreamAccountConfig,
  type UpstreamConfig,
  upstreamConfigSchema,
} from './config-parts.ts';

/** The tuple of the sources' profile schemas, in the registry's order. */
type ProfileSchemas<T extends readonly { profileSchema: unknown }[]> = {
  -readonly [K in keyof T]: T[K]['profileSchema'];
};

/**
 * A profile: its source's settings plus those every profile has, one schema per source
 * (functions/sources/registry.ts), told apart by `source`.
 */
export const profileSchema = z.discriminatedUnion(
  'source',
  SOURCES.map((source) => source.profileSchema) as unknown as ProfileSchemas<typeof SOURCES>,
);
export type Profile = z.infer<typeof profileSchema>;
export type { SourceName };

export const configSchema = z.object({
  /** The account `default` (with `report`). */
  upstream: upstreamConfigSchema,
  /** More accounts by name, each with its own report. */
  upstreams: z.optional(z.record(accountName, upstreamAccountSchema)),
  clients: z.array(clientSchema),
  profiles: z.record(
    z
      .string()
      .check(z.regex(PROFILE_NAME, 'profile names are lower-case letters, digits, - and _')),
    profileSchema,
  ),
  delivery: z._default(deliveryConfigSchema, DEFAULT_DELIVERY),
  /** The account `default`'s debtors report. */
  report: z._default(reportConfigSchema, DEFAULT_REPORT),
});
export type Config = z.infer<typeof configSchema>;

/** What the account model needs of a configuration (the file, or the deployed settings). */
export interface AccountsInput<U> {
  upstream: U;
  upstreams?: Record<string, U & { report?: ReportConfig | undefined }> | undefined;
  report?: ReportConfig | undefined;
  profiles: Record<string, { upstream?: string | undefined }>;
  clients?: readonly { username: string; upstreams?: readonly string[] | undefined }[];
}

/**
 * The accounts of a configuration by name: `upstream` (with `report`) as `default`, then
 * `upstreams`. Call accountProblems first: this assumes there are no clashes.
 */
export function accountsOf<U>(
  config: Pick<AccountsInput<U>, 'upstream' | 'upstreams' | 'report'>,
): Map<string, U & { report: ReportConfig }> {
  const accounts = new Map<string, U & { report: ReportConfig }>();
  accounts.set(DEFAULT_ACCOUNT, { ...config.upstream, report: config.report ?? DEFAULT_REPORT });
  for (const [name, account] of Object.entries(config.upstreams ?? {})) {
    accounts.set(name, { ...account, report: account.report ?? DEFAULT_REPORT });
  }
  return accounts;
}

/**
 * What the schema cannot check alone: `default` is not named twice, and every profile and
 * client names accounts that exist.
 */
export function accountProblems<U>(config: AccountsInput<U>): IssueDetail[] {
  const problems: IssueDetail[] = [];
  const named = Object.keys(config.upstreams ?? {});
  if (named.includes(DEFAULT_ACCOUNT)) {
    problems.push({
      field: `upstreams.${DEFAULT_ACCOUNT}`,
      message: `"${DEFAULT_ACCOUNT}" is the account of "upstream" (and "report"): give this one another name`,
    });
  }
  const known = new Set([DEFAULT_ACCOUNT, ...named]);
  const list = [...known].map((name) => `"${name}"`).join(', ');
  for (const [name, profile] of Object.entries(config.profiles)) {
    const account = profile.upstream ?? DEFAULT_ACCOUNT;
    if (!known.has(account)) {
      problems.push({
        field: `profiles.${name}.upstream`,
        message: `names the account "${account}", which is not configured (accounts: ${list})`,
      });
    }
  }
  config.clients?.forEach((client, index) => {
    for (const account of client.upstreams ?? []) {
      if (!known.has(account)) {
        problems.push({
          field: `clients.${index}.upstreams`,
          message: `names the account "${account}", which is not configured (accounts: ${list})`,
        });
      }
    }
  });
  return problems;
}

/** The account of a profile. */
export function accountOfProfile(profile: { upstream?: string | undefined }): string {
  return profile.upstream ?? DEFAULT_ACCOUNT;
}
