import { beforeAll, describe, expect, it } from 'vitest';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { readGraphLead } from '../../functions/sources/meta/graph.ts';
import { completeMetaCapture, metaSource } from '../../functions/sources/meta/index.ts';
import { metaId } from '../../functions/sources/meta/platform.ts';
import {
  CONTENT_HASH_KEY,
  corpusOf,
  expectCorpusMapping,
  expectSameDedupKeys,
  leadsIn,
  mapCleanly,
} from '../helpers/lead-assertions.ts';
import { mapCapture } from '../helpers/map-capture.ts';
import {
  flipOneByte,
  MARIA_SOUZA,
  metaSignature,
  PLATFORM_SECRETS,
  type ProfileOf,
  platformBody,
  platformJson,
  platformRequest,
} from '../helpers/platform-fixtures.ts';

const profile: ProfileOf<'meta'> = {
  source: 'meta',
  appSecret: PLATFORM_SECRETS.metaAppSecret,
  verifyToken: PLATFORM_SECRETS.metaVerifyToken,
  pageAccessToken: PLATFORM_SECRETS.metaPageToken,
  graphBaseUrl: 'http://127.0.0.1:4010/graph',
  defaults: { idBranch: 2 },
  forms: { '9234567890123457': { idBranch: 3 } },
  fieldMap: { 'qual_o_seu_cpf?': 'cpf' },
};

const WEBHOOK = platformBody('meta', 'webhook-two-entries.json');

function signed(body: Buffer, headers: Record<string, string> = {}) {
  return platformRequest(body, {
    headers: {
      'X-Hub-Signature-256': metaSignature(body, PLATFORM_SECRETS.metaAppSecret, 'sha256'),
      ...headers,
    },
  });
}

async function leadsOf(body: Buffer): Promise<LeadCapture[]> {
  return leadsIn(await metaSource.capture(signed(body), profile));
}

function handshake(query: Record<string, string[]>) {
  const request = platformRequest('', { method: 'GET', query, contentType: '' });
  if (!metaSource.handshake) throw new Error('meta has a handshake');
  return metaSource.handshake(request, profile);
}

describe('metaSource.authenticate', () => {
  it('accepts X-Hub-Signature-256 computed over the raw body with the app secret', () => {
    expect(metaSource.authenticate(signed(WEBHOOK), profile)).toEqual({ ok: true });
  });

  it('refuses a request signed only with the legacy X-Hub-Signature (sha1), even a right one', () => {
    // Prepare
    const request = platformRequest(WEBHOOK, {
      headers: {
        'X-Hub-Signature': metaSignature(WEBHOOK, PLATFORM_SECRETS.metaAppSecret, 'sha1'),
      },
    });

    // Act
    const result = metaSource.authenticate(request, profile);

    // Assess
    expect(result).toMatchObject({ ok: false, status: 401, code: 'sha1_signature_refused' });
    // Both languages say how to accept it: the profile's allowSha1.
    expect(result).toMatchObject({
      message: {
        pt: expect.stringContaining('"allowSha1": true'),
        en: expect.stringContaining('"allowSha1": true'),
      },
    });
  });

  it('checks the legacy X-Hub-Signature (sha1) when the 256 header is absent and the profile allows it', () => {
    // Prepare
    const allowing = { ...profile, allowSha1: true };
    const right = platformRequest(WEBHOOK, {
      headers: {
        'X-Hub-Signature': metaSignature(WEBHOOK, PLATFORM_SECRETS.metaAppSecret, 'sha1'),
      },
    });
    const wrong = platformRequest(WEBHOOK, {
      headers: { 'X-Hub-Signature': metaSignature(WEBHOOK, 'another-secret', 'sha1') },
    });

    // Act / Assess
    expect(metaSource.authenticate(right, allowing)).toEqual({ ok: true });
    expect(metaSource.authenticate(wrong, allowing)).toMatchObject({ ok: false, status: 403 });
  });

  it('answers 401 without a signature header', () => {
    const result = metaSource.authenticate(platformRequest(WEBHOOK), profile);
    expect(result).toMatchObject({ ok: false, status: 401, code: 'missing_signature' });
  });

  it('answers 403 for a signature made with another secret', () => {
    // Prepare
    const request = platformRequest(WEBHOOK, {
      headers: { 'X-Hub-Signature-256': metaSignature(WEBHOOK, 'another-secret', 'sha256') },
    });

    // Act / Assess
    expect(metaSource.authenticate(request, profile)).toMatchObject({
      ok: false,
      status: 403,
      code: 'invalid_signature',
    });
  });

  it('answers 403 when one byte of the body changed after signing', () => {
    // Prepare
    const request = signed(WEBHOOK);
    const tampered = { ...request, body: flipOneByte(WEBHOOK) };

    // Act / Assess
    expect(metaSource.authenticate(tampered, profile)).toMatchObject({ ok: false, status: 403 });
  });

  it('answers 403 for a malformed header, and does not fall back to sha1 when 256 is wrong', () => {
    // Prepare
    const sha1 = metaSignature(WEBHOOK, PLATFORM_SECRETS.metaAppSecret, 'sha1');
    const malformed = signed(WEBHOOK, { 'X-Hub-Signature-256': 'sha256=not-hex' });
    const wrong256 = signed(WEBHOOK, {
      'X-Hub-Signature-256': metaSignature(WEBHOOK, 'another-secret', 'sha256'),
      'X-Hub-Signature': sha1,
    });

    // Act / Assess
    expect(metaSource.authenticate(malformed, profile)).toMatchObject({ status: 403 });
    expect(metaSource.authenticate(wrong256, profile)).toMatchObject({ status: 403 });
  });
});

