/**
 * Meta Lead Ads backfill: the leads of a period, listed form by form through the Graph API
 * (`GET /{form-id}/leads` with `filtering` on `time_created`, 100 a page, following the `after`
 * cursor), each turned into the capture the `leadgen` webhook would have given once its Graph
 * lookup was done: the same dedup key (`meta:<leadgen id>`), the answers, the ids. Meta keeps a
 * form's leads 90 days, the longest period one backfill covers.
 */
import type { LeadCapture } from '../../domain/lead.ts';
import type { Backfill, BackfillPeriod, CompletionContext } from '../source.ts';
import { createMetaGraph, type MetaGraphLead } from './graph.ts';

/** Meta keeps a form's leads this long. */
export const META_BACKFILL_MAX_DAYS = 90;
/** Pages of one form read at most (100 leads each): a bound on a runaway cursor. */
export const META_BACKFILL_MAX_PAGES = 200;

interface MetaBackfillProfile {
  graphBaseUrl: string;
  pageAccessToken: string;
  appSecret: string;
}

/** A listed Graph lead as a completed `meta` capture (what the webhook plus lookup give). */
export function captureFromGraphLead(
  id: string,
  graphLead: MetaGraphLead,
  formId: string,
): LeadCapture {
  const form = graphLead.formId ?? formId;
  const capture: LeadCapture = {
    source: 'meta',
    dedupKey: `meta:${id}`,
    isTest: graphLead.isTest === true,
    externalId: id,
    formId: form,
    answers: [...graphLead.answers],
    attribution: { ...graphLead.attribution, form_id: form },
    // Meta's own date question is MM/DD/YYYY, as in the webhook's capture (index.ts).
    dateOrder: 'MDY',
  };
  if (graphLead.createdTime) capture.submittedAt = graphLead.createdTime;
  return capture;
}

async function list(
  profile: MetaBackfillProfile,
  formIds: readonly string[],
  period: BackfillPeriod,
  context: CompletionContext,
): Promise<LeadCapture[]> {
  const graph = createMetaGraph(context.fetch ? { fetch: context.fetch } : {});
  const call = {
    graphBaseUrl: profile.graphBaseUrl,
    accessToken: profile.pageAccessToken,
    appSecret: profile.appSecret,
    since: period.since,
    until: period.until,
    ...(context.signal && { signal: context.signal }),
  };
  const captures: LeadCapture[] = [];
  for (const formId of formIds) {
    let after: string | undefined;
    for (let page = 0; page < META_BACKFILL_MAX_PAGES; page += 1) {
      const listed = await graph.listFormLeads(formId, {
        ...call,
        ...(after !== undefined && { after }),
      });
      for (const lead of listed.leads) captures.push(captureFromGraphLead(lead.id, lead, formId));
      after = listed.after;
      if (after === undefined) break;
    }
  }
  return captures;
}

export const metaBackfill: Backfill<MetaBackfillProfile> = {
  maxDays: META_BACKFILL_MAX_DAYS,
  keeper: 'A Meta',
  list,
};
