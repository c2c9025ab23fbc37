/**
 * kexp's help class (package.json `oclif.helpClass`): oclif's own help, except for a subject
 * that is no command. oclif's Help.showHelp ends `kexp help nosuch` with its error block
 * (` ›   Error: Command nosuch not found.`, exit 2); kexp says it as a mistyped command is said
 * (src/cli/command-not-found.ts): one line on stderr naming the closest command, exit 2.
 *
 * Cost: one scan of the command list, only when the subject is unknown.
 */
import { Help } from '@oclif/core';
import { EXIT } from './exit-codes.js';
import { closestCommand } from './command-not-found.js';
import { terminalSafeLine } from '../render/terminal-safe.js';

export default class KexpHelp extends Help {
  override async showHelp(argv: string[]): Promise<void> {
    const words = argv.filter((a) => !a.startsWith('-'));
    if (words.length > 0) {
      const subject = words.join(':');
      const known = this.config.findCommand(subject) ?? this.config.findTopic(subject) ?? this.config.findCommand(words[0]!);
      if (!known) {
        const bin = this.config.bin;
        const visible = this.config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases]);
        const near = closestCommand(words[0]!, visible);
        const hint = near === undefined ? '' : `; did you mean "${near.replaceAll(':', this.config.topicSeparator)}"?`;
        process.stderr.write(`${bin}: ${terminalSafeLine(`${JSON.stringify(words[0])} is not a ${bin} command${hint}`)} (${bin} help lists them all)\n`);
        process.exitCode = EXIT.USAGE;
        return;
      }
    }
    return super.showHelp(argv);
  }
}
