/**
 * `leads <command> [options]` (package.json's bin, bin/leads.js; `npm run -s leads -- <command>`
 * in the repository): the operator CLI over the gateway's admin routes.
 *
 *   leads list [--status parked] [--all]     leads that wait for an operator
 *   leads show <leadId>
 *   leads retry <leadId>
 *   leads move <leadId> <profile>            to another profile of its source
 *   leads replay
 *   leads refresh                             the debtors report, now
 *   leads upstream [--upstream <name>]        circuit, pace and backlog per account
 *   leads config validate|diff|push FILE      the configuration store (npm run config)
 *   leads config rollback FILE [--to N]
 *   leads help [<command>], <command> --help, --version
 *
 * Global options: `--url` (default LEADS_URL, else http://127.0.0.1:3000, what `npm start`
 * serves), `--user` (default LEADS_USER), `--json` (the gateway's answers as JSON, and nothing
 * else on stdout: messages go to stderr, so `leads list --json | jq` reads clean JSON). The
 * password is read from LEADS_PASSWORD only, so that it stays out of the shell history and the
 * process list; it is never printed. Exit codes: 0 done (help and --version included), 1 the
 * gateway refused or could not be reached, 2 a wrong command line. Commands live in
 * cli/commands/.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pkg from '../package.json' with { type: 'json' };
import { ApiClient } from './client.ts';
import type { Command, Options } from './command.ts';
import { COMMANDS } from './commands/index.ts';
import { CliError, type Io, usageError } from './output.ts';

export const DEFAULT_URL = 'http://127.0.0.1:3000';

const GLOBAL_OPTIONS = {
  url: { type: 'string' },
  user: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const satisfies Options;

/** How the commands are written in usage lines: `npm run -s leads -- list`, or `leads list`. */
const PROGRAM = 'npm run -s leads --';

/** Global options that take a value, skipped when looking for the command's words. */
const TAKES_VALUE = new Set(['--url', '--user']);

const GLOBAL_HELP = [
  `--url      o gateway (padrão: LEADS_URL, senão ${DEFAULT_URL})`,
  '--user     um cliente da API com o papel admin (padrão: LEADS_USER)',
  '--json     imprime as respostas em JSON, e nada mais na saída padrão',
  '--help     esta ajuda; <comando> --help: a ajuda de um comando',
  '--version  a versão do gateway a que esta CLI pertence',
  'A senha vem de LEADS_PASSWORD, nunca da linha de comando.',
];

function help(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.usage.length));
  return [
    `uso: ${PROGRAM} <comando> [--url <gateway>] [--user <nome>] [--json]`,
    '     leads <comando> ...  (o mesmo comando pelo bin: npx --no-install leads, ou npm link)',
    '',
    'comandos:',
    ...commands.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    '',
    ...GLOBAL_HELP,
  ].join('\n');
}

function commandHelp(command: Command): string {
  return [`uso: ${PROGRAM} ${command.usage}`, command.summary, '', ...GLOBAL_HELP].join('\n');
}

/**
 * node's parseArgs refusal (English) said in Portuguese: its error code and the option it quotes;
 * a refusal we do not know is passed on as node says it.
 */
