import { describe, expect, it } from 'vitest';
import { SKIP_PREFLIGHT_CONTEXT } from '../../infra/synth-preflight.ts';
import {
  cdkArguments,
  configArgument,
  contextArguments,
  refusal,
  SKIP_PREFLIGHT,
} from '../../scripts/cdk.ts';

describe('npm run deploy|diff|destroy (scripts/cdk.ts)', () => {
  it('refuses a deploy, diff or destroy that names no deploy configuration, saying what to pass', () => {
    // Act
    const reasons = ['deploy', 'diff', 'destroy'].map((command) => refusal([command], {}));

    // Assess
    for (const reason of reasons) {
      expect(reason).toContain('no deploy configuration given');
      expect(reason).toContain('-c config=config/deploy.<stage>.json');
    }
  });

  it('runs when -c config=, --context config= or LEADS_DEPLOY_CONFIG names one', () => {
    // Act / Assess
    expect(refusal(['deploy', '-c', 'config=config/deploy.prod.json'], {})).toBeUndefined();
    expect(refusal(['diff', '--context', 'config=a.json', '--fail'], {})).toBeUndefined();
    expect(refusal(['destroy', '-c=config=a.json'], {})).toBeUndefined();
    expect(refusal(['deploy'], { LEADS_DEPLOY_CONFIG: 'config/deploy.prod.json' })).toBeUndefined();
  });

  it('does not take another context key, or an empty config, for a configuration', () => {
    // Act / Assess
    expect(configArgument(['deploy', '-c', 'stage=prod'])).toBeUndefined();
    expect(configArgument(['deploy', '-c', 'config='])).toBeUndefined();
    expect(configArgument(['deploy', '--outputs-file', 'config=x'])).toBeUndefined();
    expect(configArgument(['deploy', '-c', 'config=a.json'])).toBe('a.json');
  });

  it('only wraps the commands that act on a deployed stack', () => {
    // Act / Assess
    expect(refusal(['synth'], {})).toMatch(/^usage:/);
  });
});

describe('npm run deploy: its context and its preflight switch', () => {
  it('reads every -c key=value the way the CDK CLI does, for the preflight to synthesize alike', () => {
    // Act
    const context = contextArguments([
      'deploy',
      '-c',
      'config=config/deploy.prod.json',
      '--context=rollbackAlarms=off',
      '--require-approval',
      'never',
      '-c=other=a=b',
    ]);

    // Assess
    expect(context).toEqual({
      config: 'config/deploy.prod.json',
      rollbackAlarms: 'off',
      other: 'a=b',
    });
    expect(SKIP_PREFLIGHT).toBe('--skip-preflight');
  });

  it("tells the CDK CLI to skip the app's own concurrency check, which its preflight already was", () => {
    // Act
    const args = cdkArguments(['deploy', '-c', 'config=config/deploy.prod.json']);

    // Assess: the app reads it as its context (infra/synth-preflight.ts).
    expect(args).toEqual([
      'deploy',
      '-c',
      'config=config/deploy.prod.json',
      '-c',
      'skipPreflight=true',
    ]);
    expect(contextArguments(args)[SKIP_PREFLIGHT_CONTEXT]).toBe('true');
  });
});
