/**
 * The CDK app's own preflight, so that a plain `npx cdk deploy` refuses as `npm run deploy`
 * does when the account's Lambda concurrency cannot hold what the stack reserves
 * (docs/deploy.md, "The preflight"): the same check and the same words
 * (infra/concurrency-quota.ts), run when the app is synthesized for the CDK CLI.
 *
 * It runs only when all of these hold, and otherwise asks AWS nothing:
 * - the CDK CLI gave the app an account (`CDK_DEFAULT_ACCOUNT`: the CLI sets it when its
 *   credentials resolve), so an offline synth, CI's and the tests' never call AWS;
 * - the configuration reserves concurrency (`reserveConcurrency`; off, there is nothing Lambda
 *   could refuse) and is not the example (never deployable);
 * - the stack is not pinned to another account than the credentials' (`account`: that
 *   account's quota is out of reach; `npm run deploy`'s preflight refuses such credentials);
 * - no `-c skipPreflight=true` (the escape hatch; scripts/cdk.ts passes it, having run the
 *   whole preflight itself or been told to skip it).
 *
 * The Lambda client uses the SDK's default credential chain and Region (the configuration's
 * `region`, else the CLI's `CDK_DEFAULT_REGION`), so AWS_ENDPOINT_URL points it elsewhere. An
 * answer it cannot get (no credentials for the SDK, no network) is a warning, not a refusal:
 * only a quota known to be short stops the synth.
 */
import { LambdaClient } from '@aws-sdk/client-lambda';
import type { App, Stack } from 'aws-cdk-lib';
import { checkConcurrency, type StackTemplate } from './concurrency-quota.ts';
import type { DeployConfig } from './config.ts';

/** `-c skipPreflight=true`: synthesize without the check. */
export const SKIP_PREFLIGHT_CONTEXT = 'skipPreflight';

export interface SynthPreflightInput {
  app: App;
  stack: Stack;
  config: DeployConfig;
  example: boolean;
  env?: NodeJS.ProcessEnv;
}

export interface SynthPreflightResult {
  /** Why the stack cannot be created in this account; undefined when it may go on. */
  refusal?: string;
  /** What to say on stderr otherwise (a check that could not run), if anything. */
  warning?: string;
}

function skipped(input: SynthPreflightInput, account: string | undefined): boolean {
  const skip = input.app.node.tryGetContext(SKIP_PREFLIGHT_CONTEXT);
  if (skip === true || skip === 'true') return true;
  if (!account || input.example || !input.config.reserveConcurrency) return true;
  return input.config.account !== undefined && input.config.account !== account;
}

/** Runs the check when it applies (module comment); synthesizes the app to read its template. */
export async function synthPreflight(input: SynthPreflightInput): Promise<SynthPreflightResult> {
  const env = input.env ?? process.env;
  const account = env.CDK_DEFAULT_ACCOUNT?.trim() || undefined;
  if (skipped(input, account)) return {};
  const region = input.config.region ?? env.CDK_DEFAULT_REGION;
  const template = input.app.synth().getStackArtifact(input.stack.artifactId)
    .template as StackTemplate;
  const lambda = new LambdaClient(region ? { region } : {});
  try {
    const { problem } = await checkConcurrency(lambda, template, region ?? '<region>');
    if (!problem) return {};
    return {
      refusal: [
        `preflight: nothing was deployed; the stack ${input.stack.stackName} cannot be created in account ${account}:`,
        `- ${problem}`,
        '',
        `(-c ${SKIP_PREFLIGHT_CONTEXT}=true synthesizes without this check.)`,
      ].join('\n'),
    };
  } catch (error) {
    return {
      warning: `preflight: Lambda concurrency not checked (${(error as Error).message}); npm run deploy checks it before deploying.`,
    };
  } finally {
    lambda.destroy();
  }
}
