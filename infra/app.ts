/**
 * The CDK app: reads the deploy config (infra/config.ts), builds the stack and runs the
 * cdk-nag packs (AwsSolutions, Serverless) as policy validation plugins. Every acknowledged
 * finding carries a reason, set on the narrowest construct.
 *
 *   npx cdk synth                              # config/deploy.example.json
 *   npx cdk deploy -c config=config/deploy.json
 */
import { resolve } from 'node:path';
import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import {
  CONFIG_CONTEXT_KEY,
  type DeployConfig,
  deployConfigPath,
  loadDeployConfig,
} from './config.ts';
import { LeadsStack } from './leads-stack.ts';

export interface BuildAppOptions extends AppProps {
  /** Use this configuration instead of reading the file named by context or environment. */
  config?: DeployConfig;
}

export interface LeadsApp {
  app: App;
  stack: LeadsStack;
  config: DeployConfig;
}

export function buildApp(options: BuildAppOptions = {}): LeadsApp {
  const { config: given, ...appProps } = options;
  const app = new App(appProps);
  const config =
    given ?? loadDeployConfig(deployConfigPath(app.node.tryGetContext(CONFIG_CONTEXT_KEY)));
  const stack = new LeadsStack(app, `leads-${config.stage}`, {
    config,
    description: `Leads gateway (${config.stage})`,
    ...((config.account || config.region) && {
      env: { account: config.account, region: config.region },
    }),
    tags: { app: 'leads', stage: config.stage },
  });
  Validations.of(app).addPlugins(
    new AwsSolutionsChecks(app, { writeSuppressionsToCloudFormation: true }),
    new ServerlessChecks(app),
  );
  return { app, stack, config };
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename;
if (isMain) buildApp();
