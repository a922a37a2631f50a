/**
 * The reconciler's AWS wiring reads the personal-data retention from the configuration store at
 * each run, so a `config push` that changes `delivery.personalDataDays` takes effect without a
 * deploy (it was an environment variable fixed at deploy before).
 */
import { clearCaches } from '@aws-lambda-powertools/parameters';
import { AppConfigDataClient } from '@aws-sdk/client-appconfigdata';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { awsReconcileDeps } from '../../../functions/delivery/reconcile/wiring-aws.ts';
import { STORE_ENV, storeAnswers } from '../../helpers/appconfig-store.ts';

const settings = (delivery: object) => ({
  upstream: { baseUrl: 'https://upstream.example.com', maxPerSecond: 4, maxPerMinute: 36 },
  profiles: {},
  delivery,
});

const appConfig = mockClient(AppConfigDataClient);
const saved = { ...process.env };

describe('awsReconcileDeps: personal-data retention', () => {
  beforeEach(() => {
    appConfig.reset();
    clearCaches();
    Object.assign(process.env, STORE_ENV, {
      LEDGER_TABLE_NAME: 'leads-dev-ledger',
      LEAD_QUEUE_URL: 'https://sqs.sa-east-1.amazonaws.com/123456789012/leads-dev-leads',
    });
  });
  afterEach(() => {
    process.env = { ...saved };
  });

  it('takes delivery.personalDataDays from the configuration store, not the environment', async () => {
    // Prepare: the stored settings say 7 days; an old deploy's variable says 90.
    process.env.LEADS_PERSONAL_DATA_DAYS = '90';
    storeAnswers(appConfig, settings({ personalDataDays: 7 }));

    // Act
    const days = await awsReconcileDeps().personalDataDays();

    // Assess
    expect(days).toBe(7);
  });

  it('uses the default of 30 days when the settings leave it out', async () => {
    storeAnswers(appConfig, settings({ maxAttempts: 8 }));
    expect(await awsReconcileDeps().personalDataDays()).toBe(30);
  });
});
