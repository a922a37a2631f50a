/**
 * Realistic lead requests for the bench and the soak: the fixtures of test/fixtures/leads with
 * the e-mail (and Webflow's submission id) made unique per request, so that each one is a new
 * lead rather than a redelivery. Also the configuration the local runtime runs them with.
 */
import type { Config } from '../functions/shared/config-schema.ts';
import {
  DEMO_SECRETS,
  type LeadFixture,
  loadLeadFixture,
  signWebflow,
  toIntakeRequest,
} from '../test/helpers/lead-fixtures.ts';

export const BENCH_SOURCES = ['form', 'unbounce', 'elementor', 'webflow'] as const;
export type BenchSource = (typeof BENCH_SOURCES)[number];

/** One HTTP request of a lead source, ready for the gateway or for an in-process event. */
export interface LeadHttpRequest {
  method: string;
  /** Path and query (`/leads/site?token=...`). */
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

const FIXTURES: Record<BenchSource, { fixture: string; profile: string; email: string }> = {
  form: { fixture: 'valid-urlencoded', profile: 'site', email: 'Maria.Conceicao%40' },
  unbounce: { fixture: 'valid', profile: 'unbounce', email: 'Ana.Goncalves%40' },
  elementor: { fixture: 'default-mode', profile: 'elementor', email: 'Carlos.Lima%40' },
  webflow: { fixture: 'valid', profile: 'webflow', email: 'Fernanda.Santos@' },
};
const WEBFLOW_ID = '6787f0a4c2b1d3e4f5a6b7c8';

const loaded = new Map<BenchSource, LeadFixture>();
function fixtureOf(source: BenchSource): LeadFixture {
  let fixture = loaded.get(source);
  if (!fixture) {
    fixture = loadLeadFixture(source, FIXTURES[source].fixture);
    loaded.set(source, fixture);
  }
  return fixture;
}

/**
 * The fixture of `source` as lead number `n` of run `tag`: a distinct e-mail (and Webflow id),
 * so the ledger records a new lead. The same (tag, n) gives the same bytes: a redelivery.
 */
export function leadRequest(source: BenchSource, tag: string, n: number): LeadHttpRequest {
  const spec = FIXTURES[source];
  const fixture = fixtureOf(source);
  const unique = `${tag}${n}`;
  const at = spec.email.endsWith('%40') ? '%40' : '@';
  let body = fixture.body.replace(spec.email, `${spec.email.slice(0, -at.length)}.${unique}${at}`);
  if (source === 'webflow') {
    body = body.replace(WEBFLOW_ID, `${n.toString(16).padStart(8, '0')}${WEBFLOW_ID.slice(8)}`);
  }
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(fixture.query ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) query.append(key, v);
  }
  const search = query.size > 0 ? `?${query}` : '';
  let headers: Record<string, string> = { ...fixture.headers };
  if (source === 'webflow') {
    const signed = signWebflow(
      toIntakeRequest({ ...fixture, body }),
      DEMO_SECRETS.webflow,
      Date.now(),
    );
    headers = {
      ...headers,
      'x-webflow-timestamp': signed.headers['x-webflow-timestamp'] ?? '',
      'x-webflow-signature': signed.headers['x-webflow-signature'] ?? '',
    };
  }
  return {
    method: fixture.method ?? 'POST',
    url: `/leads/${spec.profile}${search}`,
    headers,
    body: Buffer.from(body, 'utf8'),
  };
}

/** Profiles for the four bench sources (demo secrets only). */
export const BENCH_PROFILES: Config['profiles'] = {
  site: {
    source: 'form',
    token: DEMO_SECRETS.form,
    allowedOrigins: ['https://lp.example.com'],
    defaults: { idBranch: 1, marketingType: 'Site' },
    fieldMap: { qual_seu_cpf: 'cpf' },
  },
  unbounce: {
    source: 'unbounce',
    token: DEMO_SECRETS.unbounce,
    defaults: { idBranch: 1, currentStep: 'Lead' },
  },
  elementor: { source: 'elementor', token: DEMO_SECRETS.elementor, defaults: { idBranch: 1 } },
  webflow: { source: 'webflow', secret: DEMO_SECRETS.webflow, defaults: { idBranch: 1 } },
} as Config['profiles'];

/** A whole configuration for the local runtime: the sandbox replaces the upstream's URL. */
export function benchConfig(limits: { maxPerSecond: number; maxPerMinute: number }): unknown {
  return {
    upstream: {
      baseUrl: 'http://127.0.0.1:4010',
      username: 'demo',
      password: 'demo',
      maxPerSecond: limits.maxPerSecond,
      maxPerMinute: limits.maxPerMinute,
      timeoutMs: 5000,
      partnerTokenField: 'tokenPartner',
    },
    clients: [{ username: 'ops', password: 'ops-secret', roles: ['report:read', 'admin'] }],
    profiles: BENCH_PROFILES,
    report: { branches: [1], refreshSeconds: 3600 },
  };
}
