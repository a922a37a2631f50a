/**
 * One configuration mistake reads the same wherever it is made: the local loader (`npm start`),
 * a reload of the local file, `npm run config -- validate --local FILE`, `npm run config --
 * validate FILE` (a deploy file) and the configuration store's validator function. Each mistake
 * of the table is made once in a local configuration; the deploy file and the store's settings
 * are derived from it as an operator would write them (no secret value), and every path must
 * print the same lines, the expected ones.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfigFile } from '../../functions/config/config-local.ts';
import { PROFILE_RULES } from '../../functions/config/profile-rules.ts';
import { validateSettingsText } from '../../functions/config/validator/validate.ts';
import { secretKeysOf } from '../../functions/sources/registry.ts';
import { reloadConfig } from '../../local/runtime-config.ts';
import { validateCommand } from '../../scripts/config-store.ts';

// biome-ignore lint/suspicious/noExplicitAny: configurations broken on purpose, any shape
type Json = Record<string, any>;

const dir = mkdtempSync(join(tmpdir(), 'leads-validation-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ACCOUNT = { baseUrl: 'https://evo.example.com', maxPerSecond: 4, maxPerMinute: 36 };

/** A valid local configuration: two accounts, a form profile and the Prospect API. */
function local(): Json {
  return {
    upstream: { ...ACCOUNT, username: 'gym', password: 'key' },
    upstreams: { south: { ...ACCOUNT, username: 'south', password: 'key-s' } },
    clients: [{ username: 'ops', password: 'ops-secret', roles: ['admin'] }],
    profiles: {
      site: { source: 'form', token: 'site-token', defaults: { idBranch: 1 } },
      api: { source: 'prospect' },
    },
    report: { branches: [1] },
  };
}

/** The same configuration without any secret value (what AppConfig stores). */
function settingsOf(config: Json): Json {
  const { clients: _clients, ...settings } = structuredClone(config);
  const withoutCredentials = (account: Json) => {
    const { username: _u, password: _p, ...rest } = account;
    return rest;
  };
  if (settings.upstream) settings.upstream = withoutCredentials(settings.upstream);
  for (const [name, account] of Object.entries(settings.upstreams ?? {})) {
    settings.upstreams[name] = withoutCredentials(account as Json);
  }
  for (const profile of Object.values(settings.profiles ?? {}) as Json[]) {
    for (const key of secretKeysOf(String(profile.source))) delete profile[key];
  }
  return settings;
}

/** The deploy file: the settings, a stage and who hears its alarms. */
function deployOf(config: Json): Json {
  return { stage: 'prod', alarmEmail: 'ops@example.com', ...settingsOf(config) };
}

let files = 0;
function write(content: unknown): string {
  const path = join(dir, `config-${++files}.json`);
  writeFileSync(path, JSON.stringify(content, null, 2));
  return path;
}

/** What a path printed: its heading and its problem lines. */
interface Printed {
  heading: string;
  lines: string[];
}

function printed(message: string): Printed {
  const [heading = '', ...lines] = message.split('\n');
  return { heading, lines };
}

function refusal(act: () => unknown): Printed {
  try {
    act();
  } catch (error) {
    return printed((error as Error).message);
  }
  throw new Error('accepted');
}

/** Every path, given the local configuration with the mistake made. */
function everyPath(config: Json): Record<string, Printed & { file?: string }> {
  const localFile = write(config);
  const deployFile = write(deployOf(config));
  // The reload: the runtime's live configuration, its file then edited.
  const live = {
    config: {} as never,
    configPath: write(local()),
    upstream: {},
    acceptUsers: undefined,
  };
  writeFileSync(live.configPath, JSON.stringify(config));
  const reloaded = reloadConfig(live);
  return {
    'npm start (the local loader)': {
      ...refusal(() => loadConfigFile(localFile)),
      file: localFile,
    },
    'a reload of the local file': {
      ...printed(reloaded?.message ?? 'accepted'),
      file: live.configPath,
    },
    'npm run config -- validate --local': {
      ...refusal(() => validateCommand(['--local', localFile])),
      file: localFile,
    },
    'npm run config -- validate (deploy file)': {
      ...refusal(() => validateCommand([deployFile])),
      file: deployFile,
    },
    "the store's validator function": refusal(() =>
      validateSettingsText(JSON.stringify(settingsOf(config)), PROFILE_RULES),
    ),
  };
}

const BRANCH_RULE =
  'um perfil precisa de "defaults.idBranch", de "forms.<id>.idBranch" em cada formulário, de um campo do lead mapeado para "idBranch" em "fieldMap", de uma fonte em que quem envia diz a unidade ("prospect") ou de unidades com nome na conta ("branches": o lead que responde "Qual unidade?" com um nome vai para ela); sem isso, todo lead dele fica parado sem unidade';

