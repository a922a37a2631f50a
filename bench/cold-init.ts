/**
 * Cold init of each deployed function: the bundle `cdk synth` writes for it (the stack is
 * synthesized in this process from config/deploy.example.json with NodeFunction's esbuild
 * settings: ESM, minified, dependencies bundled, the local wirings left out, `process.env.
 * LEADS_RUNTIME` defined as "aws"), against today's design built in the same run from the same
 * code (the AWS SDK clients the function constructed before issue 15 imported and constructed
 * with it, the SDK external and resolved from node_modules as on Lambda, the parameter providers
 * imported with the module, source maps on), each imported by fresh `node` processes.
 * Baselines: bundles of just those SDK clients, bundled and external; a bundle of just the
 * functions' own SDK clients (the ports of kernel/dynamodb-aws.ts, sqs-aws.ts, s3-aws.ts on the
 * SDK, as the wirings make them); and the function's own code timed with the AWS SDK already
 * loaded (docs/performance.md).
 *
 * Each child measures `performance.now()` around `await import()` and again once the handler's
 * exported `ready` has settled (and one macrotask later): the handlers load their AWS wiring with
 * `import()` started at import (in the deployed bundle, chunk files of their own), so that is the
 * cold start a first invocation waits for.
 */
import { cpSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  assetBytes,
  bundle,
  CHOSEN_ENV,
  FUNCTION_ENV,
  FUNCTIONS,
  heaviestInputs,
  LITE_SOURCE,
  liteSource,
  OUT_DIR,
  REPO_ROOT,
  SDK_SOURCE,
  staticClosureBytes,
  synthesizedBundles,
  todaysSource,
} from './cold-init-bundles.ts';
import { emitFigures, type Figure, figure, median, progress, runNode } from './lib.ts';

const RUNS = Number(process.env.BENCH_INIT_RUNS ?? 7);

/**
 * The child: import, then the handler's `ready` (its AWS wiring, loaded from chunk files started
 * at import), then one macrotask.
 */
const CHILD = `
const t0 = performance.now();
const loaded = await import(process.argv[1]);
const t1 = performance.now();
await loaded.ready;
await new Promise((resolve) => setImmediate(resolve));
const t2 = performance.now();
const m = process.memoryUsage();
process.stdout.write(JSON.stringify({ importMs: t1 - t0, initMs: t2 - t0, rss: m.rss, heap: m.heapUsed }));
`;

/**
 * The function's own start-up alone: the SDK-only bundle is imported (and its clients built)
 * first, so every AWS SDK module the function's bundle imports is already loaded; what remains
 * between t0 and t2 is the function's own code, its other dependencies and its wiring.
 */
const CHILD_OWN = `
await import(process.argv[2]);
await new Promise((resolve) => setImmediate(resolve));
const t0 = performance.now();
await (await import(process.argv[1])).ready;
await new Promise((resolve) => setImmediate(resolve));
const t2 = performance.now();
const m = process.memoryUsage();
process.stdout.write(JSON.stringify({ importMs: t2 - t0, initMs: t2 - t0, rss: m.rss, heap: m.heapUsed }));
`;

interface Sample {
  importMs: number;
  initMs: number;
  rss: number;
}

/** The median init of a set of runs. */
const medianInit = (samples: Sample[]) => median(samples.map((r) => r.initMs));

async function importOnce(
  file: string,
  sdkFirst?: string,
  env: NodeJS.ProcessEnv = FUNCTION_ENV,
): Promise<Sample> {
  const args = sdkFirst
    ? [
        '--input-type=module',
        '-e',
        CHILD_OWN,
        pathToFileURL(file).href,
        pathToFileURL(sdkFirst).href,
      ]
    : ['--input-type=module', '-e', CHILD, pathToFileURL(file).href];
  const out = await runNode(args, {
    env,
    cwd: OUT_DIR,
    timeoutMs: 30_000,
  });
  return JSON.parse(out) as Sample;
}

