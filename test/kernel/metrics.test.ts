/**
 * The metric names are said once (functions/kernel/metrics.ts): every function emits only names
 * of that catalogue, through METRICS, and every name an alarm or a dashboard reads is one a
 * function emits. Read from the functions' sources with TypeScript's own parser: a call of
 * `count`, `seconds`, `ratio`, an events port's `metric` or Powertools' `addMetric`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { METRICS } from '../../functions/kernel/metrics.ts';
import { REPORT_METRICS } from '../../infra/constructs/debtors-report.ts';
import { LEAD_METRICS } from '../../infra/constructs/delivery-observability.ts';

const REPO_ROOT = join(import.meta.dirname, '..', '..');
const EMITTERS = new Set(['count', 'seconds', 'ratio', 'metric', 'addMetric']);
/** The one place that may hand a name it was given to Powertools. */
const OBSERVABILITY = 'functions/kernel/observability.ts';

interface Emissions {
  /** The METRICS keys named in emitting calls. */
  keys: string[];
  /** What is wrong, one line each (`file:line: ...`). */
  problems: string[];
}

function calleeName(call: ts.CallExpression): string | undefined {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return undefined;
}

/** The metrics a source emits, and any name it writes itself. */
function emissionsIn(file: string, text: string): Emissions {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Emissions = { keys: [], problems: [] };
  const where = (node: ts.Node) =>
    `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
  const inspect = (node: ts.Node): void => {
    // A choice between names: the names are its branches (its condition may compare strings).
    if (ts.isConditionalExpression(node)) {
      inspect(node.whenTrue);
      inspect(node.whenFalse);
      return;
    }
    if (ts.isStringLiteralLike(node) || ts.isTemplateExpression(node)) {
      found.problems.push(`${where(node)}: metric name ${node.getText(source)} is not METRICS.*`);
    }
    if (
      ts.isPropertyAccessExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'METRICS'
    ) {
      const key = node.name.text;
      if (Object.hasOwn(METRICS, key)) found.keys.push(key);
      else found.problems.push(`${where(node)}: METRICS.${key} is not in the catalogue`);
      return;
    }
    ts.forEachChild(node, inspect);
  };
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const name = calleeName(node);
      const [first] = node.arguments;
      if (name === 'addMetric' && file !== OBSERVABILITY) {
        found.problems.push(`${where(node)}: addMetric outside ${OBSERVABILITY}`);
      }
      if (name !== undefined && EMITTERS.has(name) && first) inspect(first);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every emission of the functions. */
function functionEmissions(): Emissions {
  const all: Emissions = { keys: [], problems: [] };
  for (const path of sourceFiles(join(REPO_ROOT, 'functions'))) {
    const file = relative(REPO_ROOT, path);
    const { keys, problems } = emissionsIn(file, readFileSync(path, 'utf8'));
    all.keys.push(...keys);
    all.problems.push(...problems);
  }
  return all;
}

describe('metric names', () => {
  const emitted = functionEmissions();
  const emittedNames = new Set(emitted.keys.map((key) => METRICS[key as keyof typeof METRICS]));

  it('has every function emit only names of the catalogue, through METRICS', () => {
    // Assess
    expect(emitted.problems).toEqual([]);
  });

  it('tells a name written in an emitter, or one missing from the catalogue', () => {
    // Prepare
    const source = [
      "count('LeadTeleported');",
      "h.events.metric(code === 'ok' ? METRICS.leadDelivered : 'Lead' + kind);",
      'seconds(METRICS.leadVanished, 3);',
      "metrics.addMetric('Raw', 'Count', 1);",
    ].join('\n');

    // Act
    const found = emissionsIn('functions/example.ts', source);

    // Assess
    expect(found.keys).toEqual(['leadDelivered']);
    expect(found.problems).toEqual([
      "functions/example.ts:1: metric name 'LeadTeleported' is not METRICS.*",
      "functions/example.ts:2: metric name 'Lead' is not METRICS.*",
      'functions/example.ts:3: METRICS.leadVanished is not in the catalogue',
      'functions/example.ts:4: addMetric outside functions/kernel/observability.ts',
      "functions/example.ts:4: metric name 'Raw' is not METRICS.*",
    ]);
  });

  it('names each metric once, and every name is emitted by some function', () => {
    // Prepare
    const names = Object.values(METRICS);

    // Assess
    expect(new Set(names).size).toBe(names.length);
    expect(names.filter((name) => !emittedNames.has(name))).toEqual([]);
  });

  it('alarms and draws only metrics that a function emits', () => {
    // Prepare
    const read = [...Object.values(LEAD_METRICS), ...Object.values(REPORT_METRICS)];

    // Assess
    expect(read.filter((name) => !emittedNames.has(name))).toEqual([]);
  });
});
