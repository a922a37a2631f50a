/**
 * `npm start`: the whole system on this machine. Environment (see CONTRACT.md): PORT (3000),
 * SANDBOX_PORT (4010; 0 = none), UPSTREAM_URL (no sandbox, use this upstream), LEADS_CONFIG
 * (config/demo.json), DATA_DIR (.data). Stops cleanly on SIGINT/SIGTERM.
 */
import { relative } from 'node:path';
import { ConfigError } from '../functions/config/config-local.ts';
import { type LocalRuntime, startLocalRuntime } from './runtime.ts';
import { readLocalEnv, StartupError } from './runtime-env.ts';

/** How long stopping may take before the process gives up and exits 1. */
const STOP_DEADLINE_MS = 15_000;

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? rel : path;
}

/**
 * A lead through the gateway, as a landing page sends it: to the first form profile with a
 * token (its demo token printed; any other left for the reader to fill in), then where to see it.
 */
function leadCurl(runtime: LocalRuntime): string[] {
  const { gatewayUrl, config } = runtime;
  const form = Object.entries(config.profiles).find(([, profile]) => profile.source === 'form');
  const token = form?.[1].source === 'form' ? form[1].token : undefined;
  if (!form || !token) return ['Check the gateway:', `  curl ${gatewayUrl}/health`];
  const [name] = form;
  const shownToken = token.startsWith('demo-') ? token : '<the profile token>';
  const body = 'nome=Ana+Souza&email=ana.souza@example.com&celular=11987654321';
  return [
    `Send a lead through the gateway (profile ${name}), then open it in the console:`,
    `  curl ${shellQuote(`${gatewayUrl}/leads/${name}?token=${shownToken}`)} -d ${shellQuote(body)}`,
    `  ${gatewayUrl}/admin/  (the console; the CLI: npm run leads -- list, LEADS_URL=${gatewayUrl})`,
  ];
}

/** The lines printed once everything is up. */
function banner(runtime: LocalRuntime): string {
  const { gatewayUrl, sandboxUrl, config } = runtime;
  const lines = [
    'Leads gateway running locally',
    `  gateway   ${gatewayUrl}`,
    `  health    ${gatewayUrl}/health`,
    sandboxUrl
      ? `  sandbox   ${sandboxUrl}  (the upstream stand-in)`
      : `  upstream  ${config.upstream.baseUrl}`,
    `  config    ${shown(runtime.configPath)}`,
    `  data      ${shown(runtime.dataDir)}`,
    '',
  ];
  lines.push(...leadCurl(runtime));
  if (runtime.lookupPermission === 'forbidden') {
    lines.push(
      '',
      'WARNING: the upstream key may not look prospects up ("Prospects - Consulta").',
      '  A POST that gets no answer cannot be checked before it is sent again, so a crash or',
      '  timeout at the wrong moment can create the same prospect twice. Tick the permission in',
      '  the upstream, or set "ambiguous": "park" on profiles to park such leads for a person.',
    );
  }
  lines.push('', 'Ctrl+C stops everything.');
  return lines.join('\n');
}

function fail(error: unknown): never {
  if (error instanceof ConfigError || error instanceof StartupError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`cannot start: ${error instanceof Error ? error.stack : error}\n`);
  }
  process.exit(1);
}

function main(): void {
  const starting = startLocalRuntime(readLocalEnv(), {
    log: (line) => process.stdout.write(`[gateway] ${line}\n`),
    onConfigReload: ({ error, warnings = [], woken }) => {
      if (error) {
        process.stderr.write(
          `[config] ${error.message}\n[config] still running the previous version\n`,
        );
      } else {
        for (const warning of warnings) process.stderr.write(`[config] ${warning}\n`);
        process.stdout.write('[config] reloaded: the new version is in use\n');
        if (woken) {
          process.stdout.write(
            `[config] ${woken} lead(s) que aguardavam um perfil de volta à configuração seguem para entrega\n`,
          );
        }
      }
    },
  });

  // Installed first, so that a signal during start-up also stops whatever has started.
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write(`${signal} again: exiting without waiting\n`);
      process.exit(1);
    }
    stopping = true;
    process.stdout.write(`${signal}: stopping...\n`);
    setTimeout(() => {
      process.stderr.write(`still stopping after ${STOP_DEADLINE_MS / 1000} s: exiting\n`);
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    starting
      .then((runtime) => runtime.stop())
      .then(
        () => {
          process.stdout.write('stopped\n');
          process.exit(0);
        },
        (error: unknown) => {
          process.stderr.write(
            `stopped with errors: ${error instanceof Error ? error.stack : error}\n`,
          );
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);

  starting.then((runtime) => {
    if (!stopping) process.stdout.write(`${banner(runtime)}\n`);
  }, fail);
}

try {
  main();
} catch (error) {
  fail(error);
}