const MISTAKES: [string, (config: Json) => void, string[]][] = [
  [
    'a profile name that cannot be a URL',
    (c) => {
      c.profiles['LP-Centro'] = { source: 'form', token: 't', defaults: { idBranch: 2 } };
    },
    [
      '  profiles.LP-Centro: o nome de um perfil leva só letras minúsculas, dígitos, - e _ (é a URL /leads/<nome>): use "lp-centro"',
    ],
  ],
  [
    'a profile whose leads never get a branch',
    (c) => {
      c.profiles['lp-nova'] = { source: 'form', token: 't' };
    },
    [`  profiles.lp-nova: ${BRANCH_RULE}`],
  ],
  [
    'a profile with a form that gives no branch',
    (c) => {
      c.profiles['lp-forms'] = { source: 'form', token: 't', forms: { a: { idBranch: 2 }, b: {} } };
    },
    [`  profiles.lp-forms: ${BRANCH_RULE} (formulários sem "idBranch": forms.b)`],
  ],
  [
    'an unknown key, with the key it is a typo of',
    (c) => {
      c.profiles.site.default = c.profiles.site.defaults;
      delete c.profiles.site.defaults;
    },
    ['  profiles.site.default: chave desconhecida: você quis dizer "defaults"?'],
  ],
  [
    'an unknown key at the top level',
    (c) => {
      c.reprot = c.report;
      delete c.report;
    },
    ['  reprot: chave desconhecida: você quis dizer "report"?'],
  ],
  [
    'a profile naming an account that is not configured',
    (c) => {
      c.profiles.site.upstream = 'north';
    },
    [
      '  profiles.site.upstream: nomeia a conta "north", que não está configurada (contas: "default", "south")',
    ],
  ],
  [
    'an account named default',
    (c) => {
      c.upstreams.default = c.upstreams.south;
    },
    [
      '  upstreams.default: "default" é a conta de "upstream" (e de "report"): dê outro nome a esta',
    ],
  ],
  [
    'an unknown source',
    (c) => {
      c.profiles.api.source = 'myspace';
    },
    [expect.stringMatching(/^ {2}profiles\.api\.source: deve ser um de "form", "meta", .*"wix"$/)],
  ],
  [
    'a value out of range and a value of the wrong type',
    (c) => {
      c.upstream.maxPerSecond = 0;
      c.report.branches = 'all';
    },
    [
      '  upstream.maxPerSecond: deve ser maior que 0',
      '  report.branches: deve ser uma lista, não um texto',
    ],
  ],
  [
    'several mistakes at once, in the same order everywhere',
    (c) => {
      c.profiles.site.defaults.idBranch = 'one';
      c.profiles['lp-nova'] = { source: 'form', token: 't', fieldMap: { zap: 'telefone' } };
      c.delivery = { maxAttempts: 0, horizonHour: 72 };
    },
    [
      '  delivery.horizonHour: chave desconhecida: você quis dizer "horizonHours"?',
      '  delivery.maxAttempts: deve ser no mínimo 1',
      '  profiles.site.defaults.idBranch: deve ser um número, não um texto',
      expect.stringMatching(/^ {2}profiles\.lp-nova\.fieldMap\.zap: deve ser um de: fullName, /),
      `  profiles.lp-nova: ${BRANCH_RULE}`,
    ],
  ],
];

describe('the same mistake, the same words, on every path', () => {
  it.each(MISTAKES)('%s', (_name, mistake, expected) => {
    // Prepare
    const config = local();
    mistake(config);

    // Act
    const paths = everyPath(config);

    // Assess: each path names its place, then says exactly the expected lines
    for (const [path, { heading, lines, file }] of Object.entries(paths)) {
      expect(lines, path).toEqual(expected);
      const place = file ? `em ${file}` : 'nesta versão das configurações';
      expect(heading, path).toBe(`Configuração inválida ${place}:`);
    }
  });

  it('accepts the configuration the mistakes were made in, on every path', () => {
    const config = local();
    expect(loadConfigFile(write(config)).profiles.site).toMatchObject({ token: 'site-token' });
    expect(validateCommand(['--local', write(config)])).toBe(
      'válida: 2 conta(s), 2 perfil(is), 1 cliente(s)',
    );
    expect(validateCommand([write(deployOf(config))])).toMatch(
      /^válida: stage prod: 2 conta\(s\), 2 perfil\(is\), \d+\.\d KB de configurações$/,
    );
    expect(
      validateSettingsText(JSON.stringify(settingsOf(config)), PROFILE_RULES).profiles,
    ).toEqual(settingsOf(config).profiles);
  });

  it('keeps a local-only mistake (a missing secret) to the local paths, with the branch rule beside it', () => {
    // Prepare: a form profile without its token and without a branch
    const config = local();
    config.profiles['lp-nova'] = { source: 'form' };

    // Act
    const local_ = refusal(() => loadConfigFile(write(config)));
    const deploy = refusal(() => validateCommand([write(deployOf(config))]));

    // Assess
    expect(local_.lines).toEqual([
      '  profiles.lp-nova.token: é obrigatório (um texto)',
      `  profiles.lp-nova: ${BRANCH_RULE}`,
    ]);
    expect(deploy.lines).toEqual([`  profiles.lp-nova: ${BRANCH_RULE}`]);
  });

  it('is a ConfigError at start-up and at a reload, with the problems by key', () => {
    const config = local();
    config.profiles['lp-nova'] = { source: 'form', token: 't' };
    const error = (() => {
      try {
        loadConfigFile(write(config));
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      { field: 'profiles.lp-nova', message: BRANCH_RULE },
    ]);
  });
});
