/**
 * WhatsApp (Click-to-WhatsApp) and TikTok leads, and the backfill of leads that never reached
 * the webhook, through the local gateway, the delivery worker and the sandbox (upstream, Meta
 * Graph and TikTok API stand-ins): one runtime for every case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_FLIGHT } from '../../functions/domain/lead-lifecycle.ts';
import type { LeadRecord } from '../../functions/ledger/lead-ledger.ts';
import { basicHeader } from '../helpers/abuse-kit.ts';
import { DEMO_CLIENTS } from '../helpers/lead-fixtures.ts';
import {
  expectErrorCode,
  startTestRuntime,
  type TestRuntime,
  testConfig,
} from '../helpers/local-runtime.ts';
import { MARIA_SOUZA, metaSignature, platformBody } from '../helpers/platform-fixtures.ts';

const OPS = basicHeader('ops', 'demo-ops-password');
const WA_SECRET = 'demo-whatsapp-app-secret';
const META_SECRET = 'demo-meta-app-secret';
const TIKTOK_TOKEN = 'demo-tiktok-token';
const META_FORM = '9234567890123457';
const META_PAGE = '153125381133';
const TIKTOK_FORM = '7400000000000000001';
const ADVERTISER = '7387511059776798737';
/** How long a lead may take to settle on a loaded machine (a failsafe, not a timing claim). */
const SETTLE_MS = 60_000;

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(
    testConfig(
      {
        whatsapp: {
          source: 'whatsapp',
          appSecret: WA_SECRET,
          verifyToken: 'demo-whatsapp-verify-token',
          emailPlaceholder: '{phone}@whatsapp.invalid',
          defaults: { idBranch: 1 },
        },
        tiktok: {
          source: 'tiktok',
          token: TIKTOK_TOKEN,
          accessToken: 'demo-tiktok-access-token',
          advertiserId: ADVERTISER,
          // The configured upstream's origin: the local runtime points it at its sandbox.
          apiBaseUrl: 'http://127.0.0.1:4010/tiktok/open_api/v1.3',
          defaults: { idBranch: 1 },
          forms: { [TIKTOK_FORM]: {} },
        },
        meta: {
          source: 'meta',
          appSecret: META_SECRET,
          verifyToken: 'demo-meta-verify-token',
          pageAccessToken: 'demo-meta-page-token',
          graphBaseUrl: 'http://127.0.0.1:4010/graph',
          defaults: { idBranch: 2 },
          forms: { [META_FORM]: {} },
        },
      },
      DEMO_CLIENTS,
    ),
    { worker: true },
  );
}, 60_000);
afterAll(() => rt?.stop());

const signed = (body: Buffer, secret: string) => ({
  'content-type': 'application/json',
  'x-hub-signature-256': metaSignature(body, secret, 'sha256'),
});

async function sandboxPost(path: string, value: unknown): Promise<void> {
  const response = await fetch(new URL(path, rt.sandboxUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value),
  });
  expect(response.status, await response.text()).toBe(201);
}

/** What the sandbox upstream received, every prospect. */
async function upstreamProspects(): Promise<Array<{ body: Record<string, unknown> }>> {
  const response = await fetch(new URL('/_sandbox/prospects', rt.sandboxUrl));
  return (await response.json()) as Array<{ body: Record<string, unknown> }>;
}

