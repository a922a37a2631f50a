/**
 * The configuration store as the AWS SDK answers it, for tests of the AWS configuration adapter
 * and the wirings that read settings through it (mocked with aws-sdk-client-mock).
 */
import {
  type AppConfigDataClient,
  GetLatestConfigurationCommand,
  type GetLatestConfigurationCommandOutput,
  StartConfigurationSessionCommand,
} from '@aws-sdk/client-appconfigdata';
import type { AwsClientStub } from 'aws-sdk-client-mock';

/**
 * A deployed function's variables for the configuration store and the secrets, with test
 * credentials and region for the AWS clients.
 */
export const STORE_ENV = {
  AWS_REGION: 'sa-east-1',
  AWS_ACCESS_KEY_ID: 'AKIDTEST',
  AWS_SECRET_ACCESS_KEY: 'test-secret',
  LEADS_APPCONFIG_APPLICATION: 'app',
  LEADS_APPCONFIG_ENVIRONMENT: 'dev',
  LEADS_APPCONFIG_PROFILE: 'settings',
  LEADS_SECRETS_PREFIX: 'leads/dev',
};

/**
 * A JSON value as the SDK answers a configuration's content: bytes it can also read as text.
 * AppConfig's data plane by default; `Bytes` names another answer of the same kind (a hosted
 * configuration version's `Content`).
 */
export function storedJson<Bytes = GetLatestConfigurationCommandOutput['Configuration']>(
  value: unknown,
): Bytes {
  const text = JSON.stringify(value);
  return Object.assign(new TextEncoder().encode(text), {
    transformToString: () => text,
  }) as unknown as Bytes;
}

/** AppConfig's data plane answering `settings` to every session and poll. */
export function storeAnswers(appConfig: AwsClientStub<AppConfigDataClient>, settings: unknown) {
  appConfig.on(StartConfigurationSessionCommand).resolves({ InitialConfigurationToken: 't' });
  appConfig.on(GetLatestConfigurationCommand).resolves({
    Configuration: storedJson(settings),
    NextPollConfigurationToken: 't',
  });
}
