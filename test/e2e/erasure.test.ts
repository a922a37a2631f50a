/**
 * A person's erasure end to end, through the local gateway, the delivery worker and the sandbox
 * upstream (what `npm start` runs): an erasure finds what an operator typed into a lead and names
 * the prospect it became; an erased lead is neither corrected nor retried; and a platform that
 * sends an erased lead again (the same signed Typeform body: its signature carries no timestamp)
 * is acknowledged with 200, and nothing of the person comes back: no lead, no prospect.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IN_FLIGHT } from '../../functions/domain/lead-lifecycle.ts';
import { basicHeader } from '../helpers/abuse-kit.ts';
import { DEMO_CLIENTS, DEMO_SECRETS } from '../helpers/lead-fixtures.ts';
import {
  leadIdOf,
  startTestRuntime,
  type TestRuntime,
  testConfig,
} from '../helpers/local-runtime.ts';
import { logLinesOf } from '../helpers/log-lines.ts';
import {
  MARIA_SOUZA,
  PLATFORM_SECRETS,
  platformBody,
  typeformSignature,
} from '../helpers/platform-fixtures.ts';

const OPS = basicHeader('ops', 'demo-ops-password');
/** A failsafe for a lead that never settles: the tests wait for states, not for time. */
const SETTLE_MS = 60_000;

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(
    testConfig(
      {
        site: { source: 'form', token: DEMO_SECRETS.form, defaults: { idBranch: 1 } },
        typeform: {
          source: 'typeform',
          secret: PLATFORM_SECRETS.typeform,
          defaults: { idBranch: 1 },
        },
      },
      DEMO_CLIENTS,
    ),
    { worker: true },
  );
});
afterAll(() => rt?.stop());

