/**
 * TikTok Lead Generation leads the sandbox's TikTok API for Business stand-in serves: the
 * registration (`POST /_sandbox/tiktok-leads`) and the lead download of an instant form as
 * TikTok does it, a task then a CSV:
 * - `POST /tiktok/open_api/v1.3/page/lead/task/` `{advertiser_id, page_id[, task_id]}` →
 *   `{code: 0, data: {task_id, status: "SUCCEED"}}` (the sandbox's tasks finish at once);
 * - `GET /tiktok/open_api/v1.3/page/lead/task/download/?advertiser_id&task_id` → the form's leads
 *   as CSV: `lead_id, create_time, ad_id, ad_name, adgroup_id, adgroup_name, campaign_id,
 *   campaign_name, page_id, page_name, is_test`, then one column per question.
 * Both need the `Access-Token` header (code 40105 without it). Errors are TikTok's
 * `{code, message, request_id, data: {}}` with HTTP 200, as TikTok answers.
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod/mini';
import { describeIssues, type IssueDetail } from '../functions/domain/json.ts';

export interface TikTokSandboxLead {
  lead_id: string;
  page_id: string;
  advertiser_id: string;
  /** `2025-05-02 13:10:07`, UTC, as the download writes it. */
  create_time: string;
  is_test: boolean;
  ad_id?: string;
  ad_name?: string;
  adgroup_id?: string;
  adgroup_name?: string;
  campaign_id?: string;
  campaign_name?: string;
  page_name?: string;
  /** Question → answer, in the form's order. */
  answers: Record<string, string>;
}

const id = z.string().check(z.regex(/^\d{1,30}$/, 'must be a decimal id (a string)'));
const text = z.optional(z.string());

const registrationSchema = z.strictObject({
  lead_id: id,
  page_id: id,
  advertiser_id: id,
  create_time: z.optional(z.union([z.string(), z.number()])),
  is_test: z.optional(z.boolean()),
  ad_id: z.optional(id),
  ad_name: text,
  adgroup_id: z.optional(id),
  adgroup_name: text,
  campaign_id: z.optional(id),
  campaign_name: text,
  page_name: text,
  answers: z.record(z.string().check(z.minLength(1)), z.string()),
});

const pad = (n: number) => String(n).padStart(2, '0');

function formatTime(date: Date): string {
  return (
    `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
  );
}

function readTime(value: string | number): Date | undefined {
  const date =
    typeof value === 'number'
      ? new Date(value * 1000)
      : new Date(/[zZ]|[+-]\d{2}:?\d{2}$/.test(value) ? value : `${value.replace(' ', 'T')}Z`);
  return Number.isFinite(date.getTime()) ? date : undefined;
}

export type TikTokLeadRegistration =
  | { ok: true; lead: TikTokSandboxLead }
  | { ok: false; details: IssueDetail[] };

/** Validates a lead to register; `now` fills a missing `create_time`. */
export function normaliseTikTokLead(input: unknown, now: Date): TikTokLeadRegistration {
  const parsed = registrationSchema.safeParse(input);
  if (!parsed.success) return { ok: false, details: describeIssues(parsed.error.issues, input) };
  const { create_time, is_test, ...rest } = parsed.data;
  const created = create_time === undefined ? now : readTime(create_time);
  if (!created) {
    return {
      ok: false,
      details: [{ field: 'create_time', message: 'must be epoch seconds or a date-time' }],
    };
  }
  return {
    ok: true,
    lead: { ...rest, create_time: formatTime(created), is_test: is_test ?? false },
  };
}

const STRUCTURE = [
  'lead_id',
  'create_time',
  'ad_id',
  'ad_name',
  'adgroup_id',
  'adgroup_name',
  'campaign_id',
  'campaign_name',
  'page_id',
  'page_name',
  'is_test',
] as const;

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** The CSV of a form's leads: the structural columns, then every question any lead answered. */
export function leadsCsv(leads: readonly TikTokSandboxLead[]): string {
  const questions: string[] = [];
  for (const lead of leads) {
    for (const question of Object.keys(lead.answers)) {
      if (!questions.includes(question)) questions.push(question);
    }
  }
  const rows = [[...STRUCTURE, ...questions].map(csvCell).join(',')];
  for (const lead of leads) {
    const structure = STRUCTURE.map((column) => {
      const value = lead[column];
      return value === undefined ? '' : String(value);
    });
    const answers = questions.map((q) => lead.answers[q] ?? '');
    rows.push([...structure, ...answers].map(csvCell).join(','));
  }
  return `${rows.join('\r\n')}\r\n`;
}

/** TikTok's answer shape. */
export function tiktokAnswer(code: number, message: string, data: unknown = {}) {
  return { code, message, request_id: randomUUID().replace(/-/g, ''), data };
}

/** The sandbox's download tasks: each remembers its form and ad account. */
export class TikTokTasks {
  private readonly tasks = new Map<string, { pageId: string; advertiserId: string }>();
  private next = 7_500_000_000_000_000_000n;

  create(pageId: string, advertiserId: string): string {
    this.next += 1n;
    const taskId = String(this.next);
    this.tasks.set(taskId, { pageId, advertiserId });
    return taskId;
  }

  get(taskId: string): { pageId: string; advertiserId: string } | undefined {
    return this.tasks.get(taskId);
  }

  clear(): void {
    this.tasks.clear();
  }
}
