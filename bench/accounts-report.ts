/**
 * The accounts bench's arithmetic, apart from the run so that a test can check it: what one
 * scenario's sandbox records say (time to upstream per lead, drain time, 429s, duplicates), the
 * ready-to-paste markdown table of docs/performance.md, and the AWS cost per 10,000 leads from
 * the requests counted (accounts-meter.ts) and the list prices below.
 */
import type { RequestRecord } from '../sandbox/stats.ts';
import type { AwsCounts } from './accounts-meter.ts';
import { created as prospectCreated } from './landing.ts';
import { percentile, round } from './lib.ts';

/** One run: `accounts` accounts, the first `floodAccounts` flood, the others trickle. */
export interface Scenario {
  label: string;
  accounts: number;
  floodAccounts: number;
  floodLeads: number;
  trickleLeads: number;
  /** Each account's rate, requests per second (configured and enforced by the sandbox). */
  perSecond: number;
}

/** A lead posted by the bench: its account, whether it trickled, when its POST was sent. */
export interface PostedLead {
  email: string;
  account: number;
  trickle: boolean;
  /** Epoch ms, just before the POST was sent. */
  sentAt: number;
  /** The POST's round trip, ms (the intake function's duration, at most). */
  roundTripMs: number;
}

export interface ScenarioResult {
  scenario: Scenario;
  posted: number;
  delivered: number;
  /** Trickling leads: POST sent → the sandbox's first 2xx for it, seconds. */
  trickleP50S: number;
  trickleP99S: number;
  trickleMaxS: number;
  /** First POST sent → last lead delivered, seconds. */
  drainS: number;
  /** The flooding accounts' drain: first POST → their last lead delivered, seconds. */
  floodDrainS: number;
  /** max over accounts of leads / rate: the time if every account drains side by side. */
  maxFloorS: number;
  /** sum over accounts of leads / rate: the time if the accounts drained one after another. */
  sumFloorS: number;
  /** Upstream 429 answers. */
  http429: number;
  /** Leads the sandbox created more than once. */
  duplicates: number;
  counts: AwsCounts;
  /** Sum of the POSTs' round trips, ms. */
  intakeMs: number;
}

/** What the sandbox saw of the posted leads. */
export function summarize(
  scenario: Scenario,
  posted: readonly PostedLead[],
  records: readonly RequestRecord[],
  counts: AwsCounts,
): ScenarioResult {
  const firstAt = new Map<string, number>();
  const created = new Map<string, number>();
  for (const record of records) {
    if (!prospectCreated(record) || record.email === undefined) continue;
    created.set(record.email, (created.get(record.email) ?? 0) + 1);
    if (!firstAt.has(record.email)) firstAt.set(record.email, record.at);
  }
  const start = Math.min(...posted.map((lead) => lead.sentAt));
  const deliveredAt = (lead: PostedLead) => firstAt.get(lead.email.toLowerCase());
  const trickle = posted
    .filter((lead) => lead.trickle)
    .flatMap((lead) => {
      const at = deliveredAt(lead);
      return at === undefined ? [] : [(at - lead.sentAt) / 1000];
    });
  const lastOf = (leads: readonly PostedLead[]) =>
    Math.max(start, ...leads.flatMap((lead) => deliveredAt(lead) ?? []));
  const perAccount = new Map<number, number>();
  for (const lead of posted) perAccount.set(lead.account, (perAccount.get(lead.account) ?? 0) + 1);
  const floors = [...perAccount.values()].map((n) => n / scenario.perSecond);
  const mine = new Set(posted.map((lead) => lead.email.toLowerCase()));
  return {
    scenario,
    posted: posted.length,
    delivered: posted.filter((lead) => deliveredAt(lead) !== undefined).length,
    trickleP50S: round(percentile(trickle, 50), 2),
    trickleP99S: round(percentile(trickle, 99), 2),
    trickleMaxS: round(trickle.length ? Math.max(...trickle) : Number.NaN, 2),
    drainS: round((lastOf(posted) - start) / 1000, 2),
    floodDrainS: round((lastOf(posted.filter((lead) => !lead.trickle)) - start) / 1000, 2),
    maxFloorS: round(Math.max(0, ...floors), 2),
    sumFloorS: round(
      floors.reduce((a, b) => a + b, 0),
      2,
    ),
    http429: records.filter((r) => r.status === 429).length,
    duplicates: [...created].filter(([email, n]) => mine.has(email) && n > 1).length,
    counts,
    intakeMs: posted.reduce((sum, lead) => sum + lead.roundTripMs, 0),
  };
}

const cell = (value: number, unit = '') => (Number.isFinite(value) ? `${value}${unit}` : '–');

