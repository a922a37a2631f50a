/**
 * The CDK app: reads the deploy config (infra/config.ts), builds the stack and runs the
 * cdk-nag packs (AwsSolutions, Serverless) as policy validation plugins. Every acknowledged
 * finding carries a reason, set on the narrowest construct.
 *
 *   npx cdk synth                                      # the example, for checks: not deployable
 *   npx cdk deploy -c config=config/deploy.prod.json   # a real deployment (its own stage)
 *
 * Without `-c config=` (or LEADS_DEPLOY_CONFIG) the app builds the example configuration as the
 * stack `leads-example`, says so on stderr, and makes that stack impossible to deploy: it
 * declares a parameter without a default whose only allowed value matches nothing, so
 * CloudFormation refuses any change set before a resource is touched. A configuration whose
 * stage is `example` gets the same treatment, wherever it comes from.
 *
 * Run by the CDK CLI with an account (credentials), the app refuses a stack whose reserved
 * concurrency the account's Lambda quota cannot hold, as `npm run deploy`'s preflight does
 * (infra/synth-preflight.ts; `-c skipPreflight=true` skips it).
 */
import { resolve } from 'node:path';
import { App, type AppProps, CfnParameter, CfnRule, Fn, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import {
  CONFIG_CONTEXT_KEY,
  DEFAULT_DEPLOY_CONFIG,
  type DeployConfig,
  DeployConfigError,
  deployConfigPath,
  EXAMPLE_STAGE,
  HOW_TO_CHOOSE_A_CONFIG,
  loadDeployConfig,
} from './config.ts';
import { LeadsStack } from './leads-stack.ts';
import { synthPreflight } from './synth-preflight.ts';

export interface BuildAppOptions extends AppProps {
  /** Use this configuration instead of reading the file named by context or environment. */
  config?: DeployConfig;
  /** Where LEADS_DEPLOY_CONFIG is read; default process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface LeadsApp {
  app: App;
  stack: LeadsStack;
  config: DeployConfig;
  /** True for the example (stage `example`): synthesized for checks, never deployable. */
  example: boolean;
  /** What the CLI user should read on stderr (the example's notice); undefined otherwise. */
  notice?: string;
}

/** The stage whose stack has termination protection. */
export const PROTECTED_STAGE = 'prod';

/** The parameter that makes the example's template undeployable (see the module comment). */
export const EXAMPLE_GUARD_PARAMETER = 'ExampleConfigurationCannotBeDeployed';

function chooseConfig(app: App, options: BuildAppOptions): DeployConfig {
  if (options.config) return options.config;
  const path = deployConfigPath(app.node.tryGetContext(CONFIG_CONTEXT_KEY), options.env);
  if (path) return loadDeployConfig(path);
  const example = loadDeployConfig(DEFAULT_DEPLOY_CONFIG);
  if (example.stage !== EXAMPLE_STAGE) {
    throw new DeployConfigError(
      DEFAULT_DEPLOY_CONFIG,
      [
        `stage: the example must keep stage "${EXAMPLE_STAGE}", so that a deploy without a configuration cannot create a real stack`,
        `no configuration was given: ${HOW_TO_CHOOSE_A_CONFIG}`,
      ],
      'no deploy configuration',
    );
  }
  return example;
}

export function buildApp(options: BuildAppOptions = {}): LeadsApp {
  const { config: _given, env: _env, ...appProps } = options;
  const app = new App(appProps);
  const config = chooseConfig(app, options);
  const example = config.stage === EXAMPLE_STAGE;
  const stack = new LeadsStack(app, `leads-${config.stage}`, {
    config,
    description: example
      ? 'Leads gateway: EXAMPLE configuration (config/deploy.example.json), synthesized for checks only; it cannot be deployed. Deploy with -c config=config/deploy.<stage>.json'
      : `Leads gateway (${config.stage})`,
    ...((config.account || config.region) && {
      env: { account: config.account, region: config.region },
    }),
    tags: { app: 'leads', stage: config.stage },
    // The production stack cannot be deleted by a slip (console, CLI, `npm run destroy`): its
    // deletion first takes switching this off by hand (docs/deploy.md, "Deleting a stage").
    terminationProtection: config.stage === PROTECTED_STAGE,
  });
  if (example) {
    const guard = new CfnParameter(stack, EXAMPLE_GUARD_PARAMETER, {
      type: 'String',
      description: `This template was built from the example configuration and cannot be deployed: ${HOW_TO_CHOOSE_A_CONFIG}.`,
      // No default, and no value matches `(?!x)x`: CloudFormation refuses every change set.
      allowedPattern: '(?!x)x',
      constraintDescription: `the example configuration cannot be deployed; ${HOW_TO_CHOOSE_A_CONFIG}`,
    });
    // Said again as a rule, which CloudFormation checks before any change set as well.
    new CfnRule(stack, 'ExampleGuard', {
      assertions: [
        {
          assert: Fn.conditionEquals(guard.valueAsString, 'a value the pattern refuses'),
          assertDescription: `The example configuration cannot be deployed: ${HOW_TO_CHOOSE_A_CONFIG}.`,
        },
      ],
    });
  }
  Validations.of(app).addPlugins(
    new AwsSolutionsChecks(app, { writeSuppressionsToCloudFormation: true }),
    new ServerlessChecks(app),
  );
  return {
    app,
    stack,
    config,
    example,
    ...(example && {
      notice: [
        `Synthesized the EXAMPLE stack ${stack.stackName} (stage "${EXAMPLE_STAGE}") for checks only: it cannot be deployed.`,
        `To deploy, ${HOW_TO_CHOOSE_A_CONFIG}.`,
      ].join('\n'),
    }),
  };
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename;
if (isMain) {
  // The pages' scripts, bundled into the modules the functions import (scripts/build-browser.ts):
  // a fresh clone's `cdk synth` bundles the functions with them.
  (await import('../scripts/build-browser.ts')).buildBrowser();
  let built: LeadsApp;
  try {
    built = buildApp();
    if (built.notice) process.stderr.write(`\n${built.notice}\n\n`);
  } catch (error) {
    if (!(error instanceof DeployConfigError)) throw error;
    // A configuration problem is the user's to fix: the message, not a stack trace.
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  // The account's Lambda concurrency, when the CDK CLI gave an account (infra/synth-preflight.ts).
  const { refusal, warning } = await synthPreflight(built);
  if (warning) process.stderr.write(`${warning}\n`);
  if (refusal) {
    process.stderr.write(`\n${refusal}\n\n`);
    process.exit(1);
  }
}