export async function coldInit(): Promise<Figure[]> {
  rmSync(OUT_DIR, { recursive: true, force: true });
  mkdirSync(OUT_DIR, { recursive: true });
  const figures: Figure[] = [];
  try {
    progress('init: synthesizing the stack with bundling');
    const synthesized = synthesizedBundles();
    const floor = await houseFloor();
    for (const fn of FUNCTIONS) {
      const asset = synthesized.get(fn.name);
      if (!asset) throw new Error(`the synthesized stack has no function ${fn.name}`);
      // The chosen design, as deployed: NodeFunction's bundle from the cloud assembly.
      // The whole asset: index.mjs and the chunks its `import()`s load (split-bundle.mjs).
      const file = join(OUT_DIR, fn.name, 'index.mjs');
      cpSync(dirname(asset), join(OUT_DIR, fn.name), { recursive: true });
      // What the bundle is made of: an esbuild metafile of the same entry and settings.
      const composition = await bundle(
        `${fn.name}-metafile`,
        { path: join(REPO_ROOT, fn.entry) },
        'bundled',
      );
      const chosen = { file, bytes: statSync(file).size, metafile: composition.metafile };
      // Today's design, built in this run from the same code.
      const today = await bundle(
        `${fn.name}-today`,
        { contents: todaysSource(fn) },
        'external',
        false,
      );
      // The same code with its AWS client libraries external: its own code above them, loaded.
      const ownExternal = await bundle(
        `${fn.name}-own`,
        { path: join(REPO_ROOT, fn.entry) },
        'libraries-external',
      );
      const liteExternal = await bundle(
        `${fn.name}-lite`,
        { contents: liteSource(fn) },
        'libraries-external',
      );
      const liteBundled = await bundle(
        `${fn.name}-lite-bundled`,
        { contents: liteSource(fn) },
        'bundled',
      );
      const sdkSource = [
        ...fn.sdk.map((s) => SDK_SOURCE[s].imports),
        `export const clients = [${fn.sdk.map((s) => SDK_SOURCE[s].construct).join(', ')}];`,
      ].join('\n');
      const sdkExternal = await bundle(`${fn.name}-sdk`, { contents: sdkSource });
      const sdkBundled = await bundle(`${fn.name}-sdk-bundled`, { contents: sdkSource }, 'bundled');
      writeFileSync(join(OUT_DIR, `${fn.name}-sdk.js`), sdkSource);

      // Interleaved, so all of them see the same load from the machine's other work.
      const runs = {
        chosen: [] as Sample[],
        today: [] as Sample[],
        sdkExternal: [] as Sample[],
        sdkBundled: [] as Sample[],
        liteBundled: [] as Sample[],
        above: [] as Sample[],
      };
      for (let i = 0; i < RUNS; i++) {
        // As deployed: the chosen design without --enable-source-maps, today's with it.
        runs.chosen.push(await importOnce(chosen.file, undefined, CHOSEN_ENV));
        runs.today.push(await importOnce(today.file));
        runs.sdkExternal.push(await importOnce(sdkExternal.file));
        runs.sdkBundled.push(await importOnce(sdkBundled.file));
        runs.liteBundled.push(await importOnce(liteBundled.file));
        runs.above.push(await importOnce(ownExternal.file, liteExternal.file, CHOSEN_ENV));
      }
      const rss = (samples: Sample[]) => Math.round(median(samples.map((r) => r.rss)) / 1048576);
      const [chosenMs, todayMs, aboveMs] = [
        medianInit(runs.chosen),
        medianInit(runs.today),
        medianInit(runs.above),
      ];
      const [sdkExternalMs, sdkBundledMs] = [
        medianInit(runs.sdkExternal),
        medianInit(runs.sdkBundled),
      ];
      const liteMs = medianInit(runs.liteBundled);
      const liteKinds = fn.sdk.filter((s) => LITE_SOURCE[s]).join('+') || 'none';
      const heaviest = heaviestInputs(chosen.metafile)
        .map((h) => `${h.what} ${h.kb} KB`)
        .join(', ');
      const clients = fn.sdk.join('+') || 'none';
      progress(
        `init ${fn.name}: ${chosenMs.toFixed(1)} ms, today's design ${todayMs.toFixed(1)} ms (${(chosenMs / todayMs).toFixed(2)}); SDK only ${sdkBundledMs.toFixed(1)} ms bundled, ${sdkExternalMs.toFixed(1)} ms external; the functions' clients only ${liteMs.toFixed(1)} ms; own code above its AWS client libraries ${aboveMs.toFixed(1)} ms (${(aboveMs - floor.ms).toFixed(1)} ms above the own-code floor); bundle ${Math.round(chosen.bytes / 1024)} KB (today ${Math.round(today.bytes / 1024)} KB); heaviest: ${heaviest}`,
      );
      figures.push(
        figure(
          `init ${fn.name} (median of ${RUNS})`,
          chosenMs,
          'ms',
          "today's design (SDK clients at import, SDK external, parameter providers at import)",
          todayMs,
          `import ${median(runs.chosen.map((r) => r.importMs)).toFixed(1)} ms; RSS ${rss(runs.chosen)} MB vs ${rss(runs.today)} MB; heaviest in bundle: ${heaviest}`,
        ),
        figure(
          `init ${fn.name}: SDK clients only, bundled (median of ${RUNS})`,
          sdkBundledMs,
          'ms',
          `the same clients external (${clients})`,
          sdkExternalMs,
        ),
        figure(
          `init ${fn.name}: the functions' AWS clients only (median of ${RUNS})`,
          liteMs,
          'ms',
          `SDK clients only, bundled (${clients})`,
          sdkBundledMs,
          `kernel/*-aws.ts clients for ${liteKinds} (ports on the SDK), bundled as deployed`,
        ),
        figure(
          `init ${fn.name}: own code above its AWS client libraries (median of ${RUNS})`,
          aboveMs,
          'ms',
          `SDK clients only, external (${clients})`,
          sdkExternalMs,
          `the AWS SDK imported first with the functions' clients, then the function built with @aws-sdk/* external: its own modules, other dependencies and wiring; ${(aboveMs - floor.ms).toFixed(1)} ms above the own-code floor (Powertools + zod, ${floor.ms.toFixed(1)} ms)`,
        ),
        figure(
          `bundle ${fn.name}: read at init (index.mjs, the wiring, their static imports)`,
          staticClosureBytes(join(OUT_DIR, fn.name)) / 1024,
          'KB',
          "today's bundle (SDK external)",
          today.bytes / 1024,
          `whole asset ${Math.round(assetBytes(join(OUT_DIR, fn.name)) / 1024)} KB (chunks loaded by import() included)`,
        ),
      );
    }
    figures.push(await firstRequestLoads());
    figures.push(await sourceMapCost(join(OUT_DIR, 'intake', 'index.mjs')));
    figures.push(await phoneMetadata());
    figures.push(...floor.figures);
  } finally {
    rmSync(OUT_DIR, { recursive: true, force: true });
  }
  return figures;
}

