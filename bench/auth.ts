/**
 * Sign-in timing (bench phase `auth`): a wrong Basic password for a user name that does not
 * exist against one for a name that does, with the deployed scrypt cost (N=16384), alternated
 * so that both see the same machine load. The gateway runs one scrypt for either
 * (functions/kernel/client-auth.ts: a stand-in hash of the same cost for unknown names), so the
 * ratio should be close to 1 and must stay within 2: timing must not tell which names exist.
 * Neither answer is remembered (only right passwords are), so every try pays its scrypt.
 */

import { hashPassword, matchClient } from '../functions/kernel/client-auth.ts';
import type { Client } from '../functions/kernel/client-schema.ts';
import { emitFigures, type Figure, figure, median, progress } from './lib.ts';

const TRIES = 40;

export async function authBench(): Promise<Figure[]> {
  const clients: Client[] = [
    { username: 'ops', passwordHash: await hashPassword('the-right-one'), roles: ['admin'] },
    { username: 'reporter', passwordHash: await hashPassword('another'), roles: ['report:read'] },
  ];
  const known: number[] = [];
  const unknown: number[] = [];
  const time = async (username: string, into: number[], i: number) => {
    const start = performance.now();
    await matchClient({ username, password: `wrong-${i}` }, clients);
    into.push(performance.now() - start);
  };
  // One warm-up of each, then alternate.
  await time('ops', [], -1);
  await time('nobody', [], -1);
  for (let i = 0; i < TRIES; i++) {
    await time('ops', known, i);
    await time(`nobody-${i}`, unknown, i);
  }
  const ratio = median(unknown) / median(known);
  progress(`auth: known ${median(known).toFixed(1)} ms, unknown ${median(unknown).toFixed(1)} ms`);
  if (!(ratio > 0.5 && ratio < 2)) {
    throw new Error(
      `an unknown user name takes ${ratio.toFixed(2)}× a known one (must be within 2×)`,
    );
  }
  return [
    figure(
      'auth: wrong password, unknown user name (median)',
      median(unknown),
      'ms',
      'wrong password, known user name',
      median(known),
      `${TRIES} tries each, alternated, scrypt N=16384; must stay within 2×`,
    ),
  ];
}

if (import.meta.filename === process.argv[1]) {
  emitFigures(await authBench());
}
