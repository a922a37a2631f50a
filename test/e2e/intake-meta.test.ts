/**
 * Meta (Facebook / Instagram) Lead Ads through the local gateway: the same Lambda handler as on
 * AWS, the ledger on the local DynamoDB, the sandbox's Graph stand-in. The `leadgen` webhook
 * carries ids only, so intake records each lead as queued and pending a Graph lookup; the
 * forwarder (a later task) fetches it and completes it. This file proves both halves: what intake
 * records, and that the completion path works on what it recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Profile } from '../../functions/config/config-schema.ts';
import type { LeadRecord } from '../../functions/ledger/lead-ledger.ts';
import { createMetaGraph } from '../../functions/sources/meta/graph.ts';
import { completeMetaCapture } from '../../functions/sources/meta/index.ts';
import { expectNotesContain } from '../helpers/lead-assertions.ts';
import {
  expectErrorCode,
  expectParked,
  leadIdOf,
  startTestRuntime,
  type TestRuntime,
  testConfig,
} from '../helpers/local-runtime.ts';
import { mapCapture } from '../helpers/map-capture.ts';
import {
  flipOneByte,
  MARIA_SOUZA,
  metaSignature,
  PLATFORM_SECRETS,
  platformBody,
} from '../helpers/platform-fixtures.ts';

/** Both above 2^53 (9007199254740992): a naive JSON.parse would change their last digits. */
const LEAD_ID = '9444444444444449';
const TEST_LEAD_ID = '9555555555555557';
const FORM_ID = '9234567890123457';
const PAGE_ID = '153125381133';

const WEBHOOK = platformBody('meta', 'webhook-two-entries.json');
const JSON_HEADERS = { 'content-type': 'application/json' };

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(
    testConfig({
      meta: {
        source: 'meta',
        appSecret: PLATFORM_SECRETS.metaAppSecret,
        verifyToken: PLATFORM_SECRETS.metaVerifyToken,
        pageAccessToken: PLATFORM_SECRETS.metaPageToken,
        // The configured upstream's origin: the local runtime points it at its sandbox.
        graphBaseUrl: 'http://127.0.0.1:4010/graph',
        defaults: { idBranch: 2, marketingType: 'Meta Ads' },
        forms: { [FORM_ID]: { idBranch: 3 } },
      },
    }),
  );
});
afterAll(() => rt?.stop());

function signed(body: Buffer, secret: string = PLATFORM_SECRETS.metaAppSecret) {
  return { ...JSON_HEADERS, 'x-hub-signature-256': metaSignature(body, secret, 'sha256') };
}

/** The profile as the runtime's handlers see it (graphBaseUrl rewritten to the sandbox). */
function metaProfile(): Extract<Profile, { source: 'meta' }> {
  const profile = rt.runtime.config.profiles.meta;
  if (profile?.source !== 'meta') throw new Error('the test config has a meta profile');
  return profile;
}

interface Accepted {
  leadId?: string;
  leadIds?: string[];
  status: string;
}

async function postWebhook(): Promise<{ leadIds: string[]; leads: LeadRecord[] }> {
  const response = await rt.post('/leads/meta', WEBHOOK, signed(WEBHOOK));
  expect(response.status).toBe(200);
  const body = (await response.json()) as Accepted;
  const leadIds = body.leadIds ?? [];
  const leads = await Promise.all(leadIds.map((id) => rt.ledger.get(id)));
  return { leadIds, leads: leads.filter((l): l is LeadRecord => l !== undefined) };
}

/** Registers a Graph lead in the sandbox from a fixture (raw bytes: ids stay exact). */
async function registerGraphLead(file: string): Promise<void> {
  const response = await fetch(new URL('/_sandbox/meta-leads', rt.sandboxUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: new Uint8Array(platformBody('meta', file)),
  });
  expect(response.status).toBe(201);
}