async function admin(method: string, path: string, body?: unknown) {
  const response = await fetch(new URL(path, rt.url), {
    method,
    headers: { authorization: OPS, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The lead's admin view once it has left queued/sending (read after the ledger says so). */
async function settled(leadId: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const lead = await rt.ledger.get(leadId);
    if (lead && !IN_FLIGHT.has(lead.status))
      return (await admin('GET', `/admin/leads/${leadId}`)).body;
    if (Date.now() > deadline) throw new Error(`${leadId}: still ${lead?.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function sandboxProspects(): Promise<Array<{ idProspect: number; body: object }>> {
  const response = await fetch(new URL('/_sandbox/prospects', rt.sandboxUrl));
  return (await response.json()) as Array<{ idProspect: number; body: object }>;
}

/** Every lead id the console lists (every status). */
async function listedLeadIds(): Promise<string[]> {
  const { body } = await admin('GET', '/admin/leads?order=newest&limit=500');
  return (body.leads as Array<{ leadId: string }>).map((lead) => lead.leadId).sort();
}

describe('erasure, end to end', () => {
  it('finds a lead by the phone an operator typed, names its prospect, and refuses to correct it again', async () => {
    // Prepare: Carla typed no phone: parked for it
    const posted = await rt.post(
      '/leads/site',
      'nome=Carla+Digitada&email=carla.antiga%40example.com',
      {
        'content-type': 'application/x-www-form-urlencoded',
        'x-lead-token': DEMO_SECRETS.form,
      },
    );
    expect(posted.status).toBe(202);
    const leadId = await leadIdOf(posted);
    expect((await admin('GET', `/admin/leads/${leadId}`)).body).toMatchObject({
      status: 'parked',
      correctable: true,
    });

    // Prepare: the operator types her phone and her new e-mail, retries, and it is delivered
    const corrected = await admin('PATCH', `/admin/leads/${leadId}`, {
      prospect: { cellphone: '(31) 98888-0006', email: 'carla.nova@example.com' },
    });
    expect(corrected.status).toBe(200);
    expect((await admin('POST', `/admin/leads/${leadId}/retry`)).status).toBe(202);
    const delivered = await settled(leadId);
    expect(delivered).toMatchObject({ status: 'delivered', idProspect: expect.any(Number) });
    const idProspect = delivered.idProspect as number;
    expect((await sandboxProspects()).find((p) => p.idProspect === idProspect)?.body).toMatchObject(
      { email: 'carla.nova@example.com', cellphone: '31988880006' },
    );

    // Act: the person asks by the phone the operator typed
    const erasure = await admin('POST', '/admin/erasure', { phone: '+55 31 98888-0006' });

    // Assess: found, erased, and the prospect to erase at the upstream named
    expect(erasure.status).toBe(200);
    expect(erasure.body).toMatchObject({
      found: 1,
      erased: [{ leadId, status: 'delivered', idProspect }],
      upstream: { idProspects: [idProspect] },
    });
    const view = await admin('GET', `/admin/leads/${leadId}`);
    expect(view.body).toMatchObject({ correctable: false, idProspect });
    expect(JSON.stringify(view.body)).not.toMatch(/carla|98888/i);

    // Assess: an erased lead can be neither corrected nor retried
    const patch = await admin('PATCH', `/admin/leads/${leadId}`, {
      prospect: { cellphone: '(31) 98888-0006' },
    });
    expect(patch).toMatchObject({
      status: 409,
      body: { error: { code: 'personal_data_removed' } },
    });
    const retry = await admin('POST', `/admin/leads/${leadId}/retry`);
    expect(retry).toMatchObject({
      status: 409,
      body: { error: { code: 'personal_data_removed' } },
    });
    expect(JSON.stringify((await rt.ledger.get(leadId))?.capture)).not.toMatch(/carla/i);
    // Neither e-mail finds her any more: the erasure took her off every item.
    for (const email of ['carla.antiga@example.com', 'carla.nova@example.com']) {
      expect((await admin('POST', '/admin/erasure', { email })).body.found).toBe(0);
    }
  });

  it('acknowledges a signed Typeform redelivery of an erased lead with 200, and brings nothing back', async () => {
    // Prepare: Typeform's lead delivered, then its person erased
    const body = platformBody('typeform', 'form-response.json');
    const headers = {
      'content-type': 'application/json',
      'typeform-signature': typeformSignature(body, PLATFORM_SECRETS.typeform),
    };
    const first = await rt.post('/leads/typeform', body, headers);
    expect(first.status).toBe(200);
    const leadId = await leadIdOf(first);
    const delivered = await settled(leadId);
    expect(delivered.status).toBe('delivered');
    const erasure = await admin('POST', '/admin/erasure', { email: MARIA_SOUZA.email });
    expect(erasure.body).toMatchObject({
      found: 1,
      upstream: { idProspects: [delivered.idProspect] },
    });
    const prospectsBefore = (await sandboxProspects()).length;
    const leadsBefore = await listedLeadIds();

    // Act: Typeform sends the very same signed bytes again
    let again: Response | undefined;
    const lines = await logLinesOf(async () => {
      again = await rt.post('/leads/typeform', body, headers);
    });

    // Assess: acknowledged as Typeform expects, and said so
    expect(again?.status).toBe(200);
    expect(await again?.json()).toEqual({ leadIds: [], status: 'erased', erased: 1 });
    // Nothing stored, nothing sent: the same leads, the same prospects, once the worker is idle
    expect(await listedLeadIds()).toEqual(leadsBefore);
    expect(await rt.countLeads('typeform')).toBe(1);
    const { body: upstream } = await admin('GET', '/admin/upstream');
    expect(upstream).toMatchObject({ backlog: 0 });
    expect((await sandboxProspects()).length).toBe(prospectsBefore);
    // Counted in the audit trail, without a trace of the person
    const drop = lines.find((line) => line.message === 'erased lead dropped');
    expect(drop).toMatchObject({ profile: 'typeform', source: 'typeform', leads: 1 });
    expect(JSON.stringify(lines)).not.toMatch(/maria|souza|98765/i);
  });
});
