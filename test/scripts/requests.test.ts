/**
 * docs/requests.http (npm run requests): one request per route and per lead source, current with
 * the fixtures, and working: each request of the file, sent as VS Code REST Client or JetBrains'
 * HTTP Client sends it, is answered by the real local runtime on config/demo.json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCRIPT_FILE as CONSOLE_SCRIPT } from '../../functions/admin/browser/dist/console-file.ts';
import { ROUTES, type RouteSpec } from '../../functions/kernel/routes.ts';
import { SCRIPT_FILE as DASHBOARD_SCRIPT } from '../../functions/report/serve/browser/dist/dashboard-file.ts';
import { SOURCES } from '../../functions/sources/registry.ts';
import { collection, REQUESTS_FILE, requestsText } from '../../scripts/requests.ts';
import { REPO_ROOT } from '../helpers/gateway-process.ts';
import { startTestRuntime, type TestRuntime } from '../helpers/local-runtime.ts';

interface ParsedRequest {
  title: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * The requests of a .http file as the REST clients read them: `@name = value` variables,
 * `{{name}}` substituted, `Authorization: Basic <user> <password>` encoded, the body after the
 * first blank line.
 */
function parseHttpFile(text: string, overrides: Record<string, string> = {}): ParsedRequest[] {
  const [preamble = '', ...blocks] = text.split(/^### /m);
  const variables: Record<string, string> = {};
  for (const match of preamble.matchAll(/^@(\w+) = (.*)$/gm)) {
    variables[match[1] as string] = match[2] as string;
  }
  Object.assign(variables, overrides);
  const substitute = (value: string) =>
    value.replace(/\{\{(\w+)\}\}/g, (_, name: string) => variables[name] ?? `{{${name}}}`);
  return blocks.map((block) => {
    const [title = '', ...lines] = block.split('\n');
    const content = lines.filter((line) => !line.startsWith('#'));
    const [requestLine = '', ...rest] = content;
    const [method = '', url = ''] = requestLine.split(' ');
    const blank = rest.indexOf('');
    const headerLines = blank < 0 ? rest : rest.slice(0, blank);
    const headers: Record<string, string> = {};
    for (const line of headerLines) {
      const colon = line.indexOf(':');
      let value = substitute(line.slice(colon + 1).trim());
      const basic = /^Basic (\S+) (\S+)$/.exec(value);
      if (basic) value = `Basic ${Buffer.from(`${basic[1]}:${basic[2]}`).toString('base64')}`;
      headers[line.slice(0, colon)] = value;
    }
    const body =
      blank < 0
        ? ''
        : rest
            .slice(blank + 1)
            .join('\n')
            .trim();
    return {
      title,
      method,
      url: substitute(url),
      headers,
      ...(body && { body: substitute(body) }),
    };
  });
}

describe('docs/requests.http', () => {
  it('is what npm run requests makes from the fixtures (run it after changing them)', () => {
    // Act
    const committed = readFileSync(REQUESTS_FILE, 'utf8');

    // Assess
    expect(
      committed === requestsText(),
      'docs/requests.http is out of date: npm run requests',
    ).toBe(true);
  });

  it('has a request for every route of the route table and every lead source', () => {
    // Act
    const requests = parseHttpFile(readFileSync(REQUESTS_FILE, 'utf8'));
    const routes = new Set(requests.map((r) => r.title.slice(0, r.title.indexOf(':'))));

    // Assess
    expect([...routes].sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
    for (const source of SOURCES) {
      expect(requests.filter((r) => r.title.endsWith(`(source ${source.name})`))).toHaveLength(1);
    }
  });

  it('refuses to build while a route of the table has no request, naming it', () => {
    // Prepare
    const added: RouteSpec = { method: 'GET', path: '/upstream/health', fn: 'admin' };

    // Act / Assess
    expect(() => collection([...ROUTES, added])).toThrow(
      'route GET /upstream/health has no request',
    );
  });
});

describe('docs/requests.http against npm start', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    const demo = JSON.parse(readFileSync(join(REPO_ROOT, 'config', 'demo.json'), 'utf8'));
    rt = await startTestRuntime(demo, { worker: true });
  });
  afterAll(() => rt?.stop());

  async function send(request: ParsedRequest): Promise<{ status: number; body: string }> {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined && { body: request.body }),
      redirect: 'manual',
    });
    return { status: response.status, body: await response.text() };
  }

  it('gets every lead source accepted with its own credentials (Webflow, HubSpot: their stale signatures)', async () => {
    // Prepare
    const requests = parseHttpFile(readFileSync(REQUESTS_FILE, 'utf8'), {
      baseUrl: rt.url,
    }).filter((r) => r.title.includes('(source '));

    // Act
    const answers = [];
    for (const request of requests)
      answers.push({ title: request.title, ...(await send(request)) });

    // Assess
    expect(answers).toHaveLength(SOURCES.length);
    for (const answer of answers) {
      if (answer.title.endsWith('(source webflow)') || answer.title.endsWith('(source hubspot)')) {
        expect(answer.status).toBe(403);
        expect(answer.body).toContain('stale_timestamp');
      } else {
        expect(answer.status, `${answer.title}: ${answer.body}`).toBeGreaterThanOrEqual(200);
        expect(answer.status, `${answer.title}: ${answer.body}`).toBeLessThan(300);
      }
    }
  });

  it('gets every other route answered, never refused for its credentials or with a 5xx', async () => {
    // Prepare: a lead of the form request, as a person would copy it into @leadId.
    const all = parseHttpFile(readFileSync(REQUESTS_FILE, 'utf8'), { baseUrl: rt.url });
    const form = all.find((r) => r.title.endsWith('(source form)'));
    const { leadId } = JSON.parse((await send(form as ParsedRequest)).body) as { leadId: string };
    const requests = parseHttpFile(readFileSync(REQUESTS_FILE, 'utf8'), {
      baseUrl: rt.url,
      leadId,
      consoleScript: CONSOLE_SCRIPT,
      dashboardScript: DASHBOARD_SCRIPT,
    }).filter((r) => !r.title.includes('(source '));

    // Act
    const answers = [];
    for (const request of requests)
      answers.push({ title: request.title, ...(await send(request)) });

    // Assess
    expect(answers.length).toBe(ROUTES.length - 1);
    for (const answer of answers) {
      const why = `${answer.title}: ${answer.status} ${answer.body.slice(0, 200)}`;
      expect([401, 403, 404], why).not.toContain(answer.status);
      // The report may still be building its first snapshot: 503 report_not_ready.
      if (answer.status === 503) expect(answer.body, why).toContain('report_not_ready');
      else expect(answer.status, why).toBeLessThan(500);
    }
  });
});
