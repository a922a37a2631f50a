import { describe, expect, it } from 'vitest';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { hubspotSource, hubspotUri } from '../../functions/sources/hubspot.ts';
import {
  corpusOf,
  expectCorpusMapping,
  mapCleanly,
  problemOf,
  theLead,
} from '../helpers/lead-assertions.ts';
import { hubspotHeaders, MORE_SECRETS } from '../helpers/more-sources.ts';
import {
  flipOneByte,
  type ProfileOf,
  platformBody,
  platformRequest,
  RECEIVED_AT,
} from '../helpers/platform-fixtures.ts';

const URL_TYPED = 'https://leads.example.com/leads/hubspot';
const profile: ProfileOf<'hubspot'> = {
  source: 'hubspot',
  secret: MORE_SECRETS.hubspot,
  url: URL_TYPED,
  defaults: { idBranch: 1 },
};

const CONTACT = platformBody('hubspot', 'contact-all-properties.json');
const CUSTOM = platformBody('hubspot', 'custom-body.json');
const NOW = RECEIVED_AT.getTime();

const signed = (body: Buffer, timestamp = NOW - 2_000, url = URL_TYPED) =>
  platformRequest(body, { headers: hubspotHeaders(body, url, timestamp) });
const leadOf = async (body: Buffer): Promise<LeadCapture> =>
  theLead(await hubspotSource.capture(signed(body), profile));

describe('hubspotSource.authenticate (X-HubSpot-Signature-v3)', () => {
  it('accepts the signature of POST + URL + body + timestamp within 5 minutes, either way', () => {
    for (const skew of [-299_000, 0, 299_000]) {
      expect(hubspotSource.authenticate(signed(CONTACT, NOW + skew), profile)).toEqual({
        ok: true,
      });
    }
  });

  it('answers 401 without the signature or the timestamp', () => {
    // Prepare
    const headers = hubspotHeaders(CONTACT, URL_TYPED, NOW);
    const noTimestamp = platformRequest(CONTACT, {
      headers: { 'x-hubspot-signature-v3': headers['x-hubspot-signature-v3'] as string },
    });

    // Act / Assess
    expect(hubspotSource.authenticate(platformRequest(CONTACT), profile)).toMatchObject({
      status: 401,
      code: 'missing_signature',
    });
    expect(hubspotSource.authenticate(noTimestamp, profile)).toMatchObject({ status: 401 });
  });

  it('answers 403 stale_timestamp for a signature more than 5 minutes old (a replay)', () => {
    expect(hubspotSource.authenticate(signed(CONTACT, NOW - 301_000), profile)).toMatchObject({
      status: 403,
      code: 'stale_timestamp',
    });
  });

  it('answers 403 for another secret, another URL or one byte changed after signing', () => {
    // Prepare
    const other = platformRequest(CONTACT, {
      headers: hubspotHeaders(CONTACT, URL_TYPED, NOW, 'another-secret'),
    });
    const otherUrl = signed(CONTACT, NOW, 'https://leads.example.com/leads/other');
    const tampered = { ...signed(CONTACT), body: flipOneByte(CONTACT) };

    // Act / Assess
    for (const request of [other, otherUrl, tampered]) {
      expect(hubspotSource.authenticate(request, profile)).toMatchObject({
        status: 403,
        code: 'invalid_signature',
      });
    }
  });

  it('signs the URI with HubSpot’s decoding of reserved characters', () => {
    expect(hubspotUri('https://x.example/leads/h%3Fa%2Cb?token=a%40b%20c')).toBe(
      'https://x.example/leads/h?a,b?token=a@b%20c',
    );
  });
});

describe('hubspotSource.capture', () => {
  it('reads "Include all contact properties": the person’s properties, HubSpot’s own left out', async () => {
    // Act
    const lead = await leadOf(CONTACT);

    // Assess
    expect(lead).toMatchObject({
      dedupKey: 'hubspot:51201:1746191402000',
      externalId: '51201',
      isTest: false,
      attribution: {
        hs_analytics_source: 'PAID_SOCIAL',
        hs_analytics_source_data_1: 'Facebook',
        form_name: 'Aula experimental: Formulário do site',
        utm_campaign: 'aula-gratis-maio',
      },
    });
    const keys = lead.answers.map((a) => a.key);
    for (const own of ['hs_object_id', 'lifecyclestage', 'createdate', 'hubspotscore']) {
      expect(keys).not.toContain(own);
    }
  });

  it('maps the contact field by field, the birthday from epoch milliseconds', async () => {
    // Act
    const prospect = mapCleanly(await leadOf(CONTACT), profile);

    // Assess
    expect(prospect).toMatchObject({
      name: 'Camila',
      lastName: 'Duarte Rocha',
      email: 'camila.duarte@exemplo.com',
      ddi: '55',
      cellphone: '48991234567',
      cpf: '12345678909',
      birthday: '1991-09-14T00:00:00.000Z',
      gender: 'F',
    });
    for (const line of [
      'Telefone: (48) 3222-1100',
      'Mensagem: Quero conhecer o crossfit',
      'unidade_de_interesse: Florianópolis – Centro',
    ]) {
      expect(prospect.notes).toContain(line);
    }
  });

  it('reads a customised body of plain properties, keyed by the contact id', async () => {
    // Act
    const lead = await leadOf(CUSTOM);

    // Assess
    expect(lead.dedupKey).toBe('hubspot:51207');
    expect(mapCleanly(lead, profile)).toMatchObject({
      name: 'Gustavo',
      lastName: 'Moreira',
      email: 'gustavo.moreira@exemplo.com',
      cellphone: '61993456789',
    });
  });

  it('gives HubSpot’s retry of the same contact the same dedup key, a later conversion another', async () => {
    // Prepare
    const later = Buffer.from(
      CONTACT.toString('utf8').replace(
        '"recent_conversion_date": { "value": "1746191402000" }',
        '"recent_conversion_date": { "value": "1746277802000" }',
      ),
    );

    // Act / Assess
    expect(later.equals(CONTACT)).toBe(false);
    expect((await leadOf(Buffer.from(CONTACT))).dedupKey).toBe((await leadOf(CONTACT)).dedupKey);
    expect((await leadOf(later)).dedupKey).toBe('hubspot:51201:1746277802000');
  });

  it.each([
    ['a body that is not JSON', platformBody('hubspot', 'malformed.txt'), 'o corpo não é JSON'],
    ['an empty object', Buffer.from('{}'), 'o corpo não tem propriedades de contato'],
  ])('reports %s as a problem to park', async (_, body, problem) => {
    expect(problemOf(await hubspotSource.capture(signed(body), profile))).toBe(problem);
  });
});

describe('the mapping corpus: HubSpot, field by field', () => {
  it.each(corpusOf('hubspot'))('$id: $description', async (entry) => {
    await expectCorpusMapping(entry);
  });
});
