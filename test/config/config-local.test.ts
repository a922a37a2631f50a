import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  ConfigError,
  createLocalConfigSource,
  loadConfigFile,
  localConfigSource,
  setLocalConfig,
} from '../../functions/config/config-local.ts';
import { REPO_ROOT } from '../helpers/gateway-process.ts';

const DEMO = join(REPO_ROOT, 'config/demo.json');
const dir = mkdtempSync(join(tmpdir(), 'leads-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Obj = Record<string, unknown>;
/** The demo file as loosely typed JSON, to break it in tests. */
interface Json {
  upstream: Obj;
  clients: [Obj, Obj, Obj];
  profiles: { site: Obj; meta: Obj; webflow: Obj };
}

function demo(): Json {
  return JSON.parse(readFileSync(DEMO, 'utf8')) as Json;
}

let files = 0;
function writeConfig(content: unknown): string {
  const path = join(dir, `config-${++files}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

/** The ConfigError thrown for a file, for assertions on its message. */
function errorFor(path: string): ConfigError {
  try {
    loadConfigFile(path);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`${path} loaded without error`);
}

/** The message for the demo configuration after `edit`. */
function problemsAfter(edit: (config: Json) => void): string {
  const config = demo();
  edit(config);
  const path = writeConfig(config);
  const error = errorFor(path);
  expect(error.message).toContain(path);
  return error.message;
}

describe('loadConfigFile', () => {
  it('loads and validates the committed demo configuration', () => {
    // Act
    const config = loadConfigFile(DEMO);

    // Assess
    expect(config.upstream).toMatchObject({
      baseUrl: 'http://127.0.0.1:4010',
      username: 'demo',
      password: 'demo',
      maxPerSecond: 4,
      maxPerMinute: 36,
    });
    expect(config.clients.map((c) => [c.username, c.roles])).toEqual([
      ['ops', ['prospects:write', 'report:read', 'admin']],
      ['reporter', ['report:read']],
      ['writer', ['prospects:write']],
    ]);
    expect(config.clients[0]?.password).toBe('ops-secret');
    expect(Object.keys(config.profiles)).toEqual([
      'site',
      'meta',
      'google',
      'typeform',
      'webflow',
      'rd',
      'unbounce',
      'elementor',
      'native',
      'whatsapp',
      'tiktok',
      'googleforms',
      'tally',
      'jotform',
      'hotmart',
      'hubspot',
      'kommo',
      'wordpress',
      'wix',
    ]);
    expect(config.profiles.site).toMatchObject({
      source: 'form',
      allowedOrigins: ['https://lp.example.com'],
      defaults: { idBranch: 1, marketingType: 'Site' },
      fieldMap: { qual_seu_cpf: 'cpf' },
    });
    expect(config.profiles.meta).toMatchObject({
      source: 'meta',
      graphBaseUrl: 'http://127.0.0.1:4010/graph',
      forms: { '1234567890': { idBranch: 3 } },
    });
    expect(config.profiles.rd?.source).toBe('rdstation');
    expect(config.profiles.native?.source).toBe('prospect');
    expect(config.report).toEqual({
      branches: [1, 2, 3],
      refreshSeconds: 900,
      timeZone: 'America/Sao_Paulo',
    });
  });

  it('names a missing upstream.password', () => {
    const message = problemsAfter((c) => {
      delete c.upstream.password;
    });
    expect(message).toMatch(/^\s*upstream\.password: é obrigatório \(um texto\)$/m);
  });

  it('names a base URL that is not a URL', () => {
    const message = problemsAfter((c) => {
      c.upstream.baseUrl = 'not a url';
    });
    expect(message).toMatch(/^\s*upstream\.baseUrl: deve ser uma URL válida$/m);
  });

  it('names a rate limit of 0', () => {
    const message = problemsAfter((c) => {
      c.upstream.maxPerSecond = 0;
    });
    expect(message).toMatch(/^\s*upstream\.maxPerSecond: deve ser maior que 0$/m);
  });

  it('names an unknown profile source and lists the known ones', () => {
    const message = problemsAfter((c) => {
      c.profiles.site.source = 'myspace';
    });
    expect(message).toMatch(/^\s*profiles\.site\.source: deve ser um de .*"form".*"prospect"/m);
  });

  it('names a Meta profile without appSecret', () => {
    const message = problemsAfter((c) => {
      delete c.profiles.meta.appSecret;
    });
    expect(message).toMatch(/^\s*profiles\.meta\.appSecret: é obrigatório/m);
  });

  it('names a client with neither password nor passwordHash', () => {
    const message = problemsAfter((c) => {
      delete c.clients[1].password;
    });
    expect(message).toMatch(/^\s*clients\.1: precisa de "password" ou de "passwordHash"$/m);
  });

  it('names an unknown role and lists the known ones', () => {
    const message = problemsAfter((c) => {
      c.clients[0].roles = ['admin', 'superuser'];
    });
    expect(message).toMatch(
      /^\s*clients\.0\.roles\.1: deve ser um de "prospects:write", "report:read", "admin"$/m,
    );
  });

  it('names a fieldMap target that is not a Prospect field', () => {
    const message = problemsAfter((c) => {
      c.profiles.site.fieldMap = { qual_seu_cpf: 'cpf', zap: 'telefoneX' };
    });
    expect(message).toMatch(/^\s*profiles\.site\.fieldMap\.zap: deve ser um de: .*phone/m);
  });

  it('names a dateOrder, a stand-in last name or a Webflow auth it cannot use', () => {
    const message = problemsAfter((c) => {
      c.profiles.site.dateOrder = 'YMD';
      c.profiles.site.lastNameStandIn = '  ';
      c.profiles.webflow.auth = 'none';
    });
    expect(message).toMatch(/^\s*profiles\.site\.dateOrder: deve ser um de "DMY", "MDY"$/m);
    expect(message).toMatch(/^\s*profiles\.site\.lastNameStandIn: não pode ficar vazio$/m);
    expect(message).toMatch(/^\s*profiles\.webflow\.auth: deve ser um de "signature", "token"$/m);
  });

  it('says what was received when a value has the wrong type', () => {
    const message = problemsAfter((c) => {
      c.upstream.username = 42;
    });
    expect(message).toMatch(/^\s*upstream\.username: deve ser um texto, não um número inteiro$/m);
  });

  it('lists every problem, one per line', () => {
    // Prepare
    const config = demo();
    delete config.upstream.password;
    config.upstream.maxPerMinute = -1;
    delete config.profiles.meta.verifyToken;

    // Act
    const error = errorFor(writeConfig(config));

    // Assess
    expect(error.problems.map((p) => p.field)).toEqual([
      'upstream.password',
      'upstream.maxPerMinute',
      'profiles.meta.verifyToken',
    ]);
    expect(error.message.split('\n')).toHaveLength(4);
  });

  it('reports invalid JSON with its line and column', () => {
    // Prepare
    const path = writeConfig('{\n  "upstream": {\n    "baseUrl": ,\n  }\n}\n');

    // Act
    const error = errorFor(path);

    // Assess
    expect(error.message).toMatch(/^JSON inválido em .*config-\d+\.json:\n/);
    expect(error.message).toContain("  falta o valor depois de ':' (linha 3, coluna 16)");
  });

  it('reports a missing file', () => {
    const error = errorFor(join(dir, 'nowhere.json'));
    expect(error.message).toMatch(/nowhere\.json/);
    expect(error.message).toMatch(
      /^Não foi possível ler a configuração em .*nowhere\.json:\n {2}o arquivo não existe$/,
    );
  });

  it('reports a directory given as the file', () => {
    expect(errorFor(dir).message).toMatch(/é uma pasta, não um arquivo/);
  });
});

describe('createLocalConfigSource', () => {
  const config = loadConfigFile(DEMO);
  const source = createLocalConfigSource(config);

  it('serves each part of the configuration', async () => {
    await expect(source.upstream()).resolves.toEqual(config.upstream);
    await expect(source.clients()).resolves.toBe(config.clients);
    await expect(source.report()).resolves.toBe(config.report);
    await expect(source.profile('site')).resolves.toBe(config.profiles.site);
  });

  it('answers undefined for unknown profiles, object prototype names included', async () => {
    await expect(source.profile('nope')).resolves.toBeUndefined();
    await expect(source.profile('constructor')).resolves.toBeUndefined();
    await expect(source.profile('__proto__')).resolves.toBeUndefined();
  });
});

describe('localConfigSource', () => {
  afterEach(() => setLocalConfig(undefined));

  it('fails clearly until a configuration is registered, then serves it', async () => {
    // Prepare: a source created before start-up, as a handler module would
    const source = localConfigSource();
    await expect(source.upstream()).rejects.toThrow(/setLocalConfig/);

    // Act
    const config = loadConfigFile(DEMO);
    setLocalConfig(config);

    // Assess
    await expect(source.upstream()).resolves.toEqual(config.upstream);
    await expect(source.profile('meta')).resolves.toBe(config.profiles.meta);
  });
});

describe('a renamed profile (formerly)', () => {
  it('answers to its former name: its settings, its token and its account', async () => {
    const config = demo();
    const { site, ...others } = config.profiles;
    const path = writeConfig({
      ...config,
      profiles: { ...others, 'site-new': { ...site, formerly: ['site'] } },
    });
    const source = createLocalConfigSource(loadConfigFile(path));
    expect(await source.profile('site')).toEqual(await source.profile('site-new'));
    expect((await source.profile('site'))?.source).toBe(site.source);
    expect(await source.currentName?.('site')).toBe('site-new');
    expect(await source.currentName?.('nowhere')).toBeUndefined();
    expect(await source.profileNames()).not.toContain('site');
  });

  it('refuses a former name still in use, or claimed by two profiles', () => {
    const inUse = problemsAfter((config) => {
      config.profiles.meta.formerly = ['site'];
    });
    expect(inUse).toContain('profiles.meta.formerly.0');
    expect(inUse).toContain("'site' ainda é o nome de um perfil");
    const twice = problemsAfter((config) => {
      config.profiles.meta.formerly = ['old'];
      config.profiles.webflow.formerly = ['old'];
    });
    expect(twice).toContain("'old' já é nome antigo do perfil 'meta'");
  });
});
