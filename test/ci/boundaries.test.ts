/**
 * The import boundaries are said once (scripts/boundaries.ts) and biome.json carries exactly them,
 * and the lint they drive refuses an import across a boundary.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { boundaryOverrides, FLOWS, MODULES } from '../../scripts/boundaries.ts';

const biome = JSON.parse(readFileSync('biome.json', 'utf8')) as { overrides: unknown };

describe('import boundaries', () => {
  it('biome.json holds the overrides the table generates (npm run boundaries)', () => {
    expect(biome.overrides).toEqual(boundaryOverrides());
  });

  it('forbid every flow to every other folder of functions/ as the table says', () => {
    const overrides = boundaryOverrides();
    const groupsOf = (folder: string) =>
      overrides
        .filter((o) => o.includes[0] === `functions/${folder}/**` && o.includes.length === 1)
        .flatMap((o) => o.linter.rules.style.noRestrictedImports.options.patterns)
        .flatMap((p) => p.group);
    for (const flow of FLOWS) {
      const forbidden = groupsOf(flow);
      for (const other of FLOWS.filter((f) => f !== flow)) {
        expect(forbidden, `${flow} → ${other}`).toContain(`../${other}/**`);
      }
      for (const module of MODULES) expect(forbidden).not.toContain(`../${module}/**`);
    }
    for (const module of MODULES) {
      for (const flow of FLOWS) expect(groupsOf(module)).toContain(`../../${flow}/**`);
    }
  });
});
