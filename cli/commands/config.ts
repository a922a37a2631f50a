/**
 * `config validate|diff|push|rollback FILE`: the deployed stack's settings in the configuration
 * store (`validate --local FILE`: a local configuration file, checked as npm start does), run
 * by `npm run config` (scripts/config.ts over scripts/config-store.ts,
 * docs/configuration.md) in a child process with the same environment (AWS credentials and
 * Region from the usual places). These commands talk to AWS, not to the gateway: --url and
 * --user do not apply.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Command } from '../command.ts';
import { CliError } from '../output.ts';

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'config.ts');
/** tsx from this repository's node_modules, whatever directory `leads` runs in. */
const TSX = import.meta.resolve('tsx');

/** Runs `npm run config -- ...args`; its lines go to the CLI's output, its failure is ours. */
export function runConfigScript(
  args: readonly string[],
  io: { out(text: string): void; err(text: string): void },
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, SCRIPT, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (out.trim()) io.out(out.trimEnd());
      if (code === 0) {
        if (err.trim()) io.err(err.trimEnd());
        resolve();
        return;
      }
      const [first = `npm run config -- ${args.join(' ')} falhou`, ...rest] = err
        .trimEnd()
        .split('\n');
      reject(new CliError(first, rest));
    });
  });
}

function configCommand(verb: string, summary: string, extra = ''): Command {
  return {
    name: `config ${verb}`,
    summary,
    usage: `config ${verb} ARQUIVO${extra}`,
    positionals: [1, 1],
    textOnly: true,
    ...(extra && { options: { to: { type: 'string' } } }),
    async run({ io }, { values, positionals }) {
      const to = values.to as string | undefined;
      await runConfigScript([verb, ...positionals, ...(to ? ['--to', to] : [])], io);
    },
  };
}

/** `config validate [--local] FILE`: `--local` checks a local file (secrets allowed) as npm start does. */
const validateCommand: Command = {
  ...configCommand(
    'validate',
    'Confere uma configuração de deploy com as regras das próprias funções (offline)',
  ),
  summary:
    'Confere uma configuração com as regras das próprias funções (offline; --local: um arquivo local)',
  usage: 'config validate [--local] ARQUIVO',
  options: { local: { type: 'boolean' } },
  async run({ io }, { values, positionals }) {
    await runConfigScript(['validate', ...(values.local ? ['--local'] : []), ...positionals], io);
  },
};

export const CONFIG_COMMANDS: readonly Command[] = [
  validateCommand,
  configCommand('diff', 'O que o push mudaria nas configurações implantadas'),
  configCommand(
    'push',
    'Grava e implanta as configurações como nova versão (cria os segredos que faltam)',
  ),
  configCommand(
    'rollback',
    'Implanta de novo uma versão anterior das configurações',
    ' [--to VERSÃO]',
  ),
];
