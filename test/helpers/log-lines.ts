/** The Powertools log lines a piece of test code makes, read from stdout and stderr. */
import { vi } from 'vitest';
import { logger } from '../../functions/kernel/observability.ts';

export type LogLine = Record<string, unknown>;

/**
 * The JSON log lines written while `act` runs, at level INFO (the tests' default is WARN).
 * Restores the streams and the level afterwards; other output passes through.
 */
export async function logLinesOf(act: () => Promise<void>): Promise<LogLine[]> {
  const written: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write.bind(stream);
    return vi.spyOn(stream, 'write').mockImplementation((chunk, ...rest) => {
      const text = String(chunk);
      if (!text.startsWith('{')) return write(chunk, ...(rest as []));
      written.push(text);
      return true;
    });
  });
  const level = logger.getLevelName();
  logger.setLogLevel('INFO');
  try {
    await act();
  } finally {
    logger.setLogLevel(level);
    for (const spy of spies) spy.mockRestore();
  }
  return written.flatMap((text) =>
    text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LogLine),
  );
}
