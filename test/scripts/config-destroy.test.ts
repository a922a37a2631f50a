import {
  AppConfigClient,
  DeleteHostedConfigurationVersionCommand,
  ListApplicationsCommand,
  ListConfigurationProfilesCommand,
  ListDeploymentStrategiesCommand,
  ListEnvironmentsCommand,
  ListHostedConfigurationVersionsCommand,
} from '@aws-sdk/client-appconfig';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { deleteSettingsVersions } from '../../scripts/config-store.ts';

const appConfig = mockClient(AppConfigClient);

function deployedStore(): void {
  appConfig.on(ListApplicationsCommand).resolves({ Items: [{ Name: 'leads-prod', Id: 'app1' }] });
  appConfig.on(ListEnvironmentsCommand).resolves({ Items: [{ Name: 'prod', Id: 'env1' }] });
  appConfig
    .on(ListConfigurationProfilesCommand)
    .resolves({ Items: [{ Name: 'settings', Id: 'prof1' }] });
  appConfig
    .on(ListDeploymentStrategiesCommand)
    .resolves({ Items: [{ Name: 'leads-prod-all-at-once', Id: 'strat1' }] });
}

describe("npm run destroy: the settings' hosted versions go first (AppConfig keeps a profile that has any)", () => {
  beforeEach(() => {
    process.env.AWS_REGION ??= 'sa-east-1';
    appConfig.reset();
  });

  it('deletes every hosted version of the profile, over pages', async () => {
    deployedStore();
    appConfig
      .on(ListHostedConfigurationVersionsCommand, { NextToken: undefined })
      .resolves({ Items: [{ VersionNumber: 3 }, { VersionNumber: 2 }], NextToken: 'p2' })
      .on(ListHostedConfigurationVersionsCommand, { NextToken: 'p2' })
      .resolves({ Items: [{ VersionNumber: 1 }] });

    const deleted = await deleteSettingsVersions('prod', new AppConfigClient({}));

    expect(deleted).toEqual([3, 2, 1]);
    expect(
      appConfig.commandCalls(DeleteHostedConfigurationVersionCommand).map((c) => c.args[0].input),
    ).toEqual(
      [3, 2, 1].map((VersionNumber) => ({
        ApplicationId: 'app1',
        ConfigurationProfileId: 'prof1',
        VersionNumber,
      })),
    );
  });

  it('deletes nothing when the stack (its application) is gone already', async () => {
    appConfig.on(ListApplicationsCommand).resolves({ Items: [] });

    expect(await deleteSettingsVersions('prod', new AppConfigClient({}))).toEqual([]);
    expect(appConfig.commandCalls(DeleteHostedConfigurationVersionCommand)).toEqual([]);
  });
});
