/**
 * `npm run config -- secrets FILE` as an operator runs it from a laptop with a named profile
 * (test/helpers/aws-profile-cli.ts): against a local server answering as Secrets Manager does,
 * holding the stage's shards, it writes each value into its own entry of its own shard (the
 * shard's other entries and the entry's other keys kept), stores a client's password as its
 * hash, says which keys still hold REPLACE_ME, and never shows a value given, from a file or
 * typed at its prompts (a real terminal: `script` gives it a pty, and the typing is not echoed).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { shardNames } from '../../functions/config/secret-shards.ts';
import { secretNames } from '../../functions/config/secrets-aws.ts';
import { verifyPasswordHash } from '../../functions/kernel/client-auth.ts';
import {
  KEY_ID,
  profileEnv,
  REGION,
  type Recorded,
  runWithProfile,
  signingScopes,
  writeProfileHome,
} from '../helpers/aws-profile-cli.ts';
import { REPO_ROOT } from '../helpers/gateway-process.ts';

const PREFIX = 'leads/prod';
const NAMES = secretNames(PREFIX);
const DEPLOY = {
  stage: 'prod',
  alarmEmail: 'ops@example.com',
  upstream: { baseUrl: 'https://evo.example.com', maxPerSecond: 4, maxPerMinute: 36 },
  profiles: {
    site: { source: 'form', defaults: { idBranch: 1 } },
    meta: { source: 'meta', forms: { '123': { idBranch: 1 } } },
  },
  report: { branches: [1], refreshSeconds: 900 },
};
/** Every value the tests give: none may appear in any output. */
const VALUES = {
  dns: 'academia-dns-7f3a',
  key: 'evo-secret-key-9c1d',
  appSecret: 'meta-app-secret-4b2e',
  pageToken: 'EAAB-page-token-77aa',
  password: 'ops-pass-5d6e',
};

let server: Server;
let endpoint: string;
let dir: string;
let home: string;
let deployFile: string;
/** What Secrets Manager holds, by secret id (its SecretString). */
let stored: Record<string, string>;
const received: Recorded[] = [];
let puts: string[];

const entry = (where: { secret: string; entry: string }) =>
  JSON.parse(stored[where.secret] ?? '{}')[where.entry];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'config-secrets-'));
  home = join(dir, 'home');
  writeProfileHome(home);
  deployFile = join(dir, 'deploy.prod.json');
  writeFileSync(deployFile, JSON.stringify(DEPLOY));
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      const target = String(req.headers['x-amz-target'] ?? '');
      const answer = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify(value));
      };
      const id = body.SecretId as string;
      if (!(id in stored)) {
        return answer(400, { __type: 'ResourceNotFoundException', message: 'not found' });
      }
      if (target === 'secretsmanager.GetSecretValue') {
        return answer(200, { Name: id, SecretString: stored[id] });
      }
      if (target === 'secretsmanager.PutSecretValue') {
        stored[id] = body.SecretString;
        puts.push(id);
        return answer(200, { Name: id, VersionId: 'v2' });
      }
      answer(400, { __type: 'InvalidRequestException', message: target });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  received.length = 0;
  puts = [];
  // As `npm run deploy` leaves the stage: placeholders, the form's generated token.
  stored = Object.fromEntries(
    [...shardNames(PREFIX, 'accounts'), ...shardNames(PREFIX, 'profiles')].map((id) => [id, '{}']),
  );
  stored[NAMES.clients] = JSON.stringify({ clients: 'REPLACE_ME', generated: 'x1' });
  const put = (where: { secret: string; entry: string }, value: unknown) => {
    stored[where.secret] = JSON.stringify({
      ...JSON.parse(stored[where.secret] as string),
      [where.entry]: value,
    });
  };
  put(NAMES.upstream('default'), { username: 'REPLACE_ME', password: 'REPLACE_ME' });
  put(NAMES.profile('site'), { token: 'generated-site-token' });
  const meta = {
    appSecret: 'REPLACE_ME',
    verifyToken: 'REPLACE_ME',
    pageAccessToken: 'REPLACE_ME',
  };
  put(NAMES.profile('meta'), meta);
  // Another stage's profile in meta's shard: kept as it is.
  put({ secret: NAMES.profile('meta').secret, entry: 'neighbour' }, { token: 'n' });
});

function config(args: string[]) {
  return runWithProfile(profileEnv(home, endpoint), process.execPath, [
    '--import',
    'tsx',
    'scripts/config.ts',
    ...args,
  ]);
}

function expectNoValue(text: string): void {
  for (const [name, value] of Object.entries(VALUES)) {
    expect(text.includes(value), `${name} shown`).toBe(false);
  }
}

