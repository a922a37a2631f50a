/**
 * The OpenAPI descriptions of the gateway's own routes and of the routes leads come in by
 * (scripts/openapi-document.ts merges them; `POST /leads/{profile}` gets the sources' rows there).
 */
import * as z from 'zod/mini';
import { LEAD_ROUTE } from './openapi-lead-sources.ts';
import {
  answer,
  JSON_TYPE,
  type Operation,
  PROFILE,
  problem,
  query,
  ref,
  SERVICE_UNAVAILABLE,
} from './openapi-parts.ts';
import {
  errorSchema,
  healthSchema,
  leadAcceptedSchema,
  prospectCreatedAnswer,
  prospectErasedSchema,
  prospectPendingSchema,
  prospectRejectedSchema,
  prospectRequestSchema,
} from './openapi-schemas.ts';

export const INTAKE_OPERATIONS: Record<string, Operation> = {
  'GET /health': {
    operationId: 'health',
    summary: 'Whether the gateway is up',
    description: 'Answered by API Gateway itself; for probes and monitors.',
    tags: ['gateway'],
    security: [],
    responses: {
      '200': answer('Up.', ref(healthSchema)),
      '503': answer('Starting (local runtime only).', ref(healthSchema)),
    },
  },
  'GET /openapi.json': {
    operationId: 'openapi',
    summary: 'This document',
    tags: ['gateway'],
    security: [],
    responses: {
      '200': answer('The OpenAPI 3.1 document of this API.', { type: 'object' }),
    },
  },
  [LEAD_ROUTE]: {
    operationId: 'postLead',
    summary: 'Receive leads from a form, a form builder or an ad platform',
    // The sources' table, their bodies and their security are added per document (leadOperation).
    description:
      'The profile’s source decides how the request is authenticated, read and answered (docs/sources.md). Each lead is recorded before the answer and delivered to the upstream later; a redelivery of the same lead answers with the same lead id. Bodies up to 256 KB.',
    tags: ['intake'],
    parameters: [
      PROFILE,
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: 'Forms and the Prospect API: the same key is the same lead (24 hours).',
        schema: { type: 'string', maxLength: 255 },
      },
    ],
    requestBody: { required: true, content: {} },
    security: [],
    responses: {
      '200': answer('Accepted (ad platforms and form builders).', {
        anyOf: [ref(leadAcceptedSchema), { type: 'object', maxProperties: 0 }],
      }),
      '202': answer('Accepted (forms, the Prospect source).', ref(leadAcceptedSchema)),
      '303': answer('A plain HTML form of a profile with `redirectUrl`: go there.', undefined, {
        Location: { schema: { type: 'string', format: 'uri' } },
      }),
      '400': problem('The body cannot be read as this source’s payload (`invalid_body`).'),
      '401': problem('No credentials (`missing_token`, `missing_signature`, `missing_key`...).'),
      '403': problem('Wrong credentials (`invalid_token`, `invalid_signature`...).'),
      '404': problem('No such profile (`unknown_profile`).'),
      '413': problem('The body is over 256 KB (`body_too_large`).'),
      '429': { $ref: '#/components/responses/TooManyRequests' },
      '503': SERVICE_UNAVAILABLE,
    },
  },
  'GET /leads/{profile}': {
    operationId: 'leadHandshake',
    summary: 'Meta’s webhook subscription handshake',
    description:
      'Only for a profile of source `meta`: echoes `hub.challenge` when `hub.verify_token` is the profile’s verify token. Other sources answer 405.',
    tags: ['intake'],
    security: [],
    parameters: [
      PROFILE,
      query('hub.mode', 'Always `subscribe`.', z.literal('subscribe'), true),
      query('hub.verify_token', 'The profile’s `verifyToken`.', z.string(), true),
      query('hub.challenge', 'Echoed back.', z.string(), true),
    ],
    responses: {
      '200': {
        description: 'The challenge, as text.',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
      '403': problem('The verify token or the mode is wrong.'),
      '404': problem('No such profile.'),
      '405': problem('The profile’s source has no handshake.'),
    },
  },
  'OPTIONS /leads/{profile}': {
    operationId: 'leadPreflight',
    summary: 'CORS preflight of a landing page',
    tags: ['intake'],
    security: [],
    parameters: [
      PROFILE,
      {
        name: 'Origin',
        in: 'header',
        required: true,
        description: 'One of the profile’s `allowedOrigins`.',
        schema: { type: 'string' },
      },
    ],
    responses: {
      '204': {
        description: 'Allowed: `Access-Control-Allow-Origin`, `-Methods`, `-Headers`, `-Max-Age`.',
      },
      '403': problem('The origin is not one of the profile’s (`origin_not_allowed`).'),
      '404': problem('No such profile.'),
    },
  },
  'POST /api/v1/prospects': {
    operationId: 'createProspect',
    summary: 'Create a prospect, as the upstream’s own operation',
    description:
      'The upstream’s create-prospect body. The lead is recorded, then the answer waits up to 8 seconds for its delivery: 200 with the upstream’s id when delivered in time, else 202 (it is still delivered). A retry with the same body (or `Idempotency-Key`) from the same client is the same lead; keys and bodies are scoped to the client that sent them, and a key is bound to its body.',
    tags: ['intake'],
    parameters: [
      query(
        'upstream',
        'The account the Prospect goes to (default: the client’s only account, else `default`).',
        z.string(),
      ),
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'The same key from the same client with the same body is the same prospect (24 hours); with another body it is refused (422 `idempotency_key_reused`). Another client’s key is unrelated.',
        schema: { type: 'string', maxLength: 255 },
      },
    ],
    requestBody: {
      required: true,
      content: {
        [JSON_TYPE]: { schema: ref(prospectRequestSchema) },
        'application/json-patch+json': { schema: ref(prospectRequestSchema) },
      },
    },
    responses: {
      '200': answer(
        'Delivered: the upstream’s prospect id; or a person erased on request (`personal_data_erased`): nothing stored or created.',
        { anyOf: [ref(prospectCreatedAnswer), ref(prospectErasedSchema)] },
      ),
      '202': answer(
        'Recorded, not delivered within the wait (or parked, dead, test).',
        ref(prospectPendingSchema),
      ),
      '400': answer(
        'The body is not a Prospect (`invalid_body`), the upstream refused it (`rejected_upstream`, with the lead id), `?upstream=` names no account this client may post to (`unknown_upstream`, the same for an account that does not exist), or the client sees several accounts and named none (`upstream_required`).',
        { anyOf: [ref(errorSchema), ref(prospectRejectedSchema)] },
      ),
      '404': problem(
        'The chosen account has no profile of source `prospect` (`no_prospect_profile`).',
      ),
      '413': problem('The body is over 256 KB.'),
      '422': problem(
        'This client already used the `Idempotency-Key` for a different Prospect within 24 hours (`idempotency_key_reused`); nothing was stored.',
      ),
      '503': SERVICE_UNAVAILABLE,
    },
  },
};