/**
 * What a first request loads that init no longer does: the Powertools parameter providers with
 * their AppConfig and Secrets Manager clients, bundled alone (an upper bound: alone, they also
 * load the SDK core that a function's other clients already loaded at init).
 */
async function firstRequestLoads(): Promise<Figure> {
  const providers = await bundle(
    'providers',
    {
      contents:
        "export * from '@aws-lambda-powertools/parameters/appconfig';\nexport * from '@aws-lambda-powertools/parameters/secrets';",
    },
    'bundled',
  );
  const core = await bundle(
    'providers-core',
    {
      contents: `${SDK_SOURCE.dynamodb.imports}\nexport const c = ${SDK_SOURCE.dynamodb.construct}`,
    },
    'bundled',
  );
  const withProviders: Sample[] = [];
  const coreOnly: Sample[] = [];
  for (let i = 0; i < RUNS; i++) {
    withProviders.push(await importOnce(providers.file));
    coreOnly.push(await importOnce(core.file));
  }
  const providersMs = medianInit(withProviders);
  const coreMs = medianInit(coreOnly);
  progress(
    `first request: the parameter providers bundled alone ${providersMs.toFixed(1)} ms (a DynamoDB client alone ${coreMs.toFixed(1)} ms)`,
  );
  return figure(
    'first request loads: AppConfig + Secrets Manager providers, bundled alone',
    providersMs,
    'ms',
    'a DynamoDB client bundled alone (the SDK core they share)',
    coreMs,
    'deferred from init to the first settings or secret read',
  );
}

/** What `--enable-source-maps` (set on every deployed function) adds to intake's init. */
async function sourceMapCost(file: string): Promise<Figure> {
  const withMaps: Sample[] = [];
  const without: Sample[] = [];
  for (let i = 0; i < RUNS; i++) {
    withMaps.push(await importOnce(file));
    without.push(await importOnce(file, undefined, { ...FUNCTION_ENV, NODE_OPTIONS: '' }));
  }
  const withMs = medianInit(withMaps);
  const withoutMs = medianInit(without);
  progress(
    `init intake with --enable-source-maps ${withMs.toFixed(1)} ms, without ${withoutMs.toFixed(1)} ms`,
  );
  return figure(
    'init intake with --enable-source-maps (as deployed)',
    withMs,
    'ms',
    'the same bundle without it',
    withoutMs,
    `source map ${Math.round(statSync(`${file}.map`).size / 1024)} KB`,
  );
}

/**
 * The floor under "own code": what every function loads before any code of its own, timed exactly
 * as each function's own code is (its AWS client libraries imported first, then the module):
 * Powertools' Logger and Metrics as kernel/observability.ts constructs them (every function logs
 * and counts with them) and zod/mini with one schema built and used (every function validates
 * its input or settings with it), against an empty module timed the same way.
 */
