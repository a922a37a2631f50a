/**
 * The OpenAPI document (npm run openapi): valid OpenAPI 3.1 by an independent validator, the
 * route table exactly, every lead source with its authentication and a body schema its real
 * payloads fit, and docs/openapi.json as the code makes it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../functions/domain/json.ts';
import { ROUTES, type RouteSpec } from '../../functions/kernel/routes.ts';
import { SOURCES } from '../../functions/sources/registry.ts';
import { buildOpenApiDocument, openApiText } from '../../scripts/openapi-document.ts';
import { REPO_ROOT } from '../helpers/gateway-process.ts';
import { loadLeadFixture } from '../helpers/lead-fixtures.ts';
import { platformBody } from '../helpers/platform-fixtures.ts';
import {
  googleLeadSchema,
  metaWebhookSchema,
  prospectRequestSchema,
  rdStationWebhookSchema,
  tiktokWebhookSchema,
  typeformWebhookSchema,
  webflowWebhookSchema,
  whatsappWebhookSchema,
} from '../helpers/source-schemas.ts';

type Json = Record<string, unknown>;
type Operation = {
  security?: Json[];
  responses: Record<string, Json>;
  description?: string;
  requestBody?: { content: Record<string, { schema: Json }> };
};

const COMMITTED = join(REPO_ROOT, 'docs', 'openapi.json');
const document = buildOpenApiDocument() as {
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, Json> };
};

function operation(route: Pick<RouteSpec, 'method' | 'path'>): Operation {
  const found = document.paths[route.path]?.[route.method.toLowerCase()];
  if (!found) throw new Error(`no operation for ${route.method} ${route.path}`);
  return found;
}

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 for an independent validator', async () => {
    // Prepare
    const validator = new Validator();

    // Act
    const result = await validator.validate(structuredClone(document));

    // Assess
    expect(result).toEqual({ valid: true });
    expect(validator.version).toBe('3.1');
  });

  it('is refused by the same validator when broken (the check is not vacuous)', async () => {
    // Prepare
    const broken = structuredClone(document) as Json & { paths: Json };
    (broken.paths['/health'] as Json).get = { responses: 'none' };

    // Act
    const result = await new Validator().validate(broken);

    // Assess
    expect(result.valid).toBe(false);
  });

  it('describes every route of the route table, and nothing else', () => {
    // Act
    const described = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );

    // Assess
    expect(described.sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('refuses to build while a route of the table has no description, naming it', () => {
    // Prepare
    const added: RouteSpec = { method: 'GET', path: '/upstream/health', fn: 'admin' };

    // Act / Assess
    expect(() => buildOpenApiDocument([...ROUTES, added])).toThrow(
      'route GET /upstream/health has no description',
    );
    expect(() => buildOpenApiDocument(ROUTES.slice(1))).toThrow('not in the route table');
  });

  it('asks Basic credentials on the Basic routes, with the role and the 401 challenge', () => {
    for (const route of ROUTES.filter((r) => r.auth === 'basic')) {
      // Act
      const op = operation(route);

      // Assess
      expect(op.security, route.path).toEqual([{ basicAuth: [] }]);
      expect(op.description, route.path).toContain(`\`${route.role}\` role`);
      expect(op.responses['401'], route.path).toEqual({
        $ref: '#/components/responses/Unauthorized',
      });
    }
  });

  it("documents each source's own authentication on POST /leads/{profile}", () => {
    // Act
    const op = operation({ method: 'POST', path: '/leads/{profile}' });
    const schemes = (op.security ?? []).flatMap((requirement) => Object.keys(requirement));

    // Assess
    for (const source of SOURCES) expect(op.description).toContain(`| \`${source.name}\``);
    expect(schemes).toEqual(
      expect.arrayContaining([
        'leadToken',
        'leadTokenHeader',
        'metaSignature',
        'typeformSignature',
        'webflowSignature',
        'basicAuth',
      ]),
    );
    for (const scheme of schemes)
      expect(document.components.securitySchemes).toHaveProperty(scheme);
    // Google's key travels in the body: no scheme, so the requirement list allows none.
    expect(op.security).toContainEqual({});
    expect(Object.keys(op.requestBody?.content ?? {})).toEqual(
      expect.arrayContaining([
        'application/json',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
      ]),
    );
  });

  it('describes every body in the error shape {error: {code, message, details}}', () => {
    // Act
    // GET /health's 503 is its own `{"status": "starting"}`, as on AWS's mock integration.
    const errorAnswers = ROUTES.filter((route) => route.path !== '/health').flatMap((route) =>
      Object.entries(operation(route).responses).filter(([status]) => Number(status) >= 400),
    );

    // Assess
    expect(errorAnswers.length).toBeGreaterThan(20);
    for (const [status, response] of errorAnswers) {
      expect(JSON.stringify(response), status).toMatch(
        /#\/components\/(schemas\/Error|schemas\/ProspectRejected|responses\/)/,
      );
    }
  });

  it('has body schemas that the platforms’ real payloads fit', () => {
    // Prepare
    // Read as the sources read them: integers beyond 2^53 (Meta's ids) stay digit strings.
    const platformJson = (source: string, file: string) =>
      parseJson(platformBody(source, file).toString('utf8'));
    const platformFiles = (source: string) =>
      readdirSync(join(REPO_ROOT, 'test', 'fixtures', 'leads', source)).filter(
        (file) => file.endsWith('.json') && !file.startsWith('graph-'),
      );
    const cases = [
      ...platformFiles('meta').map((f) => [metaWebhookSchema, platformJson('meta', f)] as const),
      ...platformFiles('google').map((f) => [googleLeadSchema, platformJson('google', f)] as const),
      ...platformFiles('typeform').map(
        (f) => [typeformWebhookSchema, platformJson('typeform', f)] as const,
      ),
      ...platformFiles('rdstation').map(
        (f) => [rdStationWebhookSchema, platformJson('rdstation', f)] as const,
      ),
      ...platformFiles('whatsapp').map(
        (f) => [whatsappWebhookSchema, platformJson('whatsapp', f)] as const,
      ),
      ...platformFiles('tiktok').map(
        (f) => [tiktokWebhookSchema, platformJson('tiktok', f)] as const,
      ),
      [webflowWebhookSchema, parseJson(loadLeadFixture('webflow', 'valid').body)] as const,
      [prospectRequestSchema, parseJson(loadLeadFixture('prospect', 'valid').body)] as const,
    ];

    // Act
    const failures = cases
      .map(([schema, payload]) => schema.safeParse(payload))
      .filter((result) => !result.success);

    // Assess
    expect(cases.length).toBeGreaterThan(8);
    expect(failures).toEqual([]);
  });

  it('is what docs/openapi.json holds (run npm run openapi after changing a route)', () => {
    // Act
    const committed = readFileSync(COMMITTED, 'utf8');

    // Assess
    expect(committed === openApiText(), 'docs/openapi.json is out of date: npm run openapi').toBe(
      true,
    );
  });
});
