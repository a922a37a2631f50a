/**
 * The bundles the cold-init bench (bench/cold-init.ts) times: each deployed function's as `cdk
 * synth` writes it, today's design and the SDK-only baselines built with esbuild from the same
 * code, and their sizes (the static closure a cold start parses).
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { ENV } from '../functions/kernel/env.ts';
import { buildApp } from '../infra/app.ts';
import { LOCAL_ONLY_MODULES } from '../infra/constructs/node-function.ts';

export const REPO_ROOT = join(import.meta.dirname, '..');
/** Inside node_modules so that the bundles resolve the external AWS SDK as on Lambda. */
export const OUT_DIR = join(
  REPO_ROOT,
  'node_modules',
  '.cache',
  'leads-bench',
  `init-${process.pid}`,
);

export type Sdk = 'dynamodb' | 'sqs' | 's3' | 'secrets' | 'appconfig' | 'sns';

/**
 * Entries of functions/kernel/routes.ts FUNCTIONS and infra/constructs/debtors-report.ts (refresher); `name`
 * is the stack's function name without `leads-<stage>-`. The bench fails if the stack has a
 * function missing here.
 */
export const FUNCTIONS: { name: string; entry: string; sdk: Sdk[] }[] = [
  {
    name: 'intake',
    entry: 'functions/intake/handler.ts',
    sdk: ['dynamodb', 'sqs', 'secrets', 'appconfig'],
  },
  {
    name: 'report',
    entry: 'functions/report/serve/handler.ts',
    sdk: ['s3', 'sqs', 'secrets', 'appconfig'],
  },
  {
    name: 'forwarder',
    entry: 'functions/delivery/forward/handler.ts',
    sdk: ['dynamodb', 'sqs', 'secrets', 'appconfig'],
  },
  {
    name: 'admin',
    entry: 'functions/admin/handler.ts',
    sdk: ['dynamodb', 'sqs', 'secrets', 'appconfig'],
  },
  {
    name: 'report-refresher',
    entry: 'functions/report/refresh/handler.ts',
    sdk: ['dynamodb', 's3', 'sqs', 'secrets', 'appconfig'],
  },
  { name: 'authorizer', entry: 'functions/authorizer/handler.ts', sdk: ['secrets'] },
  {
    name: 'reconciler',
    entry: 'functions/delivery/reconcile/handler.ts',
    sdk: ['dynamodb', 'sqs', 'secrets', 'appconfig'],
  },
  // AppConfig's validator: no AWS client, the configuration rules alone.
  { name: 'config-validator', entry: 'functions/config/validator/handler.ts', sdk: [] },
  // The hourly quiet-profile watch: the status index, the settings, the alarm topic.
  {
    name: 'watch',
    entry: 'functions/watch/handler.ts',
    sdk: ['dynamodb', 'appconfig', 'sns'],
  },
  // GET /openapi.json: no AWS client at all; its baseline is an empty bundle.
  { name: 'openapi', entry: 'functions/openapi/handler.ts', sdk: [] },
];

/** The SDK-only baseline: the clients constructed as wiring-aws constructs them. */
export const SDK_SOURCE: Record<Sdk, { imports: string; construct: string }> = {
  dynamodb: {
    imports:
      "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nimport { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';",
    construct: 'DynamoDBDocumentClient.from(new DynamoDBClient({}))',
  },
  sqs: {
    imports: "import { SQSClient } from '@aws-sdk/client-sqs';",
    construct: 'new SQSClient({})',
  },
  s3: {
    imports: "import { S3Client } from '@aws-sdk/client-s3';",
    construct: 'new S3Client({})',
  },
  secrets: {
    imports: "import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';",
    construct: 'new SecretsManagerClient({})',
  },
  sns: {
    imports: "import { SNSClient } from '@aws-sdk/client-sns';",
    construct: 'new SNSClient({})',
  },
  appconfig: {
    imports: "import { AppConfigDataClient } from '@aws-sdk/client-appconfigdata';",
    construct: 'new AppConfigDataClient({})',
  },
};

