/**
 * Every command of `npm run leads`, in the order `help` lists them. A new command is a file in
 * this folder and one line here.
 */
import type { Command } from '../command.ts';
import { backfill } from './backfill.ts';
import { CONFIG_COMMANDS } from './config.ts';
import { erase } from './erase.ts';
import { list, move, replay, retry, show } from './leads.ts';
import { refresh } from './report.ts';
import { upstream } from './upstream.ts';

export const COMMANDS: readonly Command[] = [
  list,
  show,
  retry,
  move,
  replay,
  backfill,
  refresh,
  upstream,
  erase,
  ...CONFIG_COMMANDS,
];
