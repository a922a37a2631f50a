import { describe, expect, it } from 'vitest';
import type { NamedBranch } from '../../functions/domain/branch-match.ts';
import { mapCapture as mapWithBranches } from '../../functions/domain/map-capture.ts';
import { whatsappSource } from '../../functions/sources/whatsapp.ts';
import {
  CONTENT_HASH_KEY,
  expectSameDedupKeys,
  leadsIn,
  theLead,
} from '../helpers/lead-assertions.ts';
import { mapCapture } from '../helpers/map-capture.ts';
import {
  flipOneByte,
  MARIA_SOUZA,
  metaSignature,
  type ProfileOf,
  platformBody,
  platformRequest,
} from '../helpers/platform-fixtures.ts';

const APP_SECRET = 'demo-whatsapp-app-secret';
const VERIFY_TOKEN = 'demo-whatsapp-verify-token';

const profile: ProfileOf<'whatsapp'> = {
  source: 'whatsapp',
  appSecret: APP_SECRET,
  verifyToken: VERIFY_TOKEN,
  defaults: { idBranch: 1 },
};
const withPlaceholder = { ...profile, emailPlaceholder: '{phone}@whatsapp.invalid' };

const AD_MESSAGE = platformBody('whatsapp', 'ctwa-first-message.json');
const FLOW_REPLY = platformBody('whatsapp', 'flow-reply.json');
/**
 * The person picks a row of the bot's list, or one of its reply buttons: the `messages` webhook
 * as the Cloud API documents it (developers.facebook.com/documentation/business-messaging/
 * whatsapp/messages/interactive-list-messages and .../interactive-reply-buttons-messages:
 * `interactive.list_reply` {id, title, description}, `interactive.button_reply` {id, title}).
 */
const LIST_REPLY = platformBody('whatsapp', 'list-reply.json');
const BUTTON_REPLY = platformBody('whatsapp', 'button-reply.json');
const BRANCHES: NamedBranch[] = [
  { idBranch: 1, account: 'matriz', name: 'Centro' },
  { idBranch: 7, account: 'matriz', name: 'Moema' },
];

function signed(body: Buffer, secret = APP_SECRET) {
  return platformRequest(body, {
    headers: { 'X-Hub-Signature-256': metaSignature(body, secret, 'sha256') },
  });
}

const capture = (body: Buffer) => whatsappSource.capture(signed(body), profile);

describe('whatsappSource.authenticate', () => {
  it('accepts X-Hub-Signature-256 over the raw body with the app secret', () => {
    expect(whatsappSource.authenticate(signed(AD_MESSAGE), profile)).toEqual({ ok: true });
  });

  it('answers 401 without a signature, 403 with another secret or one changed byte', () => {
    // Prepare
    const unsigned = platformRequest(AD_MESSAGE);
    const otherSecret = signed(AD_MESSAGE, 'another-secret');
    const tampered = { ...signed(AD_MESSAGE), body: flipOneByte(AD_MESSAGE) };

    // Act / Assess
    expect(whatsappSource.authenticate(unsigned, profile)).toMatchObject({
      ok: false,
      status: 401,
      code: 'missing_signature',
    });
    expect(whatsappSource.authenticate(otherSecret, profile)).toMatchObject({
      ok: false,
      status: 403,
      code: 'invalid_signature',
    });
    expect(whatsappSource.authenticate(tampered, profile)).toMatchObject({
      ok: false,
      status: 403,
    });
  });

  it('does not take the legacy sha1 header: the Cloud API signs with SHA-256', () => {
    // Prepare
    const request = platformRequest(AD_MESSAGE, {
      headers: { 'X-Hub-Signature': metaSignature(AD_MESSAGE, APP_SECRET, 'sha1') },
    });

    // Act / Assess
    expect(whatsappSource.authenticate(request, profile)).toMatchObject({ ok: false });
  });
});

