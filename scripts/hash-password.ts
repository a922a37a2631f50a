/**
 * `npm run hash-password`: reads a password from the first line of standard input and prints its
 * scrypt hash, for the `passwordHash` of a client in the clients secret. Pipe the password in
 * (`printf '%s\n' "$PW" | npm run -s hash-password`) to keep it off the screen.
 */
import { createInterface } from 'node:readline';
import { hashPassword } from '../functions/kernel/client-auth.ts';

async function readPassword(): Promise<string> {
  const lines = createInterface({ input: process.stdin, terminal: false });
  if (process.stdin.isTTY) process.stderr.write('Password (shown as you type): ');
  for await (const line of lines) return line;
  return '';
}

const password = await readPassword();
if (!password) {
  process.stderr.write('no password given\n');
  process.exit(1);
}
process.stdout.write(`${await hashPassword(password)}\n`);
