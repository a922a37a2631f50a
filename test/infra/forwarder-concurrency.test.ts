/**
 * The forwarder's concurrency follows the configured accounts (functions/delivery/concurrency.ts):
 * the event source's MaximumConcurrency (and, with reserveConcurrency, the template's reserved
 * concurrency) is derived from the deploy configuration's accounts, the two equal (the
 * consistency LeadForwarder checks), with the
 * reason beside them; and the lead queue is a fair queue by its senders (MessageGroupId at send
 * time, test/ledger/lead-queue-sqs.test.ts), consumed per account side by side
 * (test/delivery/forward/handler.test.ts).
 */
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import {
  forwarderConcurrency,
  MAX_FORWARDER_CONCURRENCY,
} from '../../functions/delivery/concurrency.ts';
import { LeadsStack } from '../../infra/leads-stack.ts';
import { deployConfig, testApp } from './helpers.ts';

/** `count` named accounts besides `default`, each at `rate`. */
function accounts(count: number, rate: { maxPerSecond: number; maxPerMinute: number }) {
  return Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `branch${i + 1}`,
      { baseUrl: 'https://upstream.example.com', ...rate },
    ]),
  );
}

function forwarderOf(upstreams: Record<string, unknown>, reserveConcurrency = true) {
  const stack = new LeadsStack(testApp(), 'leads-test', {
    config: deployConfig({
      upstream: { baseUrl: 'https://upstream.example.com', maxPerSecond: 5, maxPerMinute: 300 },
      upstreams,
      reserveConcurrency,
    }),
  });
  const template = Template.fromStack(stack);
  const [[id, fn] = []] = Object.entries(
    template.findResources('AWS::Lambda::Function', {
      Properties: { FunctionName: 'leads-prod-forwarder' },
    }),
  ) as [
    string,
    { Properties: { ReservedConcurrentExecutions: number }; Metadata?: Record<string, string> },
  ][];
  // The queue invokes the forwarder's `live` alias (releases.ts).
  const [aliasId] = Object.keys(
    template.findResources('AWS::Lambda::Alias', { Properties: { FunctionName: { Ref: id } } }),
  );
  const mapping = (
    Object.values(template.findResources('AWS::Lambda::EventSourceMapping')) as {
      Properties: { FunctionName: unknown; ScalingConfig: { MaximumConcurrency: number } };
    }[]
  ).find((m) => JSON.stringify(m.Properties.FunctionName).includes(`{"Ref":"${aliasId}"}`));
  return {
    reserved: fn?.Properties.ReservedConcurrentExecutions,
    maximum: mapping?.Properties.ScalingConfig.MaximumConcurrency,
    reason: fn?.Metadata?.ForwarderConcurrency,
  };
}

describe("the forwarder's concurrency, derived from the configured accounts", () => {
  it('grows with the accounts: six at 5/s need 60 batches, capped at 50; one fast and eleven slow ones 25', () => {
    // Act
    const six = forwarderOf(accounts(5, { maxPerSecond: 5, maxPerMinute: 300 }));
    const slow = forwarderOf(accounts(11, { maxPerSecond: 5, maxPerMinute: 40 }));

    // Assess: reserved = MaximumConcurrency, with the reason in the template.
    expect(six).toMatchObject({ reserved: MAX_FORWARDER_CONCURRENCY, maximum: 50 });
    expect(six.reason).toMatch(/capped at 50/);
    // 5/s + 11 × 40/min = 12.33 requests/s × 2 s per attempt.
    expect(slow).toMatchObject({ reserved: 25, maximum: 25 });
    expect(slow.reason).toMatch(/12 accounts/);
  });

  it('without reservations (the default), MaximumConcurrency alone carries the derived number', () => {
    // Act
    const slow = forwarderOf(accounts(11, { maxPerSecond: 5, maxPerMinute: 40 }), false);

    // Assess: the same cap per queue, nothing reserved.
    expect(slow).toMatchObject({ reserved: undefined, maximum: 25 });
    expect(slow.reason).toMatch(/12 accounts/);
  });

  it('derives at least one batch per account, at least 2, from the tighter window', () => {
    expect(forwarderConcurrency([{ maxPerSecond: 4, maxPerMinute: 36 }]).concurrency).toBe(2);
    expect(
      forwarderConcurrency(Array(3).fill({ maxPerSecond: 10, maxPerMinute: 60 })).concurrency,
    ).toBe(6);
    // Five accounts at 10 a minute: 1.67 requests/s × 2 s is 4, fewer than the accounts.
    expect(
      forwarderConcurrency(Array(5).fill({ maxPerSecond: 1, maxPerMinute: 10 })).concurrency,
    ).toBe(5);
  });
});
