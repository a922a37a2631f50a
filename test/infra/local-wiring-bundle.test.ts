/**
 * A Lambda bundle carries its handler's AWS wiring and not its local one (NodeFunction's
 * LOCAL_ONLY_MODULES): the deployed function loads the AWS wiring, and no file of the asset holds
 * the local wiring's code.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { NodeFunction } from '../../infra/constructs/node-function.ts';
import { removeTempOutdirs, testApp, testStack } from './helpers.ts';

afterAll(removeTempOutdirs);

describe('a NodeFunction bundle', () => {
  it('runs the AWS wiring and carries no local wiring', () => {
    // Prepare
    const app = testApp({ bundle: true });
    new NodeFunction(testStack(app), 'Wired', {
      entry: 'test/fixtures/functions/wired/handler.ts',
    });

    // Act
    const assembly = app.synth();
    const dir = readdirSync(assembly.directory)
      .map((name) => join(assembly.directory, name))
      .find((path) => existsSync(join(path, 'index.mjs'))) as string;
    const answer = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { handler } = await import(${JSON.stringify(pathToFileURL(join(dir, 'index.mjs')).href)}); process.stdout.write(JSON.stringify(await handler()));`,
      ],
      { encoding: 'utf8', env: { ...process.env, LEADS_RUNTIME: 'aws' } },
    );

    // Assess
    expect(JSON.parse(answer)).toEqual({ wiring: 'the AWS wiring' });
    const code = readdirSync(dir)
      .filter((name) => name.endsWith('.mjs'))
      .map((name) => readFileSync(join(dir, name), 'utf8'));
    expect(code.join('\n')).toContain('the AWS wiring');
    expect(code.join('\n')).not.toContain('the local wiring');
  });
});
