import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  decodeRefreshMessage,
  encodeRefreshMessage,
  type RefreshMessage,
  refreshMessage,
} from '../../../functions/report/trigger/report-trigger.ts';
import { createLocalReportTrigger } from '../../../functions/report/trigger/report-trigger-local.ts';
import { createSqsReportTrigger } from '../../../functions/report/trigger/report-trigger-sqs.ts';
import { sqsError, startSqsMock, type TestSqs } from '../../helpers/sqs-mock.ts';

const NOW = new Date('2026-08-01T12:00:00.000Z');

/** The SDK's SQS client, answered by aws-sdk-client-mock. */
let sqs: TestSqs;
beforeAll(async () => {
  sqs = await startSqsMock();
});
afterAll(() => sqs?.close());
beforeEach(() => {
  sqs.reset();
});

describe('refresh messages', () => {
  it('round-trip through their JSON body', () => {
    // Prepare
    const message = refreshMessage(
      { kind: 'continue', refreshId: 'r-1', reason: 'continuation' },
      NOW,
    );

    // Act
    const decoded = decodeRefreshMessage(encodeRefreshMessage(message), new Date(0));

    // Assess
    expect(decoded).toEqual({
      kind: 'continue',
      requestedAt: '2026-08-01T12:00:00.000Z',
      reason: 'continuation',
      refreshId: 'r-1',
    });
  });

  it("take SQS's sent time when the body has none (the schedule's fixed body)", () => {
    expect(decodeRefreshMessage('{"kind":"refresh","reason":"schedule"}', NOW)).toEqual({
      kind: 'refresh',
      reason: 'schedule',
      requestedAt: NOW.toISOString(),
    });
  });

  it.each([
    '',
    'not json',
    '{}',
    '{"kind":"delete"}',
    '[1]',
    '{"kind":"refresh","requestedAt":"x"}',
  ])('refuse %j', (body) => {
    expect(decodeRefreshMessage(body, NOW)).toBeUndefined();
  });
});

describe('createSqsReportTrigger', () => {
  it('sends one message to the refresh queue', async () => {
    // Prepare
    const trigger = createSqsReportTrigger({
      client: sqs.client(),
      queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/refresh',
      now: () => NOW,
    });

    // Act
    await trigger.requestRefresh({ reason: 'admin' });

    // Assess
    expect(sqs.calls('SendMessage')).toEqual([
      {
        QueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/refresh',
        MessageBody: JSON.stringify({
          kind: 'refresh',
          requestedAt: NOW.toISOString(),
          reason: 'admin',
        }),
      },
    ]);
  });

  it('passes a send failure to the caller', async () => {
    // Prepare
    sqs.on('SendMessage', sqsError('RequestThrottled', 'throttled'));
    const trigger = createSqsReportTrigger({ client: sqs.client(), queueUrl: 'q' });

    // Act / Assess: the SDK's error, as it ends the client's attempts (test/kernel/sqs-aws.test.ts).
    await expect(trigger.requestRefresh()).rejects.toMatchObject({
      name: 'RequestThrottled',
      message: 'throttled',
    });
    expect(sqs.calls('SendMessage')).toHaveLength(1);
  });

  it('needs a queue URL', () => {
    expect(() => createSqsReportTrigger({ client: sqs.client(), queueUrl: '' })).toThrow(
      /queueUrl/,
    );
  });
});

/** A promise the test resolves when it chooses: a state to wait for instead of a delay. */
function gate(): { opened: Promise<void>; open(): void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open: () => open() };
}

describe('createLocalReportTrigger', () => {
  it('runs requests one at a time, in order, after requestRefresh returns', async () => {
    // Prepare
    const log: string[] = [];
    let running = 0;
    const trigger = createLocalReportTrigger({
      run: async (message) => {
        running += 1;
        expect(running).toBe(1);
        log.push(`start ${message.kind}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
        log.push(`end ${message.kind}`);
        running -= 1;
      },
    });

    // Act
    await trigger.requestRefresh();
    log.push('queued');
    await trigger.requestRefresh({ kind: 'continue', refreshId: 'a' });
    await trigger.idle();

    // Assess
    expect(log).toEqual([
      'queued',
      'start refresh',
      'end refresh',
      'start continue',
      'end continue',
    ]);
  });

  it('merges a request into a waiting one of the same kind', async () => {
    // Prepare: runs that last until the test lets them end.
    const runs: RefreshMessage[] = [];
    const running = gate();
    const release = gate();
    const trigger = createLocalReportTrigger({
      run: async (message) => {
        runs.push(message);
        running.open();
        await release.opened;
      },
    });

    // Act: one runs, three more arrive while it does
    await trigger.requestRefresh({ reason: 'start' });
    await running.opened;
    await trigger.requestRefresh({ reason: 'timer' });
    await trigger.requestRefresh({ reason: 'admin' });
    await trigger.requestRefresh({ reason: 'admin' });
    release.open();
    await trigger.idle();

    // Assess
    expect(runs.map((m) => m.reason)).toEqual(['start', 'timer']);
  });

  it('reports a failed run and goes on with the next request', async () => {
    // Prepare
    const errors: unknown[] = [];
    const runs: string[] = [];
    const trigger = createLocalReportTrigger({
      run: async (message) => {
        runs.push(message.kind);
        if (message.kind === 'refresh') throw new Error('disk full');
      },
      onError: (error) => errors.push(error),
    });

    // Act
    await trigger.requestRefresh();
    await trigger.requestRefresh({ kind: 'continue' });
    await trigger.idle();

    // Assess
    expect(runs).toEqual(['refresh', 'continue']);
    expect(errors).toEqual([new Error('disk full')]);
  });

  it('waits for the run in progress on close and takes no request after it', async () => {
    // Prepare
    const runs: string[] = [];
    const running = gate();
    const release = gate();
    const trigger = createLocalReportTrigger({
      run: async (message) => {
        running.open();
        await release.opened;
        runs.push(message.kind);
      },
    });
    await trigger.requestRefresh();
    await trigger.requestRefresh({ kind: 'continue' });
    await running.opened;

    // Act: the refresh is running, the continuation waiting
    const closing = trigger.close();
    release.open();
    await closing;
    await trigger.requestRefresh();
    await trigger.idle();

    // Assess
    expect(runs).toEqual(['refresh']);
  });
});
