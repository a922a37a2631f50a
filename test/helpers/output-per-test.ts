/**
 * What the code under test prints, filed under the test that printed it (a vitest setup file,
 * vitest.config.ts): with `silent: 'passed-only'`, vitest shows a test's output only when the test
 * fails, so `npm test` prints results, not the warnings of code that behaved as it should.
 *
 * vitest files what goes through `console` under the running test. The Powertools Logger does
 * not use it: outside POWERTOOLS_DEV it writes its JSON lines to process.stdout and
 * process.stderr through a Console of its own, which would print every line of every passing
 * test. So the worker's `write` of both streams hands its text to vitest's console instead.
 * Helpers that read the log lines (test/helpers/log-lines.ts) spy on `write` on top of this and
 * see them as before. Child processes that inherit a stream write to it directly, not through
 * here.
 */
type Write = typeof process.stdout.write;

const rerouted = Symbol.for('leads.test.output-per-test');

function toConsole(stream: NodeJS.WriteStream, print: (text: string) => void): void {
  const marked = stream as NodeJS.WriteStream & { [rerouted]?: true };
  if (marked[rerouted]) return;
  marked[rerouted] = true;
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    // console adds the line end back.
    print(text.endsWith('\n') ? text.slice(0, -1) : text);
    const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as Write;
}

// The console is vitest's at the time of each write (looked up then, not now).
toConsole(process.stdout, (text) => console.log('%s', text));
toConsole(process.stderr, (text) => console.error('%s', text));