describe('metaSource.handshake', () => {
  const valid = {
    'hub.mode': ['subscribe'],
    'hub.challenge': ['1158201444'],
    'hub.verify_token': [PLATFORM_SECRETS.metaVerifyToken],
  };

  it('echoes hub.challenge exactly, as text/plain, for the right verify token', () => {
    const answer = handshake(valid);
    expect(answer.statusCode).toBe(200);
    expect(answer.body).toBe('1158201444');
    expect(answer.headers?.['content-type']).toMatch(/^text\/plain/);
  });

  it('accepts the PHP-style names (hub_mode, hub_verify_token, hub_challenge)', () => {
    const answer = handshake({
      hub_mode: ['subscribe'],
      hub_challenge: ['abc-123'],
      hub_verify_token: [PLATFORM_SECRETS.metaVerifyToken],
    });
    expect(answer).toMatchObject({ statusCode: 200, body: 'abc-123' });
  });

  it.each([
    ['a wrong verify token', { ...valid, 'hub.verify_token': ['guess'] }],
    ['no verify token', { 'hub.mode': ['subscribe'], 'hub.challenge': ['1'] }],
    ['another mode', { ...valid, 'hub.mode': ['unsubscribe'] }],
    ['no challenge', { 'hub.mode': ['subscribe'], 'hub.verify_token': valid['hub.verify_token'] }],
  ])('answers 403 for %s, without echoing anything', (_, query) => {
    const answer = handshake(query);
    expect(answer.statusCode).toBe(403);
    expect(answer.body).not.toContain('1158201444');
    expect(answer.body).not.toContain(PLATFORM_SECRETS.metaVerifyToken);
  });
});

