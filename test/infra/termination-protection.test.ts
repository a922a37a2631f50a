import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/app.ts';
import { cdkJsonContext, deployConfig, removeTempOutdirs, tempOutdir } from './helpers.ts';

afterAll(removeTempOutdirs);

function stackOf(stage: string) {
  return buildApp({
    outdir: tempOutdir(),
    context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] },
    config: deployConfig({ stage }),
    env: {},
  }).stack;
}

describe('stack termination protection', () => {
  it('is on for prod: deleting the stack takes switching it off first', () => {
    expect(stackOf('prod').terminationProtection).toBe(true);
  });

  it('is off for other stages, which are made to be deleted', () => {
    expect(stackOf('staging').terminationProtection).toBe(false);
  });
});
