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
