/**
 * The sandbox's stand-in for the two Kommo API v4 calls the `kommo` source makes at delivery
 * (functions/sources/kommo.ts): `GET /kommo/api/v4/leads/{id}?with=contacts` and
 * `GET /kommo/api/v4/contacts/{id}`, with Kommo's answers: the entity as JSON, 204 with no body
 * for an id it does not have, 401 without a Bearer token. Leads and their contacts are registered
 * with `POST /_sandbox/kommo-leads` as Kommo's API would return them.
 */
import * as z from 'zod/mini';
import { describeIssues, type IssueDetail } from '../functions/domain/json.ts';

const entityId = z.int().check(z.positive());

const registrationSchema = z.object({
  lead: z.looseObject({ id: entityId }),
  contacts: z.optional(z.array(z.looseObject({ id: entityId }))),
});

export type KommoRegistration =
  | { ok: true; lead: Record<string, unknown> }
  | { ok: false; details: IssueDetail[] };

export interface KommoAnswer {
  status: number;
  /** JSON to send; none for 204. */
  body?: unknown;
}

/** `/kommo/api/v4/leads/{id}` or `/kommo/api/v4/contacts/{id}`. */
export const KOMMO_PATH = /^\/kommo\/api\/v4\/(leads|contacts)\/([^/]+)$/i;

export interface KommoStore {
  register(input: unknown): KommoRegistration;
  leads(): Record<string, unknown>[];
  clear(): void;
  /** The answer to a GET of `entity` `id`, given the request's Authorization header. */
  get(
    entity: 'leads' | 'contacts',
    id: string,
    withContacts: boolean,
    authorization: string | undefined,
  ): KommoAnswer;
}

export function createKommoStore(): KommoStore {
  const leads = new Map<string, Record<string, unknown>>();
  const contacts = new Map<string, Record<string, unknown>>();
  return {
    register(input) {
      const parsed = registrationSchema.safeParse(input);
      if (!parsed.success)
        return { ok: false, details: describeIssues(parsed.error.issues, input) };
      const linked = (parsed.data.contacts ?? []).map((contact, index) => ({
        id: contact.id,
        is_main: index === 0,
      }));
      const embedded = (parsed.data.lead._embedded ?? {}) as Record<string, unknown>;
      const lead = {
        ...parsed.data.lead,
        _embedded: { ...embedded, contacts: embedded.contacts ?? linked },
      };
      leads.set(String(lead.id), lead);
      for (const contact of parsed.data.contacts ?? []) contacts.set(String(contact.id), contact);
      return { ok: true, lead };
    },
    leads: () => [...leads.values()],
    clear() {
      leads.clear();
      contacts.clear();
    },
    get(entity, id, withContacts, authorization) {
      if (!/^Bearer\s+\S+$/i.test(authorization ?? '')) {
        return {
          status: 401,
          body: {
            title: 'Unauthorized',
            type: 'https://httpstatus.es/401',
            status: 401,
            detail: 'Authorization header is missing or invalid',
          },
        };
      }
      const found = (entity === 'leads' ? leads : contacts).get(id);
      if (!found) return { status: 204 };
      if (entity === 'contacts' || withContacts) return { status: 200, body: found };
      const { contacts: _hidden, ...embedded } = (found._embedded ?? {}) as Record<string, unknown>;
      return { status: 200, body: { ...found, _embedded: embedded } };
    },
  };
}
