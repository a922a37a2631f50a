/** What the operator CLI prints: aligned tables and key/value blocks for people, or JSON. */

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

/** A failure to report: one sentence, optional details, the answer's body for `--json`. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly details: readonly string[] = [],
    readonly body?: unknown,
    /** 1: the request failed; 2: the command line is wrong. */
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export function usageError(message: string): CliError {
  return new CliError(message, [], undefined, 2);
}

/** Columns padded to their widest cell; the last column is not padded. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, i) =>
    Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

/** `key  value` lines for the fields that are present, in the given order. */
export function fields(entries: ReadonlyArray<readonly [string, unknown]>): string {
  const present = entries.filter(([, value]) => value !== undefined && value !== null);
  const width = Math.max(...present.map(([key]) => key.length));
  return present
    .map(([key, value]) => {
      const text = Array.isArray(value) ? value.join('; ') : String(value);
      return `${key.padEnd(width)}  ${text}`;
    })
    .join('\n');
}

/** At most `max` characters, with an ellipsis when cut. */
export function clip(text: string | undefined, max = 60): string {
  if (!text) return '';
  const flat = text.replace(/\s+/g, ' ');
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
