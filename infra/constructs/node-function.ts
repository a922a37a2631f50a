/**
 * The house Lambda function: every function of the stack is a NodeFunction, so the stack only
 * states what differs (entry, memory, timeout, description, environment).
 *
 * Fixed here: the newest Node.js runtime of this aws-cdk-lib (nodejs24.x), ARM64, X-Ray active,
 * ESM bundle (`index.mjs`) minified with source maps and the AWS SDK bundled in, the local wirings
 * left out of it (LOCAL_ONLY_MODULES), `LEADS_RUNTIME` (ENV.runtime) set to "aws" and
 * `process.env.LEADS_RUNTIME` defined as "aws" at bundle time so any other local-only branch is
 * dropped, an explicit log group with a retention, a role that may write only to that log group,
 * Powertools settings, and a check that the environment stays under Lambda's 4 KB limit.
 *
 * Releases: every deploy publishes the function's code and configuration as a version
 * (`currentVersion`) and points the `live` alias at it. Everything that invokes a function
 * (API integrations, the authorizer, event sources, schedules, AppConfig) invokes `live`, never
 * `$LATEST`, so that a release can shift traffic gradually and be rolled back
 * (infra/constructs/releases.ts). Lambda's recursive loop detection is explicitly `Terminate`
 * unless a function is given `recursiveLoop` with the reason it sends to its own queue.
 *
 * The log group is kept when the stack is deleted or the group replaced, but not when the
 * stack's first create fails (`RetainExceptOnCreate`): a retried create then starts clean.
 */
