/**
 * The system configuration (the `LEADS_CONFIG` file of the contract), as a zod/mini schema.
 * Locally the whole file, secrets included, is read by local/config.ts. A deployed stack gets
 * the non-secret part as settings and reads the keys listed in PROFILE_SECRET_KEYS (and the
 * upstream and clients secrets) from AWS Secrets Manager: see functions/shared/runtime-config.ts.
 */
import * as z from 'zod/mini';
import { FIELD_MAP_TARGETS } from '../domain/map-lead.ts';
import { prospectSchema } from '../domain/prospect.ts';
import { clientSchema, nonEmpty } from '../kernel/client-schema.ts';

export { type Client, clientSchema, ROLES, type Role } from '../kernel/client-schema.ts';

const positive = z.number().check(z.positive('must be greater than 0'));

export const upstreamConfigSchema = z.object({
  baseUrl: z.url(),
  username: nonEmpty,
  password: nonEmpty,
  maxPerSecond: positive,
  maxPerMinute: positive,
  /** Per-call timeout of every upstream request. */
  timeoutMs: z._default(z.int().check(z.positive()), 10_000),
  /** The name production gives the seed's `tokenPartner` field (`tokenGympass`). */
  partnerTokenField: z._default(z.enum(['tokenPartner', 'tokenGympass']), 'tokenPartner'),
});
export type UpstreamConfig = z.infer<typeof upstreamConfigSchema>;

/** Prospect fields a profile supplies when a lead does not carry them. */
const prospectDefaults = z.optional(z.partial(prospectSchema));

const profileCommon = {
  /** Prospect fields applied to every lead of this profile. */
  defaults: prospectDefaults,
  /** A source's own question or field key → Prospect field (or `notes`). */
  fieldMap: z.optional(
    z.record(
      z.string(),
      z.string().check(
        z.refine((target) => FIELD_MAP_TARGETS.has(target), {
          message: `must be one of: ${[...FIELD_MAP_TARGETS].join(', ')}`,
        }),
      ),
    ),
  ),
  /** Per form id (Meta form_id, Google form_id, Typeform form_id, Webflow formId...) overrides. */
  forms: z.optional(z.record(z.string(), z.partial(prospectSchema))),
  /** Browser origins allowed to post with CORS. */
  allowedOrigins: z.optional(z.array(z.string())),
  /** Where a plain HTML form is sent (303) after posting. */
  redirectUrl: z.optional(z.url()),
  /** Hidden field that must stay empty (bots fill it). */
  honeypotField: z.optional(nonEmpty),
  /** Post the platform's test leads upstream too (default: keep them with status `test`). */
  deliverTestLeads: z.optional(z.boolean()),
};

export const profileSchema = z.discriminatedUnion('source', [
  z.object({ source: z.literal('form'), token: nonEmpty, ...profileCommon }),
  z.object({
    source: z.literal('meta'),
    appSecret: nonEmpty,
    verifyToken: nonEmpty,
    pageAccessToken: nonEmpty,
    graphBaseUrl: z._default(z.url(), 'https://graph.facebook.com/v21.0'),
    ...profileCommon,
  }),
  z.object({ source: z.literal('google'), key: nonEmpty, ...profileCommon }),
  z.object({ source: z.literal('typeform'), secret: nonEmpty, ...profileCommon }),
  z.object({ source: z.literal('webflow'), secret: nonEmpty, ...profileCommon }),
  z.object({ source: z.literal('rdstation'), token: nonEmpty, ...profileCommon }),
  z.object({ source: z.literal('unbounce'), token: nonEmpty, ...profileCommon }),
  z.object({ source: z.literal('elementor'), token: nonEmpty, ...profileCommon }),
  z.object({ source: z.literal('prospect'), ...profileCommon }),
]);
export type Profile = z.infer<typeof profileSchema>;
export type SourceName = Profile['source'];

export const SOURCES = [
  'form',
  'meta',
  'google',
  'typeform',
  'webflow',
  'rdstation',
  'unbounce',
  'elementor',
  'prospect',
] as const satisfies readonly SourceName[];

/** The keys of each source that are secrets (Secrets Manager when deployed). */
export const PROFILE_SECRET_KEYS: Record<SourceName, readonly string[]> = {
  form: ['token'],
  meta: ['appSecret', 'verifyToken', 'pageAccessToken'],
  google: ['key'],
  typeform: ['secret'],
  webflow: ['secret'],
  rdstation: ['token'],
  unbounce: ['token'],
  elementor: ['token'],
  prospect: [],
};

export const PROFILE_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** An IANA time zone name Node knows (`America/Sao_Paulo`). */
const timeZone = z.string().check(
  z.refine(
    (zone) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: zone });
        return true;
      } catch {
        return false;
      }
    },
    { message: 'must be an IANA time zone such as "America/Sao_Paulo"' },
  ),
);

export const reportConfigSchema = z.object({
  branches: z.array(z.int().check(z.positive())),
  refreshSeconds: z._default(z.int().check(z.gte(60, 'must be at least 60')), 900),
  /** The gym's time zone: "today" for days overdue and ageing. */
  timeZone: z._default(timeZone, 'America/Sao_Paulo'),
});

export const configSchema = z.object({
  upstream: upstreamConfigSchema,
  clients: z.array(clientSchema),
  profiles: z.record(
    z
      .string()
      .check(z.regex(PROFILE_NAME, 'profile names are lower-case letters, digits, - and _')),
    profileSchema,
  ),
  report: z._default(reportConfigSchema, {
    branches: [],
    refreshSeconds: 900,
    timeZone: 'America/Sao_Paulo',
  }),
});
export type Config = z.infer<typeof configSchema>;