describe('npm run config -- secrets', { timeout: 120_000 }, () => {
  it('--from a JSON file: each value into its entry, the password as a hash, what is left said, no value shown', async () => {
    const from = join(dir, 'values.json');
    writeFileSync(
      from,
      JSON.stringify({
        accounts: { default: { username: VALUES.dns, password: VALUES.key } },
        profiles: { meta: { appSecret: VALUES.appSecret, pageAccessToken: VALUES.pageToken } },
        clients: { ops: { password: VALUES.password, roles: ['admin', 'report:read'] } },
      }),
    );

    const out = await config(['secrets', deployFile, '--from', from]);

    expect(out.code, out.stderr).toBe(0);
    expect(entry(NAMES.upstream('default'))).toEqual({
      username: VALUES.dns,
      password: VALUES.key,
    });
    expect(entry(NAMES.profile('meta'))).toEqual({
      appSecret: VALUES.appSecret,
      verifyToken: 'REPLACE_ME',
      pageAccessToken: VALUES.pageToken,
    });
    expect(entry({ secret: NAMES.profile('meta').secret, entry: 'neighbour' })).toEqual({
      token: 'n',
    });
    expect(entry(NAMES.profile('site'))).toEqual({ token: 'generated-site-token' });
    const clients = JSON.parse(stored[NAMES.clients] as string);
    expect(clients).toEqual([
      {
        username: 'ops',
        passwordHash: expect.stringMatching(/^scrypt\$/),
        roles: ['admin', 'report:read'],
      },
    ]);
    expect(await verifyPasswordHash(VALUES.password, clients[0].passwordHash)).toBe(true);
    // One write per secret that changed.
    expect(puts.sort()).toEqual(
      [NAMES.upstream('default').secret, NAMES.profile('meta').secret, NAMES.clients].sort(),
    );
    expect(out.stdout).toMatch(
      /^gravado: conta "default": "username", "password" \(segredo leads\/prod\/store\/accounts-\d/m,
    );
    expect(out.stdout).toMatch(
      /^ainda REPLACE_ME: perfil "meta": "verifyToken" \(segredo leads\/prod\/store\/profiles-\d\d, entrada "meta"\)$/m,
    );
    expect(out.stdout).toMatch(/^gravado: clientes "ops"/m);
    expectNoValue(out.stdout + out.stderr);
    for (const scope of signingScopes(received)) {
      expect(scope).toEqual({ keyId: KEY_ID, region: REGION, service: 'secretsmanager' });
    }
  });

  it('--from path=value lines with a wrong key: refused naming the key, nothing written, no value shown', async () => {
    const from = join(dir, 'values.env');
    writeFileSync(
      from,
      [
        '# the gym',
        `accounts.default.username=${VALUES.dns}`,
        `accounts.default.password="${VALUES.key}"`,
        `profiles.meta.appSecrett=${VALUES.appSecret}`,
      ].join('\n'),
    );

    const out = await config(['secrets', deployFile, '--from', from]);

    expect(out.code).toBe(1);
    expect(out.stderr).toContain('profiles.meta.appSecrett: as chaves de profiles.meta são');
    expect(puts).toEqual([]);
    expectNoValue(out.stdout + out.stderr);
  });

  it('without a terminal nor --from: says to give a file, exit code 2, nothing read', async () => {
    const out = await config(['secrets', deployFile]);

    expect(out.code).toBe(2);
    expect(out.stderr).toContain('--from VALUES');
    expect(received).toEqual([]);
  });

  it('on a terminal: asks each placeholder with echo off (typed ahead too) and stores what was typed', async () => {
    const transcript = await typeAtPrompts([
      // Typed ahead: the password before its question (never echoed either).
      [/conta "default", username/, `${VALUES.dns}\r${VALUES.key}`],
      [/perfil "meta", appSecret/, VALUES.appSecret],
      [/perfil "meta", verifyToken/, ''],
      [/perfil "meta", pageAccessToken/, VALUES.pageToken],
      [/nome de usuário/, 'ops'],
      [/cliente "ops", senha/, VALUES.password],
      [/cliente "ops", papéis/, ''],
      [/nome de usuário/, ''],
    ]);

    expect(transcript.code, transcript.text).toBe(0);
    expect(entry(NAMES.upstream('default'))).toEqual({
      username: VALUES.dns,
      password: VALUES.key,
    });
    expect(entry(NAMES.profile('meta'))).toMatchObject({
      appSecret: VALUES.appSecret,
      verifyToken: 'REPLACE_ME',
    });
    expect(JSON.parse(stored[NAMES.clients] as string)[0]).toMatchObject({ roles: ['admin'] });
    expect(transcript.text).toMatch(/ainda REPLACE_ME: perfil "meta": "verifyToken"/);
    expectNoValue(transcript.text);
  });
});

/**
 * Runs the command in a pty (`script`), answering each prompt when it appears (an answer is
 * sent only once the question is on the screen, so the program's raw mode is on): the whole
 * screen, and the exit code.
 */
function typeAtPrompts(answers: Array<[RegExp, string]>): Promise<{ code: number; text: string }> {
  const command = `${process.execPath} --import tsx scripts/config.ts secrets ${deployFile}`;
  const child = spawn('script', ['-qefc', command, '/dev/null'], {
    cwd: REPO_ROOT,
    env: profileEnv(home, endpoint),
  });
  let text = '';
  let seen = 0;
  let next = 0;
  const answerDue = () => {
    const prompt = answers[next];
    if (!prompt) return;
    const match = prompt[0].exec(text.slice(seen));
    if (!match) return;
    seen += (match.index ?? 0) + match[0].length;
    next += 1;
    child.stdin.write(`${prompt[1]}\r`);
  };
  child.stdout.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    answerDue();
  });
  return new Promise((resolve) => {
    child.on('close', (code) => resolve({ code: code ?? 1, text }));
  });
}
