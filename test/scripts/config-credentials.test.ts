/**
 * `npm run config -- diff|push FILE` as an operator runs it from a laptop with a named profile
 * (`aws configure --profile`, SSO alike): a temporary HOME holding only that profile
 * (~/.aws/credentials and ~/.aws/config with its region), AWS_PROFILE set, no AWS_ACCESS_KEY_ID,
 * and AWS_ENDPOINT_URL pointing at a local server that answers as CloudFormation, AppConfig and
 * Secrets Manager would and hands DynamoDB's requests to dynalite (a ledger holding a lead of
 * the profile the file drops). Every request must reach that server signed with the profile's
 * key and Region, and the real removal warning must be printed (the ledger read, not
 * "a consulta ao ledger falhou").
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import {
  createServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoLedger } from '../../functions/ledger/lead-ledger-dynamodb.ts';
import { validateFile } from '../../scripts/config-store.ts';
import {
  KEY_ID,
  profileEnv,
  REGION,
  type Recorded,
  runWithProfile,
  signingScopes,
  writeProfileHome,
} from '../helpers/aws-profile-cli.ts';
import { startTestDynamo, TEST_ERASURE_SALT, type TestDynamo } from '../helpers/dynalite.ts';

const DEPLOY = {
  stage: 'prod',
  alarmEmail: 'ops@example.com',
  upstream: { baseUrl: 'https://evo.example.com', maxPerSecond: 4, maxPerMinute: 36 },
  profiles: {
    site: { source: 'form', defaults: { idBranch: 1 } },
    api: { source: 'prospect' },
  },
  report: { branches: [1], refreshSeconds: 900 },
};

const json = (res: ServerResponse, body: unknown, status = 200, type = 'application/json') => {
  res.writeHead(status, { 'content-type': type, 'x-amzn-requestid': 'req-1' });
  res.end(JSON.stringify(body));
};

/** CloudFormation's DescribeStacks answer (its query protocol's XML) with the ledger's output. */
const describeStacks = (
  table: string,
) => `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/">
<DescribeStacksResult><Stacks><member><StackName>leads-prod</StackName><StackStatus>UPDATE_COMPLETE</StackStatus>
<CreationTime>2026-01-05T10:00:00Z</CreationTime><Outputs><member><OutputKey>LedgerTableName</OutputKey>
<OutputValue>${table}</OutputValue></member></Outputs></member></Stacks></DescribeStacksResult>
<ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata></DescribeStacksResponse>`;

/** Answers as AppConfig (REST JSON) does for the stage's store, version 4 deployed. */
function appConfig(req: IncomingMessage, res: ServerResponse, deployed: unknown): boolean {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  const app = '/applications/app1';
  const versions = `${app}/configurationprofiles/prof1/hostedconfigurationversions`;
  const routes: Record<string, () => void> = {
    'GET /applications': () => json(res, { Items: [{ Id: 'app1', Name: 'leads-prod' }] }),
    [`GET ${app}/environments`]: () => json(res, { Items: [{ Id: 'env1', Name: 'prod' }] }),
    [`GET ${app}/configurationprofiles`]: () =>
      json(res, { Items: [{ Id: 'prof1', Name: 'settings' }] }),
    'GET /deploymentstrategies': () =>
      json(res, { Items: [{ Id: 'st1', Name: 'leads-prod-all-at-once' }] }),
    [`GET ${app}/environments/env1/deployments`]: () =>
      json(res, {
        Items: [
          {
            DeploymentNumber: 1,
            ConfigurationName: 'settings',
            ConfigurationVersion: '4',
            State: 'COMPLETE',
          },
        ],
      }),
    [`GET ${versions}/4`]: () => {
      res.writeHead(200, { 'content-type': 'application/json', 'version-number': '4' });
      res.end(JSON.stringify(deployed));
    },
    [`POST ${versions}`]: () => {
      res.writeHead(201, { 'content-type': 'application/json', 'version-number': '5' });
      res.end('{}');
    },
    [`POST ${app}/environments/env1/deployments`]: () =>
      json(res, { DeploymentNumber: 2, State: 'DEPLOYING' }, 201),
  };
  const route = routes[`${req.method} ${path}`];
  route?.();
  return route !== undefined;
}

/** Hands a request, as received (headers and signature included), to dynalite. */
function proxy(req: IncomingMessage, body: Buffer, res: ServerResponse, target: string): void {
  const { hostname, port } = new URL(target);
  const forwarded = request(
    { hostname, port, method: req.method, path: req.url, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 500, answer.headers);
      answer.pipe(res);
    },
  );
  forwarded.on('error', () => res.destroy());
  forwarded.end(body);
}