/** Dummy values for every variable a wiring-aws reads: nothing is called at import. */
export const FUNCTION_ENV: NodeJS.ProcessEnv = {
  // Today's design: NodeFunction set it on every deployed function (stack traces in sources).
  NODE_OPTIONS: '--enable-source-maps',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'AKIDBENCH',
  AWS_SECRET_ACCESS_KEY: 'bench',
  [ENV.runtime]: 'aws',
  POWERTOOLS_SERVICE_NAME: 'leads',
  POWERTOOLS_METRICS_NAMESPACE: 'Leads',
  POWERTOOLS_LOG_LEVEL: 'WARN',
  LEDGER_TABLE_NAME: 'bench-ledger',
  LEAD_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/bench-leads',
  LEAD_QUEUE_ARN: 'arn:aws:sqs:us-east-1:000000000000:bench-leads',
  LEAD_DLQ_ARN: 'arn:aws:sqs:us-east-1:000000000000:bench-leads-dlq',
  REPORT_BUCKET_NAME: 'bench-report',
  REPORT_REFRESH_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/bench-refresh',
  LEADS_SECRETS_PREFIX: 'leads/bench',
  // The configuration store's names: the settings are fetched at the first request, not at import.
  LEADS_APPCONFIG_APPLICATION: 'bench-app',
  LEADS_APPCONFIG_ENVIRONMENT: 'bench-env',
  LEADS_APPCONFIG_PROFILE: 'bench-profile',
};

/** The chosen design drops `--enable-source-maps` (NodeFunction sets no NODE_OPTIONS). */
export const CHOSEN_ENV: NodeJS.ProcessEnv = { ...FUNCTION_ENV, NODE_OPTIONS: '' };

export interface Bundle {
  file: string;
  bytes: number;
  metafile: Metafile;
}

/** Lets bundled CommonJS code `require()` inside an ESM bundle (as NodeFunction's banner). */
const CREATE_REQUIRE_BANNER =
  "import { createRequire as __leadsCreateRequire } from 'node:module'; const require = __leadsCreateRequire(import.meta.url);";

/**
 * NodeFunction's esbuild settings. `sdk: 'external'` is today's design (the runtime's AWS SDK,
 * resolved from node_modules as on Lambda); `'bundled'` is the chosen one (bundleAwsSDK).
 */
export async function bundle(
  name: string,
  entry: { path: string } | { contents: string },
  sdk: 'external' | 'bundled' | 'libraries-external' = 'external',
  split = true,
): Promise<Bundle> {
  const outdir = join(OUT_DIR, name);
  mkdirSync(outdir, { recursive: true });
  // A source given as text is written beside its output (splitting needs an entry file).
  const entryPath = 'path' in entry ? entry.path : join(outdir, 'entry.ts');
  if ('contents' in entry) writeFileSync(entryPath, entry.contents);
  const result = await build({
    entryPoints: { index: entryPath },
    outdir,
    outExtension: { '.js': '.mjs' },
    // As NodeFunction's split-bundle.mjs does (today's design was one file: split = false).
    splitting: split,
    chunkNames: '[name]-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: ['module', 'main'],
    ...(sdk === 'external'
      ? { external: ['@aws-sdk/*', ...LOCAL_ONLY_MODULES] }
      : sdk === 'libraries-external'
        ? { external: [...CLIENT_LIBRARIES, ...LOCAL_ONLY_MODULES] }
        : { external: LOCAL_ONLY_MODULES, banner: { js: CREATE_REQUIRE_BANNER } }),
    define: { [`process.env.${ENV.runtime}`]: JSON.stringify('aws') },
    metafile: true,
    logLevel: 'silent',
  });
  const file = join(outdir, 'index.mjs');
  return { file, bytes: statSync(file).size, metafile: result.metafile };
}

/** The SDK clients today's design constructed at import (the providers bring their own). */
const TODAYS_CLIENTS: readonly Sdk[] = ['dynamodb', 'sqs', 's3', 'sns'];

/**
 * Today's design of a function, to measure against in the same run: the AWS SDK external, the
 * SDK clients its wiring constructed at import (DynamoDB with the document client, SQS, S3, SNS),
 * and the Powertools parameter providers (with their
 * AppConfig and Secrets Manager clients) imported with the module, as config-aws.ts and
 * secrets-aws.ts did before they loaded them on first use.
 */
export function todaysSource(fn: { entry: string; sdk: readonly Sdk[] }): string {
  const clients = fn.sdk.filter((s) => TODAYS_CLIENTS.includes(s));
  return [
    ...clients.map((s) => SDK_SOURCE[s].imports),
    ...(fn.sdk.includes('appconfig')
      ? ["import '@aws-lambda-powertools/parameters/appconfig';"]
      : []),
    ...(fn.sdk.includes('secrets') ? ["import '@aws-lambda-powertools/parameters/secrets';"] : []),
    `export const todaysClients = [${clients.map((s) => SDK_SOURCE[s].construct).join(', ')}];`,
    `export * from ${JSON.stringify(join(REPO_ROOT, fn.entry))};`,
  ].join('\n');
}

