/**
 * The `prospect` source: the seed's own Prospect JSON, as `POST /api/v1/prospects` receives it
 * (`application/json-patch+json` or `application/json`; the `+json` family, `text/json` and a
 * missing content type are read as JSON too).
 *
 * - Capture: the body validated with `prospectSchema` (unknown fields kept, as production does)
 *   becomes `capture.prospect`, with no answers and no attribution. An invalid body is a problem
 *   naming each bad field (`invalid Prospect: email: must be a string, got an integer`), never
 *   its value; {@link readProspect} also gives the details as a list for an error response.
 * - Dedup: `key:<Idempotency-Key header>` when present, else `hash:` of the body's canonical JSON
 *   (keys sorted), so a retry of the same Prospect is recognised whatever its formatting. Once
 *   the caller is known, the use case scopes it to that client with {@link scopeToClient}: one
 *   client's key never finds another client's lead, and the key is bound to the body's
 *   fingerprint (the same key with another body is refused, not deduplicated).
 * - Auth: Basic auth against the configured clients with role `prospects:write`. The adapter does
 *   not see the clients, so its `authenticate` always passes: the use case checks Basic auth
 *   before calling it. Never route this source without that check.
 * - Answer: 202 `{"leadId": "...", "status": "queued"}`; the use case answers 200
 *   `{"idProspect": n}` instead when the delivery completes in time.
 */
import type { IssueDetail } from '../domain/json.ts';
import { describeIssues } from '../domain/json.ts';
import type { LeadCapture } from '../domain/lead.ts';
import { type Prospect, prospectSchema } from '../domain/prospect.ts';
import type { NamedSchema } from './docs.ts';
import { idempotencyKey } from './form.ts';
import { isJsonType, isPlainObject, parseJsonText } from './form-fields.ts';
import { SAMPLE_PERSON } from './setup.ts';
import {
  acceptedJson,
  type CaptureResult,
  canonicalJson,
  defineSource,
  type IntakeRequest,
  rawBodyHash,
  sha256Hex,
} from './source.ts';

export type ProspectRead =
  | { prospect: Prospect; body: unknown }
  | { problem: string; details: IssueDetail[] };

/** Reads and validates a Prospect body; `details` lists each bad field (empty for a bad body). */
export function readProspect(request: Pick<IntakeRequest, 'body' | 'contentType'>): ProspectRead {
  const type = request.contentType;
  if (type !== '' && !isJsonType(type)) {
    return {
      problem: 'o tipo de conteúdo deve ser application/json ou application/json-patch+json',
      details: [],
    };
  }
  if (request.body.toString('utf8').trim() === '') {
    return { problem: 'o corpo está vazio; esperava-se um Prospect', details: [] };
  }
  const parsed = parseJsonText(request.body);
  if ('problem' in parsed) return { ...parsed, details: [] };
  if (!isPlainObject(parsed.value)) {
    return { problem: 'o corpo deve ser um objeto JSON (um Prospect)', details: [] };
  }
  const result = prospectSchema.safeParse(parsed.value);
  if (!result.success) {
    const details = describeIssues(result.error.issues, parsed.value);
    const list = details.map((d) => `${d.field || '(corpo)'}: ${d.message}`).join('; ');
    return { problem: `Prospect inválido: ${list}`, details };
  }
  return { prospect: result.data, body: parsed.value };
}

function captureProspect(request: IntakeRequest): CaptureResult {
  const read = readProspect(request);
  if ('problem' in read) {
    return { problem: read.problem, details: read.details, dedupKey: rawBodyHash(request.body) };
  }
  const idempotency = idempotencyKey(request);
  if (idempotency && 'problem' in idempotency) {
    return { problem: idempotency.problem, dedupKey: rawBodyHash(request.body) };
  }
  const capture: LeadCapture = {
    source: 'prospect',
    dedupKey: idempotency?.dedupKey ?? `hash:${sha256Hex(canonicalJson(['prospect', read.body]))}`,
    isTest: false,
    answers: [],
    attribution: {},
    prospect: read.prospect,
  };
  return { leads: [capture] };
}

/** A Prospect API capture scoped to the client that sent it. */
export interface ClientScopedCapture {
  /** The capture with its dedup key scoped to the client (`key:<client>:<value>`, `hash:`). */
  capture: LeadCapture;
  /** SHA-256 (hex) of the Prospect's canonical JSON: what an Idempotency-Key is bound to. */
  fingerprint: string;
}

/**
 * Scopes a Prospect API capture's dedup key to the authenticated client `username`: an
 * Idempotency-Key becomes `key:<username>:<value>` (still the `key` kind: 24 h), a content hash
 * is taken over the client's name and the Prospect (still `hash`: 10 minutes). Two clients that
 * send the same key, or the same body, get two leads. The fingerprint binds the key to the body.
 */
export function scopeToClient(capture: LeadCapture, username: string): ClientScopedCapture {
  const body = capture.prospect ?? {};
  const fingerprint = sha256Hex(canonicalJson(['prospect', body]));
  const dedupKey = capture.dedupKey.startsWith('key:')
    ? `key:${username}:${capture.dedupKey.slice('key:'.length)}`
    : `hash:${sha256Hex(canonicalJson(['prospect', username, body]))}`;
  return { capture: { ...capture, dedupKey }, fingerprint };
}

/** The upstream's Prospect as a body schema (docs.ts): this source's and `POST /api/v1/prospects`'s. */
export function prospectBody(): NamedSchema {
  return {
    id: 'Prospect',
    description:
      'The upstream’s Prospect, field for field (docs/upstream.md). Unknown fields are kept.',
    schema: prospectSchema,
  };
}

export const prospectSource = defineSource({
  name: 'prospect',
  label: 'API',
  settings: {},
  secretKeys: [],
  /** Always passes: Basic auth (`prospects:write`) is checked by the use case, which has the clients. */
  authenticate: () => ({ ok: true }),
  capture: captureProspect,
  parkUnreadable: false,
  accepted: (leadIds) => acceptedJson(202, leadIds, { status: 'queued' }),
  setup: {
    steps: [
      'Um sistema que já fala o cadastro do sistema da academia: envie-o (POST) a <ApiUrl>api/v1/prospects (o primeiro perfil desse tipo atende) ou a este endereço, com usuário e senha (Basic) de um cliente da API.',
      'Crie o cliente com o papel "prospects:write" (npm run hash-password, depois o segredo dos clientes: docs/deploy.md).',
    ],
    secrets: {},
    auth: () => ({ kind: 'basic' }),
    // The Prospect API takes the branch from the client: the profile's default, else branch 1.
    sample: (stamp, profile) => ({
      contentType: 'application/json',
      body: JSON.stringify({
        name: SAMPLE_PERSON.firstName,
        lastName: SAMPLE_PERSON.lastName,
        email: SAMPLE_PERSON.email(stamp),
        idBranch: profile.defaults?.idBranch ?? 1,
        ddi: '55',
        cellphone: '11987654321',
        marketingType: 'Teste',
      }),
    }),
    notes: [
      'A resposta espera até 8 segundos pela entrega: 200 com o número do cadastro quando entregue a tempo, senão 202 com o número do lead e a situação.',
    ],
  },
  docs: () => ({
    api: {
      security: ['basicAuth'],
      authentication:
        'Basic credentials of an API client with the `prospects:write` role (as `POST /api/v1/prospects`).',
      bodies: { 'application/json': prospectBody() },
      answer: 'As `POST /api/v1/prospects`.',
    },
    request: { title: 'a Prospect through a profile', fixture: { request: 'valid' } },
  }),
});