describe('metaSource.capture', () => {
  it('captures one pending lead per leadgen change, ids exact beyond 2^53', async () => {
    // Prepare: JSON.parse would round the 16- and 17-digit numeric ids of the first entry.
    const naive = JSON.parse(WEBHOOK.toString('utf8'));
    expect(String(naive.entry[0].changes[0].value.leadgen_id)).not.toBe('9444444444444449');

    // Act
    const leads = await leadsOf(WEBHOOK);

    // Assess: the feed change is ignored; the second entry's ids came as strings, its ad as 0.
    expect(leads).toEqual([
      {
        source: 'meta',
        dedupKey: 'meta:9444444444444449',
        isTest: false,
        externalId: '9444444444444449',
        formId: '9234567890123457',
        submittedAt: '2025-05-02T13:10:07.000Z',
        answers: [],
        attribution: {
          page_id: '153125381133',
          ad_id: '23851234567890129',
          adgroup_id: '23851234567890129',
          form_id: '9234567890123457',
        },
        dateOrder: 'MDY',
        pending: { kind: 'meta-graph', leadgenId: '9444444444444449' },
      },
      {
        source: 'meta',
        dedupKey: 'meta:9555555555555557',
        isTest: false,
        externalId: '9555555555555557',
        formId: '9234567890123457',
        submittedAt: '2025-05-02T13:13:08.000Z',
        answers: [],
        attribution: { page_id: '153125381133', form_id: '9234567890123457' },
        dateOrder: 'MDY',
        pending: { kind: 'meta-graph', leadgenId: '9555555555555557' },
      },
    ]);
  });

  it('gives a redelivery of the same body the same dedup keys', async () => {
    await expectSameDedupKeys(leadsOf, WEBHOOK);
  });

  it('captures nothing from a notification without leadgen changes', async () => {
    const body = Buffer.from(
      JSON.stringify({
        object: 'page',
        entry: [{ id: '1', time: 1, changes: [{ field: 'feed', value: {} }] }, { id: '2' }],
      }),
    );
    expect(await leadsOf(body)).toEqual([]);
  });

  it('falls back to the entry id for page_id', async () => {
    const body = Buffer.from(
      '{"object":"page","entry":[{"id":153125381133,"time":1,"changes":[{"field":"leadgen","value":{"leadgen_id":"444444444444444"}}]}]}',
    );
    expect((await leadsOf(body))[0]?.attribution).toEqual({ page_id: '153125381133' });
  });

  it('reports a body that is not JSON as a structural problem with a content hash', async () => {
    // Prepare
    const body = platformBody('meta', 'webhook-malformed.txt');

    // Act
    const result = await metaSource.capture(signed(body), profile);
    const again = await metaSource.capture(signed(body), profile);

    // Assess
    expect(result).toEqual({
      problem: 'o corpo não é JSON',
      dedupKey: expect.stringMatching(CONTENT_HASH_KEY),
    });
    expect(again).toEqual(result);
  });

  it('parks the whole request when one leadgen change has no leadgen_id', async () => {
    const result = await metaSource.capture(
      signed(platformBody('meta', 'webhook-no-leadgen-id.json')),
      profile,
    );
    expect(result).toMatchObject({
      problem: 'entry[0].changes[0].value.leadgen_id falta ou não é um id',
    });
  });

  it.each([
    ['an array', '[]', 'o corpo não é um objeto JSON'],
    ['no entry', '{"object":"page"}', 'o corpo não tem a lista "entry"'],
    ['changes not a list', '{"entry":[{"changes":{}}]}', 'entry[0].changes não é uma lista'],
  ])('reports %s as a problem', async (_, text, problem) => {
    expect(await metaSource.capture(signed(Buffer.from(text)), profile)).toMatchObject({ problem });
  });
});

describe('metaId', () => {
  it.each([
    [9444444444444, '9444444444444'],
    ['9444444444444449', '9444444444444449'],
    [' 12 ', '12'],
    [0, undefined],
    ['0', undefined],
    [-5, undefined],
    [1.5, undefined],
    ['12a', undefined],
    [null, undefined],
  ])('%j → %j', (input, expected) => {
    expect(metaId(input)).toBe(expected);
  });
});