function optionProblem(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const quoted = /'([^']+)'/.exec(message ?? '')?.[1] ?? '';
  const option = quoted.split(' ')[0];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `opção desconhecida: ${option}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return /does not take/.test(message ?? '')
      ? `a opção ${option} não recebe valor`
      : `a opção ${option} precisa de um valor`;
  }
  return String(message ?? error);
}

/** Where the words are (command names and positionals), skipping options and their values. */
function wordsAt(args: readonly string[]): number[] {
  const words: number[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (TAKES_VALUE.has(arg)) i += 1;
    else if (!arg.startsWith('-')) words.push(i);
  }
  return words;
}

/** The command whose words start the command line (global options may come first). */
function findCommand(
  args: readonly string[],
  commands: readonly Command[],
): { command: Command; rest: string[] } | undefined {
  const words = wordsAt(args);
  const byLength = [...commands].sort(
    (a, b) => b.name.split(' ').length - a.name.split(' ').length,
  );
  for (const command of byLength) {
    const names = command.name.split(' ');
    const picked = words.slice(0, names.length);
    if (picked.length === names.length && picked.every((at, n) => args[at] === names[n])) {
      return { command, rest: args.filter((_, i) => !picked.includes(i)) };
    }
  }
  return undefined;
}

/**
 * A command line that names no command: the help (`help`, `--help`, nothing at all; `help
 * <command>` and `config --help` narrow it to those commands), the version, or a usage error.
 */
function withoutCommand(args: readonly string[], commands: readonly Command[]): string {
  const words = wordsAt(args).map((at) => args[at] as string);
  const asked = words[0] === 'help' ? words.slice(1) : words;
  const wantsHelp = words[0] === 'help' || args.some((a) => a === '--help' || a === '-h');
  if (!wantsHelp && args.some((a) => a === '--version' || a === '-v')) return pkg.version;
  if (args.length === 0 || (wantsHelp && asked.length === 0)) return help(commands);
  if (asked.length === 0) throw usageError('nenhum comando informado');
  const under = commands.filter((c) => asked.every((word, n) => c.name.split(' ')[n] === word));
  if (!wantsHelp || under.length === 0) {
    throw usageError(`comando desconhecido: ${asked.join(' ')}`);
  }
  return under.length === 1 ? commandHelp(under[0] as Command) : help(under);
}

export interface MainOptions {
  env?: NodeJS.ProcessEnv;
  io?: Io;
  commands?: readonly Command[];
  fetch?: typeof fetch;
}

/** Runs one command line; resolves the exit code. */
export async function main(args: readonly string[], options: MainOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  const io = options.io ?? {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
  };
  const commands = options.commands ?? COMMANDS;
  let json = args.includes('--json');
  try {
    const found = findCommand(args, commands);
    if (!found) {
      io.out(withoutCommand(args, commands));
      return 0;
    }
    const { command, rest } = found;
    let parsed: ReturnType<typeof parseArgs>;
    try {
      parsed = parseArgs({
        args: rest,
        options: { ...GLOBAL_OPTIONS, ...command.options },
        allowPositionals: true,
        strict: true,
      });
    } catch (error) {
      throw usageError(`${optionProblem(error)}\nuso: ${PROGRAM} ${command.usage}`);
    }
    const { values, positionals } = parsed;
    if (values.help || values.version) {
      io.out(values.help ? commandHelp(command) : pkg.version);
      return 0;
    }
    json = values.json === true;
    if (json && command.textOnly) {
      throw usageError(`${command.name} só imprime texto: --json não se aplica a ele`);
    }
    const [least, most] = command.positionals ?? [0, 0];
    if (positionals.length < least || positionals.length > most) {
      throw usageError(`uso: ${PROGRAM} ${command.usage}`);
    }
    const url = (values.url as string | undefined) ?? env.LEADS_URL ?? DEFAULT_URL;
    if (!URL.canParse(url) || !/^https?:/.test(url)) {
      throw usageError(`--url precisa ser uma URL http(s), veio "${url}"`);
    }
    const user = (values.user as string | undefined) ?? env.LEADS_USER;
    const password = env.LEADS_PASSWORD;
    if (user !== undefined && !password) {
      throw usageError(`defina LEADS_PASSWORD com a senha de ${user}`);
    }
    const credentials = user !== undefined && password ? { user, password } : undefined;
    let client: ApiClient | undefined;
    await command.run(
      {
        api: () => {
          client ??= new ApiClient(url, credentials, options.fetch);
          return client;
        },
        io,
        json,
      },
      { values, positionals },
    );
    return 0;
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    if (json && error.body !== undefined) io.out(JSON.stringify(error.body, null, 2));
    io.err(`erro: ${error.message}`);
    for (const detail of error.details) io.err(`  ${detail}`);
    if (error.exitCode === 2 && !error.message.startsWith('uso:')) {
      io.err(`(${PROGRAM} help lista os comandos)`);
    }
    return error.exitCode;
  }
}

/**
 * This process's command line, as `leads` (bin/leads.js) and `tsx cli/leads.ts` run it. A reader
 * that closes the pipe early (`leads list --json | head`) ends it quietly, not with a stack.
 */
export async function runFromProcess(): Promise<void> {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
  process.exitCode = await main(process.argv.slice(2));
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename;
if (isMain) await runFromProcess();
