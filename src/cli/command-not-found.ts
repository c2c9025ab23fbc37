/**
 * oclif's `command_not_found` hook: a mistyped command is ONE line on stderr that names the
 * closest command, and exit code 2 (a usage error), whether or not a person is at a terminal:
 *
 *   kexp: "replya" is not a kexp command; did you mean "replay"? (kexp help lists them all)
 *
 * Why not @oclif/plugin-not-found: it offers its suggestion only as an interactive yes/no
 * prompt when stdin is a TTY (a script or a CI log gets no suggestion at all), exits 127 (not
 * one of kexp's documented exit codes) and writes a two-line Warning/Error block. The distance
 * is fast-levenshtein's, the library that plugin uses; only the message and exit code are ours.
 */
import type { Hook } from '@oclif/core';
import levenshtein from 'fast-levenshtein';
import { EXIT } from './exit-codes.js';
import { terminalSafeLine } from '../render/terminal-safe.js';

/** The visible command (or topic path) closest to `typed`, or undefined when none is close. */
export function closestCommand(typed: string, ids: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const id of ids) {
    const d = levenshtein.get(typed, id);
    if (d < bestDistance) {
      best = id;
      bestDistance = d;
    }
  }
  // Beyond about half the word, a "suggestion" is noise (e.g. "status" → "record").
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(typed.length / 2)) ? best : undefined;
}

const hook: Hook.CommandNotFound = async function (opts) {
  const sep = opts.config.topicSeparator;
  const visible = opts.config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases]);
  // With a space as the topic separator oclif joins the words it could not place ("replya
  // x" arrives as "replya:x"); kexp has no topics, so the command is the first word.
  const typed = opts.id.split(':')[0] ?? opts.id;
  const near = closestCommand(typed, visible);
  const bin = opts.config.bin;
  const hint = near === undefined ? '' : `; did you mean "${near.replaceAll(':', sep)}"?`;
  process.stderr.write(`${bin}: ${terminalSafeLine(JSON.stringify(typed))} is not a ${bin} command${terminalSafeLine(hint)} (${bin} help lists them all)\n`);
  this.exit(EXIT.USAGE);
};

export default hook;
