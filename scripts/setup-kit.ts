/**
 * `npm run setup-kit`: writes the set-up kit of every lead source into docs/sources.md (between
 * the `setup-kit` markers), from each source's own recipe (`setup` in functions/sources/*.ts) and
 * its profile in the demo configuration (config/demo.json), so that every curl works against
 * `npm start` as it is. A source without a demo profile still gets its steps and secrets; one
 * without a recipe gets its URL. `--check` writes nothing and exits 1 when the committed section
 * is not the one the code makes (a test runs it).
 *
 * A deployed stack's console (`GET /admin/setup`, the "Conectar plataformas" page) prints the
 * same kits with the stack's URLs, and its curls read the secrets from Secrets Manager.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SOURCES } from '../functions/sources/registry.ts';
import { type KitSource, type ProfileKit, profileKit } from '../functions/sources/setup.ts';

const ROOT = join(import.meta.dirname, '..');
export const SOURCES_DOC = join(ROOT, 'docs', 'sources.md');
const DEMO_CONFIG = join(ROOT, 'config', 'demo.json');
const BASE_URL = 'http://127.0.0.1:3000';
export const START = '<!-- setup-kit:start (npm run setup-kit writes this part) -->';
export const END = '<!-- setup-kit:end -->';

interface Demo {
  clients: { username: string; password?: string; roles: string[] }[];
  profiles: Record<string, { source: string } & Record<string, unknown>>;
}

function fence(language: string, text: string): string {
  return [`\`\`\`${language}`, text, '```'].join('\n');
}

function kitMarkdown(kit: ProfileKit | undefined, source: KitSource<unknown>): string {
  const lines: string[] = [`### ${source.label} (\`${source.name}\`)`, ''];
  if (!kit) {
    lines.push(
      `No profile of config/demo.json uses this source. Add one; then \`GET /admin/setup\` (or the console's "Conectar plataformas" page) gives its URL, steps, secrets and a signed curl.`,
    );
    for (const [index, step] of (source.setup?.steps ?? []).entries()) {
      lines.push(`${index === 0 ? '\n' : ''}${index + 1}. ${step}`);
    }
    return lines.join('\n');
  }
  lines.push(`Demo profile \`${kit.profile}\`. The URL to paste: \`${kit.url}\``, '');
  kit.steps.forEach((step, index) => {
    lines.push(`${index + 1}. ${step}`);
  });
  if (kit.secrets.length > 0) {
    lines.push('', '| Secret | What it is | Where it lives |', '| --- | --- | --- |');
    for (const secret of kit.secrets) {
      lines.push(
        `| \`${secret.key}\` | ${secret.what.replaceAll('|', '\\|')} | ${secret.where.replaceAll('|', '\\|')} |`,
      );
    }
  }
  if (kit.curl)
    lines.push('', 'A sample lead, signed as the platform signs it:', '', fence('sh', kit.curl));
  if (kit.htmlForm) {
    lines.push(
      '',
      'A ready form for a plain landing page (token, honeypot, redirect):',
      '',
      fence('html', kit.htmlForm),
    );
  }
  if (kit.notes.length > 0) lines.push('', ...kit.notes.map((note) => `- ${note}`));
  return lines.join('\n');
}

/** The generated part of docs/sources.md. */
export function setupKitSection(): string {
  const demo = JSON.parse(readFileSync(DEMO_CONFIG, 'utf8')) as Demo;
  const writer = demo.clients.find((c) => c.roles.includes('prospects:write') && c.password);
  const context = {
    baseUrl: BASE_URL,
    secretsWhere: (profile: string) => `config/demo.json, profiles.${profile}`,
    secretValues: 'inline' as const,
    ...(writer?.password && {
      basicClient: { username: writer.username, password: writer.password },
    }),
  };
  const blocks = SOURCES.map((source) => {
    const entry = Object.entries(demo.profiles).find(
      ([, profile]) => profile.source === source.name,
    );
    const kitSource = source as unknown as KitSource<unknown>;
    const kit = entry ? profileKit(entry[0], entry[1], kitSource, context) : undefined;
    return kitMarkdown(kit, kitSource);
  });
  return [
    START,
    '',
    `Generated from each source's recipe and config/demo.json: every curl works against \`npm start\` (${BASE_URL}). A deployed stack gives the same kit for its own profiles at \`GET /admin/setup\` and on the console's "Conectar plataformas" page, with its URL (the stack output \`LeadUrlPattern\`) and curls that read each secret from Secrets Manager; the console shows a deployed secret only to an admin who asks for it, and rotates the ones we choose ([operations.md](operations.md#o-kit-de-conexão-conectar-plataformas)).`,
    '',
    blocks.join('\n\n'),
    '',
    END,
  ].join('\n');
}

/** docs/sources.md with its generated part replaced (appended when the markers are missing). */
export function sourcesDocText(current: string): string {
  const section = setupKitSection();
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  if (start < 0 || end < start) {
    return `${current.trimEnd()}\n\n## Set-up kit per platform\n\n${section}\n`;
  }
  return `${current.slice(0, start)}${section}${current.slice(end + END.length)}`;
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename;
if (isMain) {
  const current = readFileSync(SOURCES_DOC, 'utf8');
  const text = sourcesDocText(current);
  if (process.argv.includes('--check')) {
    if (text !== current) {
      process.stderr.write('docs/sources.md is out of date: run npm run setup-kit\n');
      process.exit(1);
    }
  } else {
    writeFileSync(SOURCES_DOC, text);
    process.stdout.write(`wrote ${SOURCES_DOC}\n`);
  }
}
