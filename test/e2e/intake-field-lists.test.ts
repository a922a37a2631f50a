/**
 * The shapes of the tools gyms wire up themselves (issue 35) through the local gateway, the
 * delivery worker and the sandbox upstream: a site widget's root array of fields, Meta's
 * field_data relayed by Make, a scheduling page's questions and answers with the phone and the
 * branch only in answers, a CRM person with labelled phones, and a reply to a WhatsApp bot's
 * list of branches. Each is accepted (never a 4xx for its shape), delivered, and found in the
 * sandbox as a careful person would have typed it; the branch chosen by name routes the lead.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_FLIGHT } from '../../functions/domain/lead-lifecycle.ts';
import type { LeadRecord } from '../../functions/ledger/lead-ledger.ts';
import { expectNotesContain } from '../helpers/lead-assertions.ts';
import { DEMO_SECRETS } from '../helpers/lead-fixtures.ts';
import { startTestRuntime, TEST_UPSTREAM, type TestRuntime } from '../helpers/local-runtime.ts';
import { loadCorpus } from '../helpers/mapping-corpus.ts';
import { metaSignature, platformBody } from '../helpers/platform-fixtures.ts';

const WA_SECRET = 'demo-whatsapp-app-secret';
/** How long a lead may take to settle on a loaded machine (a failsafe, not a timing claim). */
const SETTLE_MS = 60_000;
const MOEMA = 7;

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(
    {
      upstream: { ...TEST_UPSTREAM, branches: { '1': { name: 'Centro' }, '7': { name: 'Moema' } } },
      clients: [],
      profiles: {
        site: { source: 'form', token: DEMO_SECRETS.form, defaults: { idBranch: 1 } },
        whatsapp: {
          source: 'whatsapp',
          appSecret: WA_SECRET,
          verifyToken: 'demo-whatsapp-verify-token',
          emailPlaceholder: '{phone}@whatsapp.invalid',
          defaults: { idBranch: 1 },
        },
      },
    },
    { worker: true },
  );
}, 60_000);
afterAll(() => rt?.stop());

/** A corpus entry's body (test/fixtures/mapping-corpus/), as its tool sends it. */
function corpusBody(id: string): { body: string; contentType: string } {
  const entry = loadCorpus().find((e) => e.id === id);
  if (!entry) throw new Error(`no corpus entry ${id}`);
  return {
    body: entry.request.body ?? JSON.stringify(entry.request.json),
    contentType: entry.request.contentType ?? 'application/json',
  };
}

async function postForm(id: string): Promise<string> {
  const { body, contentType } = corpusBody(id);
  const response = await rt.post('/leads/site', body, {
    'content-type': contentType,
    'x-lead-token': DEMO_SECRETS.form,
  });
  expect(response.status).toBe(202);
  const answer = (await response.json()) as { leadId: string; status: string };
  expect(answer.status).toBe('queued');
  return answer.leadId;
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

/** What the sandbox upstream received for a delivered lead. */
async function delivered(leadId: string): Promise<Record<string, unknown>> {
  const lead = await settled(leadId);
  expect(lead.status, lead.reason).toBe('delivered');
  const response = await fetch(new URL('/_sandbox/prospects', rt.sandboxUrl));
  const prospects = (await response.json()) as {
    idProspect: number;
    body: Record<string, unknown>;
  }[];
  const found = prospects.find((p) => String(p.idProspect) === String(lead.idProspect));
  if (!found) throw new Error(`the sandbox has no prospect ${lead.idProspect}`);
  return found.body;
}

describe('the generic form source with the shapes chatbots, scheduling pages and CRMs send', () => {
  it('takes a widget’s root array of fields (202, not 400) and delivers the person', async () => {
    const prospect = await delivered(await postForm('form-widget-root-array'));
    expect(prospect).toMatchObject({
      name: 'Renata',
      lastName: 'Alves Pinto',
      email: 'renata.pinto@exemplo.com.br',
      cellphone: '31998761234',
      birthday: '1994-01-21T00:00:00.000Z',
    });
    expectNotesContain(prospect.notes as string, ['Qual seu objetivo?: Emagrecer']);
  });

  it('reads Meta’s field_data relayed by Make: the name typed, never "Full Name"', async () => {
    const prospect = await delivered(await postForm('form-make-meta-field-data'));
    expect(prospect).toMatchObject({ name: 'João Pedro', lastName: 'Costa', ddi: '55' });
    expect(prospect.cellphone).toBe('21987651234');
    expect(JSON.stringify(prospect)).not.toMatch(/full.?name/i);
  });

  it('finds the phone and the branch in a scheduling page’s answers, the branch by its name', async () => {
    const prospect = await delivered(await postForm('form-scheduling-questions-and-answers'));
    expect(prospect).toMatchObject({
      name: 'Camila',
      email: 'camila.rocha@exemplo.com',
      cellphone: '11991234567',
      idBranch: MOEMA,
    });
    expectNotesContain(prospect.notes as string, [
      'Conte um pouco do seu objetivo: Voltar a treinar depois da gravidez',
    ]);
  });

  it('keeps a CRM person’s mobile as the cellphone and the landlines in the notes', async () => {
    const prospect = await delivered(await postForm('form-pipedrive-person-phones'));
    expect(prospect).toMatchObject({
      cellphone: '11987651122',
      email: 'patricia.lima@exemplo.com',
    });
    expectNotesContain(prospect.notes as string, [
      'Telefone (trabalho): (11) 3456-7890',
      'Telefone (residencial): (11) 2233-4455',
    ]);
  });
});

describe('WhatsApp: a person who answers the bot’s list is a lead', () => {
  const signed = (body: Buffer) => ({
    'content-type': 'application/json',
    'x-hub-signature-256': metaSignature(body, WA_SECRET, 'sha256'),
  });

  it('delivers the contact to the branch they picked, one lead with their conversation', async () => {
    // Prepare
    const reply = platformBody('whatsapp', 'list-reply.json');
    const ad = platformBody('whatsapp', 'ctwa-first-message.json');

    // Act
    const answered = await rt.post('/leads/whatsapp', reply, signed(reply));
    const conversation = await rt.post('/leads/whatsapp', ad, signed(ad));

    // Assess
    expect(answered.status).toBe(200);
    const { leadId, status } = (await answered.json()) as { leadId: string; status: string };
    expect(status).toBe('queued');
    expect(conversation.status).toBe(200);
    expect(((await conversation.json()) as { leadId: string }).leadId).toBe(leadId);
    expect(await rt.countLeads('whatsapp')).toBe(1);
    const prospect = await delivered(leadId);
    expect(prospect).toMatchObject({
      ddi: '55',
      cellphone: '11987654321',
      idBranch: MOEMA,
      email: '5511987654321@whatsapp.invalid',
    });
    expectNotesContain(prospect.notes as string, ['Escolha no menu (unidade_moema): Moema']);
  });
});