describe('completeMetaCapture + mapLeadToProspect', () => {
  let paid: LeadCapture;
  let organic: LeadCapture;
  beforeAll(async () => {
    [paid, organic] = (await leadsOf(WEBHOOK)) as [LeadCapture, LeadCapture];
  });
  const graphLead = readGraphLead(platformJson('meta', 'graph-lead.json'));
  const testLead = readGraphLead(platformJson('meta', 'graph-test-lead.json'));
  if (!graphLead || !testLead) throw new Error('fixtures are Graph leads');

  it('merges the Graph answers and ids into the pending capture', () => {
    const completed = completeMetaCapture(paid, graphLead);
    expect(completed).toEqual({
      source: 'meta',
      dedupKey: 'meta:9444444444444449',
      isTest: false,
      externalId: '9444444444444449',
      formId: '9234567890123457',
      submittedAt: '2025-05-02T13:10:07.000Z',
      answers: [
        { key: 'full_name', value: 'Maria Souza' },
        // Meta's standard questions declare their input: the birthday is Meta's date picker.
        { key: 'email', type: 'email', value: 'maria.souza@example.com' },
        { key: 'phone_number', type: 'phone', value: '+5511987654321' },
        { key: 'date_of_birth', type: 'date', value: '05/12/1990' },
        { key: 'gender', value: 'female' },
        { key: 'qual_o_seu_cpf?', value: '529.982.247-25' },
        { key: 'qual_unidade_voce_prefere?', value: 'Centro' },
      ],
      attribution: {
        ad_id: '23851234567890129',
        adset_id: '23851234567890127',
        campaign_id: '23851234567890125',
        platform: 'ig',
        is_organic: 'false',
        page_id: '153125381133',
        adgroup_id: '23851234567890129',
        form_id: '9234567890123457',
      },
      dateOrder: 'MDY',
    });
    expect(completed).not.toHaveProperty('pending');
    expect(completeMetaCapture(completed, graphLead)).toBe(completed);
  });

  it('maps the completed lead to the Prospect field by field', () => {
    // Act
    const prospect = mapCleanly(completeMetaCapture(paid, graphLead), profile);

    // Assess: her date_of_birth 05/12/1990 is read month-first.
    expect(prospect).toMatchObject({
      ...MARIA_SOUZA,
      gender: 'F',
      idBranch: 3, // forms.<form_id> over defaults
      marketingType: 'Facebook/Instagram Lead Ads',
    });
    expect(prospect.notes).toBe(
      [
        'Lead recebido via Facebook/Instagram Lead Ads, formulário 9234567890123457, lead 9444444444444449.',
        'qual_unidade_voce_prefere?: Centro',
        'Origem: ad_id=23851234567890129; adset_id=23851234567890127; campaign_id=23851234567890125; ' +
          'platform=ig; is_organic=false; page_id=153125381133; adgroup_id=23851234567890129; ' +
          'form_id=9234567890123457',
      ].join('\n\n'),
    );
  });

  it('marks a Lead Ads Testing Tool lead as a test once Graph shows its placeholders', () => {
    // Prepare: the webhook alone cannot tell (no ad, like any organic lead).
    expect(organic.isTest).toBe(false);

    // Act
    const completed = completeMetaCapture(organic, testLead);

    // Assess
    expect(completed.isTest).toBe(true);
    expect(completed.attribution).toMatchObject({ is_organic: 'true', platform: 'fb' });
    expect(mapCapture(completed, profile).prospect.notes).toContain('LEAD DE TESTE');
  });

  it('keeps an organic lead with real answers as a real lead', () => {
    const real = { ...testLead, isTest: undefined, answers: graphLead.answers };
    const { isTest: _none, ...withoutFlag } = real;
    expect(completeMetaCapture(organic, withoutFlag).isTest).toBe(false);
  });
});

describe('metaSource.accepted', () => {
  it('answers 200 JSON with the lead ids', () => {
    const answer = metaSource.accepted(['l-1', 'l-2']);
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ leadIds: ['l-1', 'l-2'] });
    expect(metaSource.parkUnreadable).toBe(true);
  });
});

describe("the mapping corpus: Meta's standard and custom questions, field by field", () => {
  it.each(corpusOf('meta'))('$id: $description', async (entry) => {
    await expectCorpusMapping(entry);
  });
});
