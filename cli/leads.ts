/**
 * `npm run leads -- <command> [options]`: the operator CLI over the gateway's admin routes.
 *
 *   npm run leads -- list [--status parked] [--all]     leads that wait for an operator
 *   npm run leads -- show <leadId>
 *   npm run leads -- retry <leadId>
 *   npm run leads -- replay
 *   npm run leads -- refresh                             the debtors report, now
 *   npm run leads -- upstream [--upstream <name>]        circuit, pace and backlog per account
 *   npm run leads -- config validate|diff|push FILE      the configuration store (npm run config)
 *   npm run leads -- config rollback FILE [--to N]
 *
 * Global options: `--url` (default LEADS_URL, else http://127.0.0.1:3000, what `npm start`
 * serves), `--user` (default LEADS_USER), `--json` (the gateway's answers as JSON). The password
 * is read from LEADS_PASSWORD only, so that it stays out of the shell history and the process
 * list; it is never printed. Exit codes: 0 done, 1 the gateway refused or could not be reached,
 * 2 a wrong command line. Commands live in cli/commands/.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
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
} as const satisfies Options;

/** Global options that take a value, skipped when looking for the command's words. */
const TAKES_VALUE = new Set(['--url', '--user']);

function help(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.usage.length));
  return [
    'usage: npm run leads -- <command> [--url <gateway>] [--user <name>] [--json]',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    '',
    `--url   the gateway (default LEADS_URL, else ${DEFAULT_URL})`,
    '--user  an API client with the admin role (default LEADS_USER)',
    '--json  print the answers as JSON',
    'The password is read from LEADS_PASSWORD, never from the command line.',
  ].join('\n');
}

/** The command whose words start the command line (global options may come first). */
function findCommand(
  args: readonly string[],
  commands: readonly Command[],
): { command: Command; rest: string[] } | undefined {
  const words: number[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (TAKES_VALUE.has(arg)) i += 1;
    else if (arg.startsWith('-')) continue;
    else words.push(i);
  }
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
      const wantsHelp = args.length === 0 || args.some((a) => ['help', '--help', '-h'].includes(a));
      if (wantsHelp) {
        io.out(help(commands));
        return 0;
      }
      throw usageError(`unknown command: ${args.filter((a) => !a.startsWith('-')).join(' ')}`);
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
      throw usageError(`${(error as Error).message}\nusage: npm run leads -- ${command.usage}`);
    }
    const { values, positionals } = parsed;
    if (values.help) {
      io.out(`usage: npm run leads -- ${command.usage}\n${command.summary}`);
      return 0;
    }
    json = values.json === true;
    const [least, most] = command.positionals ?? [0, 0];
    if (positionals.length < least || positionals.length > most) {
      throw usageError(`usage: npm run leads -- ${command.usage}`);
    }
    const url = (values.url as string | undefined) ?? env.LEADS_URL ?? DEFAULT_URL;
    if (!URL.canParse(url) || !/^https?:/.test(url)) {
      throw usageError(`--url must be an http(s) URL, got "${url}"`);
    }
    const user = (values.user as string | undefined) ?? env.LEADS_USER;
    const password = env.LEADS_PASSWORD;
    if (user !== undefined && !password) {
      throw usageError(`set LEADS_PASSWORD to the password of ${user}`);
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
    io.err(`error: ${error.message}`);
    for (const detail of error.details) io.err(`  ${detail}`);
    if (error.exitCode === 2 && !error.message.startsWith('usage:')) {
      io.err('(npm run leads -- help lists the commands)');
    }
    return error.exitCode;
  }
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename;
if (isMain) process.exitCode = await main(process.argv.slice(2));