/** The functions' AWS clients (kernel/*-aws.ts: ports on the SDK), as the wirings make them. */
export const LITE_SOURCE: Partial<Record<Sdk, { imports: string; construct: string }>> = {
  dynamodb: {
    imports: `import { createDynamoDb } from ${JSON.stringify(join(REPO_ROOT, 'functions/kernel/dynamodb-aws.ts'))};`,
    construct: 'createDynamoDb()',
  },
  sqs: {
    imports: `import { createSqs } from ${JSON.stringify(join(REPO_ROOT, 'functions/kernel/sqs-aws.ts'))};`,
    construct: 'createSqs()',
  },
  s3: {
    imports: `import { createS3 } from ${JSON.stringify(join(REPO_ROOT, 'functions/kernel/s3-aws.ts'))};`,
    construct: 'createS3()',
  },
};

/** A bundle source of the function's AWS clients, constructed. */
export function liteSource(fn: { sdk: readonly Sdk[] }): string {
  const kinds = fn.sdk.filter((s) => LITE_SOURCE[s]);
  return [
    ...kinds.map((s) => LITE_SOURCE[s]?.imports),
    `export const clients = [${kinds.map((s) => LITE_SOURCE[s]?.construct).join(', ')}];`,
  ].join('\n');
}

/** The libraries the functions' AWS clients use: external when the function's own code is timed. */
const CLIENT_LIBRARIES = ['@aws-sdk/*'];

/**
 * Bytes of what every cold start reads: `index.mjs` and the wiring chunk the handler imports at
 * init (`wiring-aws-<hash>.mjs`), with the chunks they import statically.
 */
export function staticClosureBytes(dir: string): number {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const code = readFileSync(join(dir, name), 'utf8');
    for (const match of code.matchAll(
      /(?:^|[;}\s])(?:import|export)\s*(?:[\w*{}\s,$]*from\s*)?["']\.\/([^"']+\.mjs)["']/g,
    )) {
      if (match[1]) visit(match[1]);
    }
  };
  visit('index.mjs');
  for (const name of readdirSync(dir)) {
    if (/^wiring-aws-[\w-]+\.mjs$/.test(name)) visit(name);
  }
  return [...seen].reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}

/** Bytes of every `.mjs` file of an asset. */
export function assetBytes(dir: string): number {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.mjs'))
    .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}

/** Bytes of the bundle by package (or `(project)` for the repository's own code). */
export function heaviestInputs(metafile: Metafile, top = 4): { what: string; kb: number }[] {
  const byPackage = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
      const key = match?.[1] ?? '(project)';
      byPackage.set(key, (byPackage.get(key) ?? 0) + input.bytesInOutput);
    }
  }
  return [...byPackage]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([what, bytes]) => ({ what, kb: Math.round(bytes / 1024) }));
}

interface LambdaResource {
  Type: string;
  Properties?: { FunctionName?: unknown };
  Metadata?: Record<string, unknown>;
}

/**
 * Synthesizes the stack with bundling into OUT_DIR/cdk.out and returns each of our functions'
 * bundle (`leads-<stage>-<name>` → its asset's index.mjs), as `cdk synth` would write them.
 */
export function synthesizedBundles(): Map<string, string> {
  const outdir = join(OUT_DIR, 'cdk.out');
  const { context } = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  const { app, stack, config } = buildApp({
    outdir,
    // As the CLI sets it: each function's resource names its asset directory.
    context: { ...context, 'aws:cdk:enable-asset-metadata': true },
    builtinCloudFormationValidation: false,
  });
  const template = app.synth().getStackArtifact(stack.artifactId).template as {
    Resources: Record<string, LambdaResource>;
  };
  const prefix = `leads-${config.stage}-`;
  const bundles = new Map<string, string>();
  for (const resource of Object.values(template.Resources)) {
    const name = resource.Properties?.FunctionName;
    const asset = resource.Metadata?.['aws:asset:path'];
    if (resource.Type !== 'AWS::Lambda::Function' || typeof asset !== 'string') continue;
    if (typeof name === 'string' && name.startsWith(prefix)) {
      bundles.set(name.slice(prefix.length), join(outdir, asset, 'index.mjs'));
    }
  }
  const missing = [...bundles.keys()].filter((name) => !FUNCTIONS.some((f) => f.name === name));
  if (missing.length > 0) throw new Error(`bench/cold-init.ts: add ${missing.join(', ')}`);
  return bundles;
}
