/**
 * `reserveConcurrency` (docs/deploy.md, "Reserved concurrency"): off by default, so that a new
 * account whose quota of concurrent executions is 10 can create the stack (Lambda refuses a
 * reservation leaving fewer than 100 unreserved); then no function reserves anything, and each
 * SQS event source's MaximumConcurrency caps its consumer per queue (the forwarder the number
 * derived from the accounts, the refresher 2). On, the forwarder and the refresher reserve
 * exactly what their event sources may run, and the preflight sums those reservations.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  concurrencyProblem,
  reservationsOf,
  type StackTemplate,
} from '../../infra/concurrency-quota.ts';
import { LeadsStack } from '../../infra/leads-stack.ts';
import { deployConfig, testApp } from './helpers.ts';

interface Mapping {
  Properties: { FunctionName: unknown; ScalingConfig?: { MaximumConcurrency?: number } };
}

/** Each function's reservation and its event source's MaximumConcurrency, by function name. */
function concurrencyOf(template: Template) {
  const functions = template.findResources('AWS::Lambda::Function') as Record<
    string,
    { Properties: { FunctionName: string; ReservedConcurrentExecutions?: number } }
  >;
  const aliases = template.findResources('AWS::Lambda::Alias') as Record<
    string,
    { Properties: { FunctionName: { Ref: string } } }
  >;
  const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'));
  const found: Record<string, { reserved?: number; maximum?: number }> = {};
  for (const [id, fn] of Object.entries(functions)) {
    const alias = Object.keys(aliases).find((a) => aliases[a]?.Properties.FunctionName.Ref === id);
    const mapping = (mappings as Mapping[]).find(
      (m) => alias && JSON.stringify(m.Properties.FunctionName).includes(`{"Ref":"${alias}"}`),
    );
    const reserved = fn.Properties.ReservedConcurrentExecutions;
    const maximum = mapping?.Properties.ScalingConfig?.MaximumConcurrency;
    if (reserved === undefined && maximum === undefined) continue;
    found[fn.Properties.FunctionName] = {
      ...(reserved !== undefined && { reserved }),
      ...(maximum !== undefined && { maximum }),
    };
  }
  return found;
}

function templateWith(overrides: Record<string, unknown>): Template {
  const stack = new LeadsStack(testApp(), 'leads-prod', { config: deployConfig(overrides) });
  return Template.fromStack(stack);
}

let off: Template;
let on: Template;

beforeAll(() => {
  off = templateWith({});
  on = templateWith({ reserveConcurrency: true });
}, 180_000);

/** A new account: a quota of 10, all of it unreserved, nothing of this stack there yet. */
const newAccount = (template: Template) =>
  concurrencyProblem({
    region: 'sa-east-1',
    limit: 10,
    unreserved: 10,
    reservedNow: 0,
    reservations: reservationsOf(template.toJSON() as StackTemplate),
  });

describe('reserveConcurrency', () => {
  it('off by default: nothing reserved, the event sources cap the forwarder and the refresher, and a quota of 10 holds the stack', () => {
    // Act
    const found = concurrencyOf(off);

    // Assess
    expect(deployConfig().reserveConcurrency).toBe(false);
    expect(found).toEqual({
      'leads-prod-forwarder': { maximum: 2 },
      'leads-prod-report-refresher': { maximum: 2 },
    });
    expect(reservationsOf(off.toJSON() as StackTemplate)).toEqual([]);
    expect(newAccount(off)).toBeUndefined();
  });

  it('on: each reserves what its event source may run (never throttled), what the preflight sums and refuses on a new account', () => {
    // Act
    const found = concurrencyOf(on);
    const reservations = reservationsOf(on.toJSON() as StackTemplate);

    // Assess
    expect(found).toEqual({
      'leads-prod-forwarder': { reserved: 2, maximum: 2 },
      'leads-prod-report-refresher': { reserved: 2, maximum: 2 },
    });
    expect(reservations.sort((a, b) => a.functionName.localeCompare(b.functionName))).toEqual([
      { functionName: 'leads-prod-forwarder', reserved: 2 },
      { functionName: 'leads-prod-report-refresher', reserved: 2 },
    ]);
    expect(newAccount(on)).toMatch(/needs a quota of at least 104/);
  });

  it('on, the forwarder reserves the number derived from the accounts, as many as its event source runs', () => {
    // Prepare: three accounts at 10/s: 2 s × 30 requests/s = 60, capped at 50.
    const upstreams = Object.fromEntries(
      ['south', 'north'].map((name) => [
        name,
        { baseUrl: 'https://upstream.example.com', maxPerSecond: 10, maxPerMinute: 600 },
      ]),
    );
    const upstream = {
      baseUrl: 'https://upstream.example.com',
      maxPerSecond: 10,
      maxPerMinute: 600,
    };

    // Act
    const found = concurrencyOf(templateWith({ reserveConcurrency: true, upstream, upstreams }));

    // Assess
    expect(found['leads-prod-forwarder']).toEqual({ reserved: 50, maximum: 50 });
  });

  it('refuses a value that is not a boolean, naming the key', () => {
    expect(() => deployConfig({ reserveConcurrency: 'yes' })).toThrow(/reserveConcurrency/);
  });
});
