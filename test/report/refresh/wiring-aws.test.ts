/**
 * The refresher's AWS wiring: the variables it needs, and that its upstream calls take their
 * slots from the account-wide pacer item of the ledger table named by LEDGER_TABLE_NAME.
 */

import { clearCaches } from '@aws-lambda-powertools/parameters';
import { AppConfigDataClient } from '@aws-sdk/client-appconfigdata';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { secretNames } from '../../../functions/config/secrets-aws.ts';
import { awsRefreshDeps } from '../../../functions/report/refresh/wiring-aws.ts';
import { UPSTREAM_PACER_KEY } from '../../../functions/upstream/pacer-dynamodb.ts';
import { STORE_ENV, storeAnswers } from '../../helpers/appconfig-store.ts';

const ENV = {
  REPORT_BUCKET_NAME: 'leads-dev-report',
  REPORT_REFRESH_QUEUE_URL: 'https://sqs.sa-east-1.amazonaws.com/123456789012/leads-dev-refresh',
  LEDGER_TABLE_NAME: 'leads-dev-ledger',
};
const SETTINGS = {
  upstream: { baseUrl: 'https://upstream.example.com', maxPerSecond: 4, maxPerMinute: 36 },
  profiles: {},
  report: { branches: [1], refreshSeconds: 900 },
};
const secrets = mockClient(SecretsManagerClient);
const appConfig = mockClient(AppConfigDataClient);
const ddb = mockClient(DynamoDBDocumentClient);
const saved = { ...process.env };

describe('awsRefreshDeps', () => {
  beforeEach(() => {
    secrets.reset();
    appConfig.reset();
    ddb.reset();
    ddb.resolves({});
    storeAnswers(appConfig, SETTINGS);
    clearCaches();
    Object.assign(process.env, ENV, STORE_ENV);
  });
  afterEach(() => {
    process.env = { ...saved };
    vi.unstubAllGlobals();
  });

  it('paces upstream calls on the pacer item of the ledger table (LEDGER_TABLE_NAME)', async () => {
    // Prepare
    secrets
      .on(GetSecretValueCommand, { SecretId: secretNames('leads/dev').upstream('default').secret })
      .resolves({
        SecretString: JSON.stringify({ default: { username: 'key', password: 'secret' } }),
      });
    const upstream = vi.fn(async () => Response.json({ results: [], total: 0, summary: null }));
    vi.stubGlobal('fetch', upstream);

    // Act
    const source = await awsRefreshDeps().source('default');
    await source.client.listDebtors({ idBranch: 1, take: 50, skip: 0 });

    // Assess
    expect(upstream).toHaveBeenCalledTimes(1);
    const updates = ddb.commandCalls(UpdateCommand);
    expect(updates.length).toBeGreaterThan(0);
    for (const update of updates) {
      expect(update.args[0].input).toMatchObject({
        TableName: ENV.LEDGER_TABLE_NAME,
        Key: { pk: UPSTREAM_PACER_KEY },
      });
    }
    expect(source.flush).toBeTypeOf('function');
  });

  it.each(Object.keys(ENV))('fails fast, naming %s, when it is missing', (name) => {
    delete process.env[name];
    expect(() => awsRefreshDeps()).toThrow(name);
  });
});
