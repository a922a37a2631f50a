/**
 * One source = one file: the OpenAPI document and the request collection are built from the
 * registry's list of sources alone. A source that exists only in a copy of the list (declared
 * here with `defineSource`, its `docs` beside its `setup`) gets its row, body schema, security
 * scheme and request, with no edit to the scripts; and what does not hold together is refused
 * with the source's name.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { ROUTES } from '../../functions/kernel/routes.ts';
import { SOURCES } from '../../functions/sources/registry.ts';
import type { SampleAuth } from '../../functions/sources/setup.ts';
import { acceptedJson, defineSource, secretSetting } from '../../functions/sources/source.ts';
import { buildOpenApiDocument } from '../../scripts/openapi-document.ts';
import {
  collection,
  type DemoConfig,
  readLeadFixture,
  requestsText,
} from '../../scripts/requests.ts';
import { REPO_ROOT } from '../helpers/gateway-process.ts';

type Json = Record<string, unknown>;
type Operation = {
  description: string;
  security: Json[];
  requestBody: { content: Record<string, { schema: Json }> };
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json>; securitySchemes: Record<string, Json> };
};

const ACME_SCHEME = {
  type: 'apiKey',
  in: 'header',
  name: 'X-Acme-Signature',
  description: '`sha256=<hex HMAC-SHA256 of the raw body with the profile’s secret>`.',
};
const ACME_AUTH: SampleAuth = {
  kind: 'hmac',
  setting: 'secret',
  header: 'X-Acme-Signature',
  prefix: 'sha256=',
  encoding: 'hex',
};
/** The fixture the Acme source's request names, as a platform would send it. */
const ACME_PAYLOAD =
  '{\n  "submission_id": "acme-1",\n  "fields": {"email": "ana@example.com"}\n}\n';

/** A made-up platform with everything a real source declares (the adapter is never called). */
function fakeSource<const N extends string>(
  name: N,
  docs: { variable?: string; auth: SampleAuth },
) {
  return defineSource({
    name,
    label: 'Acme Forms',
    settings: { secret: secretSetting },
    secretKeys: ['secret'],
    authenticate: () => ({ ok: true }),
    capture: () => ({ leads: [] }),
    parkUnreadable: true,
    accepted: (leadIds) => acceptedJson(200, leadIds),
    setup: {
      steps: ['Acme → Webhooks → this URL.'],
      auth: () => docs.auth,
      sample: () => ({ contentType: 'application/json', body: ACME_PAYLOAD }),
    },
    docs: () => ({
      api: {
        security: ['acmeSignature'],
        schemes: { acmeSignature: ACME_SCHEME },
        authentication: '`X-Acme-Signature`, signed with the secret. Missing: 401; mismatch: 403.',
        bodies: {
          'application/json': {
            id: 'AcmeWebhook',
            description: 'Acme’s submission webhook.',
            schema: z.looseObject({ submission_id: z.string() }),
          },
        },
        answer: '200 `LeadAccepted`.',
      },
      request: {
        title: 'an Acme Forms webhook',
        fixture: { payload: 'submission' },
        ...(docs.variable && { variable: docs.variable }),
      },
    }),
  });
}

const acme = fakeSource('acme', { auth: ACME_AUTH });
const demo = JSON.parse(readFileSync(join(REPO_ROOT, 'config', 'demo.json'), 'utf8')) as DemoConfig;

/** The demo configuration with a profile of each made-up source, and their fixtures. */
function inputsWith(...sources: ReturnType<typeof fakeSource>[]) {
  const profiles = Object.fromEntries(
    sources.map((s) => [`${s.name}-site`, { source: s.name, secret: `demo-${s.name}-secret` }]),
  );
  return {
    sources: [...SOURCES, ...sources],
    config: { ...demo, profiles: { ...demo.profiles, ...profiles } },
    readFixture: (source: string, file: string) =>
      sources.some((s) => s.name === source) ? ACME_PAYLOAD : readLeadFixture(source, file),
  };
}

