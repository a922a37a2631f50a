/**
 * Who may import whom under functions/ (README, Layout; docs/architecture.md), said once: the
 * table below. biome.json's `overrides` are generated from it (biome has no way to share a list
 * between overrides): `npm run boundaries` writes them, `npm run boundaries -- --check` fails
 * when biome.json says something else (test/ci/boundaries.test.ts runs the check in `npm test`).
 *
 * - the domain is pure: no AWS, no Node I/O, nothing outside domain/;
 * - a flow (a Lambda's use case and its adapters) imports no other flow;
 * - a module (shared by the flows) imports no flow;
 * - outside adapter files (handlers, wirings, events, `*-aws.ts`...), nothing imports AWS.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const FLOWS = [
  'intake',
  'delivery',
  'report',
  'admin',
  'watch',
  'authorizer',
  'openapi',
] as const;
export const MODULES = ['kernel', 'config', 'ledger', 'upstream', 'sources'] as const;

/** Files that adapt the use cases to AWS or to the local runtime: they may import AWS. */
export const ADAPTER_FILES = [
  '**/handler.ts',
  '**/wiring-aws.ts',
  '**/wiring-local.ts',
  '**/events.ts',
  '**/*-aws.ts',
  '**/*-sqs.ts',
  '**/*-s3.ts',
  '**/*-dynamodb.ts',
  '**/*-local.ts',
  '**/*-event.ts',
  'functions/kernel/observability.ts',
  'functions/kernel/local-services.ts',
  'functions/kernel/proxy-handler.ts',
];

const AWS = ['@aws-sdk/**', '@aws-lambda-powertools/**', 'aws-lambda'];
const NODE_IO = [
  'node:fs',
  'node:fs/promises',
  'node:http',
  'node:https',
  'node:net',
  'node:child_process',
  'node:timers/promises',
];
/** How deep a file may sit below its folder (`delivery/forward/x.ts`, `sources/meta/x.ts`). */
const DEPTHS = [1, 2, 3];

const MESSAGES = {
  pure: 'domain/ is pure: no AWS, no Node I/O (README, Layout).',
  domainAbove: 'domain/ imports nothing above it (README, Layout).',
  flow: "a flow does not import another flow's internals: share it through a module (README, Layout).",
  module: 'modules serve the flows and never import them (README, Layout).',
  aws: "use cases and ports import no AWS: put it in the flow's handler, wiring, events or an adapter file (README, Layout).",
};

/** `../x/**`, `../../x/**`... for every depth a file may sit at. */
function reaching(folders: readonly string[]): string[] {
  return DEPTHS.flatMap((depth) => folders.map((folder) => `${'../'.repeat(depth)}${folder}/**`));
}

type Pattern = { group: string[]; message: string };

function override(includes: string[], patterns: Pattern[]) {
  return {
    includes,
    linter: {
      rules: { style: { noRestrictedImports: { level: 'error', options: { patterns } } } },
    },
  };
}

/** biome.json's `overrides`, from the table above. */
export function boundaryOverrides() {
  const noAws: Pattern = {
    group: [...AWS, '**/kernel/*-aws.ts'],
    message: MESSAGES.aws,
  };
  const notAdapters = ADAPTER_FILES.map((glob) => `!${glob}`);
  const overrides: ReturnType<typeof override>[] = [
    override(
      ['functions/domain/**'],
      [
        { group: [...AWS, ...NODE_IO], message: MESSAGES.pure },
        {
          group: [...reaching([...MODULES, ...FLOWS]), '../../../**'],
          message: MESSAGES.domainAbove,
        },
      ],
    ),
  ];
  for (const folder of [...FLOWS, ...MODULES]) {
    const isFlow = (FLOWS as readonly string[]).includes(folder);
    const others = FLOWS.filter((flow) => flow !== folder);
    const boundary = { group: reaching(others), message: isFlow ? MESSAGES.flow : MESSAGES.module };
    overrides.push(override([`functions/${folder}/**`], [boundary]));
    // biome applies the last matching override's options: the no-AWS rule restates the boundary.
    overrides.push(override([`functions/${folder}/**`, ...notAdapters], [boundary, noAws]));
  }
  return overrides;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = join(process.cwd(), 'biome.json');
  const biome = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  const wanted = boundaryOverrides();
  if (process.argv.includes('--check')) {
    const same = JSON.stringify(biome.overrides) === JSON.stringify(wanted);
    console.log(same ? 'biome.json: boundaries up to date' : 'biome.json: run npm run boundaries');
    process.exitCode = same ? 0 : 1;
  } else {
    writeFileSync(path, `${JSON.stringify({ ...biome, overrides: wanted }, null, 2)}\n`);
    console.log('wrote biome.json overrides');
  }
}