describe('whatsappSource.handshake', () => {
  const handshake = (query: Record<string, string[]>) => {
    const request = platformRequest('', { method: 'GET', query, contentType: '' });
    if (!whatsappSource.handshake) throw new Error('whatsapp has a handshake');
    return whatsappSource.handshake(request, profile);
  };

  it('echoes hub.challenge for the profile’s verify token, and refuses another token', () => {
    // Prepare
    const valid = {
      'hub.mode': ['subscribe'],
      'hub.challenge': ['1158201444'],
      'hub.verify_token': [VERIFY_TOKEN],
    };

    // Act
    const accepted = handshake(valid);
    const refused = handshake({ ...valid, 'hub.verify_token': ['demo-meta-verify-token'] });

    // Assess
    expect(accepted).toMatchObject({ statusCode: 200, body: '1158201444' });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).not.toContain('1158201444');
  });
});

describe('whatsappSource.capture', () => {
  it('makes the message that opened an ad conversation a lead keyed by the WhatsApp number', async () => {
    // Act
    const lead = theLead(capture(AD_MESSAGE));

    // Assess
    expect(lead).toMatchObject({
      source: 'whatsapp',
      dedupKey: 'whatsapp:5511987654321',
      isTest: false,
      formId: '106540352242922',
      submittedAt: '2025-05-02T13:10:07.000Z',
      attribution: {
        ad_id: '120226305854810726',
        source_type: 'ad',
        ctwa_clid: expect.stringMatching(/^Aff-n8ZTOD/),
        headline: 'Treine com a gente',
      },
    });
    expect(lead.pending).toBeUndefined();
  });

  it('maps the profile name, the WhatsApp number and the first message field for field', async () => {
    // Act
    const mapped = mapCapture(theLead(capture(AD_MESSAGE)), withPlaceholder);

    // Assess
    expect(mapped.prospect).toMatchObject({
      name: MARIA_SOUZA.name,
      lastName: MARIA_SOUZA.lastName,
      ddi: MARIA_SOUZA.ddi,
      cellphone: MARIA_SOUZA.cellphone,
      email: '5511987654321@whatsapp.invalid',
      idBranch: 1,
    });
    expect(mapped.missing).toEqual([]);
    expect(mapped.prospect.notes).toContain(
      'Primeira mensagem: Olá! Quero saber dos planos da unidade Centro.',
    );
    expect(mapped.prospect.notes).toContain('ad_id=120226305854810726');
    expect(mapped.prospect.notes).toContain('usado "5511987654321@whatsapp.invalid"');
  });

  it('leaves the e-mail missing (the lead is parked for it) when the profile sets no placeholder', async () => {
    const mapped = mapCapture(theLead(capture(AD_MESSAGE)), profile);
    expect(mapped.prospect.email).toBeUndefined();
    expect(mapped.missing).toEqual(['email']);
  });

  it('reads a WhatsApp Flows answer: every field reaches the Prospect or the notes', async () => {
    // Act
    const lead = theLead(capture(FLOW_REPLY));
    const mapped = mapCapture(lead, withPlaceholder);

    // Assess: the e-mail typed in the Flow wins over the placeholder.
    expect(lead.dedupKey).toBe(
      'whatsapp-flow:wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFDNBRjEyRDc4QzM5RTVBMkI4NDQ2AA==',
    );
    expect(mapped.prospect).toMatchObject(MARIA_SOUZA);
    expect(mapped.missing).toEqual([]);
    expect(mapped.prospect.notes).toContain('Objetivo: 0_Emagrecer, 1_Ganhar_massa');
    expect(mapped.prospect.notes).toContain('Melhor horario: Noite');
    expect(mapped.prospect.notes).toContain('flow_token=aula-experimental-centro');
  });

  it('gives a redelivery, and a second tap on the ad in the same conversation, the same dedup key', async () => {
    // Prepare: the person taps the ad again later: another message id, time and text.
    const secondTap = Buffer.from(
      AD_MESSAGE.toString('utf8')
        .replace('"timestamp": "1746191407"', '"timestamp": "1746195007"')
        .replace('Quero saber dos planos', 'Ainda quero saber dos planos')
        .replace(
          'wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFDNBNjQ5NDlE',
          'wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFDNBNjQ5NDlF',
        ),
    );

    // Act / Assess
    await expectSameDedupKeys(async (body) => leadsIn(capture(body)), AD_MESSAGE);
    expect(theLead(capture(secondTap)).dedupKey).toBe(theLead(capture(AD_MESSAGE)).dedupKey);
    expect(secondTap.equals(AD_MESSAGE)).toBe(false);
  });

  it('makes a reply to the bot’s list a lead of the contact, one lead with their ad conversation', async () => {
    // Act
    const lead = theLead(capture(LIST_REPLY));

    // Assess
    expect(lead).toMatchObject({
      source: 'whatsapp',
      dedupKey: theLead(capture(AD_MESSAGE)).dedupKey,
      formId: '106540352242922',
      submittedAt: '2025-05-02T13:13:00.000Z',
    });
    expect(lead.answers).toContainEqual({
      key: 'unidade_moema',
      label: 'Escolha no menu (unidade_moema)',
      value: 'Moema',
    });
  });

  it('routes the lead by the branch the person chose in the list (branch by name)', async () => {
    // Act
    const mapped = mapWithBranches(
      theLead(capture(LIST_REPLY)),
      withPlaceholder,
      'WhatsApp',
      BRANCHES,
    );

    // Assess
    expect(mapped.prospect.idBranch).toBe(7);
    expect(mapped.branch).toMatchObject({ kind: 'answer', idBranch: 7, answered: 'Moema' });
    expect(mapped.prospect).toMatchObject({ ddi: '55', cellphone: '11987654321', name: 'Maria' });
    expect(mapped.prospect.notes).toContain('Escolha no menu (unidade_moema): Moema');
  });

  it('keeps a reply button’s title as an answer in the notes', async () => {
    // Act
    const mapped = mapCapture(theLead(capture(BUTTON_REPLY)), withPlaceholder);

    // Assess
    expect(mapped.missing).toEqual([]);
    expect(mapped.prospect).toMatchObject({ ddi: '55', cellphone: '11987654321', idBranch: 1 });
    expect(mapped.prospect.notes).toContain('Escolha no menu (objetivo_emagrecer): Emagrecer');
  });

  it('reads a template’s quick-reply button (type "button") as a reply too', async () => {
    // Prepare
    const body = Buffer.from(
      BUTTON_REPLY.toString('utf8')
        .replace('"type": "interactive"', '"type": "button"')
        .replace(
          /"interactive": \{[^}]*\{[^}]*\}\s*\}/u,
          '"button": { "payload": "horario_noite", "text": "Noite" }',
        ),
    );

    // Act
    const lead = theLead(capture(body));

    // Assess
    expect(lead.dedupKey).toBe('whatsapp:5511987654321');
    expect(lead.answers).toContainEqual(
      expect.objectContaining({ key: 'horario_noite', value: 'Noite' }),
    );
  });

  it('acknowledges statuses, later messages and the dashboard’s test sample: no lead', async () => {
    expect(leadsIn(capture(platformBody('whatsapp', 'later-message-and-status.json')))).toEqual([]);
    expect(leadsIn(capture(platformBody('whatsapp', 'dashboard-test.json')))).toEqual([]);
  });

  it('parks a referral that names nobody, under a hash of its bytes', async () => {
    expect(await capture(platformBody('whatsapp', 'referral-without-sender.json'))).toEqual({
      problem:
        'entry[0].changes[0].value.messages[0] has a referral but no WhatsApp id (wa_id / from)',
      dedupKey: expect.stringMatching(CONTENT_HASH_KEY),
    });
  });

  it('answers 200 with no lead ids for a body that carried no lead', () => {
    const answer = whatsappSource.accepted([]);
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 'no_lead' });
  });
});

describe('whatsapp profile settings', () => {
  it('refuses an emailPlaceholder without {phone} or without a domain', () => {
    // Prepare
    const schema = whatsappSource.profileSchema;

    // Act / Assess
    expect(schema.safeParse({ ...withPlaceholder }).success).toBe(true);
    expect(
      schema.safeParse({ ...profile, emailPlaceholder: 'lead@whatsapp.invalid' }).success,
    ).toBe(false);
    expect(schema.safeParse({ ...profile, emailPlaceholder: '{phone}' }).success).toBe(false);
  });
});
