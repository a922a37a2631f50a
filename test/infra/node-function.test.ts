import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Duration } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { afterAll, describe, expect, it } from 'vitest';
import { NodeFunction } from '../../infra/constructs/node-function.ts';
import { onlyLogicalId, removeTempOutdirs, testApp, testStack } from './helpers.ts';

const ENTRY = 'test/fixtures/functions/hello.ts';

afterAll(removeTempOutdirs);

describe('NodeFunction', () => {
  it('fixes runtime, architecture, tracing, memory, timeout and the house environment', () => {
    // Prepare
    const stack = testStack();
    new NodeFunction(stack, 'Hello', { entry: ENTRY, description: 'test' });

    // Act
    const template = Template.fromStack(stack);

    // Assess
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      TracingConfig: { Mode: 'Active' },
      Handler: 'index.handler',
      MemorySize: 512,
      Timeout: 10,
      Environment: {
        Variables: {
          LEADS_RUNTIME: 'aws',
          POWERTOOLS_SERVICE_NAME: 'leads',
          POWERTOOLS_METRICS_NAMESPACE: 'Leads',
          POWERTOOLS_LOG_LEVEL: 'INFO',
        },
      },
    });
  });

  it('logs to its own log group, kept one month, instead of the deprecated logRetention', () => {
    // Prepare
    const stack = testStack();
    new NodeFunction(stack, 'Hello', { entry: ENTRY });

    // Act
    const template = Template.fromStack(stack);

    // Assess
    const logGroup = onlyLogicalId(template, 'AWS::Logs::LogGroup');
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    template.hasResourceProperties('AWS::Lambda::Function', {
      LoggingConfig: { LogGroup: { Ref: logGroup } },
    });
    template.resourceCountIs('Custom::LogRetention', 0);
  });

  it('may write to its log group only: no AWSLambdaBasicExecutionRole', () => {
    // Prepare
    const stack = testStack();
    new NodeFunction(stack, 'Hello', { entry: ENTRY });

    // Act
    const template = Template.fromStack(stack);

    // Assess
    const logGroup = onlyLogicalId(template, 'AWS::Logs::LogGroup');
    template.hasResourceProperties('AWS::IAM::Role', {
      ManagedPolicyArns: Match.absent(),
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            Effect: 'Allow',
            Resource: { 'Fn::GetAtt': [logGroup, 'Arn'] },
          },
        ]),
      },
    });
  });

  it('lets a stack state only what differs', () => {
    // Prepare
    const stack = testStack();
    new NodeFunction(stack, 'Hello', {
      entry: ENTRY,
      memorySize: 1024,
      timeout: Duration.seconds(25),
      serviceName: 'intake',
      logLevel: 'DEBUG',
      environment: { QUEUE_URL: 'https://sqs.example/queue' },
    });

    // Act
    const template = Template.fromStack(stack);

    // Assess
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      MemorySize: 1024,
      Timeout: 25,
      Environment: {
        Variables: Match.objectLike({
          POWERTOOLS_SERVICE_NAME: 'intake',
          POWERTOOLS_LOG_LEVEL: 'DEBUG',
          QUEUE_URL: 'https://sqs.example/queue',
          LEADS_RUNTIME: 'aws',
        }),
      },
    });
  });

  it('bundles ESM (index.mjs + source map) with local-only branches dropped', () => {
    // Prepare
    const app = testApp({ bundle: true });
    const stack = testStack(app);
    new NodeFunction(stack, 'Hello', { entry: ENTRY });

    // Act
    const assembly = app.synth();

    // Assess
    const assets = readdirSync(assembly.directory)
      .filter((name) => name.startsWith('asset.'))
      .map((name) => join(assembly.directory, name))
      .filter((dir) => existsSync(join(dir, 'index.mjs')));
    expect(assets).toHaveLength(1);
    const dir = assets[0] as string;
    expect(readdirSync(dir).sort()).toEqual(['index.mjs', 'index.mjs.map']);
    const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
    expect(code).toMatch(/export\s*\{/);
    expect(code).not.toContain('local-only branch');
  });

  /** The asset of a function with an SDK client and a lazily imported one (synthesized once). */
  let sdkAsset: string | undefined;
  function sdkFixtureAsset(): string {
    if (sdkAsset) return sdkAsset;
    const app = testApp({ bundle: true });
    new NodeFunction(testStack(app), 'Sdk', { entry: 'test/fixtures/functions/sdk-client.ts' });
    const assembly = app.synth();
    sdkAsset = readdirSync(assembly.directory)
      .map((name) => join(assembly.directory, name))
      .find((path) => existsSync(join(path, 'index.mjs'))) as string;
    return sdkAsset;
  }

  it('bundles the AWS SDK into the function instead of importing the runtime copy', () => {
    // Act
    const dir = sdkFixtureAsset();

    // Assess
    const files = readdirSync(dir).filter((name) => name.endsWith('.mjs'));
    const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
    const chunks = files.filter((name) => name !== 'index.mjs');
    // Nothing is left to resolve from node_modules at run time: no import of an @aws-sdk package.
    for (const name of files) {
      const text = readFileSync(join(dir, name), 'utf8');
      expect(text).not.toMatch(/from\s*["']@aws-sdk\//);
      expect(text).not.toMatch(/import\(\s*["']@aws-sdk\//);
    }
    // The client itself is in the bundle (its service name), with `require` for its CommonJS parts.
    expect(code).toContain('AmazonSQS');
    expect(code).toContain('createRequire');
    // What the handler imports only when a request needs it is split into a chunk file, so a
    // cold start does not read it: the Secrets Manager client is in a chunk, not in index.mjs.
    expect(code).not.toContain('secretsmanager');
    expect(
      chunks.some((name) => readFileSync(join(dir, name), 'utf8').includes('secretsmanager')),
    ).toBe(true);
  });

  it('runs the split bundle: a request that needs the lazily imported client loads its chunk', async () => {
    // Prepare
    const dir = sdkFixtureAsset();

    // Act: a fresh Node process imports index.mjs and calls the handler as Lambda would.
    const run = (event: object) =>
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const { handler } = await import(${JSON.stringify(pathToFileURL(join(dir, 'index.mjs')).href)}); process.stdout.write(JSON.stringify(await handler(${JSON.stringify(event)})));`,
        ],
        {
          encoding: 'utf8',
          env: {
            ...process.env,
            AWS_REGION: 'sa-east-1',
          },
        },
      );

    // Assess
    expect(JSON.parse(run({}))).toEqual({ region: 'sa-east-1' });
    expect(JSON.parse(run({ secret: 'x' }))).toEqual({ region: 'sa-east-1' });
  });

  it('fails synth when the environment would exceed Lambda 4 KB', () => {
    // Prepare
    const app = testApp();
    const stack = testStack(app);
    const fn = new NodeFunction(stack, 'Hello', { entry: ENTRY });
    fn.addEnvironment('BIG_VARIABLE', JSON.stringify({ blob: 'x'.repeat(4100) }));

    // Act
    const synth = () => app.synth();

    // Assess
    expect(synth).toThrow(/test\/Hello take about \d+ bytes, over Lambda's 4096-byte limit/);
    expect(synth).toThrow(/largest: BIG_VARIABLE/);
  });

  it('fails synth when anything but X-Ray gets Resource "*" (the IAM5 acknowledgement is X-Ray only)', () => {
    // Prepare
    const app = testApp();
    const fn = new NodeFunction(testStack(app), 'Hello', { entry: ENTRY });
    fn.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: ['*'] }));

    // Act
    const synth = () => app.synth();

    // Assess
    expect(synth).toThrow('test/Hello grants sqs:SendMessage on Resource "*"');
  });
});
