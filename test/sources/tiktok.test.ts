import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tiktokSource } from '../../functions/sources/tiktok.ts';
import { readLeadCsv } from '../../functions/sources/tiktok-api.ts';
import { createSandbox, type Sandbox } from '../../sandbox/server.ts';
import {
  CONTENT_HASH_KEY,
  expectSameDedupKeys,
  leadsIn,
  theLead,
} from '../helpers/lead-assertions.ts';
import { mapCapture } from '../helpers/map-capture.ts';
import {
  CARLOS_PEREIRA,
  MARIA_SOUZA,
  type ProfileOf,
  platformBody,
  platformRequest,
} from '../helpers/platform-fixtures.ts';

const TOKEN = 'demo-tiktok-token';
const ADVERTISER = '7387511059776798737';
const FORM = '7400000000000000001';

const profile: ProfileOf<'tiktok'> = {
  source: 'tiktok',
  token: TOKEN,
  accessToken: 'demo-tiktok-access-token',
  advertiserId: ADVERTISER,
  apiBaseUrl: 'http://127.0.0.1:1/unused',
  defaults: { idBranch: 1 },
};

const LEAD = platformBody('tiktok', 'webhook-lead.json');
const IDS_ONLY = platformBody('tiktok', 'webhook-ids-only.json');

const withToken = (body: Buffer, token = TOKEN) =>
  platformRequest(body, { query: { token: [token] } });
const capture = (body: Buffer) => tiktokSource.capture(withToken(body), profile);

describe('tiktokSource.authenticate (a URL token: TikTok signs nothing on this webhook)', () => {
  it('accepts the profile’s token, 401 without one, 403 with another', () => {
    expect(tiktokSource.authenticate(withToken(LEAD), profile)).toEqual({ ok: true });
    expect(tiktokSource.authenticate(platformRequest(LEAD), profile)).toMatchObject({
      ok: false,
      status: 401,
    });
    expect(tiktokSource.authenticate(withToken(LEAD, 'demo-tiktok-tokeN'), profile)).toMatchObject({
      ok: false,
      status: 403,
    });
  });
});

describe('tiktokSource.capture', () => {
  it('maps a webhook with its answers field for field, the ids and names to the notes', async () => {
    // Act
    const lead = theLead(capture(LEAD));
    const mapped = mapCapture(lead, profile);

    // Assess
    expect(lead).toMatchObject({
      dedupKey: 'tiktok:7412345678901234567',
      externalId: '7412345678901234567',
      formId: FORM,
      isTest: false,
      submittedAt: '2025-05-02T13:10:07.000Z',
    });
    expect(lead.pending).toBeUndefined();
    expect(mapped.prospect).toMatchObject({ ...MARIA_SOUZA, idBranch: 1 });
    expect(mapped.missing).toEqual([]);
    for (const text of [
      'Qual unidade você prefere?: Centro',
      'ad_id=1809876543210987',
      'campaign_name=Verão 2025',
      'adgroup_id=1809876543210000',
    ]) {
      expect(mapped.prospect.notes).toContain(text);
    }
  });

  it('records a webhook that carries ids only as pending a lookup', async () => {
    const lead = theLead(capture(IDS_ONLY));
    expect(lead.answers).toEqual([]);
    expect(lead.pending).toEqual({ kind: 'tiktok-lead', leadgenId: '7412345678901234568' });
  });

  it('marks a lead saying is_test as a test lead', async () => {
    expect(theLead(capture(platformBody('tiktok', 'webhook-test-lead.json'))).isTest).toBe(true);
    expect(theLead(capture(LEAD)).isTest).toBe(false);
  });

  it('gives a redelivery of the same body the same dedup key', async () => {
    await expectSameDedupKeys(async (body) => leadsIn(capture(body)), LEAD);
  });

  it('parks an entry without a lead id under a hash of the body; other subscriptions are no lead', async () => {
    expect(await capture(platformBody('tiktok', 'webhook-no-id.json'))).toEqual({
      problem: 'entry[0].id falta ou não é um id de lead',
      dedupKey: expect.stringMatching(CONTENT_HASH_KEY),
    });
    expect(leadsIn(capture(Buffer.from('{"object":"AD_STATUS","entry":[{"id":"1"}]}')))).toEqual(
      [],
    );
  });
});