async function houseFloor(): Promise<{ ms: number; figures: Figure[] }> {
  const libraries = await bundle(
    'floor-libraries',
    { contents: liteSource({ sdk: ['dynamodb', 'sqs'] }) },
    'libraries-external',
  );
  const observability = join(REPO_ROOT, 'functions', 'kernel', 'observability.ts');
  const floorSource = {
    contents: [
      "import * as z from 'zod/mini';",
      `import { logger, metrics } from ${JSON.stringify(observability)};`,
      'const schema = z.object({ id: z.string(), n: z.optional(z.number()) });',
      "export const ready = Promise.resolve([logger, metrics, schema.parse({ id: 'x' })]);",
    ].join('\n'),
  };
  const emptySource = { contents: 'export const ready = Promise.resolve(0);' };
  const floor = await bundle('floor', floorSource, 'libraries-external');
  const empty = await bundle('floor-empty', emptySource, 'libraries-external');
  // The same two as whole bundles, for the issue's arithmetic (a function's init minus its
  // clients' init): what the floor adds to an empty bundle's init.
  const floorWhole = await bundle('floor-whole', floorSource, 'bundled');
  const emptyWhole = await bundle('floor-empty-whole', emptySource, 'bundled');
  const runs = {
    floor: [] as Sample[],
    empty: [] as Sample[],
    floorWhole: [] as Sample[],
    emptyWhole: [] as Sample[],
  };
  for (let i = 0; i < RUNS; i++) {
    runs.floor.push(await importOnce(floor.file, libraries.file, CHOSEN_ENV));
    runs.empty.push(await importOnce(empty.file, libraries.file, CHOSEN_ENV));
    runs.floorWhole.push(await importOnce(floorWhole.file, undefined, CHOSEN_ENV));
    runs.emptyWhole.push(await importOnce(emptyWhole.file, undefined, CHOSEN_ENV));
  }
  const [floorMs, emptyMs] = [medianInit(runs.floor), medianInit(runs.empty)];
  const [floorWholeMs, emptyWholeMs] = [medianInit(runs.floorWhole), medianInit(runs.emptyWhole)];
  progress(
    `own-code floor (Powertools Logger + Metrics, zod/mini and one schema), timed as own code: ${floorMs.toFixed(1)} ms (an empty module ${emptyMs.toFixed(1)} ms); as a whole bundle ${floorWholeMs.toFixed(1)} ms (an empty bundle ${emptyWholeMs.toFixed(1)} ms)`,
  );
  return {
    ms: floorMs,
    figures: [
      figure(
        'own-code floor: Powertools Logger + Metrics and zod, timed as own code',
        floorMs,
        'ms',
        'an empty module, timed the same way',
        emptyMs,
        `issue 15's target for own code: 10 ms; above the empty module: ${(floorMs - emptyMs).toFixed(1)} ms`,
      ),
      figure(
        'own-code floor as a whole bundle (init)',
        floorWholeMs,
        'ms',
        'an empty bundle (the ESM loader)',
        emptyWholeMs,
        `what it adds to an empty bundle: ${(floorWholeMs - emptyWholeMs).toFixed(1)} ms`,
      ),
    ],
  };
}

/** What intake's and the forwarder's largest dependency costs: max vs min metadata, one parse. */
async function phoneMetadata(): Promise<Figure> {
  const source = (set: string) =>
    `import { parsePhoneNumberFromString } from 'libphonenumber-js/${set}';\nexport const n = parsePhoneNumberFromString('+5511987654321')?.getType?.();`;
  const max = await bundle('phone-max', { contents: source('max') });
  const min = await bundle('phone-min', { contents: source('min') });
  const maxRuns: Sample[] = [];
  const minRuns: Sample[] = [];
  for (let i = 0; i < RUNS; i++) {
    maxRuns.push(await importOnce(max.file));
    minRuns.push(await importOnce(min.file));
  }
  const maxMs = medianInit(maxRuns);
  const minMs = medianInit(minRuns);
  progress(
    `init libphonenumber-js/max + one parse: ${maxMs.toFixed(1)} ms (min: ${minMs.toFixed(1)} ms)`,
  );
  return figure(
    'init libphonenumber-js/max + 1 parse',
    maxMs,
    'ms',
    'libphonenumber-js/min + 1 parse',
    minMs,
    `bundles ${Math.round(max.bytes / 1024)} KB vs ${Math.round(min.bytes / 1024)} KB`,
  );
}

if (import.meta.filename === process.argv[1]) {
  emitFigures(await coldInit());
}
