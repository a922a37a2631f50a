/**
 * Rooms a newcomer can hold: every function at most 150 lines, every file at most 600, in the
 * folders people read (functions/, infra/, local/, sandbox/, cli/, scripts/, bench/), measured
 * with TypeScript's own parser (a function's lines: from its first line to its last, comments
 * inside included).
 * And imports point where things live: no file re-exports names of another module (`export
 * ... from`, or `export { x }` of an imported x), save the boundaries in REEXPORT_EXCEPTIONS.
 * `npm test` runs both (test/ci/rooms.test.ts, test/ci/reexports.test.ts); `npx tsx
 * scripts/rooms.ts` prints what is over or re-exported.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export const MAX_FUNCTION_LINES = 150;
export const MAX_FILE_LINES = 600;
export const ROOM_FOLDERS = [
  'functions',
  'infra',
  'local',
  'sandbox',
  'cli',
  'scripts',
  'bench',
] as const;

export interface Oversize {
  file: string;
  /** The function's name (`<anonymous>` for one without), or undefined for the whole file. */
  name?: string;
  line?: number;
  lines: number;
  limit: number;
}

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|mts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name))
    return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name))
    return parent.name.text;
  return '<anonymous>';
}

/** What is over the limits in one file's text. */
export function oversizeIn(file: string, text: string): Oversize[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Oversize[] = [];
  const fileLines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (fileLines > MAX_FILE_LINES) found.push({ file, lines: fileLines, limit: MAX_FILE_LINES });
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > MAX_FUNCTION_LINES) {
        found.push({ file, name: nameOf(node), line: start + 1, lines, limit: MAX_FUNCTION_LINES });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Files allowed to re-export, each with why (a path relative to the repository). */
export const REEXPORT_EXCEPTIONS: Record<string, string> = {};

/** The re-exports in one file's text: `export … from`, and `export { x }` of an imported `x`. */
export function reexportsIn(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const imported = new Set<string>();
  for (const statement of source.statements) {
    const clause = ts.isImportDeclaration(statement) ? statement.importClause : undefined;
    if (clause?.name) imported.add(clause.name.text);
    const bindings = clause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings))
      for (const element of bindings.elements) imported.add(element.name.text);
    if (bindings && ts.isNamespaceImport(bindings)) imported.add(bindings.name.text);
  }
  return source.statements.flatMap((statement) => {
    if (!ts.isExportDeclaration(statement)) return [];
    const clause = statement.exportClause;
    const names =
      clause && ts.isNamedExports(clause)
        ? clause.elements.map((element) => (element.propertyName ?? element.name).text)
        : ['*'];
    const line = source.getLineAndCharacterOfPosition(statement.getStart(source)).line + 1;
    const from = statement.moduleSpecifier ? names : names.filter((name) => imported.has(name));
    return from.length > 0 ? [`${file}:${line}: re-exports ${from.join(', ')}`] : [];
  });
}

/** Every re-export under `root`'s room folders, but for REEXPORT_EXCEPTIONS. */
export function reexports(root: string): string[] {
  return ROOM_FOLDERS.flatMap((folder) =>
    sourceFiles(join(root, folder))
      .map((path) => relative(root, path))
      .filter((file) => !(file in REEXPORT_EXCEPTIONS))
      .flatMap((file) => reexportsIn(file, readFileSync(join(root, file), 'utf8'))),
  );
}

/** Everything over the limits under `root`'s room folders. */
export function oversize(root: string): Oversize[] {
  return ROOM_FOLDERS.flatMap((folder) =>
    sourceFiles(join(root, folder)).flatMap((path) =>
      oversizeIn(relative(root, path), readFileSync(path, 'utf8')),
    ),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = oversize(process.cwd());
  for (const item of found) {
    const what = item.name ? `${item.name}() at line ${item.line}` : 'the file';
    console.log(`${item.file}: ${what}: ${item.lines} lines (at most ${item.limit})`);
  }
  const reexported = reexports(process.cwd());
  for (const line of reexported) console.log(line);
  process.exitCode = found.length > 0 || reexported.length > 0 ? 1 : 0;
}
