/**
 * What a CLI command is. A command declares its words (`list`, `config validate`), its usage, its
 * own options (node's util.parseArgs format) and how many positionals it takes, and runs with an
 * API client and the output. To add one: a file in cli/commands/ and a line in
 * cli/commands/index.ts.
 */
import type { ParseArgsConfig } from 'node:util';
import type { ApiClient } from './client.ts';
import type { Io } from './output.ts';

export type Options = NonNullable<ParseArgsConfig['options']>;

export interface CommandContext {
  /** The gateway, with the caller's Basic credentials. */
  api(): ApiClient;
  io: Io;
  /** `--json`: print the gateway's answers as JSON, nothing else. */
  json: boolean;
}

export interface CommandInput {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

export interface Command {
  /** The words that select it, space-separated: `list`, `config validate`. */
  name: string;
  summary: string;
  /** After `npm run leads --`: `show <leadId>`. */
  usage: string;
  options?: Options;
  /** Positional arguments after the command's words: [least, most]. Default [0, 0]. */
  positionals?: readonly [number, number];
  /** It prints text only (what another program says): `--json` is refused, not ignored. */
  textOnly?: boolean;
  run(context: CommandContext, input: CommandInput): Promise<void>;
}
