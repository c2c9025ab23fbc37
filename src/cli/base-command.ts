/**
 * The base of every kexp command: oclif's own flag-parsing errors (unknown flag, bad option
 * value) become one line on stderr with exit code 2, like kexp's other usage errors, instead
 * of oclif's multi-line block with the whole usage text. Every line kexp writes to stderr
 * passes the terminal sanitiser: messages quote names, Event text and server errors.
 */
import { Command } from '@oclif/core';
import { EXIT } from './exit-codes.js';
import { terminalSafe, terminalSafeLine } from '../render/terminal-safe.js';

export abstract class KexpCommand extends Command {
  /**
   * An AbortController aborted by Ctrl-C (SIGINT) or SIGTERM, for commands that talk to a
   * cluster; the command observes the signal and returns normally (never this.exit() from a
   * signal handler, libraries.md B.2). Call `dispose()` when done.
   */
  protected abortOnSignals(): AbortController & { dispose(): void } {
    const ac = new AbortController() as AbortController & { dispose(): void };
    const onSig = () => ac.abort();
    process.once('SIGINT', onSig);
    process.once('SIGTERM', onSig);
    ac.dispose = () => {
      process.off('SIGINT', onSig);
      process.off('SIGTERM', onSig);
    };
    return ac;
  }

  /** Warnings, problems and errors on stderr, with any control character from the input made visible. */
  override logToStderr(message = '', ...args: unknown[]): void {
    super.logToStderr(terminalSafe(message), ...args.map((a) => (typeof a === 'string' ? terminalSafe(a) : a)));
  }

  /** Prints a usage error as one line and sets exit code 2. */
  protected usageError(err: unknown): void {
    const msg = err instanceof Error ? err.message : String(err);
    process.stderr.write(`kexp: ${terminalSafeLine(msg.split('\n')[0] ?? '')}\n`);
    process.exitCode = EXIT.USAGE;
  }

  protected override async catch(err: Error & { oclif?: { exit?: number }; exitCode?: number }): Promise<unknown> {
    const parseError = err?.oclif?.exit === 2 || /Unexpected argument|Nonexistent flag|Expected --|Parsing --|Missing required|Missing \d+ required/.test(err?.message ?? '');
    if (parseError) {
      const first = (err.message ?? String(err)).split('\n').map((l) => l.trim()).find((l) => l.length > 0) ?? 'bad arguments';
      process.stderr.write(`kexp: ${terminalSafeLine(first.replace(/^Error:\s*/, ''))} (see kexp ${this.id ?? ''} --help)\n`);
      process.exitCode = EXIT.USAGE;
      return;
    }
    return super.catch(err);
  }
}