/** The lead once it has left queued/sending (waits for the state, with a failsafe). */
async function settled(leadId: string): Promise<LeadRecord> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const lead = await rt.ledger.get(leadId);
    if (lead && !IN_FLIGHT.has(lead.status)) return lead;
    if (Date.now() > deadline) throw new Error(`${leadId}: still ${lead?.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function backfill(profile: string, body: unknown, authorization = OPS) {
  return fetch(new URL(`/admin/backfill/${profile}`, rt.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('WhatsApp: a Click-to-WhatsApp conversation is one lead', () => {
  const AD_MESSAGE = platformBody('whatsapp', 'ctwa-first-message.json');

  it('answers the subscription handshake with the challenge', async () => {
    const response = await fetch(
      new URL(
        '/leads/whatsapp?hub.mode=subscribe&hub.verify_token=demo-whatsapp-verify-token&hub.challenge=8421',
        rt.url,
      ),
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('8421');
  });

  it('refuses a wrong signature (403), delivers the lead once, redelivery included', async () => {
    // Act
    const forged = await rt.post('/leads/whatsapp', AD_MESSAGE, signed(AD_MESSAGE, 'guess'));
    const first = await rt.post('/leads/whatsapp', AD_MESSAGE, signed(AD_MESSAGE, WA_SECRET));
    const again = await rt.post('/leads/whatsapp', AD_MESSAGE, signed(AD_MESSAGE, WA_SECRET));
    const status = platformBody('whatsapp', 'later-message-and-status.json');
    const later = await rt.post('/leads/whatsapp', status, signed(status, WA_SECRET));

    // Assess
    await expectErrorCode(forged, 403, 'invalid_signature');
    expect(first.status).toBe(200);
    const { leadId } = (await first.json()) as { leadId: string };
    expect(again.status).toBe(200);
    expect(((await again.json()) as { leadId: string }).leadId).toBe(leadId);
    expect(later.status).toBe(200);
    expect(await later.json()).toMatchObject({ status: 'no_lead' });
    expect(await rt.countLeads('whatsapp')).toBe(1);
    const lead = await settled(leadId);
    expect(lead.status).toBe('delivered');
    const sent = (await upstreamProspects()).filter(
      (p) => p.body.email === '5511987654321@whatsapp.invalid',
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toMatchObject({
      name: MARIA_SOUZA.name,
      lastName: MARIA_SOUZA.lastName,
      ddi: MARIA_SOUZA.ddi,
      cellphone: MARIA_SOUZA.cellphone,
      idBranch: 1,
    });
    expect(String(sent[0]?.body.notes)).toContain('Quero saber dos planos');
  });
});

/** The TikTok lead was created a day ago: within the 90 days a backfill may still recover. */
const CREATED = Math.floor(Date.now() / 1000) - 86_400;

describe('TikTok: a webhook with ids only is completed from the lead download', () => {
  const IDS_ONLY = platformBody('tiktok', 'webhook-ids-only.json');

  it('refuses a wrong token (403) and delivers the downloaded answers', async () => {
    // Prepare
    await sandboxPost('/_sandbox/tiktok-leads', {
      lead_id: '7412345678901234568',
      page_id: TIKTOK_FORM,
      advertiser_id: ADVERTISER,
      create_time: CREATED,
      answers: {
        name: 'Carlos Pereira',
        email: 'carlos.pereira.tiktok@example.com',
        phone_number: '+5521998765432',
        'Qual unidade você prefere?': 'Zona Sul',
      },
    });
    const headers = { 'content-type': 'application/json' };

    // Act
    const wrong = await rt.post('/leads/tiktok?token=guess', IDS_ONLY, headers);
    const right = await rt.post(`/leads/tiktok?token=${TIKTOK_TOKEN}`, IDS_ONLY, headers);

    // Assess
    await expectErrorCode(wrong, 403, 'invalid_token');
    expect(right.status).toBe(200);
    const { leadId } = (await right.json()) as { leadId: string };
    expect((await settled(leadId)).status).toBe('delivered');
    const sent = (await upstreamProspects()).filter(
      (p) => p.body.email === 'carlos.pereira.tiktok@example.com',
    );
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toMatchObject({ name: 'Carlos', lastName: 'Pereira', idBranch: 1 });
    expect(String(sent[0]?.body.notes)).toContain('Qual unidade você prefere?: Zona Sul');
  });

  it('keeps a TikTok test lead as a test, never delivered', async () => {
    // Prepare
    const body = platformBody('tiktok', 'webhook-test-lead.json');

    // Act
    const response = await rt.post(`/leads/tiktok?token=${TIKTOK_TOKEN}`, body, {
      'content-type': 'application/json',
    });

    // Assess
    expect(response.status).toBe(200);
    const { leadId } = (await response.json()) as { leadId: string };
    expect((await rt.ledger.get(leadId))?.status).toBe('test');
  });
});

describe('POST /admin/backfill/{profile}', () => {
  it('recovers the 4 Meta leads that never came, recognises the 6 that did: 10 prospects, none twice', async () => {
    // Prepare: 10 leads Meta kept today, 6 of them sent through the webhook.
    const now = Math.floor(Date.now() / 1000);
    const ids = Array.from({ length: 10 }, (_, i) => `98000000000000${String(i).padStart(2, '0')}`);
    const emailOf = (i: number) => `backfill.${i}@example.com`;
    for (const [i, id] of ids.entries()) {
      await sandboxPost('/_sandbox/meta-leads', {
        id,
        form_id: META_FORM,
        created_time: now - 3600 + i,
        field_data: [
          { name: 'full_name', values: [`Pessoa${i} Backfill`] },
          { name: 'email', values: [emailOf(i)] },
          { name: 'phone_number', values: [`+55119876500${String(i).padStart(2, '0')}`] },
        ],
      });
    }
    const webhook = Buffer.from(
      JSON.stringify({
        object: 'page',
        entry: [
          {
            id: META_PAGE,
            time: now,
            changes: ids.slice(0, 6).map((id, i) => ({
              field: 'leadgen',
              value: {
                leadgen_id: id,
                form_id: META_FORM,
                page_id: META_PAGE,
                created_time: now - 3600 + i,
              },
            })),
          },
        ],
      }),
    );
    const posted = await rt.post('/leads/meta', webhook, signed(webhook, META_SECRET));
    expect(posted.status).toBe(200);
    const { leadIds } = (await posted.json()) as { leadIds: string[] };
    expect(leadIds).toHaveLength(6);
    const period = {
      since: new Date((now - 86_400) * 1000).toISOString(),
      until: new Date().toISOString(),
    };

    // Act
    const response = await backfill('meta', period);
    const rerun = await backfill('meta', period);

    // Assess
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      profile: 'meta',
      forms: [META_FORM],
      found: 10,
      alreadyKnown: 6,
      new: 4,
      statuses: { queued: 4 },
      more: false,
    });
    expect(await rerun.json()).toMatchObject({ found: 10, alreadyKnown: 10, new: 0 });
    const leads = await rt.leads('meta');
    const unique = new Set(leads.map((lead) => lead.leadId));
    expect(unique.size).toBe(10);
    for (const leadId of unique) expect((await settled(leadId)).status).toBe('delivered');
    const emails = (await upstreamProspects())
      .map((p) => String(p.body.email))
      .filter((email) => email.startsWith('backfill.'));
    expect(emails.sort()).toEqual(ids.map((_, i) => emailOf(i)).sort());
  });

  it('recognises a TikTok lead that did arrive by its lead id', async () => {
    // Act: the period of the webhook test's lead (created a day ago).
    const response = await backfill('tiktok', {
      since: new Date((CREATED - 3600) * 1000).toISOString(),
      until: new Date((CREATED + 3600) * 1000).toISOString(),
    });

    // Assess
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ found: 1, alreadyKnown: 1, new: 0 });
  });

  it('answers 400 for a bad period, 404 for an unknown profile, 409 for a source that keeps nothing, 401 without credentials', async () => {
    // Act / Assess
    await expectErrorCode(
      await backfill('meta', { since: '2026-01-10T00:00:00Z', until: '2026-01-01T00:00:00Z' }),
      400,
      'invalid_period',
    );
    await expectErrorCode(
      await backfill('meta', { since: '2025-01-01T00:00:00Z', until: '2025-06-01T00:00:00Z' }),
      400,
      'period_too_long',
    );
    await expectErrorCode(await backfill('meta', '{"since": "yesterday"}'), 400, 'invalid_body');
    await expectErrorCode(
      await backfill('nobody', { since: '2025-05-02T00:00:00Z', until: '2025-05-03T00:00:00Z' }),
      404,
      'unknown_profile',
    );
    await expectErrorCode(
      await backfill('whatsapp', { since: '2025-05-02T00:00:00Z', until: '2025-05-03T00:00:00Z' }),
      409,
      'backfill_unsupported',
    );
    const anonymous = await backfill(
      'meta',
      { since: '2025-05-02T00:00:00Z', until: '2025-05-03T00:00:00Z' },
      basicHeader('ops', 'wrong'),
    );
    expect(anonymous.status).toBe(401);
  });
});
