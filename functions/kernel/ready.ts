/**
 * How every handler gets its wiring (the adapters of its ports): `handlerWiring({ aws, local })`,
 * each loaded once per container with `import()`, so that what only the AWS or only the local
 * runtime needs is never read by the other. A Lambda bundle does not even contain the local
 * wiring (infra/constructs/node-function.ts, LOCAL_ONLY_MODULES).
 *
 * Which wiring, and when, by ENV.runtime (`LEADS_RUNTIME`):
 * - `aws` (every deployed function: NodeFunction sets it): the AWS wiring starts loading when the
 *   handler module is imported, so a cold start reads its chunks during init rather than in the
 *   first invocation;
 * - `local` (the local runtime, local/runtime-services.ts): the local wiring, at import too; a
 *   handler without one (the forwarder, the reconciler, the watch: the local runtime runs their
 *   use cases as services of its own) loads nothing at import;
 * - unset (tests): nothing at import; the first `get()` loads the AWS wiring.
 *
 * The handler's `ready` export is the wiring's `ready`: it settles once the wiring loading at
 * import is in place, whether it loaded or failed (a failed wiring still fails each invocation,
 * where it is reported), at once when nothing loads at import. A first invocation waits for it;
 * the cold-init bench (bench/cold-init.ts) waits for it too.
 */
import { ENV } from './env.ts';

export type Runtime = 'aws' | 'local';

/** A handler's wiring: `get()` loads it once (or returns what loads since import). */
export interface Wiring<T> {
  get(): Promise<T>;
  /** Settles once the wiring loading at import is in place (see the module comment). */
  ready: Promise<void>;
}

/** The runtime this process runs in (ENV.runtime); undefined in tests. */
export function currentRuntime(env: NodeJS.ProcessEnv = process.env): Runtime | undefined {
  const value = env[ENV.runtime];
  return value === 'aws' || value === 'local' ? value : undefined;
}

/** The wiring of a handler, by runtime (see the module comment). */
export function handlerWiring<T>(loaders: {
  aws: () => Promise<T>;
  local?: () => Promise<T>;
}): Wiring<T> {
  const runtime = currentRuntime();
  const atImport =
    runtime === 'local' ? loaders.local : runtime === 'aws' ? loaders.aws : undefined;
  let loading: Promise<T> | undefined = atImport?.();
  return {
    get: () => {
      loading ??= loaders.aws();
      return loading;
    },
    ready: (loading ?? Promise.resolve()).then(
      () => undefined,
      () => undefined,
    ),
  };
}
