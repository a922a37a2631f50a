/**
 * The form-builder, checkout and CRM sources of issue 17 (Google Forms, Tally, Jotform, Hotmart,
 * HubSpot, Kommo, WordPress, Wix) through the local gateway, in one runtime with the delivery
 * worker and the sandbox upstream: each platform's documented payload, authenticated as the
 * platform does it, accepted, delivered and found in the sandbox; a redelivery answered with the
 * same lead; an unauthentic request refused with nothing stored; test leads kept; events that
 * are no leads acknowledged; Kommo's ids completed through the sandbox's stand-in of its API.
 * Field-by-field mapping of the same payloads is the mapping corpus's (mapping-corpus.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeadRecord } from '../../functions/ledger/lead-ledger.ts';
import {
  expectErrorCode,
  expectParked,
  expectSameLead,
  leadIdOf,
  startTestRuntime,
  type TestRuntime,
  testConfig,
} from '../helpers/local-runtime.ts';
import {
  googleFormsSignature,
  hubspotHeaders,
  MORE_SECRETS,
  tallySignatureOf,
  type WireFixture,
  wireFixture,
} from '../helpers/more-sources.ts';
import { flipOneByte, platformBody, platformJson } from '../helpers/platform-fixtures.ts';

const JSON_TYPE = 'application/json';
const HUBSPOT_URL = 'https://leads.example.com/leads/hubspot';
const SETTLE_MS = 50_000;

let rt: TestRuntime;
beforeAll(async () => {
  const branch = { defaults: { idBranch: 1 } };
  rt = await startTestRuntime(
    testConfig({
      googleforms: { source: 'googleforms', secret: MORE_SECRETS.googleforms, ...branch },
      tally: { source: 'tally', secret: MORE_SECRETS.tally, ...branch },
      jotform: { source: 'jotform', token: MORE_SECRETS.jotform, ...branch },
      hotmart: { source: 'hotmart', hottok: MORE_SECRETS.hotmart, ...branch },
      hubspot: { source: 'hubspot', secret: MORE_SECRETS.hubspot, url: HUBSPOT_URL, ...branch },
      kommo: {
        source: 'kommo',
        token: MORE_SECRETS.kommo,
        accessToken: MORE_SECRETS.kommoAccessToken,
        // The configured upstream's origin: the local runtime points it at its sandbox.
        apiBaseUrl: 'http://127.0.0.1:4010/kommo',
        ...branch,
      },
      wordpress: {
        source: 'wordpress',
        token: MORE_SECRETS.wordpress,
        plugin: 'gravity-forms',
        ...branch,
      },
      wix: { source: 'wix', token: MORE_SECRETS.wix, ...branch },
    }),
    { worker: true },
  );
  // Kommo's API answers the webhook's lead 19619 with the fixtures' lead and contact.
  const registered = await fetch(new URL('/_sandbox/kommo-leads', rt.sandboxUrl), {
    method: 'POST',
    headers: { 'content-type': JSON_TYPE },
    body: JSON.stringify({
      lead: platformJson('kommo', 'api-lead.json'),
      contacts: [platformJson('kommo', 'api-contact.json')],
    }),
  });
  expect(registered.status).toBe(201);
}, 60_000);
afterAll(() => rt?.stop());

/** A request as its platform sends it: path with query, headers, exact bytes. */
interface Sent {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

const post = (sent: Sent) => rt.post(sent.path, sent.body, sent.headers);

function wire(profile: string, fixture: WireFixture, token?: string): Sent {
  const query = new URLSearchParams(token === undefined ? fixture.query : { token });
  return {
    path: `/leads/${profile}${query.size ? `?${query}` : ''}`,
    headers: fixture.headers,
    body: Buffer.from(fixture.body, 'utf8'),
  };
}

const json = (profile: string, body: Buffer, headers: Record<string, string>): Sent => ({
  path: `/leads/${profile}`,
  headers: { 'content-type': JSON_TYPE, ...headers },
  body,
});

const GOOGLE_FORMS = platformBody('googleforms', 'form-response.json');
const TALLY = platformBody('tally', 'form-response.json');
const HOTMART = platformBody('hotmart', 'purchase-approved.json');
const HUBSPOT = platformBody('hubspot', 'contact-all-properties.json');
const WIX = platformBody('wix', 'form-submitted.json');
const hottok = (hottok: string) => ({ 'x-hotmart-hottok': hottok });
const wixToken = (token: string) => `/leads/wix?token=${token}`;

interface Case {
  profile: string;
  /** The documented payload, authenticated as the platform does it. */
  valid: () => Sent;
  /** The same, unauthentic: its status and error code. */
  forged: () => Sent;
  refused: [401 | 403, string];
  /** Who the sandbox must have received. */
  person: { name: string; lastName: string; email: string; cellphone: string };
}

const CASES: Case[] = [
  {
    profile: 'googleforms',
    valid: () =>
      json('googleforms', GOOGLE_FORMS, {
        'x-lead-signature': googleFormsSignature(GOOGLE_FORMS),
      }),
    forged: () =>
      json('googleforms', flipOneByte(GOOGLE_FORMS), {
        'x-lead-signature': googleFormsSignature(GOOGLE_FORMS),
      }),
    refused: [403, 'invalid_signature'],
    person: {
      name: 'Pedro Henrique',
      lastName: 'Alves',
      email: 'pedro.alves@exemplo.com',
      cellphone: '21998765432',
    },
  },
  {
    profile: 'tally',
    valid: () => json('tally', TALLY, { 'tally-signature': tallySignatureOf(TALLY) }),
    forged: () => json('tally', TALLY, { 'tally-signature': tallySignatureOf(TALLY, 'other') }),
    refused: [403, 'invalid_signature'],
    person: {
      name: 'Juliana',
      lastName: 'Martins Costa',
      email: 'juliana.costa@exemplo.com',
      cellphone: '11976543210',
    },
  },
  {
    profile: 'jotform',
    valid: () => wire('jotform', wireFixture('jotform', 'submission')),
    forged: () => wire('jotform', wireFixture('jotform', 'submission'), 'not-the-token'),
    refused: [403, 'invalid_token'],
    person: {
      name: 'Beatriz',
      lastName: 'Ramos Ferreira',
      email: 'beatriz.ferreira@exemplo.com',
      cellphone: '31987651234',
    },
  },
  {
    profile: 'hotmart',
    valid: () => json('hotmart', HOTMART, hottok(MORE_SECRETS.hotmart)),
    forged: () => json('hotmart', HOTMART, {}),
    refused: [401, 'missing_hottok'],
    person: {
      name: 'Rodrigo',
      lastName: 'Nascimento',
      email: 'rodrigo.nascimento@exemplo.com',
      cellphone: '41998877665',
    },
  },
  {
    profile: 'hubspot',
    valid: () => json('hubspot', HUBSPOT, hubspotHeaders(HUBSPOT, HUBSPOT_URL, Date.now())),
    // Signed for another URL: the profile's url is part of what HubSpot signs.
    forged: () => json('hubspot', HUBSPOT, hubspotHeaders(HUBSPOT, `${HUBSPOT_URL}x`, Date.now())),
    refused: [403, 'invalid_signature'],
    person: {
      name: 'Camila',
      lastName: 'Duarte Rocha',
      email: 'camila.duarte@exemplo.com',
      cellphone: '48991234567',
    },
  },
  {
    profile: 'kommo',
    valid: () => wire('kommo', wireFixture('kommo', 'lead-added')),
    forged: () => wire('kommo', wireFixture('kommo', 'lead-added'), ''),
    refused: [401, 'missing_token'],
    person: {
      name: 'Lucas',
      lastName: 'Pereira Souza',
      email: 'lucas.souza@exemplo.com',
      cellphone: '51992345678',
    },
  },
  {
    profile: 'wordpress',
    valid: () => wire('wordpress', wireFixture('wordpress', 'gravity-forms')),
    forged: () => wire('wordpress', wireFixture('wordpress', 'gravity-forms'), 'nope'),
    refused: [403, 'invalid_token'],
    person: {
      name: 'Rafael',
      lastName: 'Nunes Barros',
      email: 'rafael.nunes@exemplo.com',
      cellphone: '51998123456',
    },
  },
  {
    profile: 'wix',
    valid: () => ({ ...json('wix', WIX, {}), path: wixToken(MORE_SECRETS.wix) }),
    forged: () => ({ ...json('wix', WIX, {}), path: wixToken('wrong') }),
    refused: [403, 'invalid_token'],
    person: {
      name: 'Thiago',
      lastName: 'Barbosa Costa',
      email: 'thiago.barbosa@exemplo.com',
      cellphone: '61993456789',
    },
  },
];

/** The lead once it has left queued/sending (the worker delivers in the background). */
async function settled(leadId: string): Promise<LeadRecord> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const lead = await rt.ledger.get(leadId);
    if (lead && lead.status !== 'queued' && lead.status !== 'sending') return lead;
    if (Date.now() > deadline) throw new Error(`${leadId}: still ${lead?.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The body the sandbox upstream received as prospect `idProspect`. */
async function received(idProspect: unknown): Promise<Record<string, unknown> | undefined> {
  const response = await fetch(new URL('/_sandbox/prospects', rt.sandboxUrl));
  const prospects = (await response.json()) as {
    idProspect: number;
    body: Record<string, unknown>;
  }[];
  return prospects.find((p) => String(p.idProspect) === String(idProspect))?.body;
}

/** Each profile's lead id, from its first (valid) post. */
const accepted = new Map<string, string>();

describe('the issue-17 sources through the gateway, the worker and the sandbox', () => {
  it.each(CASES)('$profile: accepted with 200, delivered to the sandbox', async (c) => {
    // Act
    const response = await post(c.valid());

    // Assess
    expect(response.status).toBe(200);
    const body = (await response.json()) as { leadId: string; status: string };
    expect(body).toEqual({ leadId: expect.stringMatching(/^ld_/), status: 'queued' });
    accepted.set(c.profile, body.leadId);
    const lead = await settled(body.leadId);
    expect(lead.status, lead.reason).toBe('delivered');
    expect(await received(lead.idProspect)).toMatchObject({
      ...c.person,
      ddi: '55',
      idBranch: 1,
    });
  });

  it.each(CASES)('$profile: a redelivery is answered with the same lead', async (c) => {
    // Prepare
    const first = accepted.get(c.profile) ?? (await leadIdOf(await post(c.valid())));
    const before = await rt.countLeads(c.profile);

    // Act / Assess
    await expectSameLead(await post(c.valid()), 200, first);
    expect(await rt.countLeads(c.profile)).toBe(before);
  });

  it.each(CASES)('$profile: an unauthentic request is refused, nothing stored', async (c) => {
    // Prepare
    const before = await rt.countLeads();

    // Act / Assess
    await expectErrorCode(await post(c.forged()), ...c.refused);
    expect(await rt.countLeads()).toBe(before);
  });
});

describe('the platforms’ test leads, other events and what cannot be read', () => {
  it('keeps Jotform’s preview submission and Hotmart’s test purchase as test leads', async () => {
    // Act
    const preview = await post(wire('jotform', wireFixture('jotform', 'preview')));
    const testBody = platformBody('hotmart', 'test-purchase.json');
    const purchase = await post(json('hotmart', testBody, hottok(MORE_SECRETS.hotmart)));

    // Assess
    for (const response of [preview, purchase]) {
      expect(response.status).toBe(200);
      expect(await rt.ledger.get(await leadIdOf(response))).toMatchObject({ status: 'test' });
    }
  });

  it('acknowledges a cancelled Hotmart purchase and a Kommo contact event with no lead', async () => {
    // Prepare
    const before = await rt.countLeads();
    const canceled = platformBody('hotmart', 'purchase-canceled.json');

    // Act
    const hotmart = await post(json('hotmart', canceled, hottok(MORE_SECRETS.hotmart)));
    const kommo = await post(wire('kommo', wireFixture('kommo', 'contact-added')));

    // Assess
    expect(hotmart.status).toBe(200);
    expect(await hotmart.json()).toEqual({ status: 'ignored' });
    expect(kommo.status).toBe(200);
    await kommo.arrayBuffer();
    expect(await rt.countLeads()).toBe(before);
  });

  it('parks an authentic Tally body it cannot read, answering 200 so Tally does not drop it', async () => {
    const body = platformBody('tally', 'malformed.txt');
    await expectParked(
      rt,
      await post(json('tally', body, { 'tally-signature': tallySignatureOf(body) })),
      {
        profile: 'tally',
        reason: 'corpo ilegível: o corpo não é JSON',
      },
    );
  });

  it('parks a Kommo lead that Kommo’s API does not have, saying so', async () => {
    // Prepare: lead 19620 is not registered in the sandbox
    const fixture = wireFixture('kommo', 'lead-added');
    const other = { ...fixture, body: fixture.body.replace('[id]=19619', '[id]=19620') };

    // Act
    const lead = await settled(await leadIdOf(await post(wire('kommo', other))));

    // Assess
    expect(lead.status).toBe('parked');
    expect(lead.reason).toContain('Kommo');
  });

  it('refuses a HubSpot signature older than 5 minutes (a replay)', async () => {
    const stale = hubspotHeaders(HUBSPOT, HUBSPOT_URL, Date.now() - 6 * 60_000);
    await expectErrorCode(await post(json('hubspot', HUBSPOT, stale)), 403, 'stale_timestamp');
  });
});
