/**
 * A laptop with only a named AWS profile, for the scripts' end-to-end tests (config diff/push,
 * config secrets): a temporary HOME holding ~/.aws/credentials and ~/.aws/config of the profile,
 * AWS_PROFILE set, no other AWS_* variable, AWS_ENDPOINT_URL at a local recording server; and
 * each recorded request's SigV4 scope (key id, Region, service).
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { REPO_ROOT } from './gateway-process.ts';

export const KEY_ID = 'AKIDPROFILEONLY';
export const REGION = 'sa-east-1';
export const PROFILE = 'leads-ops';

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/** Writes the profile's credentials and Region under `home/.aws`. */
export function writeProfileHome(home: string): void {
  mkdirSync(join(home, '.aws'), { recursive: true });
  writeFileSync(
    join(home, '.aws', 'credentials'),
    `[${PROFILE}]\naws_access_key_id = ${KEY_ID}\naws_secret_access_key = profile-secret\n`,
  );
  writeFileSync(join(home, '.aws', 'config'), `[profile ${PROFILE}]\nregion = ${REGION}\n`);
}

/** The environment of a laptop with only the profile: no AWS_* variable but these. */
export function profileEnv(home: string, endpoint: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')),
  );
  return {
    ...env,
    HOME: home,
    AWS_PROFILE: PROFILE,
    AWS_ENDPOINT_URL: endpoint,
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}

/** Runs `file args` in the repository with that environment; its exit code and output. */
export function runWithProfile(
  env: NodeJS.ProcessEnv,
  file: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: REPO_ROOT, env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Each request's signing key id, Region and service (SigV4's credential scope). */
export function signingScopes(received: readonly Recorded[]) {
  return received.map((r) => {
    const match = /Credential=([^/]+)\/\d{8}\/([^/]+)\/([^/]+)\/aws4_request/.exec(
      String(r.headers.authorization ?? ''),
    );
    return match ? { keyId: match[1], region: match[2], service: match[3] } : { unsigned: r.url };
  });
}