/** What the forwarder will do with a pending capture: Graph lookup, completion, mapping. */
async function complete(lead: LeadRecord) {
  const profile = metaProfile();
  const leadgenId = lead.capture.pending?.leadgenId ?? '';
  const graphLead = await createMetaGraph().fetchLead(leadgenId, {
    graphBaseUrl: profile.graphBaseUrl,
    accessToken: profile.pageAccessToken,
    appSecret: profile.appSecret,
  });
  const capture = completeMetaCapture(lead.capture, graphLead);
  return { capture, mapped: mapCapture(capture, profile) };
}

describe('POST /leads/{profile} with a Meta leadgen webhook', () => {
  it('accepts the webhook with 200 and records each lead as queued, pending its Graph lookup', async () => {
    const { leadIds, leads } = await postWebhook();
    expect(leadIds).toHaveLength(2);
    expect(leads).toHaveLength(2);
    const [lead, testLead] = leads;

    expect(lead).toMatchObject({
      profile: 'meta',
      source: 'meta',
      status: 'queued',
      dedupKey: `meta:${LEAD_ID}`,
      capture: {
        isTest: false,
        externalId: LEAD_ID,
        formId: FORM_ID,
        pending: { kind: 'meta-graph', leadgenId: LEAD_ID },
        submittedAt: '2025-05-02T13:10:07.000Z',
        attribution: {
          page_id: PAGE_ID,
          form_id: FORM_ID,
          ad_id: '23851234567890129',
          adgroup_id: '23851234567890129',
        },
      },
    });
    // Nothing to map before the lookup: the Prospect comes with the answers.
    expect(lead?.prospect).toBeUndefined();
    expect(lead?.capture.answers).toEqual([]);

    // The second entry: ids as strings, `ad_id: 0` (organic or test) is no id.
    expect(testLead).toMatchObject({
      status: 'queued',
      capture: {
        externalId: TEST_LEAD_ID,
        formId: FORM_ID,
        pending: { kind: 'meta-graph', leadgenId: TEST_LEAD_ID },
      },
    });
    expect(testLead?.capture.attribution.ad_id).toBeUndefined();

    // forms.<form_id> is the one the mapping will pick for these leads.
    expect(metaProfile().forms?.[lead?.capture.formId ?? '']).toEqual({ idBranch: 3 });
  });

  it('completes a recorded lead through the sandbox Graph into the expected Prospect', async () => {
    const { leads } = await postWebhook();
    const lead = leads.find((l) => l.capture.externalId === LEAD_ID);
    if (!lead) throw new Error('the webhook lead was recorded');
    await registerGraphLead('graph-lead.json');
    // The runtime points the configured Graph URL at its own sandbox.
    expect(metaProfile().graphBaseUrl).toBe(`${new URL(rt.sandboxUrl).origin}/graph`);

    const { capture, mapped } = await complete(lead);
    expect(capture.pending).toBeUndefined();
    expect(capture.isTest).toBe(false);
    expect(capture.formId).toBe(FORM_ID);
    expect(mapped.missing).toEqual([]);
    expect(mapped.prospect).toMatchObject({
      // Her birthday read from Meta's date_of_birth, which is MM/DD/YYYY.
      ...MARIA_SOUZA,
      gender: 'F',
      // forms.<form_id> wins over defaults; defaults fill the rest.
      idBranch: 3,
      marketingType: 'Meta Ads',
    });
    expectNotesContain(mapped.prospect.notes ?? '', [
      `Lead recebido via Facebook/Instagram Lead Ads, formulário ${FORM_ID}, lead ${LEAD_ID}.`,
      'qual_unidade_voce_prefere?: Centro',
      'campaign_id=23851234567890125',
      'platform=ig',
    ]);
  });

  it('recognises a Lead Ads Testing Tool lead once completed (a decision: the webhook cannot tell)', async () => {
    const { leads } = await postWebhook();
    const lead = leads.find((l) => l.capture.externalId === TEST_LEAD_ID);
    if (!lead) throw new Error('the webhook test lead was recorded');
    // At intake it is indistinguishable from an organic lead.
    expect(lead).toMatchObject({ status: 'queued', capture: { isTest: false } });

    await registerGraphLead('graph-test-lead.json');
    const { capture, mapped } = await complete(lead);
    expect(capture.isTest).toBe(true);
    expect(mapped.prospect.notes).toContain('LEAD DE TESTE');
  });

  it('answers a redelivery with the same leads, never new ones', async () => {
    const first = await postWebhook();
    const before = await rt.countLeads();
    const again = await postWebhook();
    expect(again.leadIds).toEqual(first.leadIds);
    expect(await rt.countLeads()).toBe(before);
    const leads = await rt.leads('meta');
    expect(leads.filter((l) => l.capture.externalId === LEAD_ID)).toHaveLength(1);
  });

  it('refuses a body changed by one byte or another secret with 403, no signature with 401, and stores nothing', async () => {
    const before = await rt.countLeads();
    const changed = await rt.post('/leads/meta', flipOneByte(WEBHOOK), signed(WEBHOOK));
    await expectErrorCode(changed, 403, 'invalid_signature');
    const other = await rt.post('/leads/meta', WEBHOOK, signed(WEBHOOK, 'another-app-secret'));
    expect(other.status).toBe(403);
    const missing = await rt.post('/leads/meta', WEBHOOK, JSON_HEADERS);
    await expectErrorCode(missing, 401, 'missing_signature');
    expect(await rt.countLeads()).toBe(before);
  });

  it('refuses a webhook signed only with the legacy sha1 X-Hub-Signature, and stores nothing', async () => {
    const before = await rt.countLeads();
    const response = await rt.post('/leads/meta', WEBHOOK, {
      ...JSON_HEADERS,
      'x-hub-signature': metaSignature(WEBHOOK, PLATFORM_SECRETS.metaAppSecret, 'sha1'),
    });
    await expectErrorCode(response, 401, 'sha1_signature_refused');
    expect(await rt.countLeads()).toBe(before);
  });

  it('parks an authentic but unreadable webhook with its reason and still answers 200', async () => {
    const truncated = platformBody('meta', 'webhook-malformed.txt');
    const response = await rt.post('/leads/meta', truncated, signed(truncated));
    await expectParked(rt, response, {
      profile: 'meta',
      reason: 'corpo ilegível: o corpo não é JSON',
    });

    const noId = platformBody('meta', 'webhook-no-leadgen-id.json');
    const second = await rt.post('/leads/meta', noId, signed(noId));
    expect(second.status).toBe(200);
    const parked = await rt.ledger.get(await leadIdOf(second));
    expect(parked).toMatchObject({ status: 'parked' });
    expect(parked?.reason).toMatch(/^corpo ilegível: .*leadgen_id falta/);
  });
});

describe('GET /leads/{profile}: the Meta subscription handshake', () => {
  const handshake = (query: Record<string, string>) =>
    fetch(new URL(`/leads/meta?${new URLSearchParams(query)}`, rt.url));

  it('echoes hub.challenge as plain text for the right verify token', async () => {
    const response = await handshake({
      'hub.mode': 'subscribe',
      'hub.challenge': '1158201444',
      'hub.verify_token': PLATFORM_SECRETS.metaVerifyToken,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await response.text()).toBe('1158201444');
  });

  it('answers 403 for a wrong or missing verify token', async () => {
    const wrong = await handshake({
      'hub.mode': 'subscribe',
      'hub.challenge': '1158201444',
      'hub.verify_token': 'not-the-token',
    });
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).not.toContain('1158201444');
    const missing = await handshake({ 'hub.mode': 'subscribe', 'hub.challenge': '1158201444' });
    expect(missing.status).toBe(403);
  });
});
