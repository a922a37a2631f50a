import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_DEPLOY_CONFIG,
  DeployConfigError,
  deployConfigPath,
  loadDeployConfig,
  parseDeployConfig,
} from '../../infra/config.ts';

const MINIMAL = {
  stage: 'prod',
  alarmEmail: 'ops@example.com',
  upstream: { baseUrl: 'https://upstream.example.com', maxPerSecond: 4, maxPerMinute: 36 },
  profiles: { site: { source: 'form', defaults: { idBranch: 1 } } },
};

const dir = mkdtempSync(join(tmpdir(), 'leads-deploy-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function problemsOf(raw: unknown): string {
  try {
    parseDeployConfig(raw, 'deploy.json');
  } catch (error) {
    expect(error).toBeInstanceOf(DeployConfigError);
    return (error as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

describe('deploy config', () => {
  it('reads the committed example: a gym with every kind of profile', () => {
    // Act
    const config = loadDeployConfig(DEFAULT_DEPLOY_CONFIG);

    // Assess
    expect(config.stage).toBe('example');
    expect(config.secretsPrefix).toBe('leads/example');
    expect(Object.keys(config.settings.profiles)).toEqual(
      expect.arrayContaining(['site', 'meta', 'google', 'native']),
    );
    expect(config.settings.upstream.partnerTokenField).toBe('tokenGympass');
  });

  it('requires a stage: a deployment says which one it is', () => {
    // Prepare
    const { stage: _stage, ...withoutStage } = MINIMAL;

    // Act
    const message = problemsOf(withoutStage);

    // Assess
    expect(message).toContain('\n  stage: é obrigatório (um texto)');
  });

  it('defaults secret prefix, API limits and report, and normalises profiles', () => {
    // Act
    const config = parseDeployConfig({
      ...MINIMAL,
      stage: 'staging',
      profiles: { meta: { source: 'meta', defaults: { idBranch: 1 } } },
    });

    // Assess
    expect(config).toMatchObject({
      stage: 'staging',
      secretsPrefix: 'leads/staging',
      api: { rateLimit: 25, burstLimit: 50, cloudWatchRole: true },
      settings: {
        upstream: { timeoutMs: 10_000, partnerTokenField: 'tokenPartner' },
        report: { branches: [], refreshSeconds: 900 },
        profiles: { meta: { source: 'meta', graphBaseUrl: 'https://graph.facebook.com/v21.0' } },
      },
    });
  });

  it('refuses secret values, naming where they are', () => {
    // Act
    const message = problemsOf({
      ...MINIMAL,
      upstream: { ...MINIMAL.upstream, password: 'hunter2' },
      clients: [],
      profiles: { site: { source: 'form', token: 't0k3n' }, native: { source: 'prospect' } },
    });

    // Assess
    expect(message).toMatch(/^Valores secretos em deploy\.json:\n/);
    expect(message).toContain(
      '  upstream.password: um valor secreto não fica na configuração de deploy: a stack o lê do Secrets Manager (docs/deploy.md)',
    );
    expect(message).toContain('  clients: um valor secreto não fica na configuração de deploy');
    expect(message).toContain('  profiles.site.token: um valor secreto não fica');
    expect(message).not.toContain('hunter2');
    expect(message).not.toContain('t0k3n');
  });

  it('explains invalid settings one per line, with their path', () => {
    // Act
    const message = problemsOf({
      ...MINIMAL,
      stage: 'Prod!',
      upstream: { ...MINIMAL.upstream, baseUrl: 'not a url' },
      profiles: {
        site: { source: 'form', redirectUrl: 'nowhere', defaults: { idBranch: 1 } },
        Bad: { source: 'prospect' },
      },
    });

    // Assess
    expect(message.split('\n')).toEqual([
      'Configuração inválida em deploy.json:',
      '  stage: só letras minúsculas, dígitos e -',
      '  upstream.baseUrl: deve ser uma URL válida',
      '  profiles.site.redirectUrl: deve ser uma URL válida',
      '  profiles.Bad: o nome de um perfil leva só letras minúsculas, dígitos, - e _ (é a URL /leads/<nome>): use "bad"',
    ]);
  });

  it('checks each profile with the full profile schema', () => {
    // Act
    const message = problemsOf({
      ...MINIMAL,
      profiles: { site: { source: 'form', redirectUrl: 'nowhere', defaults: { idBranch: 'x' } } },
    });

    // Assess
    expect(message).toContain('  profiles.site.redirectUrl: deve ser uma URL válida');
    expect(message).toContain(
      '  profiles.site.defaults.idBranch: deve ser um número, não um texto',
    );
  });

  it('refuses unknown top-level keys (typos)', () => {
    // Act
    const message = problemsOf({ ...MINIMAL, stgae: 'dev' });

    // Assess
    expect(message).toContain('  stgae: chave desconhecida: você quis dizer "stage"?');
  });

  it('names a file that is missing or not JSON', () => {
    // Prepare
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{ "stage": ');

    // Act / Assess
    expect(() => loadDeployConfig(join(dir, 'missing.json'))).toThrow(
      /^Não foi possível ler a configuração em .*missing\.json:\n {2}o arquivo não existe$/,
    );
    expect(() => loadDeployConfig(broken)).toThrow(
      /^JSON inválido em .*broken\.json:\n {2}falta o valor depois de ':' \(linha 1, coluna 12\)$/,
    );
  });

  it('takes the path from context, else LEADS_DEPLOY_CONFIG, else none (the example)', () => {
    // Act / Assess
    expect(deployConfigPath('config/deploy.json', { LEADS_DEPLOY_CONFIG: '/etc/x.json' })).toBe(
      resolve('config/deploy.json'),
    );
    expect(deployConfigPath(undefined, { LEADS_DEPLOY_CONFIG: '/etc/x.json' })).toBe('/etc/x.json');
    expect(deployConfigPath(undefined, {})).toBeUndefined();
    expect(deployConfigPath('', { LEADS_DEPLOY_CONFIG: ' ' })).toBeUndefined();
  });
});

describe('deploy config: who hears the alarms', () => {
  const { alarmEmail: _email, ...withoutEmail } = MINIMAL;

  it('keeps alarmEmail, which must be an email address', () => {
    // Act
    const config = parseDeployConfig(MINIMAL);

    // Assess
    expect(config.alarmEmail).toBe('ops@example.com');
    expect('noAlarmEmail' in config).toBe(false);
    expect(problemsOf({ ...MINIMAL, alarmEmail: 'ops' })).toContain(
      '  alarmEmail: deve ser um endereço de e-mail',
    );
  });

  it('refuses a stage that names no address: its alarms would go to a topic nobody reads', () => {
    // Act
    const message = problemsOf(withoutEmail);

    // Assess
    expect(message).toContain('alarmEmail: é obrigatório no stage "prod"');
    expect(message).toContain('noAlarmEmail');
  });

  it('takes an explicit opt-out with its reason instead, but not both, and not a reason of one word', () => {
    // Act
    const optedOut = parseDeployConfig({
      ...withoutEmail,
      noAlarmEmail: 'AlarmTopicArn is subscribed to our on-call pager',
    });

    // Assess
    expect(optedOut.noAlarmEmail).toBe('AlarmTopicArn is subscribed to our on-call pager');
    expect(optedOut.alarmEmail).toBeUndefined();
    expect(problemsOf({ ...MINIMAL, noAlarmEmail: 'a pager receives them' })).toContain(
      'noAlarmEmail: dê alarmEmail ou noAlarmEmail, não os dois',
    );
    expect(problemsOf({ ...withoutEmail, noAlarmEmail: 'pager' })).toContain(
      'noAlarmEmail: diga em poucas palavras por que nenhum endereço recebe os alarmes',
    );
  });

  it('lets the example (never deployable) go without either', () => {
    // Act / Assess
    expect(parseDeployConfig({ ...withoutEmail, stage: 'example' }).alarmEmail).toBeUndefined();
  });
});

describe('deploy config: upstream accounts', () => {
  const SOUTH = { baseUrl: 'https://south.example.com', maxPerSecond: 2, maxPerMinute: 20 };

  it('accepts `upstreams` by name, each with its own report (defaulted), and profiles naming them', () => {
    // Act
    const config = parseDeployConfig({
      ...MINIMAL,
      upstreams: {
        south: SOUTH,
        north: { ...SOUTH, report: { branches: [7], refreshSeconds: 600 } },
      },
      profiles: {
        site: { source: 'form', defaults: { idBranch: 1 } },
        'lp-south': { source: 'form', upstream: 'south', defaults: { idBranch: 7 } },
        'lp-default': { source: 'form', upstream: 'default', forms: { a: { idBranch: 2 } } },
      },
    });

    // Assess
    expect(Object.keys(config.settings.upstreams ?? {})).toEqual(['south', 'north']);
    expect(config.settings.upstreams?.south).toMatchObject({
      ...SOUTH,
      timeoutMs: 10_000,
      report: { branches: [], refreshSeconds: 900 },
    });
    expect(config.settings.upstreams?.north?.report).toMatchObject({
      branches: [7],
      refreshSeconds: 600,
    });
    expect(config.settings.profiles['lp-south']).toMatchObject({ upstream: 'south' });
    expect(config.settings.profiles.site).not.toHaveProperty('upstream');
  });

  it('leaves `upstreams` out of the settings when the file has none (one account, default)', () => {
    // Act
    const config = parseDeployConfig(MINIMAL);

    // Assess
    expect('upstreams' in config.settings).toBe(false);
  });

  it('refuses credentials inside an account, naming the path and not the value', () => {
    // Act
    const message = problemsOf({
      ...MINIMAL,
      upstreams: { south: { ...SOUTH, username: 'south-gym', password: 'hunter2' } },
    });

    // Assess
    expect(message).toContain('  upstreams.south.username: um valor secreto não fica');
    expect(message).toContain('  upstreams.south.password: um valor secreto não fica');
    expect(message).not.toContain('south-gym');
    expect(message).not.toContain('hunter2');
  });

  it('refuses a profile that names an account which is not configured, listing the accounts', () => {
    // Act
    const message = problemsOf({
      ...MINIMAL,
      upstreams: { south: SOUTH },
      profiles: {
        site: { source: 'form', defaults: { idBranch: 1 } },
        'lp-north': { source: 'prospect', upstream: 'north' },
      },
    });

    // Assess
    expect(message).toBe(
      'Configuração inválida em deploy.json:\n  profiles.lp-north.upstream: nomeia a conta "north", que não está configurada (contas: "default", "south")',
    );
  });

  it('refuses an account named `default` (that is `upstream`) and names that break the pattern', () => {
    // Act
    const clash = problemsOf({ ...MINIMAL, upstreams: { default: SOUTH } });
    const badName = problemsOf({ ...MINIMAL, upstreams: { South_1: SOUTH } });

    // Assess
    expect(clash).toContain(
      '  upstreams.default: "default" é a conta de "upstream" (e de "report"): dê outro nome a esta',
    );
    expect(badName).toContain(
      '  upstreams.South_1: o nome de uma conta tem de 1 a 32 letras minúsculas, dígitos e -',
    );
  });

  it('refuses unknown keys in an account, naming the closest known one', () => {
    // Act
    const message = problemsOf({
      ...MINIMAL,
      upstreams: { south: { ...SOUTH, maxPerSecnd: 3 } },
    });

    // Assess
    expect(message).toContain(
      '  upstreams.south.maxPerSecnd: chave desconhecida: você quis dizer "maxPerSecond"?',
    );
  });
});
