/**
 * What `npm run deploy` checks in the account before it lets the CDK CLI touch anything
 * (scripts/cdk.ts runs it; docs/deploy.md, "Before the first deploy"):
 *
 * - the region: the configuration's `region`, else the one the AWS SDK resolves (AWS_REGION,
 *   the profile); none is a refusal. With `account` in the configuration, the credentials must
 *   be that account's;
 * - the CDK bootstrap: the version parameter the template names (`/cdk-bootstrap/<qualifier>/
 *   version`) exists and is at least the version the template's CheckBootstrapVersion rule
 *   needs, and the CDKToolkit stack is not in a failed state;
 * - Lambda concurrency (infra/concurrency-quota.ts, which the CDK app runs too): what the
 *   template reserves must leave Lambda's 100 unreserved executions; when it does not, the
 *   refusal says what to ask AWS for.
 *
 * The checks are functions of the template and of clients (tested with aws-sdk-client-mock:
 * test/scripts/preflight.test.ts); `synthesizeForPreflight` builds the template in process
 * (no bundling) from the same configuration and context the deploy gets.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { checkConcurrency, type StackTemplate } from '../infra/concurrency-quota.ts';

/** The bootstrap version parameter the template reads, and the least version its rule accepts. */
export function bootstrapRequirement(template: StackTemplate): {
  parameter: string;
  minVersion: number;
} {
  const name = template.Parameters?.BootstrapVersion?.Default;
  const parameter = typeof name === 'string' ? name : '/cdk-bootstrap/hnb659fds/version';
  // CheckBootstrapVersion asserts the version is not one of ['1', ..., 'n-1'].
  const refused = JSON.stringify(template.Rules?.CheckBootstrapVersion ?? {}).match(/"\d+"/g);
  const versions = (refused ?? []).map((v) => Number(v.replaceAll('"', '')));
  return { parameter, minVersion: versions.length > 0 ? Math.max(...versions) + 1 : 6 };
}

export interface PreflightClients {
  lambda: LambdaClient;
  ssm: SSMClient;
  cloudFormation: CloudFormationClient;
  sts: STSClient;
}

export interface PreflightInput {
  template: StackTemplate;
  /** The configuration's region, if it pins one. */
  region?: string;
  /** The configuration's account, if it pins one. */
  account?: string;
  /** Clients for `region` (made from it when not given). */
  clients?: PreflightClients;
}

export interface PreflightResult {
  problems: string[];
  /** What was found, one line each (printed when all is well). */
  facts: string[];
}

function errorName(error: unknown): string {
  return (error as { name?: string }).name ?? String(error);
}

async function checkLambdaConcurrency(
  input: PreflightInput,
  region: string,
  result: PreflightResult,
) {
  const { lambda } = input.clients as PreflightClients;
  const { problem, fact } = await checkConcurrency(lambda, input.template, region);
  if (problem) result.problems.push(problem);
  result.facts.push(fact);
}

/** A toolkit stack CloudFormation cannot update: a failed operation, or a create rolled back. */
function brokenStack(status: string): boolean {
  return status.endsWith('_FAILED') || status === 'ROLLBACK_COMPLETE';
}

async function checkBootstrap(
  input: PreflightInput,
  where: { region: string; account: string },
  result: PreflightResult,
) {
  const { ssm, cloudFormation } = input.clients as PreflightClients;
  const { region } = where;
  const { parameter, minVersion } = bootstrapRequirement(input.template);
  const bootstrap = `npm run bootstrap -- aws://${where.account}/${region}`;
  let version: number | undefined;
  try {
    const answer = await ssm.send(new GetParameterCommand({ Name: parameter }));
    version = Number(answer.Parameter?.Value);
  } catch (error) {
    if (errorName(error) !== 'ParameterNotFound') throw error;
  }
  if (version === undefined) {
    result.problems.push(
      `CDK bootstrap: ${region} is not bootstrapped for this account (no ${parameter} parameter): run ${bootstrap} once (docs/deploy.md).`,
    );
  } else if (!(version >= minVersion)) {
    result.problems.push(
      `CDK bootstrap: version ${version} in ${region}, this template needs ${minVersion} or later: run ${bootstrap} again to upgrade it.`,
    );
  } else {
    result.facts.push(`CDK bootstrap: version ${version} (${minVersion} or later needed)`);
  }
  try {
    const { Stacks } = await cloudFormation.send(
      new DescribeStacksCommand({ StackName: 'CDKToolkit' }),
    );
    const status = Stacks?.[0]?.StackStatus ?? '';
    if (brokenStack(status)) {
      result.problems.push(
        `CDK bootstrap: the CDKToolkit stack is ${status}: fix or delete it in the CloudFormation console, then run ${bootstrap}.`,
      );
    }
  } catch (error) {
    // A custom toolkit stack name: the version parameter above is what counts.
    if (!/does not exist/.test(String((error as Error).message))) throw error;
  }
}

/** Runs every check; `problems` is empty when the deploy may go on. */
export async function preflight(input: PreflightInput): Promise<PreflightResult> {
  const result: PreflightResult = { problems: [], facts: [] };
  const region = input.region ?? (await resolvedRegion());
  if (!region) {
    result.problems.push(
      'Region: none given. Set "region" in the deploy configuration, or AWS_REGION (or a profile with a region).',
    );
    return result;
  }
  result.facts.push(`Region: ${region}`);
  const clients = input.clients ?? clientsFor(region);
  const checked: PreflightInput = { ...input, clients };
  const identity = await clients.sts.send(new GetCallerIdentityCommand({}));
  if (input.account && identity.Account !== input.account) {
    result.problems.push(
      `Account: the credentials are account ${identity.Account}'s, the deploy configuration pins ${input.account}: use that account's credentials (or profile).`,
    );
    return result;
  }
  const account = identity.Account ?? '<account>';
  result.facts.push(`Account: ${account}`);
  await checkLambdaConcurrency(checked, region, result);
  await checkBootstrap(checked, { region, account }, result);
  return result;
}

/** The region the AWS SDK resolves from the environment and the profile, if any. */
async function resolvedRegion(): Promise<string | undefined> {
  try {
    return await new STSClient({}).config.region();
  } catch {
    return undefined;
  }
}

function clientsFor(region: string): PreflightClients {
  return {
    lambda: new LambdaClient({ region }),
    ssm: new SSMClient({ region }),
    cloudFormation: new CloudFormationClient({ region }),
    sts: new STSClient({ region }),
  };
}

/**
 * The template `cdk deploy` will deploy, built in process from the deploy configuration and
 * the command line's context (no bundling: the checks read resources, not code).
 */
export async function synthesizeForPreflight(
  configPath: string,
  context: Record<string, string>,
): Promise<{ template: StackTemplate; region?: string; account?: string }> {
  const { buildApp } = await import('../infra/app.ts');
  const { loadDeployConfig } = await import('../infra/config.ts');
  const { readFileSync } = await import('node:fs');
  const cdkJson = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'cdk.json'), 'utf8'));
  const config = loadDeployConfig(configPath);
  const outdir = mkdtempSync(join(tmpdir(), 'leads-preflight-'));
  try {
    const built = buildApp({
      config,
      outdir,
      context: { ...cdkJson.context, ...context, 'aws:cdk:bundling-stacks': [] },
    });
    const assembly = built.app.synth();
    const template = assembly.getStackArtifact(built.stack.artifactId).template as StackTemplate;
    return {
      template,
      ...(config.region !== undefined && { region: config.region }),
      ...(config.account !== undefined && { account: config.account }),
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