describe('a source in a copy of the registry’s list, and no other edit', () => {
  it('has its row, body schema and security scheme in a valid OpenAPI document', async () => {
    // Act
    const document = buildOpenApiDocument(ROUTES, [...SOURCES, acme]) as Document;
    const op = document.paths['/leads/{profile}']?.post as Operation;

    // Assess
    expect(op.description).toContain(
      '| `acme` (Acme Forms) | `X-Acme-Signature`, signed with the secret. Missing: 401; mismatch: 403. | application/json | 200 `LeadAccepted`. |',
    );
    expect(op.requestBody.content['application/json']?.schema.anyOf).toContainEqual({
      $ref: '#/components/schemas/AcmeWebhook',
    });
    expect(document.components.schemas.AcmeWebhook).toMatchObject({
      properties: { submission_id: { type: 'string' } },
      required: ['submission_id'],
    });
    expect(op.security).toContainEqual({ acmeSignature: [] });
    expect(document.components.securitySchemes.acmeSignature).toEqual(ACME_SCHEME);
    expect(await new Validator().validate(structuredClone(document))).toEqual({ valid: true });
  });

  it('leaves the registry’s own document as it was', () => {
    // Act
    buildOpenApiDocument(ROUTES, [...SOURCES, acme]);
    const document = JSON.stringify(buildOpenApiDocument());

    // Assess
    expect(document).not.toContain('Acme');
    expect(document).not.toContain('acmeSignature');
  });

  it('has its request, to its demo profile, signed with the demo secret over its fixture', () => {
    // Act
    const requests = collection(ROUTES, inputsWith(acme)).find(
      ({ route }) => route === 'POST /leads/{profile}',
    )?.requests;
    const request = requests?.find((r) => r.title.endsWith('(source acme)'));

    // Assess
    const body = '{"submission_id":"acme-1","fields":{"email":"ana@example.com"}}';
    const signature = createHmac('sha256', 'demo-acme-secret').update(body).digest('hex');
    expect(requests).toHaveLength(SOURCES.length + 1);
    expect(request).toEqual({
      title: 'an Acme Forms webhook (source acme)',
      method: 'POST',
      target: '/leads/acme-site',
      headers: { 'Content-Type': 'application/json', 'X-Acme-Signature': `sha256=${signature}` },
      body,
    });
  });

  it('gets a variable for a credential its request carries as it is', () => {
    // Prepare
    const tokenInUrl = fakeSource('acmetoken', {
      auth: { kind: 'token', setting: 'secret', in: 'query' },
      variable: 'acmeToken',
    });

    // Act
    const text = requestsText(inputsWith(tokenInUrl));

    // Assess
    expect(text).toContain('\n@acmeToken = demo-acmetoken-secret\n');
    expect(text).toContain(
      '### POST /leads/{profile}: an Acme Forms webhook (source acmetoken)\nPOST {{baseUrl}}/leads/acmetoken-site?token={{acmeToken}}\n',
    );
  });
});

describe('a source whose docs do not hold together', () => {
  it('is refused, by name, when it uses a security scheme it does not declare', () => {
    // Prepare
    const undeclared = {
      ...acme,
      docs: () => ({ ...acme.docs(), api: { ...acme.docs().api, schemes: {} } }),
    };

    // Act / Assess
    expect(() => buildOpenApiDocument(ROUTES, [...SOURCES, undeclared])).toThrow(
      'source acme uses the security scheme acmeSignature but does not declare it',
    );
  });

  it('is refused, by name, when it gives a body another schema’s name', () => {
    // Prepare
    const body = { id: 'FormFields', description: 'Something else.', schema: z.string() };
    const clash = {
      ...acme,
      docs: () => ({
        ...acme.docs(),
        api: { ...acme.docs().api, bodies: { 'application/json': body } },
      }),
    };

    // Act / Assess
    expect(() => buildOpenApiDocument(ROUTES, [...SOURCES, clash])).toThrow(
      'source acme names a schema FormFields, but another has that name',
    );
  });

  it('is refused, by name, when its request carries a token without a variable for it', () => {
    // Prepare
    const nameless = fakeSource('acme', {
      auth: { kind: 'token', setting: 'secret', in: 'query' },
    });

    // Act / Assess
    expect(() => collection(ROUTES, inputsWith(nameless))).toThrow('source acme');
  });
});