let dynamo: TestDynamo;
let server: Server;
let endpoint: string;
let home: string;
let dir: string;
const received: Recorded[] = [];

beforeAll(async () => {
  dynamo = await startTestDynamo();
  const table = await dynamo.createLedgerTable();
  // A lead of `site` a day ago: the file below drops that profile.
  await createDynamoLedger({
    client: dynamo.client,
    tableName: table,
    erasureSalt: TEST_ERASURE_SALT,
  }).record({
    profile: 'site',
    source: 'form',
    dedupKey: 'key:maria@example.com',
    capture: {
      source: 'form',
      dedupKey: 'key:maria@example.com',
      isTest: false,
      answers: [{ key: 'email', value: 'maria@example.com' }],
      attribution: {},
    },
    prospect: { name: 'Maria', email: 'maria@example.com', idBranch: 1 },
    status: 'queued',
    receivedAt: new Date(Date.now() - 86_400_000),
  });

  dir = mkdtempSync(join(tmpdir(), 'config-credentials-'));
  const deployed = validateFile(writeDeploy('deployed.json', DEPLOY)).settings;
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      const target = String(req.headers['x-amz-target'] ?? '');
      if (target.startsWith('DynamoDB_20120810.')) return proxy(req, body, res, dynamo.endpoint);
      if (target === 'secretsmanager.DescribeSecret') {
        return json(res, { Name: 'exists' }, 200, 'application/x-amz-json-1.1');
      }
      // The credential shards push reads and writes (issue 34): empty ones, taken as written.
      if (target === 'secretsmanager.GetSecretValue') {
        const { SecretId } = JSON.parse(body.toString('utf8')) as { SecretId: string };
        return json(res, { Name: SecretId, SecretString: '{}' }, 200, 'application/x-amz-json-1.1');
      }
      if (target === 'secretsmanager.PutSecretValue') {
        const { SecretId } = JSON.parse(body.toString('utf8')) as { SecretId: string };
        return json(res, { Name: SecretId, VersionId: 'v1' }, 200, 'application/x-amz-json-1.1');
      }
      if (body.toString('utf8').includes('Action=DescribeStacks')) {
        res.writeHead(200, { 'content-type': 'text/xml' });
        return res.end(describeStacks(table));
      }
      if (!appConfig(req, res, deployed)) json(res, { message: `no route ${req.url}` }, 404);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  home = join(dir, 'home');
  writeProfileHome(home);
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await dynamo?.close();
  rmSync(dir, { recursive: true, force: true });
});

function writeDeploy(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

function run(file: string, args: string[]) {
  return runWithProfile(profileEnv(home, endpoint), file, args);
}

const scopes = () => signingScopes(received);

const WARNING =
  /^aviso: o perfil 'site' sai da configuração e recebeu 1 lead\(s\) nos últimos 30 dias; 1 aguardando entrega\./m;

// Each run starts npm and tsx: seconds apiece on a busy machine.
describe('npm run config with a named profile and AWS_ENDPOINT_URL', { timeout: 120_000 }, () => {
  const dropped = () =>
    writeDeploy('dropped.json', { ...DEPLOY, profiles: { api: DEPLOY.profiles.api } });

  it('diff: signs every request with the profile and prints the real removal warning', async () => {
    // Prepare
    received.length = 0;

    // Act
    const out = await run('npm', ['run', '-s', 'config', '--', 'diff', dropped()]);

    // Assess
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(WARNING);
    expect(out.stdout).not.toMatch(/falhou|não foi possível consultar/);
    expect(out.stdout).toMatch(/^- profiles\.site\.source: "form"$/m);
    const services = new Set(scopes().map((s) => ('service' in s ? s.service : 'unsigned')));
    expect([...services].sort()).toEqual(['appconfig', 'cloudformation', 'dynamodb']);
    for (const scope of scopes())
      expect(scope).toEqual({ ...scope, keyId: KEY_ID, region: REGION });
  });

  it('push: the same profile for AppConfig, Secrets Manager, CloudFormation and DynamoDB', async () => {
    // Prepare
    received.length = 0;

    // Act
    const out = await run(process.execPath, [
      '--import',
      'tsx',
      'scripts/config.ts',
      'push',
      dropped(),
    ]);

    // Assess
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(WARNING);
    expect(out.stdout).toMatch(/^version 5 deployed \(deployment 2\)/m);
    const services = new Set(scopes().map((s) => ('service' in s ? s.service : 'unsigned')));
    expect([...services].sort()).toEqual([
      'appconfig',
      'cloudformation',
      'dynamodb',
      'secretsmanager',
    ]);
    for (const scope of scopes())
      expect(scope).toEqual({ ...scope, keyId: KEY_ID, region: REGION });
  });
});
