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
  profiles: { site: { source: 'form' } },
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
    expect(message).toContain('stage: is required');
  });

  it('defaults secret prefix, API limits and report, and normalises profiles', () => {
    // Act
    const config = parseDeployConfig({
      ...MINIMAL,
      stage: 'staging',
      profiles: { meta: { source: 'meta' } },
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
    expect(message).toContain('upstream.password: secret values do not belong');
    expect(message).toContain('clients: secret values do not belong');
    expect(message).toContain('profiles.site.token: secret values do not belong');
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
        site: { source: 'form', redirectUrl: 'nowhere' },
        Bad: { source: 'form' },
      },
    });

    // Assess
    expect(message).toMatch(/^invalid deploy configuration in deploy\.json:/);
    expect(message).toContain('stage: lower-case letters, digits and -');
    expect(message).toContain('upstream.baseUrl:');
    expect(message).toContain('profiles.Bad: profile names are lower-case');
  });

  it('checks each profile with the full profile schema', () => {
    // Act
    const message = problemsOf({
      ...MINIMAL,
      profiles: { site: { source: 'form', redirectUrl: 'nowhere', defaults: { idBranch: 'x' } } },
    });

    // Assess
    expect(message).toContain('profiles.site.redirectUrl:');
    expect(message).toContain('profiles.site.defaults.idBranch:');
  });

  it('refuses unknown top-level keys (typos)', () => {
    // Act
    const message = problemsOf({ ...MINIMAL, stgae: 'dev' });

    // Assess
    expect(message).toContain('stgae');
  });

  it('names a file that is missing or not JSON', () => {
    // Prepare
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{ "stage": ');

    // Act / Assess
    expect(() => loadDeployConfig(join(dir, 'missing.json'))).toThrow(/missing\.json.*\n.*ENOENT/);
    expect(() => loadDeployConfig(broken)).toThrow(/invalid JSON in .*broken\.json/);
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
      'alarmEmail: must be an email address',
    );
  });

  it('refuses a stage that names no address: its alarms would go to a topic nobody reads', () => {
    // Act
    const message = problemsOf(withoutEmail);

    // Assess
    expect(message).toContain('alarmEmail: required for stage "prod"');
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
      'noAlarmEmail: give alarmEmail or noAlarmEmail, not both',
    );
    expect(problemsOf({ ...withoutEmail, noAlarmEmail: 'pager' })).toContain(
      'noAlarmEmail: say in a few words why no address gets the alarms',
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
        site: { source: 'form' },
        'lp-south': { source: 'form', upstream: 'south' },
        'lp-default': { source: 'form', upstream: 'default' },
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
    expect(message).toContain('upstreams.south.username: secret values do not belong');
    expect(message).toContain('upstreams.south.password: secret values do not belong');
    expect(message).not.toContain('south-gym');
    expect(message).not.toContain('hunter2');
  });

  it('refuses a profile that names an account which is not configured, listing the accounts', () => {
    // Act
    const message = problemsOf({
      ...MINIMAL,
      upstreams: { south: SOUTH },
      profiles: { site: { source: 'form' }, 'lp-north': { source: 'form', upstream: 'north' } },
    });

    // Assess
    expect(message).toMatch(/^invalid deploy configuration in deploy\.json:/);
    expect(message).toContain(
      'profiles.lp-north.upstream: names the account "north", which is not configured (accounts: "default", "south")',
    );
  });

  it('refuses an account named `default` (that is `upstream`) and names that break the pattern', () => {
    // Act
    const clash = problemsOf({ ...MINIMAL, upstreams: { default: SOUTH } });
    const badName = problemsOf({ ...MINIMAL, upstreams: { South_1: SOUTH } });

    // Assess
    expect(clash).toContain('upstreams.default: "default" is the account of "upstream"');
    expect(badName).toContain(
      'upstreams.South_1: account names are 1 to 32 lower-case letters, digits and -',
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
      'upstreams.south.maxPerSecnd: unknown key: did you mean "maxPerSecond"?',
    );
  });
});
