/**
 * The authorizer handler's log lines through the local gateway (the same handler as on AWS): every line
 * carries Lambda's invocation context (request id, cold_start, the function's name).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicHeader } from '../helpers/abuse-kit.ts';
import { DEMO_CLIENTS, DEMO_SECRETS } from '../helpers/lead-fixtures.ts';
import { startTestRuntime, type TestRuntime, testConfig } from '../helpers/local-runtime.ts';
import { logLinesOf } from '../helpers/log-lines.ts';

const site = { source: 'form', token: DEMO_SECRETS.form, defaults: { idBranch: 1 } };

let rt: TestRuntime;
beforeAll(async () => {
  rt = await startTestRuntime(testConfig({ site }, DEMO_CLIENTS));
});
afterAll(() => rt?.stop());

describe('authorizer log lines', () => {
  it('carry the Lambda context of the invocation, and never the credentials', async () => {
    // Prepare
    let status = 0;

    // Act
    const lines = await logLinesOf(async () => {
      const response = await fetch(new URL('/reports/debtors', rt.url), {
        headers: { authorization: basicHeader('reporter', 'not-the-password') },
      });
      status = response.status;
    });

    // Assess
    expect(status).toBe(401);
    const line = lines.find((candidate) => candidate.message === 'basic credentials refused');
    expect(line).toMatchObject({ function_name: 'authorizer' });
    expect(line?.function_request_id).toEqual(expect.any(String));
    expect(line?.cold_start).toEqual(expect.any(Boolean));
    expect(JSON.stringify(lines)).not.toContain('not-the-password');
  });
});
