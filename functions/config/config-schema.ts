/**
 * The system configuration (the `LEADS_CONFIG` file of the contract), as a zod/mini schema.
 * Locally the whole file, secrets included, is read by config-local.ts. A deployed stack gets
 * the non-secret part as settings and reads each source's secret keys (and the upstream and
 * clients secrets) from AWS Secrets Manager: see config-aws.ts.
 */
import * as z from 'zod/mini';
import { accountName } from '../kernel/accounts.ts';
import { clientSchema } from '../kernel/client-schema.ts';
import { SOURCES } from '../sources/registry.ts';
import { profileNameMessage } from './config-messages.ts';
import {
  DEFAULT_DELIVERY,
  DEFAULT_REPORT,
  deliveryConfigSchema,
  PROFILE_NAME,
  profileEntrySchema,
  reportConfigSchema,
  upstreamAccountSchema,
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

/**
 * The whole file: what editors check it with (config/schema.json) and the type of a valid one.
 * The loader (config-check.ts) checks it with `configFileSchema` and then each profile alone.
 */
export const configSchema = z.object({
  /** The account `default` (with `report`). */
  upstream: upstreamConfigSchema,
  /** More accounts by name, each with its own report. */
  upstreams: z.optional(z.record(accountName, upstreamAccountSchema)),
  clients: z.array(clientSchema),
  profiles: z.record(
    z.string().check(z.regex(PROFILE_NAME, profileNameMessage(undefined))),
    profileSchema,
  ),
  delivery: z._default(deliveryConfigSchema, DEFAULT_DELIVERY),
  /** The account `default`'s debtors report. */
  report: z._default(reportConfigSchema, DEFAULT_REPORT),
});
export type Config = z.infer<typeof configSchema>;

/**
 * The file as the loader checks it first: the same keys, each profile as a `profileEntrySchema`
 * only; config-check.ts then checks each profile's name and source settings, as it does for the
 * deployed settings, so that a profile's problems read the same in every configuration.
 */
export const configFileSchema = z.extend(configSchema, {
  profiles: z.record(z.string(), profileEntrySchema),
});
