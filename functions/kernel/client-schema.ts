/**
 * The API clients of the configuration (Basic auth for the Prospect API, the report and the
 * admin routes), apart from the rest of config-schema.ts so that the authorizer, which needs
 * only these, does not build every profile and Prospect schema at cold start.
 */
import * as z from 'zod/mini';
import { accountName } from './accounts.ts';

export const nonEmpty = z.string().check(z.trim(), z.minLength(1, 'must not be empty'));

/**
 * A password, token, key or other secret: taken byte for byte, never trimmed (a secret that
 * starts or ends with a space is that secret; trimming it would refuse its owner). Blank (only
 * whitespace) is refused as empty: that is a value nobody filled in.
 */
export const secretText = z
  .string()
  .check(z.refine((value) => value.trim() !== '', { message: 'must not be empty' }));

export const ROLES = ['prospects:write', 'report:read', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const clientSchema = z
  .object({
    username: nonEmpty,
    /** Plain password: local files only. Byte for byte. */
    password: z.optional(secretText),
    /** `scrypt$<N>$<r>$<p>$<salt b64>$<hash b64>`; what a deployed stack keeps. */
    passwordHash: z.optional(secretText),
    roles: z.array(z.enum(ROLES)),
    /**
     * The upstream accounts this client may see and post to; absent: every account. Report
     * routes and the seed's routes answer only these.
     */
    upstreams: z.optional(z.array(accountName).check(z.minLength(1, 'must name an account'))),
    /** The branches (idBranch) this client may see and post to; absent: every branch. */
    branches: z.optional(
      z.array(z.int().check(z.positive())).check(z.minLength(1, 'must name a branch')),
    ),
  })
  .check(
    z.refine((c) => c.password !== undefined || c.passwordHash !== undefined, {
      message: 'needs either "password" or "passwordHash"',
    }),
  );
export type Client = z.infer<typeof clientSchema>;
