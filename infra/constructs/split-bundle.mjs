/**
 * NodeFunction's second bundling step (its `afterBundling` hook): rebuilds the function with
 * esbuild's code splitting into the asset directory, replacing the single `index.mjs` that
 * NodejsFunction wrote. What a function imports with `import()` (the Secrets Manager and
 * AppConfig providers with their SDK clients, a source's rarely used parts) goes into chunk
 * files that Node reads only when the import runs; in one file, Node still has to read and
 * compile all of it at every cold start (docs/performance.md: intake's init 75 → 34 ms).
 *
 * Usage: node split-bundle.mjs <base64url JSON of { entry, outdir, target, define, external,
 * banner }>. Plain JavaScript so that the synth's shell runs it without a TypeScript loader.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const options = JSON.parse(Buffer.from(process.argv[2] ?? '', 'base64url').toString('utf8'));
for (const name of readdirSync(options.outdir)) {
  if (/\.m?js(\.map)?$/.test(name)) rmSync(join(options.outdir, name));
}
await build({
  entryPoints: { index: options.entry },
  outdir: options.outdir,
  outExtension: { '.js': '.mjs' },
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: options.target,
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  mainFields: ['module', 'main'],
  define: options.define ?? {},
  external: options.external ?? [],
  ...(options.banner && { banner: { js: options.banner } }),
  logLevel: 'warning',
});
