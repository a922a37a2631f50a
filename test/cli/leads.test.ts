/**
 * `npm run leads`: the operator CLI against the real local runtime (gateway, authorizer, admin
 * and report functions, the ledger on the local DynamoDB), as an operator uses it.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../cli/leads.ts';
import { localServices } from '../../functions/kernel/local-services.ts';
import { createDynamoCircuit } from '../../functions/upstream/circuit-dynamodb.ts';
import { REPO_ROOT } from '../helpers/gateway-process.ts';
import { DEMO_CLIENTS, DEMO_SECRETS, loadLeadFixture } from '../helpers/lead-fixtures.ts';
import {
  leadIdOf,
  startTestRuntime,
  TEST_UPSTREAM,
  type TestRuntime,
  testConfig,
} from '../helpers/local-runtime.ts';

const site = { source: 'form', token: DEMO_SECRETS.form, defaults: { idBranch: 1 } };
const META_FORM = '9234567890123457';
const meta = {
  source: 'meta',
  appSecret: 'demo-meta-app-secret',
  verifyToken: 'demo-meta-verify-token',
  pageAccessToken: 'demo-meta-page-token',
  // The configured upstream's origin: the local runtime points it at its sandbox.
  graphBaseUrl: 'http://127.0.0.1:4010/graph',
  defaults: { idBranch: 2 },
  forms: { [META_FORM]: {} },
};
const [OPS, REPORTER] = DEMO_CLIENTS;

let rt: TestRuntime;
beforeAll(async () => {
  // Two upstream accounts, for `upstream`: the default one and `south`.
  rt = await startTestRuntime({
    ...testConfig({ site, site2: { ...site, defaults: { idBranch: 2 } }, meta }, DEMO_CLIENTS),
    upstreams: { south: { ...TEST_UPSTREAM, report: { branches: [2], refreshSeconds: 3600 } } },
  });
});
afterAll(() => rt?.stop());

interface Run {
  code: number;
  out: string;
  err: string;
}

/** A real command in the repository (`npm run ...`, `npx leads ...`), as an operator's shell runs it. */
function real(
  command: string[],
  extra: NodeJS.ProcessEnv = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    LEADS_URL: rt.url,
    LEADS_USER: OPS.username,
    LEADS_PASSWORD: OPS.password,
    ...extra,
  };
  // Asynchronously: the gateway it calls runs in this process.
  return new Promise((resolve) => {
    const child = spawn(command[0] as string, command.slice(1), { cwd: REPO_ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The CLI in this process, as `npm run leads -- ...args` with the operator's environment. */
async function leads(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, {
    env: { LEADS_URL: rt.url, LEADS_USER: OPS.username, LEADS_PASSWORD: OPS.password, ...env },
    io: { out: (text) => out.push(text), err: (text) => err.push(text) },
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A form lead without last name and phone: recorded, and parked for an operator. */
async function parkedLead(email: string): Promise<string> {
  const response = await rt.post(
    `/leads/site?token=${DEMO_SECRETS.form}`,
    `nome=Ana&email=${encodeURIComponent(email)}`,
    { 'content-type': 'application/x-www-form-urlencoded' },
  );
  return leadIdOf(response);
}

/** A complete form lead that delivery gave up on. */
async function deadLead(): Promise<string> {
  const leadId = await leadIdOf(
    await rt.send('/leads/site', loadLeadFixture('form', 'valid-urlencoded')),
  );
  const lead = await rt.ledger.get(leadId);
  await rt.ledger.markDead(leadId, lead?.version ?? 0, 'upstream unavailable 8 times', new Date());
  return leadId;
}

describe('npm run leads', () => {
  it('lists the leads that wait for an operator, as a table or as JSON', async () => {
    // Prepare
    const parked = await parkedLead('ana.list@example.com');

    // Act
    const human = await leads(['list']);
    const json = await leads(['list', '--status', 'parked', '--json']);
    const none = await leads(['list', '--status', 'test']);

    // Assess
    expect(human.code).toBe(0);
    expect(human.out).toMatch(/^LEAD\s+SITUAÇÃO\s+PERFIL\s+FALHAS\s+RECEBIDO\s+MOTIVO/);
    expect(human.out).toMatch(
      new RegExp(
        `${parked}\\s+Parado\\s+site\\s+0\\s+\\d\\d/\\d\\d/\\d{4} \\d\\d:\\d\\d:\\d\\d\\s`,
      ),
    );
    expect(human.out).not.toMatch(/\d{4}-\d\d-\d\dT/);
    expect(human.out).toContain('falta o campo obrigatório celular');
    expect(none.out.trim()).toBe('nenhum lead na situação Teste');
    expect(json.code).toBe(0);
    const body = JSON.parse(json.out) as { leads: { leadId: string; status: string }[] };
    expect(body.leads).toContainEqual(
      expect.objectContaining({ leadId: parked, status: 'parked' }),
    );
  });

  it('moves a lead to another profile of its source; another source is refused', async () => {
    const leadId = await parkedLead('ana.move@example.com');
    const moved = await leads(['move', leadId, 'site2']);
    const refused = await leads(['move', leadId, 'meta']);
    expect(moved).toMatchObject({
      code: 0,
      out: `lead ${leadId} movido para o perfil site2; reenvie-o com: retry ${leadId}`,
    });
    expect((await rt.ledger.get(leadId))?.profile).toBe('site2');
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('[other_source]');
  });

  it('shows one lead, then retries it; a delivered lead is refused', async () => {
    // Prepare
    const leadId = await parkedLead('ana.retry@example.com');
    const done = await leadIdOf(
      await rt.post(
        `/leads/site?token=${DEMO_SECRETS.form}`,
        'nome=Bia+Lima&email=bia.done%40example.com&celular=11912345678',
        { 'content-type': 'application/x-www-form-urlencoded' },
      ),
    );
    const lead = await rt.ledger.get(done);
    await rt.ledger.claim(done, lead?.version ?? 0, 30_000, new Date());
    await rt.ledger.markDelivered(done, 4242, new Date());

    // Act
    const shown = await leads(['show', leadId]);
    const retried = await leads(['retry', leadId]);
    const queued = await leads(['show', leadId]);
    const refused = await leads(['retry', done]);

    // Assess
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/^situação\s+Parado$/m);
    expect(shown.out).toMatch(/^motivo\s+falta o campo obrigatório celular$/m);
    expect(retried).toMatchObject({ code: 0, out: `lead ${leadId} na fila para envio agora` });
    expect((await rt.ledger.get(leadId))?.status).toBe('queued');
    expect(queued.out).toMatch(/^próxima tentativa\s+\d\d\/\d\d\/\d{4} \d\d:\d\d:\d\d$/m);
    expect(queued.out).toMatch(/^sistema\s+respondendo$/m);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('[already_delivered]');
  });

  it('replays the dead leads and says how many', async () => {
    // Prepare
    const dead = await deadLead();

    // Act
    const replayed = await leads(['replay']);

    // Assess
    expect(replayed.code).toBe(0);
    expect(replayed.out).toMatch(/^leads esgotados \(dead\) de volta à fila: 1$/m);
    expect((await rt.ledger.get(dead))?.status).toBe('queued');
  });

  it('asks for a debtors report refresh', async () => {
    // Act
    const refreshed = await leads(['refresh', '--json']);

    // Assess
    expect(refreshed.code).toBe(0);
    expect(JSON.parse(refreshed.out)).toEqual({ status: 'refresh_requested' });
  });

  it('backfills a Meta profile’s leads of a period, and a second run finds them known', async () => {
    // Prepare: two leads Meta kept two days ago that never reached the webhook.
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    const since = new Date(twoDaysAgo.getTime() - 3_600_000).toISOString();
    const until = new Date(twoDaysAgo.getTime() + 3_600_000).toISOString();
    for (const [id, email] of [
      ['9777777777777701', 'cli.backfill.1@example.com'],
      ['9777777777777702', 'cli.backfill.2@example.com'],
    ]) {
      const registered = await fetch(new URL('/_sandbox/meta-leads', rt.sandboxUrl), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          id,
          form_id: META_FORM,
          created_time: twoDaysAgo.toISOString().replace(/\.\d{3}Z$/, '+0000'),
          field_data: [
            { name: 'full_name', values: ['Ana Backfill'] },
            { name: 'email', values: [email] },
            { name: 'phone_number', values: ['+5511912345678'] },
          ],
        }),
      });
      expect(registered.status).toBe(201);
    }

    // Act
    const first = await leads(['backfill', 'meta', '--days', '3']);
    const second = await leads(['backfill', 'meta', '--since', since, '--until', until, '--json']);
    const gone = await leads([
      'backfill',
      'meta',
      '--since',
      '2025-05-02',
      '--until',
      '2025-05-03',
    ]);
    const noSince = await leads(['backfill', 'meta']);
    const tooLong = await leads([
      'backfill',
      'meta',
      '--since',
      '2025-01-01',
      '--until',
      '2025-06-01',
    ]);

    // Assess
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^encontrados\s+2$/m);
    expect(first.out).toMatch(/^já conhecidos\s+0$/m);
    expect(first.out).toMatch(/^novos\s+2 \(2 na fila\)$/m);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.out)).toMatchObject({ found: 2, alreadyKnown: 2, new: 0 });
    expect(noSince).toMatchObject({
      code: 2,
      err: expect.stringContaining('--since é obrigatório'),
    });
    expect(tooLong.code).toBe(1);
    expect(tooLong.err).toContain('[period_too_long]');
    // A period Meta no longer keeps is said so, never answered "found 0".
    expect(gone.code).toBe(1);
    expect(gone.err).toContain('[period_not_kept]');
    expect(gone.err).toContain('A Meta guarda os leads por 90 dias');
  });

  it("prints each upstream account's circuit, pace and backlog; --upstream picks one", async () => {
    // Prepare: south's circuit is open (the upstream stopped answering), a lead waits.
    await parkedLead('ana.upstream@example.com');
    await rt.send('/leads/site', loadLeadFixture('form', 'valid-urlencoded'));
    const { dynamo, ledgerTable } = localServices();
    const south = createDynamoCircuit({ client: dynamo, tableName: ledgerTable, account: 'south' });
    const now = Date.now();
    for (let i = 0; i < 10 && (await south.read()).state === 'closed'; i++) {
      await south.failed(now, { immediate: true, reason: 'unreachable', probe: false });
    }

    // Act
    const all = await leads(['upstream']);
    const one = await leads(['upstream', '--upstream', 'south', '--json']);
    const unknown = await leads(['upstream', '--upstream', 'north']);

    // Assess
    expect(all.code).toBe(0);
    const lines = all.out.split('\n');
    expect(lines[0]).toMatch(/^CONTA\s+NA FILA\s+PRÓXIMA VAGA\s+CIRCUITO$/);
    expect(lines[1]).toMatch(/^default\s+[1-9]\d*\s+\S+\s+respondendo/);
    expect(lines[2]).toMatch(
      /^south\s+\d+\s+\S+\s+fora do ar \(unreachable\); próximo teste \d{4}-/,
    );
    expect(one.code).toBe(0);
    expect(JSON.parse(one.out)).toMatchObject({
      upstream: 'south',
      circuit: { state: 'open', reason: 'unreachable' },
    });
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('não há conta "north"');
  });

  it('hands config validate to npm run config, and fails with its message', async () => {
    // Act
    const [valid, missing, local, demoAsDeploy] = await Promise.all([
      leads(['config', 'validate', 'config/deploy.example.json']),
      leads(['config', 'validate', 'config/no-such-file.json']),
      leads(['config', 'validate', '--local', 'config/demo.json']),
      leads(['config', 'validate', 'config/demo.json']),
    ]);
    const noFile = await leads(['config', 'push']);

    // Assess
    expect(valid).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^válida: stage example: /),
    });
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('no-such-file.json');
    expect(local).toMatchObject({
      code: 0,
      out: 'válida: 1 conta(s), 19 perfil(is), 3 cliente(s)',
    });
    expect(demoAsDeploy.code).toBe(1);
    expect(demoAsDeploy.err).toContain('Valores secretos em config/demo.json:');
    expect(demoAsDeploy.err).toContain('npm run config -- validate --local config/demo.json');
    expect(noFile).toMatchObject({ code: 2, err: expect.stringContaining('config push ARQUIVO') });
  });

  it('explains refused credentials and a missing role, never printing the password', async () => {
    // Act
    const wrong = await leads(['list'], { LEADS_PASSWORD: 'not-the-password' });
    const noRole = await leads(['list'], {
      LEADS_USER: REPORTER.username,
      LEADS_PASSWORD: REPORTER.password,
    });

    // Assess
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('usuário ou senha não aceitos [unauthorized]');
    expect(wrong.err).toContain('confira --user / LEADS_USER e LEADS_PASSWORD');
    expect(`${wrong.out}${wrong.err}`).not.toContain('not-the-password');
    expect(noRole.code).toBe(1);
    expect(noRole.err).toContain('[forbidden]');
    expect(noRole.err).toContain('não tem o papel que a rota exige');
    expect(`${noRole.out}${noRole.err}`).not.toContain(REPORTER.password);
  });

  it("erases a person's data by e-mail: the leads are listed and keep only their anonymous record", async () => {
    // Prepare
    const email = 'bia.erase@example.com';
    const leadId = await parkedLead(email);

    // Act
    const erased = await leads(['erase', '--email', email]);
    const again = await leads(['erase', '--email', email]);
    const nobody = await leads(['erase']);

    // Assess
    expect(erased.code).toBe(0);
    expect(erased.out).toMatch(/^LEAD\s+PERFIL\s+SITUAÇÃO\s+RECEBIDO \(UTC\)\s+PROSPECT/);
    expect(erased.out).toMatch(new RegExp(`${leadId}\\s+site\\s+Parado`));
    expect(erased.out).toContain('1 de 1 lead apagado');
    const stored = await rt.ledger.get(leadId);
    expect(stored?.redaction).toBe('erasure');
    expect(JSON.stringify(stored)).not.toContain(email);
    // The lead no longer names her: a second request finds nothing.
    expect(again).toMatchObject({
      code: 0,
      out: 'nenhum lead cita esta pessoa: nada a apagar aqui',
    });
    expect(nobody).toMatchObject({
      code: 2,
      err: expect.stringContaining('informe --email, --phone ou --cpf'),
    });
  });

  it('refuses a wrong command line with exit code 2, and says where the gateway is not', async () => {
    // Act
    const unknown = await leads(['frobnicate']);
    const badStatus = await leads(['list', '--status', 'lost']);
    const noId = await leads(['show']);
    const unreachable = await leads(['list', '--url', 'http://127.0.0.1:9']);

    // Assess
    expect(unknown).toMatchObject({
      code: 2,
      err: expect.stringContaining('comando desconhecido: frobnicate'),
    });
    expect(badStatus).toMatchObject({
      code: 2,
      err: expect.stringContaining('--status precisa ser um destes'),
    });
    expect(noId).toMatchObject({ code: 2, err: expect.stringContaining('show <leadId>') });
    expect(unreachable.code).toBe(1);
    expect(unreachable.err).toContain('não foi possível falar com o gateway em http://127.0.0.1:9');
  });

  it('runs as npm run leads, with the exit code and without echoing the password', async () => {
    // Prepare
    const leadId = await parkedLead('ana.npm@example.com');

    // Act
    const shown = await real(['npm', 'run', '--silent', 'leads', '--', 'show', leadId]);
    const refused = await real(['npm', 'run', '--silent', 'leads', '--', 'show', leadId], {
      LEADS_PASSWORD: 'wrong-password-123',
    });

    // Assess
    expect(shown.status).toBe(0);
    expect(shown.stdout).toMatch(/^situação\s+Parado$/m);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('[unauthorized]');
    expect(`${refused.stdout}${refused.stderr}`).not.toContain('wrong-password-123');
  });

  // Three processes that start npm and tsx: seconds each on a busy machine.
  it('pipes --json to a reader as JSON alone, from the bin and from npm run -s', {
    timeout: 90_000,
  }, async () => {
    // Prepare
    const leadId = await parkedLead('ana.pipe@example.com');
    const args = ['list', '--status', 'parked', '--json'];

    // Act: the bin as `npx leads` finds it in the repository, and the npm script, silenced.
    const fromBin = await real(['npx', '--no-install', 'leads', ...args]);
    const fromScript = await real(['npm', 'run', '-s', 'leads', '--', ...args]);
    const refused = await real(['npx', '--no-install', 'leads', 'show', 'ld_nope', '--json']);

    // Assess: stdout parses whole; messages, if any, are on stderr.
    for (const run of [fromBin, fromScript]) {
      expect(run.status, run.stderr).toBe(0);
      const body = JSON.parse(run.stdout) as { leads: { leadId: string }[] };
      expect(body.leads.map((lead) => lead.leadId)).toContain(leadId);
    }
    expect(refused.status).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: expect.any(String) } });
    expect(refused.stderr).toMatch(/^erro: /);
  });
});
