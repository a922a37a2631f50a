/**
 * The prompts of `npm run config -- secrets FILE` on a terminal (scripts/secret-fill.ts): one
 * question per key that still holds REPLACE_ME, read with echo off (nothing typed or pasted is
 * shown, and Enter on an empty answer leaves the key as it is), then the API clients (a
 * username, its password with echo off, its roles). Questions go to stderr, so stdout holds
 * only the results.
 */

import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Settings } from '../functions/config/config-aws.ts';
import { ROLES } from '../functions/kernel/client-schema.ts';
import {
  emptyValues,
  entryIn,
  keysToFill,
  readEntries,
  type SecretValues,
  slot,
} from './secret-fill.ts';
import { neededEntries } from './secret-store.ts';

/** Reads one answer; `hidden`: echo off. */
export type Ask = (label: string, options?: { hidden?: boolean }) => Promise<string>;

/**
 * Questions on a terminal: raw mode from the start to `close()` (so nothing typed ahead, or
 * pasted with several lines, is ever echoed by the terminal between two questions), each key
 * read as typed and echoed only when the question is not hidden.
 */
export function terminalSession(
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
): { ask: Ask; close(): void } {
  input.setRawMode(true);
  input.setEncoding('utf8');
  /** Keys read but not yet answered (typed ahead of the question). */
  let pending = '';
  let waiting: ((chunk: string) => void) | undefined;
  const onData = (chunk: Buffer | string) => {
    pending += String(chunk);
    waiting?.(pending);
  };
  input.on('data', onData);
  input.resume();
  const ask: Ask = (label, { hidden = false } = {}) =>
    new Promise((resolve, reject) => {
      output.write(label);
      let value = '';
      const take = () => {
        while (pending.length > 0) {
          const char = pending[0] as string;
          pending = pending.slice(1);
          if (char === '\r' || char === '\n' || char === '\u0004') {
            // A pasted CRLF is one Enter.
            if (char === '\r' && pending[0] === '\n') pending = pending.slice(1);
            waiting = undefined;
            output.write('\n');
            return resolve(value);
          }
          if (char === '\u0003') {
            waiting = undefined;
            output.write('\n');
            return reject(new Error('cancelado: nada foi gravado'));
          }
          if (char === '\u007f' || char === '\b') {
            if (value.length > 0 && !hidden) output.write('\b \b');
            value = value.slice(0, -1);
          } else if (char >= ' ') {
            value += char;
            if (!hidden) output.write(char);
          }
        }
      };
      waiting = take;
      take();
    });
  const close = () => {
    input.off('data', onData);
    input.setRawMode(false);
    input.pause();
  };
  return { ask, close };
}

/** A client's roles, asked again until each is one of ROLES. */
async function askRoles(username: string, ask: Ask): Promise<string[]> {
  for (;;) {
    const answer = await ask(`cliente "${username}", papéis (${ROLES.join(', ')}) [admin]: `);
    const roles = (answer.trim() || 'admin').split(',').map((role) => role.trim());
    if (roles.every((role) => (ROLES as readonly string[]).includes(role))) return roles;
  }
}

/** Asks for every key still to fill in, then for API clients; empty answers are skipped. */
export async function askSecretValues(
  client: SecretsManagerClient,
  prefix: string,
  settings: Settings,
  ask: Ask,
): Promise<SecretValues> {
  const values = emptyValues();
  const needed = neededEntries(prefix, settings);
  const shards = await readEntries(client, needed);
  for (const entry of needed) {
    for (const key of keysToFill(entry, entryIn(shards, entry.where))) {
      const what = entry.kind === 'account' ? 'conta' : 'perfil';
      const answer = await ask(`${what} "${entry.where.entry}", ${key} (Enter pula): `, {
        hidden: true,
      });
      if (answer.trim() === '') continue;
      const group = entry.kind === 'account' ? values.accounts : values.profiles;
      slot(group, entry.where.entry)[key] = answer;
    }
  }
  for (;;) {
    const username = (await ask('cliente da API: nome de usuário (Enter termina): ')).trim();
    if (username === '') break;
    const password = await ask(`cliente "${username}", senha (Enter pula o cliente): `, {
      hidden: true,
    });
    if (password === '') continue;
    values.clients[username] = { password, roles: await askRoles(username, ask) };
  }
  return values;
}
