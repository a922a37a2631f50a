/**
 * The bench's lead requests (bench/leads.ts): for every source, authentic for the bench's
 * profile (a changed byte breaks a signature) and a new lead per (tag, n): distinct dedup keys
 * and e-mails, the same ones again for the same (tag, n). Guards the intake bench against
 * measuring refusals or redeliveries when a fixture changes.
 */
import { describe, expect, it } from 'vitest';
import {
  BENCH_SOURCES,
  type BenchSource,
  benchConfig,
  type LeadHttpRequest,
  leadRequest,
} from '../../bench/leads.ts';
import { parseConfig } from '../../functions/config/config-local.ts';
import type { Profile } from '../../functions/config/config-schema.ts';
import type { LeadCapture } from '../../functions/domain/lead.ts';
import { authenticateClient } from '../../functions/kernel/client-auth.ts';
import { adapterFor } from '../../functions/sources/registry.ts';
import type { IntakeRequest } from '../../functions/sources/source.ts';
import { mediaType } from '../helpers/lead-fixtures.ts';
import { flipOneByte } from '../helpers/platform-fixtures.ts';

const config = parseConfig(benchConfig({ maxPerSecond: 1, maxPerMinute: 60 }));

function intakeRequest(request: LeadHttpRequest, body: Buffer = request.body): IntakeRequest {
  const url = new URL(request.url, 'http://127.0.0.1');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  const query: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) query[name] = [...(query[name] ?? []), value];
  return {
    method: request.method,
    headers,
    query,
    body,
    contentType: mediaType(headers['content-type']),
    receivedAt: new Date(),
  };
}

function profileOf(request: LeadHttpRequest): Profile {
  const name =
    /^\/leads\/([^/?]+)/.exec(request.url)?.[1] ??
    Object.entries(config.profiles).find(([, p]) => p.source === 'prospect')?.[0];
  const profile = name === undefined ? undefined : config.profiles[name];
  if (!profile) throw new Error(`no bench profile for ${request.url}`);
  return profile;
}

async function leadOf(source: BenchSource, tag: string, n: number): Promise<LeadCapture> {
  const request = leadRequest(source, tag, n);
  const profile = profileOf(request);
  expect(profile.source).toBe(source);
  const adapter = adapterFor(profile);
  const intake = intakeRequest(request);
  if (source === 'prospect') {
    const auth = await authenticateClient(
      intake.headers.authorization,
      config.clients,
      'prospects:write',
    );
    expect(auth.ok).toBe(true);
  }
  expect(adapter.authenticate(intake, profile)).toEqual({ ok: true });
  const captured = await adapter.capture(intake, profile);
  if (!('leads' in captured)) throw new Error(`${source}: ${captured.problem}`);
  expect(captured.spam).toBeUndefined();
  expect(captured.leads).toHaveLength(1);
  return captured.leads[0] as LeadCapture;
}

describe.each(BENCH_SOURCES)('bench lead requests: %s', (source) => {
  it('are authentic and each (tag, n) a new lead; the same (tag, n) a redelivery', async () => {
    const leads = await Promise.all([
      leadOf(source, 'bench', 0),
      leadOf(source, 'bench', 1),
      leadOf(source, 'bench', 2_000_000),
      leadOf(source, 'other', 0),
    ]);
    const keys = leads.map((lead) => lead.dedupKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect((await leadOf(source, 'bench', 1)).dedupKey).toBe(keys[1]);
    if (source === 'meta') {
      // Ids only: the e-mail comes with the Graph lookup.
      expect(leads[1]?.pending).toEqual({ kind: 'meta-graph', leadgenId: leads[1]?.externalId });
    } else {
      expect(JSON.stringify(leads[1])).toMatch(/\.bench1@/i);
    }
  });
});

describe.each(['meta', 'typeform', 'webflow'] as const)('bench lead requests: %s', (source) => {
  it('are signed over the final bytes: one changed byte is refused', () => {
    const request = leadRequest(source, 'bench', 3);
    const tampered = intakeRequest(request, flipOneByte(request.body));
    const profile = profileOf(request);
    expect(adapterFor(profile).authenticate(tampered, profile)).toMatchObject({
      ok: false,
      status: 403,
    });
  });
});
