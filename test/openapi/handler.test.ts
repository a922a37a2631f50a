/**
 * `GET /openapi.json` through the local gateway: no credentials, the committed document, and the
 * gateway's real refusals in the error shape it describes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorSchema } from '../../scripts/openapi-schemas.ts';
import { REPO_ROOT } from '../helpers/gateway-process.ts';
import { DEMO_CLIENTS } from '../helpers/lead-fixtures.ts';
import { startTestRuntime, type TestRuntime, testConfig } from '../helpers/local-runtime.ts';

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(testConfig({ native: { source: 'prospect' } }, DEMO_CLIENTS));
});
afterAll(() => rt?.stop());

describe('GET /openapi.json', () => {
  it('serves the committed document to anyone', async () => {
    // Act
    const response = await fetch(new URL('/openapi.json', rt.url));

    // Assess
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const committed = JSON.parse(readFileSync(join(REPO_ROOT, 'docs', 'openapi.json'), 'utf8'));
    expect(await response.json()).toEqual(committed);
  });

  it('describes refusals in the shape the gateway really answers', async () => {
    // Act
    const refusals = await Promise.all([
      fetch(new URL('/admin/leads?status=dead', rt.url)),
      fetch(new URL('/leads/nobody', rt.url), { method: 'POST', body: '{}' }),
    ]);

    // Assess
    expect(refusals.map((r) => r.status)).toEqual([401, 404]);
    for (const response of refusals) {
      expect(errorSchema.safeParse(await response.json()).success).toBe(true);
    }
  });
});
