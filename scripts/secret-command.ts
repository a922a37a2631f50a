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
import { askSecretValues, terminalAsk } from './secret-prompt.ts';

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

export async function secretsCommand(
  file: string,
  from: string | undefined,
  client: SecretsManagerClient,
): Promise<string[]> {
  const deploy = validateFile(file);
  const values =
    from === undefined
      ? await askSecretValues(client, deploy.secretsPrefix, deploy.settings, terminalAsk())
      : readValues(from);
  const result = await fillSecrets(client, deploy.secretsPrefix, deploy.settings, values, (p) =>
    hashPassword(p),
  );
  return fillLines(result);
}
