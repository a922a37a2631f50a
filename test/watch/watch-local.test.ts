/**
 * `npm start` runs the quiet-profile watch as the schedule does on AWS: the local runtime looks at
 * its profiles every interval and raises an alert (a log warning locally) for the one whose leads
 * stopped, naming the profile and nobody's data.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Alert } from '../../functions/watch/quiet-profiles.ts';
import { DEMO_SECRETS } from '../helpers/lead-fixtures.ts';
import {
  leadIdOf,
  startTestRuntime,
  type TestRuntime,
  testConfig,
} from '../helpers/local-runtime.ts';

const HOUR_MS = 3_600_000;
let rt: TestRuntime | undefined;
afterAll(() => rt?.stop());

describe('the quiet-profile watch under npm start', () => {
  it('alerts once the profile has been silent for its quietHours', async () => {
    // Prepare: once the lead is in, the watch's clock reads 3 h and 10 ms after it: the run in
    // which the silence crosses the profile's 3 h (the interval is 50 ms).
    let alerted: (alert: Alert) => void = () => {};
    const alert = new Promise<Alert>((resolve) => {
      alerted = resolve;
    });
    const email = 'carla.quiet@example.com';
    let receivedAt: number | undefined;
    rt = await startTestRuntime(
      testConfig({
        site: {
          source: 'form',
          token: DEMO_SECRETS.form,
          quietHours: 3,
          defaults: { idBranch: 1 },
        },
      }),
      {
        watch: {
          intervalMs: 50,
          now: () =>
            new Date(receivedAt === undefined ? Date.now() : receivedAt + 3 * HOUR_MS + 10),
          onAlert: (a) => alerted(a),
        },
      },
    );

    // Act: one lead, then the clock passes the limit.
    const leadId = await leadIdOf(
      await rt.post(`/leads/site?token=${DEMO_SECRETS.form}`, `nome=Carla&email=${email}`, {
        'content-type': 'application/x-www-form-urlencoded',
      }),
    );
    receivedAt = Date.parse((await rt.ledger.get(leadId))?.receivedAt ?? '');
    const raised = await alert;

    // Assess
    expect(raised.subject).toContain('site');
    expect(raised.message).toContain('site');
    expect(`${raised.subject} ${raised.message}`).not.toContain(email);
  });
});
