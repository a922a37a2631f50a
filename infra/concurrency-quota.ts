/**
 * Lambda concurrency against what a template reserves: one check, said in one wording, for the
 * two places that run it before anything is deployed (docs/deploy.md, "The preflight"):
 * `npm run deploy`'s preflight (scripts/preflight.ts) and the CDK app itself when the CDK CLI
 * gave it an account (infra/synth-preflight.ts), so that a plain `npx cdk deploy` refuses too.
 *
 * A function's reserved concurrency is taken from the account's unreserved pool, and Lambda
 * refuses a reservation that leaves fewer than 100 unreserved (new accounts have a quota of 10
 * or 50, so the first create would fail half-way). What the stack reserves is read from the
 * synthesized template (the sum of ReservedConcurrentExecutions: it follows the configuration's
 * `reserveConcurrency` and accounts); what this stack's functions reserve already (an update) is
 * given back first; when the rest does not fit, the refusal says what to ask AWS for: a Service
 * Quotas increase of "Concurrent executions" (quota code L-B99A9384) to at least a number.
 * A template that reserves no more than its functions do already never needs more.
 */
import {
  GetAccountSettingsCommand,
  GetFunctionConcurrencyCommand,
  type LambdaClient,
} from '@aws-sdk/client-lambda';

/** Lambda keeps at least this many executions unreserved in every account and region. */
export const MIN_UNRESERVED = 100;
/** The Service Quotas code of Lambda's "Concurrent executions". */
export const CONCURRENCY_QUOTA_CODE = 'L-B99A9384';
/** AWS's usual quota for an account that is not new: what to ask for at least. */
export const USUAL_CONCURRENCY = 1000;

interface TemplateResource {
  Type: string;
  Properties?: Record<string, unknown>;
}

export interface StackTemplate {
  Resources?: Record<string, TemplateResource>;
  Parameters?: Record<string, { Default?: unknown }>;
  Rules?: Record<string, unknown>;
}

/** A function of the template that reserves concurrency: its name and how many. */
export interface Reservation {
  functionName: string;
  reserved: number;
}

/** Every function of the template with ReservedConcurrentExecutions, by FunctionName. */
export function reservationsOf(template: StackTemplate): Reservation[] {
  return Object.entries(template.Resources ?? {})
    .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
    .flatMap(([id, resource]) => {
      const reserved = resource.Properties?.ReservedConcurrentExecutions;
      if (typeof reserved !== 'number') return [];
      const name = resource.Properties?.FunctionName;
      return [{ functionName: typeof name === 'string' ? name : id, reserved }];
    });
}

export interface ConcurrencyFacts {
  region: string;
  /** ConcurrentExecutions: the account's quota in the region. */
  limit: number;
  /** UnreservedConcurrentExecutions now. */
  unreserved: number;
  /** What this stack's functions reserve now (0 on a first deploy). */
  reservedNow: number;
  /** What the template reserves. */
  reservations: Reservation[];
}

const reservedBy = (reservations: Reservation[]) =>
  reservations.reduce((sum, r) => sum + r.reserved, 0);

/** Why the reservations do not fit, with what to ask AWS for; undefined when they fit. */
export function concurrencyProblem(facts: ConcurrencyFacts): string | undefined {
  const wanted = reservedBy(facts.reservations);
  // Reserving nothing more than now takes nothing from the pool: Lambda never refuses that.
  if (wanted <= facts.reservedNow) return undefined;
  const left = facts.unreserved + facts.reservedNow - wanted;
  if (left >= MIN_UNRESERVED) return undefined;
  const needed = facts.limit + (MIN_UNRESERVED - left);
  const ask = Math.max(needed, USUAL_CONCURRENCY);
  const which = facts.reservations.map((r) => `${r.functionName} ${r.reserved}`).join(', ');
  return [
    `Lambda concurrency in ${facts.region}: the account may run ${facts.limit} executions at once (${facts.unreserved} unreserved), this stack reserves ${wanted} (${which}), and Lambda keeps at least ${MIN_UNRESERVED} unreserved: it needs a quota of at least ${needed}, so the create would fail.`,
    `Ask AWS for more: Service Quotas console → AWS services → AWS Lambda → "Concurrent executions" (quota code ${CONCURRENCY_QUOTA_CODE}) → Request increase at account level, to ${ask} (at least ${needed}; ${USUAL_CONCURRENCY} is AWS's usual quota), in ${facts.region}.`,
    `Or from a shell: aws service-quotas request-service-quota-increase --service-code lambda --quota-code ${CONCURRENCY_QUOTA_CODE} --desired-value ${ask} --region ${facts.region}`,
    'New accounts start at 10 or 50; AWS usually answers within a day. Deploy again once the quota shows the new value.',
    'Or deploy without reservations: "reserveConcurrency": false in the deploy configuration (docs/deploy.md, "Reserved concurrency").',
  ].join('\n  ');
}

function errorName(error: unknown): string {
  return (error as { name?: string }).name ?? String(error);
}

/** What the functions of this stack reserve now (a function not created yet reserves 0). */
async function reservedNow(lambda: LambdaClient, reservations: Reservation[]): Promise<number> {
  let total = 0;
  for (const { functionName } of reservations) {
    try {
      const answer = await lambda.send(
        new GetFunctionConcurrencyCommand({ FunctionName: functionName }),
      );
      total += answer.ReservedConcurrentExecutions ?? 0;
    } catch (error) {
      if (errorName(error) !== 'ResourceNotFoundException') throw error;
    }
  }
  return total;
}

/**
 * The account's concurrency against the template's reservations: the problem (undefined when
 * they fit) and one line of what was found. Asks nothing when the template reserves nothing.
 */
export async function checkConcurrency(
  lambda: LambdaClient,
  template: StackTemplate,
  region: string,
): Promise<{ problem?: string; fact: string }> {
  const reservations = reservationsOf(template);
  const wanted = reservedBy(reservations);
  const settings = await lambda.send(new GetAccountSettingsCommand({}));
  const limit = settings.AccountLimit?.ConcurrentExecutions ?? 0;
  const unreserved = settings.AccountLimit?.UnreservedConcurrentExecutions ?? 0;
  if (wanted === 0) {
    const low =
      limit < USUAL_CONCURRENCY
        ? ` (every function shares those ${limit}: ask for ${USUAL_CONCURRENCY}, quota code ${CONCURRENCY_QUOTA_CODE}, docs/deploy.md)`
        : '';
    return {
      fact: `Lambda concurrency: quota ${limit}, ${unreserved} unreserved; this stack reserves nothing (reserveConcurrency off): its event sources' MaximumConcurrency caps the forwarder and the refresher${low}`,
    };
  }
  const now = await reservedNow(lambda, reservations);
  const problem = concurrencyProblem({ region, limit, unreserved, reservedNow: now, reservations });
  return {
    ...(problem !== undefined && { problem }),
    fact: `Lambda concurrency: quota ${limit}, ${unreserved + now - wanted} unreserved after this stack's ${wanted} reserved (at least ${MIN_UNRESERVED} must stay)`,
  };
}
