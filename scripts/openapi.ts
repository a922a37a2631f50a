/**
 * `npm run openapi`: writes docs/openapi.json, the document `GET /openapi.json` serves, from the
 * route table and the handlers' schemas (scripts/openapi-document.ts). `--check` writes nothing
 * and exits 1 when the committed file is not the one the code makes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiText } from './openapi-document.ts';

export const OPENAPI_FILE = join(import.meta.dirname, '..', 'docs', 'openapi.json');

const text = openApiText();
if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(OPENAPI_FILE, 'utf8');
  } catch {}
  if (committed !== text) {
    process.stderr.write('docs/openapi.json is out of date: run npm run openapi\n');
    process.exit(1);
  }
} else {
  writeFileSync(OPENAPI_FILE, text);
  process.stdout.write(`wrote ${OPENAPI_FILE}\n`);
}
