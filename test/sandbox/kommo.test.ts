import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platformJson } from '../helpers/platform-fixtures.ts';
import { type Harness, startSandbox } from './helpers.ts';

let h: Harness;
beforeAll(async () => {
  h = await startSandbox();
});
afterAll(async () => {
  await h.sandbox.close();
});

const BEARER = { authorization: 'Bearer demo-kommo-access-token' };
const LEAD = platformJson('kommo', 'api-lead.json') as { id: number };
const CONTACT = platformJson('kommo', 'api-contact.json') as { id: number };

function register(body: unknown): Promise<Response> {
  return fetch(h.url('/_sandbox/kommo-leads'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const get = (path: string, headers: Record<string, string> = BEARER) =>
  fetch(h.url(`/kommo/api/v4/${path}`), { headers });

describe('the sandbox’s stand-in for Kommo’s API', () => {
  it('serves a registered lead (with its contacts only when asked) and its contact', async () => {
    // Prepare
    expect((await register({ lead: LEAD, contacts: [CONTACT] })).status).toBe(201);

    // Act
    const withContacts = await get(`leads/${LEAD.id}?with=contacts`);
    const plain = await get(`leads/${LEAD.id}`);
    const contact = await get(`contacts/${CONTACT.id}`);

    // Assess
    expect(withContacts.status).toBe(200);
    expect(await withContacts.json()).toMatchObject({
      id: LEAD.id,
      _embedded: { contacts: [{ id: CONTACT.id, is_main: true }] },
    });
    expect(((await plain.json()) as { _embedded: object })._embedded).not.toHaveProperty(
      'contacts',
    );
    expect(await contact.json()).toMatchObject({ id: CONTACT.id, first_name: 'Lucas' });
  });

  it('answers 204 with no body for an id it does not have, as Kommo does', async () => {
    const response = await get('leads/424242');
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
  });

  it('answers 401 without a Bearer token, 405 to anything but GET', async () => {
    expect((await get(`leads/${LEAD.id}`, {})).status).toBe(401);
    const post = await fetch(h.url(`/kommo/api/v4/leads/${LEAD.id}`), {
      method: 'POST',
      headers: BEARER,
    });
    expect(post.status).toBe(405);
  });

  it('refuses a registration without a lead id with 400 and what is wrong', async () => {
    const response = await register({ lead: { name: 'x' } });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: {
        code: 'invalid_kommo_lead',
        details: [expect.objectContaining({ field: 'lead.id' })],
      },
    });
  });
});
