import { describe, expect, it } from 'vitest';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { KommoApiError, kommoSource } from '../../functions/sources/kommo.ts';
import {
  corpusOf,
  expectCorpusMapping,
  leadsIn,
  mapCleanly,
  problemOf,
  theLead,
} from '../helpers/lead-assertions.ts';
import { mapCapture } from '../helpers/map-capture.ts';
import { MORE_SECRETS, wireFixture, wireRequest } from '../helpers/more-sources.ts';
import { type ProfileOf, platformJson } from '../helpers/platform-fixtures.ts';

const API = 'https://academiamovimento.kommo.com';
const profile: ProfileOf<'kommo'> = {
  source: 'kommo',
  token: MORE_SECRETS.kommo,
  accessToken: MORE_SECRETS.kommoAccessToken,
  apiBaseUrl: API,
  defaults: { idBranch: 1 },
};

const ADDED = wireFixture('kommo', 'lead-added');
const STATUS = wireFixture('kommo', 'status-changed');
const API_LEAD = platformJson('kommo', 'api-lead.json');
const API_CONTACT = platformJson('kommo', 'api-contact.json');

const leadOf = async (fixture = ADDED, p = profile): Promise<LeadCapture> =>
  theLead(await kommoSource.capture(wireRequest(fixture), p));

/** The source's delivery-time step, with Kommo's API answered by `fetch`. */
function complete(capture: LeadCapture, fetch: typeof globalThis.fetch): Promise<LeadCapture> {
  if (!kommoSource.complete) throw new Error('the kommo source completes its captures');
  return kommoSource.complete(capture, profile, { fetch });
}

interface Call {
  url: string;
  authorization: string | null;
}

/** Kommo's API as a fetch: the fixtures' lead and contact, or `status` for every call. */
function kommoApi(status?: number, headers: Record<string, string> = {}) {
  const calls: Call[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    calls.push({ url, authorization: new Headers(init?.headers).get('authorization') });
    if (status) return new Response(status === 204 ? null : '{"title":"x"}', { status, headers });
    const body = url.includes('/leads/19619?with=contacts')
      ? API_LEAD
      : url.endsWith('/contacts/7143599')
        ? API_CONTACT
        : undefined;
    return body ? Response.json(body) : new Response(null, { status: 204 });
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

describe('kommoSource.authenticate (Kommo signs nothing: a URL token)', () => {
  it('accepts the profile’s token in the URL; 401 without, 403 with another', () => {
    expect(kommoSource.authenticate(wireRequest(ADDED), profile)).toEqual({ ok: true });
    expect(kommoSource.authenticate(wireRequest(ADDED, { query: {} }), profile)).toMatchObject({
      status: 401,
      code: 'missing_token',
    });
    expect(
      kommoSource.authenticate(wireRequest(ADDED, { query: { token: ['x'] } }), profile),
    ).toMatchObject({ status: 403, code: 'invalid_token' });
  });
});

describe('kommoSource.capture', () => {
  it('records an added lead pending, by account and lead id, the pipeline as its form', async () => {
    expect(await leadOf()).toEqual({
      source: 'kommo',
      dedupKey: 'kommo:30123456:19619',
      isTest: false,
      externalId: '19619',
      answers: [],
      attribution: {
        pipeline_id: '5866330',
        status_id: '47943463',
        kommo_account: 'academiamovimento',
      },
      pending: { kind: 'kommo-api', leadgenId: '19619' },
      formId: '5866330',
      submittedAt: '2025-05-02T13:10:02.000Z',
    });
  });

  it('takes a lead moved to a stage only when the profile lists that stage', async () => {
    // Act
    const unlisted = await kommoSource.capture(wireRequest(STATUS), profile);
    const listed = await leadOf(STATUS, { ...profile, statusIds: [47943471] });

    // Assess
    expect(unlisted).toEqual({ leads: [] });
    expect(listed.dedupKey).toBe('kommo:30123456:19620');
  });

  it('acknowledges contact events with no lead', async () => {
    const result = await kommoSource.capture(
      wireRequest(wireFixture('kommo', 'contact-added')),
      profile,
    );
    expect(leadsIn(result)).toEqual([]);
  });

  it('gives a redelivery, and the same lead added then moved, one dedup key', async () => {
    // Prepare: one request carrying the lead as added and as moved
    const both = {
      ...ADDED,
      body: `${ADDED.body}&leads[status][0][id]=19619&leads[status][0][status_id]=47943471&leads[status][0][pipeline_id]=5866330`,
    };

    // Act / Assess
    expect((await leadOf()).dedupKey).toBe(
      (await leadOf(wireFixture('kommo', 'lead-added'))).dedupKey,
    );
    expect((await leadOf(both, { ...profile, statusIds: [47943471] })).dedupKey).toBe(
      'kommo:30123456:19619',
    );
  });

  it('reports an entry without a lead id as a problem to park', async () => {
    const result = await kommoSource.capture(
      wireRequest(wireFixture('kommo', 'malformed')),
      profile,
    );
    expect(problemOf(result)).toBe('o item 0 de leads[add] não tem id de lead');
  });
});

describe('kommoSource.complete (Kommo’s API at delivery)', () => {
  it('reads the lead and its main contact with the access token, and maps them field by field', async () => {
    // Prepare
    const api = kommoApi();

    // Act
    const completed = await complete(await leadOf(), api.fetch);
    const prospect = mapCleanly(completed, profile);

    // Assess
    expect(api.calls).toEqual([
      {
        url: `${API}/api/v4/leads/19619?with=contacts`,
        authorization: `Bearer ${MORE_SECRETS.kommoAccessToken}`,
      },
      {
        url: `${API}/api/v4/contacts/7143599`,
        authorization: `Bearer ${MORE_SECRETS.kommoAccessToken}`,
      },
    ]);
    expect(completed.pending).toBeUndefined();
    expect(prospect).toMatchObject({
      name: 'Lucas',
      lastName: 'Pereira Souza',
      email: 'lucas.souza@exemplo.com',
      ddi: '55',
      cellphone: '51992345678', // the mobile number, not the first (work) one
      cpf: '39053344705',
      birthday: '1988-02-03T00:00:00.000Z',
      gender: 'M',
      marketingType: 'instagram',
    });
    for (const line of ['Telefone: +55 51 3333-2211', 'Objetivo: Hipertrofia', 'Já treina?: Não']) {
      expect(prospect.notes).toContain(line);
    }
  });

  it('leaves an uncompleted capture missing its person (delivery parks it)', async () => {
    expect(mapCapture(await leadOf(), profile).missing.length).toBeGreaterThan(0);
  });

  it.each([
    [204, 'rejected'],
    [404, 'rejected'],
    [401, 'unauthorized'],
    [429, 'rate-limited'],
    [503, 'unavailable'],
  ] as const)('settles an answer %i as %s', async (status, kind) => {
    // Prepare
    const api = kommoApi(status, status === 429 ? { 'retry-after': '30' } : {});

    // Act
    const failure = await complete(await leadOf(), api.fetch).catch((error: unknown) => error);

    // Assess
    expect(failure).toBeInstanceOf(KommoApiError);
    expect(failure).toMatchObject({ kind, service: 'Kommo API' });
    if (status === 429) expect((failure as KommoApiError).retryAfterMs).toBe(30_000);
  });
});

describe('the mapping corpus: Kommo, field by field', () => {
  it.each(corpusOf('kommo'))('$id: $description', async (entry) => {
    await expectCorpusMapping(entry);
  });
});
