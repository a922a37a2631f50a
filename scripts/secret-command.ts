/**
 * `npm run config -- secrets FILE [--from VALUES]` (scripts/config.ts): the deploy file's settings
 * and secret prefix, the values from the file or the terminal's prompts, the fill, and the lines
 * to print (scripts/secret-fill.ts). Neither the values file's content nor a typed value is ever
 * part of a message.
 */
import { readFileSync } from 'node:fs';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { hashPassword } from '../functions/kernel/client-auth.ts';
import { validateFile } from './config-store.ts';
import { fillLines, fillSecrets, parseSecretValues, SecretValuesError } from './secret-fill.ts';
import { askSecretValues, terminalSession } from './secret-prompt.ts';

function readValues(from: string) {
  let text: string;
  try {
    text = readFileSync(from, 'utf8');
  } catch (error) {
    throw new SecretValuesError(
      `${from}: não consegui ler (${(error as NodeJS.ErrnoException).code ?? 'erro'})`,
    );
  }
  return parseSecretValues(text, from);
}

/** The values typed at the terminal's questions, the terminal given back as it was after. */
async function asked(client: SecretsManagerClient, deploy: ReturnType<typeof validateFile>) {
  const terminal = terminalSession();
  try {
    return await askSecretValues(client, deploy.secretsPrefix, deploy.settings, terminal.ask);
  } finally {
    terminal.close();
  }
}

export async function secretsCommand(
  file: string,
  from: string | undefined,
  client: SecretsManagerClient,
): Promise<string[]> {
  const deploy = validateFile(file);
  const values = from === undefined ? await asked(client, deploy) : readValues(from);
  const result = await fillSecrets(client, deploy.secretsPrefix, deploy.settings, values, (p) =>
    hashPassword(p),
  );
  return fillLines(result);
}
