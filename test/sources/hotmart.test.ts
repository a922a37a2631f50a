import { describe, expect, it } from 'vitest';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { DEFAULT_LEAD_EVENTS, hotmartSource } from '../../functions/sources/hotmart.ts';
import {
  corpusOf,
  expectCorpusMapping,
  mapCleanly,
  problemOf,
  theLead,
} from '../helpers/lead-assertions.ts';
import { MORE_SECRETS } from '../helpers/more-sources.ts';
import { type ProfileOf, platformBody, platformRequest } from '../helpers/platform-fixtures.ts';

const profile: ProfileOf<'hotmart'> = {
  source: 'hotmart',
  hottok: MORE_SECRETS.hotmart,
  defaults: { idBranch: 1 },
};

const APPROVED = platformBody('hotmart', 'purchase-approved.json');
const BILLET = platformBody('hotmart', 'billet-printed.json');
const CART = platformBody('hotmart', 'abandoned-cart.json');
const TEST = platformBody('hotmart', 'test-purchase.json');
const CANCELED = platformBody('hotmart', 'purchase-canceled.json');

const sent = (body: Buffer, hottok: string = MORE_SECRETS.hotmart) =>
  platformRequest(body, { headers: { 'X-HOTMART-HOTTOK': hottok } });
const leadOf = async (body: Buffer, p = profile): Promise<LeadCapture> =>
  theLead(await hotmartSource.capture(sent(body), p));

describe('hotmartSource.authenticate', () => {
  it('accepts the account’s Hottok', () => {
    expect(hotmartSource.authenticate(sent(APPROVED), profile)).toEqual({ ok: true });
  });

  it('answers 401 without X-HOTMART-HOTTOK, 403 with another or one character changed', () => {
    // Prepare
    const changed = `${MORE_SECRETS.hotmart.slice(0, -1)}X`;

    // Act / Assess
    expect(hotmartSource.authenticate(platformRequest(APPROVED), profile)).toMatchObject({
      status: 401,
      code: 'missing_hottok',
    });
    for (const hottok of ['another-hottok', changed]) {
      expect(hotmartSource.authenticate(sent(APPROVED, hottok), profile)).toMatchObject({
        status: 403,
        code: 'invalid_hottok',
      });
    }
  });
});

describe('hotmartSource.capture', () => {
  it('reads an approved purchase’s buyer, keyed by the transaction', async () => {
    // Act
    const lead = await leadOf(APPROVED);

    // Assess
    expect(lead).toMatchObject({
      dedupKey: 'hotmart:HP17461914020331',
      externalId: 'HP17461914020331',
      formId: '4817263',
      isTest: false,
      attribution: {
        hotmart_event: 'PURCHASE_APPROVED',
        product_id: '4817263',
        src: 'instagram',
        sck: 'bio-link',
      },
    });
  });

  it('maps the buyer field by field, the purchase to the notes', async () => {
    // Act
    const prospect = mapCleanly(await leadOf(APPROVED), profile);

    // Assess
    expect(prospect).toMatchObject({
      name: 'Rodrigo',
      lastName: 'Nascimento',
      email: 'rodrigo.nascimento@exemplo.com',
      ddi: '55',
      cellphone: '41998877665',
      cpf: '52998224725',
      marketingType: 'Hotmart',
    });
    for (const line of [
      'Produto: Desafio 30 dias – Treino em casa',
      'Valor: 197 BRL',
      'Pagamento: PIX',
      'Endereço: Rua Comendador Araújo, 500, ap 12, Batel, Curitiba',
    ]) {
      expect(prospect.notes).toContain(line);
    }
  });

  it('makes the boleto printed and the later approval of one purchase one lead', async () => {
    expect((await leadOf(BILLET)).dedupKey).toBe((await leadOf(APPROVED)).dedupKey);
  });

  it('takes an abandoned cart as a lead, keyed by its event id', async () => {
    // Act
    const lead = await leadOf(CART);

    // Assess
    expect(lead.dedupKey).toBe('hotmart:event:c41d7e9a-58b2-4f03-9e61-2a7b8c0d4f15');
    expect(mapCleanly(lead, profile)).toMatchObject({
      name: 'Larissa',
      lastName: 'Teixeira Gomes',
      email: 'larissa.gomes@exemplo.com',
      cellphone: '11965432109',
    });
  });

  it('marks the webhook screen’s test (product 0) as a test lead', async () => {
    expect((await leadOf(TEST)).isTest).toBe(true);
  });

  it('acknowledges events that are not leads, unless the profile lists them', async () => {
    // Act
    const canceled = await hotmartSource.capture(sent(CANCELED), profile);
    const listed = await leadOf(CANCELED, {
      ...profile,
      leadEvents: [...DEFAULT_LEAD_EVENTS, 'PURCHASE_CANCELED'],
    });

    // Assess
    expect(canceled).toEqual({ leads: [] });
    expect(JSON.parse(hotmartSource.accepted([]).body)).toEqual({ status: 'ignored' });
    expect(listed.dedupKey).toBe('hotmart:HP17461914020331');
  });

  it('gives a redelivery the same dedup key', async () => {
    expect((await leadOf(Buffer.from(CART))).dedupKey).toBe((await leadOf(CART)).dedupKey);
  });

  it.each([
    ['a body that is not JSON', platformBody('hotmart', 'malformed.txt'), 'o corpo não é JSON'],
    ['no event', Buffer.from('{"data":{}}'), 'falta event'],
    [
      'a purchase without buyer',
      Buffer.from('{"event":"PURCHASE_APPROVED","data":{"product":{"id":1}}}'),
      'falta data.buyer',
    ],
  ])('reports %s as a problem to park', async (_, body, problem) => {
    expect(problemOf(await hotmartSource.capture(sent(body), profile))).toBe(problem);
  });
});

describe('the mapping corpus: Hotmart, field by field', () => {
  it.each(corpusOf('hotmart'))('$id: $description', async (entry) => {
    await expectCorpusMapping(entry);
  });
});
