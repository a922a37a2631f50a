#!/usr/bin/env node
/**
 * `leads`: the operator CLI (cli/leads.ts) as a command, package.json's "bin". In a clone after
 * `npm ci`: `npx --no-install leads list --json | jq .` (the CLI's own output alone on stdout),
 * or `npm link` once for a `leads` on the PATH. It loads the TypeScript with tsx, a devDependency
 * like the rest of the tooling the CLI calls (the config commands need the AWS SDK's AppConfig
 * client): a clone installed with `npm ci` has it; one installed without dev dependencies is
 * told so.
 */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

let register;
try {
  ({ register } = await import('tsx/esm/api'));
} catch {
  process.stderr.write(
    'error: the leads CLI needs the dev dependencies (tsx): run `npm ci` in the repository\n',
  );
  process.exit(1);
}
register();
const { runFromProcess } = await import('../cli/leads.ts');
await runFromProcess();
