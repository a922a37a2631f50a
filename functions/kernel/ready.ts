/**
 * A handler's `ready` export: settles once its wiring, loaded with `import()` when the module is
 * imported, is in place, whether it loaded or failed (a failed wiring still fails each
 * invocation, where it is reported). It is what a first invocation waits for; the cold-init
 * bench (bench/cold-init.ts) waits for it too. `undefined` (nothing loading at import: tests, the
 * local runtime for the functions that wire on first use) settles at once.
 */
export function settled(wiring: Promise<unknown> | undefined): Promise<void> {
  return (wiring ?? Promise.resolve()).then(
    () => undefined,
    () => undefined,
  );
}

/**
 * The deployed wiring of a handler that only ever runs on AWS (the forwarder, the reconciler,
 * the watch), loaded once. In the Lambda bundle (LEADS_RUNTIME defined as "aws") loading starts
 * at import, so a cold start reads the wiring's chunks during init rather than in the first
 * invocation, and `ready` settles when it is loaded; tests load nothing until `get()` is called.
 */
export function deployedWiring<T>(load: () => Promise<T>): {
  get(): Promise<T>;
  ready: Promise<void>;
} {
  let loading: Promise<T> | undefined = process.env.LEADS_RUNTIME === 'aws' ? load() : undefined;
  return {
    get: () => {
      loading ??= load();
      return loading;
    },
    ready: settled(loading),
  };
}