describe('readLeadCsv (the lead download)', () => {
  it('reads the documented columns, a quoted answer with a comma, and the questions as answers', () => {
    // Prepare
    const csv = readFileSync(
      join(import.meta.dirname, '../fixtures/leads/tiktok/download.csv'),
      'utf8',
    );

    // Act
    const [lead] = readLeadCsv(csv);

    // Assess
    expect(lead).toMatchObject({
      id: '7412345678901234568',
      createdTime: '2025-05-02T13:10:18.000Z',
      pageId: FORM,
      isTest: false,
      attribution: { ad_id: '1809876543210987', campaign_name: 'Verão 2025' },
    });
    expect(lead?.answers).toContainEqual(
      expect.objectContaining({
        key: 'Qual unidade você prefere?',
        value: 'Zona Sul, perto do metrô',
      }),
    );
  });
});

describe('tiktok lookups and backfill against the sandbox’s TikTok API stand-in', () => {
  let sandbox: Sandbox;
  let live: ProfileOf<'tiktok'>;

  const register = async (lead: Record<string, unknown>) => {
    const answer = await fetch(`${sandbox.url}/_sandbox/tiktok-leads`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(lead),
    });
    expect(answer.status).toBe(201);
  };

  beforeAll(async () => {
    sandbox = await createSandbox({ port: 0 });
    live = { ...profile, apiBaseUrl: `${sandbox.url}/tiktok/open_api/v1.3` };
    await register({
      lead_id: '7412345678901234568',
      page_id: FORM,
      advertiser_id: ADVERTISER,
      create_time: 1746191418,
      ad_id: '1809876543210987',
      answers: {
        name: 'Carlos Pereira',
        email: CARLOS_PEREIRA.email,
        phone_number: '+5521998765432',
        'Qual unidade você prefere?': 'Zona Sul',
      },
    });
    await register({
      lead_id: '7412345678901234570',
      page_id: FORM,
      advertiser_id: ADVERTISER,
      create_time: 1746277818, // a day later
      answers: { name: 'Ana Lima', email: 'ana.lima@example.com' },
    });
  });

  afterAll(async () => {
    await sandbox.close();
  });

  it('completes an ids-only webhook with the answers of its form’s download', async () => {
    // Prepare
    const pending = theLead(capture(IDS_ONLY));
    if (!tiktokSource.complete) throw new Error('tiktok completes its leads');

    // Act
    const completed = await tiktokSource.complete(pending, live, {});
    const mapped = mapCapture(completed, live);

    // Assess
    expect(completed.pending).toBeUndefined();
    expect(completed.dedupKey).toBe(pending.dedupKey);
    expect(mapped.prospect).toMatchObject(CARLOS_PEREIRA);
    expect(mapped.prospect.notes).toContain('Qual unidade você prefere?: Zona Sul');
  });

  it('fails a lookup as rejected when the lead is not among its form’s leads, unauthorized for a bad token', async () => {
    // Prepare
    const pending = theLead(capture(IDS_ONLY));
    const unknown = {
      ...pending,
      pending: { kind: 'tiktok-lead', leadgenId: '7999999999999999999' },
    };
    if (!tiktokSource.complete) throw new Error('tiktok completes its leads');

    // Act / Assess
    await expect(tiktokSource.complete(unknown, live, {})).rejects.toMatchObject({
      kind: 'rejected',
    });
    await expect(
      tiktokSource.complete(pending, { ...live, accessToken: ' ' }, {}),
    ).rejects.toMatchObject({ kind: 'unauthorized', name: 'TikTokApiError' });
  });

  it('lists the leads of a period only, as the webhook’s captures (same dedup keys)', async () => {
    // Prepare
    if (!tiktokSource.backfill) throw new Error('tiktok backfills');
    const period = {
      since: new Date('2025-05-02T00:00:00Z'),
      until: new Date('2025-05-03T00:00:00Z'),
    };

    // Act
    const listed = await tiktokSource.backfill.list(live, [FORM], period, {});

    // Assess
    expect(listed.map((lead) => lead.dedupKey)).toEqual([theLead(capture(IDS_ONLY)).dedupKey]);
    expect(mapCapture(listed[0] as never, live).prospect).toMatchObject(CARLOS_PEREIRA);
  });
});
