/**
 * The intake handler's log lines through the local gateway (the same handler as on AWS): every
 * line carries Lambda's invocation context (request id, cold_start), and the accepted line ties
 * the lead id to API Gateway's request id, the one the access log and the answer's
 * x-amzn-RequestId carry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SECRETS, loadLeadFixture } from '../helpers/lead-fixtures.ts';
import {
  leadIdOf,
  startTestRuntime,
  type TestRuntime,
  testConfig,
} from '../helpers/local-runtime.ts';
import { logLinesOf } from '../helpers/log-lines.ts';

const site = { source: 'form', token: DEMO_SECRETS.form, defaults: { idBranch: 1 } };

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(testConfig({ site }));
});
afterAll(() => rt?.stop());

describe('intake log lines', () => {
  it("log the accepted lead with the gateway's request id and the Lambda context", async () => {
    // Prepare
    let response: Response | undefined;

    // Act
    const lines = await logLinesOf(async () => {
      response = await rt.send('/leads/site', loadLeadFixture('form', 'valid-urlencoded'));
    });

    // Assess
    const leadId = await leadIdOf(response as Response);
    const accepted = lines.find((line) => line.message === 'lead accepted');
    expect(accepted).toMatchObject({
      leadId,
      profile: 'site',
      apiRequestId: response?.headers.get('x-amzn-requestid'),
      function_name: 'intake',
    });
    expect(accepted?.function_request_id).toEqual(expect.any(String));
    expect(accepted?.cold_start).toEqual(expect.any(Boolean));
  });

  it("log a refusal with the gateway's request id too, and never the token sent", async () => {
    // Prepare
    let response: Response | undefined;

    // Act
    const lines = await logLinesOf(async () => {
      response = await rt.post('/leads/site?token=not-the-token', 'nome=Ana&email=a@example.com', {
        'content-type': 'application/x-www-form-urlencoded',
      });
    });

    // Assess
    expect(response?.status).toBe(403);
    const refused = lines.find((line) => line.message === 'lead request refused');
    expect(refused).toMatchObject({
      code: 'invalid_token',
      apiRequestId: response?.headers.get('x-amzn-requestid'),
      function_name: 'intake',
    });
    expect(JSON.stringify(lines)).not.toContain('not-the-token');
  });
});
