/**
 * The set-up kit section of docs/sources.md (scripts/setup-kit.ts): current with the sources'
 * recipes and config/demo.json, one kit per source of the registry.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SOURCES } from '../../functions/sources/registry.ts';
import { SOURCES_DOC, setupKitSection, sourcesDocText } from '../../scripts/setup-kit.ts';

describe('npm run setup-kit', () => {
  it('has written the current kits into docs/sources.md (run npm run setup-kit after a change)', () => {
    const committed = readFileSync(SOURCES_DOC, 'utf8');
    expect(sourcesDocText(committed)).toBe(committed);
  });

  it('gives every source of the registry its kit, with a curl where a demo profile exists', () => {
    const section = setupKitSection();
    for (const source of SOURCES) {
      expect(section, source.name).toContain(`### ${source.label} (\`${source.name}\`)`);
    }
    expect(section.match(/```sh\n/g)?.length).toBeGreaterThanOrEqual(9);
    expect(section).toContain('action="http://127.0.0.1:3000/leads/site?token=demo-site-token"');
  });
});
