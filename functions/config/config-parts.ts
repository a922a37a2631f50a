/**
 * The parts of the configuration every function may read without the lead sources: the
 * upstream account, the report, profile names. config-schema.ts composes the whole file from
 * these and the sources' profile schemas; the deployed functions that never read a profile
 * (admin, report, refresher) stay free of the sources' code.
 */
import * as z from 'zod/mini';
import { accountName } from '../kernel/accounts.ts';
import { nonEmpty, secretText } from '../kernel/client-schema.ts';

const positive = z.number().check(z.positive('deve ser maior que 0'));

/**
 * An account's branches by name (`"branches": {"2": {"name": "Moema", "aliases": ["Unid. Moema"]}}`):
 * a lead answering "Qual unidade?" with one of them goes to that branch, and to this account
 * (domain/branch-match.ts); the console offers them by name. Keys are the branches' `idBranch`.
 */
export const branchNamesSchema = z.record(
  z.string().check(z.regex(/^[1-9]\d*$/, 'a chave é o idBranch da unidade, um número')),
  z.strictObject({
    name: nonEmpty,
    aliases: z.optional(z.array(nonEmpty)),
  }),
);
export type BranchNames = z.infer<typeof branchNamesSchema>;

export const upstreamConfigSchema = z.object({
  baseUrl: z.url(),
  username: nonEmpty,
  password: secretText,
  maxPerSecond: positive,
  maxPerMinute: positive,
  /** Per-call timeout of every upstream request. */
  timeoutMs: z._default(z.int().check(z.positive()), 10_000),
  /** The name production gives the seed's `tokenPartner` field (`tokenGympass`). */
  partnerTokenField: z._default(z.enum(['tokenPartner', 'tokenGympass']), 'tokenPartner'),
  /** The account's branches by name (branchNamesSchema). */
  branches: z.optional(branchNamesSchema),
});
export type UpstreamConfig = z.infer<typeof upstreamConfigSchema>;

/** How delivery gives up on a lead (docs/operations.md, "The delivery engine"). */
export const deliveryConfigSchema = z.object({
  /** Failures of a lead's own (the upstream serving others meanwhile) before it is dead. */
  maxAttempts: z._default(z.int().check(z.gte(1, 'deve ser no mínimo 1')), 8),
  /**
   * How long a lead may wait to be delivered, whatever the reason, before it is dead (an alarm
   * fires long before: WaitingLeadsAlarm). Fits inside the lead queue's retention (4 days).
   */
  horizonHours: z._default(
    z
      .number()
      .check(
        z.positive('deve ser maior que 0'),
        z.lte(96, 'deve ser no máximo 96 (a fila guarda as mensagens 4 dias)'),
      ),
    72,
  ),
  /**
   * Days after which parked, dead and test leads lose their personal data (LGPD: kept no longer
   * than needed; docs/privacy.md). The reconciler redacts them.
   */
  personalDataDays: z._default(
    z.int().check(z.gte(1, 'deve ser no mínimo 1'), z.lte(3650, 'deve ser no máximo 3650')),
    30,
  ),
});
export type DeliveryConfig = z.infer<typeof deliveryConfigSchema>;
export const DEFAULT_DELIVERY: DeliveryConfig = {
  maxAttempts: 8,
  horizonHours: 72,
  personalDataDays: 30,
};

/** A profile's name, which is its URL (`/leads/<name>`). */
export const PROFILE_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/**
 * A profile as the configuration's top level reads it: an object with a source, an account and a
 * secret name. Each profile is then checked in full against its source's schema, one by one
 * (config-check.ts), and by name (PROFILE_NAME), the same way in every configuration.
 */
export const profileEntrySchema = z.looseObject({
  source: z.string(),
  upstream: z.optional(accountName),
  secretName: z.optional(z.string()),
});

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
    { message: 'deve ser um fuso horário IANA, como "America/Sao_Paulo"' },
  ),
);

export const reportConfigSchema = z.object({
  branches: z.array(z.int().check(z.positive())),
  refreshSeconds: z._default(z.int().check(z.gte(60, 'deve ser no mínimo 60')), 900),
  /** The gym's time zone: "today" for days overdue and ageing. */
  timeZone: z._default(timeZone, 'America/Sao_Paulo'),
});
export type ReportConfig = z.infer<typeof reportConfigSchema>;
export const DEFAULT_REPORT: ReportConfig = {
  branches: [],
  refreshSeconds: 900,
  timeZone: 'America/Sao_Paulo',
};

/** A named account (kernel/accounts.ts): the upstream's settings plus its own report. */
export const upstreamAccountSchema = z.extend(upstreamConfigSchema, {
  report: z._default(reportConfigSchema, DEFAULT_REPORT),
});
export type UpstreamAccountConfig = z.infer<typeof upstreamAccountSchema>;