import { join } from 'node:path';
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { type Policy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Alias,
  Architecture,
  type CfnFunction,
  RecursiveLoop,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import {
  NodejsFunction,
  type NodejsFunctionProps,
  OutputFormat,
} from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { ENV } from '../../functions/kernel/env.ts';
import { ACCEPTED_CONTROLS, acknowledgeControls } from './control-tower.ts';

const REPO_ROOT = join(import.meta.dirname, '..', '..');
/** The code-splitting rebuild run after NodejsFunction's own bundling (split-bundle.mjs). */
const SPLIT_BUNDLE = join(import.meta.dirname, 'split-bundle.mjs');
/** esbuild's target for nodejs24.x. */
const ESBUILD_TARGET = 'node24';

/** The newest Node.js runtime this aws-cdk-lib offers (cdk-nag L1 wants the newest). */
export const NODE_RUNTIME = Runtime.NODEJS_24_X;
/** The alias every invoker uses: the published version of the last successful release. */
export const LIVE_ALIAS = 'live';
/** Lambda refuses a function whose environment variables exceed 4 KB in total. */
export const LAMBDA_ENV_LIMIT_BYTES = 4096;
/** Estimated length of a value only CloudFormation knows (an ARN, a queue URL). */
const UNRESOLVED_VALUE_BYTES = 128;

/**
 * What a Lambda bundle never contains: each handler's local wiring (`wiring-local.ts`), which
 * kernel/ready.ts's `handlerWiring` imports only when LEADS_RUNTIME is `local`. Left external,
 * its `import()` stays in the bundle as written and is never run, so the local runtime's modules
 * are neither shipped nor split into chunks shared with the AWS wiring (which a cold start would
 * then read). bench/cold-init.ts bundles with it too.
 */
export const LOCAL_ONLY_MODULES = ['*/wiring-local.ts'];

/** Lets esbuild's ESM output `require()` Node built-ins from bundled CommonJS code. */
const CREATE_REQUIRE_BANNER =
  "import { createRequire as __leadsCreateRequire } from 'node:module'; const require = __leadsCreateRequire(import.meta.url);";

export type PowertoolsLogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

export interface NodeFunctionProps
  extends Omit<
    NodejsFunctionProps,
    'entry' | 'runtime' | 'architecture' | 'tracing' | 'logGroup' | 'logRetention' | 'role'
  > {
  /** Entry file relative to the repository root (`functions/intake/handler.ts`). */
  entry: string;
  /** @default 512 */
  memorySize?: number;
  /** @default 10 seconds */
  timeout?: Duration;
  /** @default one month */
  logRetention?: RetentionDays;
  /** POWERTOOLS_SERVICE_NAME. @default 'leads' */
  serviceName?: string;
  /** POWERTOOLS_METRICS_NAMESPACE. @default 'Leads' */
  metricsNamespace?: string;
  /** POWERTOOLS_LOG_LEVEL. @default 'INFO' */
  logLevel?: PowertoolsLogLevel;
  /**
   * Lambda's recursive loop detection. `Allow` only with a reason: the function sends to the
   * queue it consumes on purpose, and what bounds those chains. @default Terminate
   */
  recursiveLoop?: RecursiveLoop;
  /** Why `recursiveLoop` is `Allow` (required then; written in the template's Metadata). */
  recursiveLoopReason?: string;
}

export class NodeFunction extends NodejsFunction {
  /** The function's own log group (a sibling construct, `<id>Logs`). */
  readonly logs: LogGroup;
  /** The `live` alias on this release's version: what every invoker invokes. */
  readonly live: Alias;

  constructor(scope: Construct, id: string, props: NodeFunctionProps) {
    const {
      entry,
      logRetention = RetentionDays.ONE_MONTH,
      serviceName = 'leads',
      metricsNamespace = 'Leads',
      logLevel = 'INFO',
      recursiveLoop = RecursiveLoop.TERMINATE,
      recursiveLoopReason,
      bundling,
      environment,
      ...rest
    } = props;
    if (recursiveLoop === RecursiveLoop.ALLOW && !recursiveLoopReason?.trim()) {
      throw new Error(
        `NodeFunction ${id}: recursiveLoop Allow needs recursiveLoopReason (what sends to its own queue, and what ends those chains)`,
      );
    }
    const bundleAwsSDK = bundling?.bundleAwsSDK ?? true;
    const define = { [`process.env.${ENV.runtime}`]: JSON.stringify('aws'), ...bundling?.define };
    // Shared by NodejsFunction's build and the split rebuild that replaces its output.
    const target = bundling?.target ?? ESBUILD_TARGET;
    const banner = bundling?.banner ?? (bundleAwsSDK ? CREATE_REQUIRE_BANNER : undefined);
    // Created before the function (no `this` before super), so they are siblings of it.
    const logs = new LogGroup(scope, `${id}Logs`, {
      retention: logRetention,
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });
    acknowledgeControls(logs, ACCEPTED_CONTROLS.logRetention, ACCEPTED_CONTROLS.logKms);
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs the ${id} function`,
    });
    // Instead of the AWSLambdaBasicExecutionRole managed policy (logs:* on every group).
    role.addToPolicy(
      new PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logs.logGroupArn],
      }),
    );

    super(scope, id, {
      memorySize: 512,
      timeout: Duration.seconds(10),
      ...rest,
      entry: join(REPO_ROOT, entry),
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      runtime: NODE_RUNTIME,
      architecture: Architecture.ARM_64,
      tracing: Tracing.ACTIVE,
      logGroup: logs,
      role,
      recursiveLoop,
      environment: {
        // No `NODE_OPTIONS=--enable-source-maps`: parsing the bundle's source map at start-up
        // cost 0.7× more init (docs/performance.md). The map ships beside index.mjs, so a
        // minified stack trace from a log can be mapped back; a stack may set it to trade.
        [ENV.runtime]: 'aws',
        POWERTOOLS_SERVICE_NAME: serviceName,
        POWERTOOLS_METRICS_NAMESPACE: metricsNamespace,
        POWERTOOLS_LOG_LEVEL: logLevel,
        ...environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        // Resolve the ESM entry points of dependencies first (tree-shaking).
        mainFields: ['module', 'main'],
        // The AWS SDK is bundled, minified and tree-shaken into each function instead of being
        // resolved from the runtime's copy: one file to read instead of hundreds of modules,
        // and only the clients and commands the function uses (docs/performance.md, cold
        // start). Bundled CommonJS code (some of the SDK's dependencies) needs `require`.
        bundleAwsSDK: true,
        ...(banner && { banner }),
        target,
        ...bundling,
        define,
        // Then rebuilt with code splitting (split-bundle.mjs): what the function loads with
        // `import()` stays out of the file Node reads at a cold start.
        commandHooks: {
          beforeBundling: (inputDir, outputDir) =>
            bundling?.commandHooks?.beforeBundling(inputDir, outputDir) ?? [],
          beforeInstall: (inputDir, outputDir) =>
            bundling?.commandHooks?.beforeInstall(inputDir, outputDir) ?? [],
          afterBundling: (inputDir, outputDir) => [
            ...(bundling?.commandHooks?.afterBundling(inputDir, outputDir) ?? []),
            splitCommand({
              entry: join(REPO_ROOT, entry),
              outdir: outputDir,
              target,
              define,
              external: [
                ...(bundling?.externalModules ?? (bundleAwsSDK ? [] : ['@aws-sdk/*'])),
                ...LOCAL_ONLY_MODULES,
              ],
              ...(banner && { banner }),
            }),
          ],
        },
      },
    });
    this.logs = logs;
    acknowledgeControls(this, ACCEPTED_CONTROLS.noVpc);
    this.live = new Alias(this, 'Live', { aliasName: LIVE_ALIAS, version: this.currentVersion });
    if (recursiveLoopReason) {
      // In the template beside RecursiveLoop, for whoever reads it there.
      (this.node.defaultChild as CfnFunction).addMetadata(
        'RecursiveLoopReason',
        recursiveLoopReason,
      );
    }

    // X-Ray's PutTraceSegments/PutTelemetryRecords take no resource ARN (Tracing.ACTIVE). The
    // acknowledgement covers them only: checkWildcards() fails synth for any other action.
    const policy = role.node.tryFindChild('DefaultPolicy') as Policy | undefined;
    if (policy) {
      Validations.of(policy).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Only the X-Ray write actions (xray:PutTraceSegments, xray:PutTelemetryRecords) use Resource "*": X-Ray has no resource-level permissions. Synth fails if any other action gets Resource "*".',
      });
    }

    this.node.addValidation({
      validate: () => [...this.checkEnvironmentSize(), ...this.checkWildcards(policy)],
    });
  }

  /** Only X-Ray's actions may have Resource "*" (see the IAM5 acknowledgement). */
  private checkWildcards(policy: Policy | undefined): string[] {
    if (!policy) return [];
    const document = Stack.of(this).resolve(policy.document) as {
      Statement?: Array<{ Effect: string; Action: string | string[]; Resource: unknown }>;
    };
    const offending = (document.Statement ?? [])
      .filter((s) => s.Effect === 'Allow' && [s.Resource].flat().includes('*'))
      .flatMap((s) => [s.Action].flat())
      .filter((action) => !action.startsWith('xray:'));
    if (offending.length === 0) return [];
    return [
      `${this.node.path} grants ${offending.join(', ')} on Resource "*": name the resource (only X-Ray's actions are acknowledged with a wildcard)`,
    ];
  }

  /** Synth fails when the environment would not fit in Lambda's 4 KB. */
  private checkEnvironmentSize(): string[] {
    const resource = this.node.defaultChild as CfnFunction;
    const resolved = Stack.of(this).resolve(resource.environment) as
      | { variables?: Record<string, unknown> }
      | undefined;
    const variables = resolved?.variables ?? {};
    const sizes = Object.entries(variables).map(([key, value]) => ({
      key,
      bytes: Buffer.byteLength(key) + estimateBytes(value),
    }));
    const total = sizes.reduce((sum, s) => sum + s.bytes, 0);
    if (total <= LAMBDA_ENV_LIMIT_BYTES) return [];
    const largest = sizes
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 3)
      .map((s) => `${s.key} ${s.bytes} B`)
      .join(', ');
    return [
      `the environment variables of ${this.node.path} take about ${total} bytes, over Lambda's ${LAMBDA_ENV_LIMIT_BYTES}-byte limit (largest: ${largest}). Settings belong in the configuration store (AppConfig), not in environment variables.`,
    ];
  }
}

/** The shell command of the code-splitting rebuild (options as base64url JSON: no quoting). */
function splitCommand(options: {
  entry: string;
  outdir: string;
  target: string;
  define: Record<string, string>;
  external: string[];
  banner?: string;
}): string {
  const encoded = Buffer.from(JSON.stringify(options)).toString('base64url');
  return `node "${SPLIT_BUNDLE}" ${encoded}`;
}

/** Bytes a resolved environment value will take; values CloudFormation fills in are estimated. */
function estimateBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'object' && value !== null && 'Fn::Join' in value) {
    const [separator, parts] = (value as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
    const joined = parts.reduce<number>((sum, part) => sum + estimateBytes(part), 0);
    return joined + Buffer.byteLength(separator) * Math.max(parts.length - 1, 0);
  }
  return UNRESOLVED_VALUE_BYTES;
}
