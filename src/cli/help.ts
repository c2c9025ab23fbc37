/**
 * kexp's help class (package.json `oclif.helpClass`): oclif's own help, except for a subject
 * that is no command. oclif's Help.showHelp ends `kexp help nosuch` with its error block
 * (` ›   Error: Command nosuch not found.`, exit 2); kexp says it as a mistyped command is said
 * (src/cli/command-not-found.ts): one line on stderr naming the closest command, exit 2.
 *
 * Cost: one scan of the command list, only when the subject is unknown.
 */
import { Help, type Interfaces } from '@oclif/core';
import { EXIT } from './exit-codes.js';
import { closestCommand } from './command-not-found.js';
import { terminalSafeLine } from '../render/terminal-safe.js';

/**
 * Answers `help SUBJECT` for a subject that is no command (one line on stderr, exit 2) and
 * returns true; false when oclif's help should answer. Shared by KexpHelp and the single
 * executable (scripts/sea-entry.mjs), which cannot load a help class from a file.
 */
export function answerUnknownSubject(config: Interfaces.Config, argv: string[]): boolean {
  const words = argv.filter((a) => !a.startsWith('-'));
  if (words.length === 0) return false;
  const subject = words.join(':');
  const known = config.findCommand(subject) ?? config.findTopic(subject) ?? config.findCommand(words[0]!);
  if (known) return false;
  const bin = config.bin;
  const visible = config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases]);
  const near = closestCommand(words[0]!, visible);
  const hint = near === undefined ? '' : `; did you mean "${near.replaceAll(':', config.topicSeparator)}"?`;
  process.stderr.write(`${bin}: ${terminalSafeLine(`${JSON.stringify(words[0])} is not a ${bin} command${hint}`)} (${bin} help lists them all)\n`);
  process.exitCode = EXIT.USAGE;
  return true;
}

export default class KexpHelp extends Help {
  override async showHelp(argv: string[]): Promise<void> {
    if (answerUnknownSubject(this.config, argv)) return;
    return super.showHelp(argv);
  }
}