/** The ready-to-paste table of docs/performance.md. */
export function markdownTable(results: readonly ScenarioResult[]): string {
  const head = [
    'run',
    'accounts',
    'leads',
    'delivered',
    'trickle p50',
    'trickle p99',
    'flood drain',
    'total drain',
    'max floor',
    'sum of floors',
    'drain / max floor',
    '429s',
    'duplicates',
  ];
  const rows = results.map((r) => [
    r.scenario.label,
    String(r.scenario.accounts),
    String(r.posted),
    String(r.delivered),
    cell(r.trickleP50S, ' s'),
    cell(r.trickleP99S, ' s'),
    cell(r.floodDrainS, ' s'),
    cell(r.drainS, ' s'),
    cell(r.maxFloorS, ' s'),
    cell(r.sumFloorS, ' s'),
    cell(r.maxFloorS > 0 ? round(r.drainS / r.maxFloorS, 2) : Number.NaN, '×'),
    String(r.http429),
    String(r.duplicates),
  ]);
  return [head, head.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}

/**
 * AWS list prices, USD, region us-east-1 (N. Virginia), as published on 2026-11-26 (see
 * docs/performance.md for the sources and what they leave out).
 */
export const PRICES = {
  region: 'us-east-1',
  date: '2026-11-26',
  /** DynamoDB on-demand, per million write / read request units. */
  dynamoWriteMillion: 0.625,
  dynamoReadMillion: 0.125,
  /** SQS standard queue, per million requests (64 KB chunks). */
  sqsMillion: 0.4,
  /** Lambda arm64: per million requests, per GB-second. */
  lambdaRequestMillion: 0.2,
  lambdaGbSecond: 0.0000133334,
  /** API Gateway REST API, per million requests (first 333 million a month). */
  apiMillion: 3.5,
} as const;

/** Memory of the functions a lead goes through (functions/kernel/routes.ts FUNCTIONS). */
export const MEMORY_MB = { intake: 512, forwarder: 512 } as const;

export interface CostLine {
  service: string;
  what: string;
  per10k: number;
  usd: number;
}

/** The AWS cost of 10,000 leads, from the counts of runs that delivered `leads` leads. */
export function costPer10k(
  runs: readonly { counts: AwsCounts; intakeMs: number; posted: number }[],
): { leads: number; lines: CostLine[]; totalUsd: number } {
  const sum = (pick: (c: AwsCounts) => number) => runs.reduce((n, r) => n + pick(r.counts), 0);
  const leads = runs.reduce((n, r) => n + r.posted, 0);
  const scale = leads > 0 ? 10_000 / leads : 0;
  const puts = sum((c) => c.dynamoPuts);
  const putBytes = puts > 0 ? Math.round(sum((c) => c.dynamoPutBytes) / puts) : 0;
  const unitsPerWrite = Math.max(1, Math.ceil(putBytes / 1024));
  const writeUnits =
    (sum((c) => c.dynamoWrites) + sum((c) => c.dynamoTransactWrites)) * unitsPerWrite;
  const reads = sum((c) => c.dynamoReads);
  const sqs = sum((c) => c.sqsSends + c.sqsReceives + c.sqsDeletes + c.sqsVisibilityChanges);
  const received = sum((c) => c.sqsReceives);
  const intakeGbS = (runs.reduce((n, r) => n + r.intakeMs, 0) / 1000) * (MEMORY_MB.intake / 1024);
  const forwardGbS = (sum((c) => c.forwarderBusyMs) / 1000) * (MEMORY_MB.forwarder / 1024);
  const lines: CostLine[] = [
    {
      service: 'DynamoDB',
      what: `write request units (${unitsPerWrite} per write: items put average ${putBytes} B; transactions twice)`,
      per10k: writeUnits * scale,
      usd: (writeUnits * scale * PRICES.dynamoWriteMillion) / 1e6,
    },
    {
      service: 'DynamoDB',
      what: 'read request units (1 per read)',
      per10k: reads * scale,
      usd: (reads * scale * PRICES.dynamoReadMillion) / 1e6,
    },
    {
      service: 'SQS',
      what: 'send + receive + delete + change-visibility requests',
      per10k: sqs * scale,
      usd: (sqs * scale * PRICES.sqsMillion) / 1e6,
    },
    {
      service: 'Lambda',
      what: 'invocations (intake: one per POST; forwarder: one per message received)',
      per10k: (leads + received) * scale,
      usd: ((leads + received) * scale * PRICES.lambdaRequestMillion) / 1e6,
    },
    {
      service: 'Lambda',
      what: `GB-seconds (intake ${MEMORY_MB.intake} MB × POST round trips, forwarder ${MEMORY_MB.forwarder} MB × receive→settle)`,
      per10k: (intakeGbS + forwardGbS) * scale,
      usd: (intakeGbS + forwardGbS) * scale * PRICES.lambdaGbSecond,
    },
    {
      service: 'API Gateway',
      what: 'REST API requests (one per POST)',
      per10k: leads * scale,
      usd: (leads * scale * PRICES.apiMillion) / 1e6,
    },
  ];
  return { leads, lines, totalUsd: lines.reduce((n, line) => n + line.usd, 0) };
}

/** The cost table of docs/performance.md. */
export function costTable(cost: ReturnType<typeof costPer10k>): string {
  const rows = cost.lines.map((line) => [
    line.service,
    line.what,
    String(round(line.per10k, 1)),
    `$${line.usd.toFixed(4)}`,
  ]);
  rows.push([
    '**total**',
    `${cost.leads} leads counted, scaled to 10,000`,
    '',
    `**$${cost.totalUsd.toFixed(4)}**`,
  ]);
  const head = ['service', 'what', 'per 10,000 leads', `USD (${PRICES.region}, ${PRICES.date})`];
  return [head, head.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
}
