/**
 * The base of every kexp command, in kubectl's shape (flags → options → validate → run): each
 * command parses its flags (declared once, src/cli/flags.ts), validates them into the options
 * of a pipeline — anything the validate step throws is a UsageError — runs the pipeline,
 * prints the result through the one output step (src/cli/output.ts) and ends with the exit
 * code of its result (report-exit.ts) or of the error that stopped it (`fail`: the type of the
 * error decides, src/cli/error-exit.ts).
 *
 * oclif's own flag-parsing errors (unknown flag, bad option value) become one line on stderr
 * with exit code 2, like kexp's other usage errors, instead of oclif's multi-line block with
 * the whole usage text. Every line kexp writes to stderr passes the terminal sanitiser:
 * messages quote names, Event text and server errors.
 */
import { Command } from '@oclif/core';
import { EXIT } from './exit-codes.js';
import { clearedFor } from './progress.js';
import { exitCodeForError } from './error-exit.js';
import { closestCommand } from './command-not-found.js';
import { oneLine } from './messages.js';
import { terminalSafe, terminalSafeLine } from '../render/terminal-safe.js';
import { displayLength } from '../render/columns.js';
import { wrap } from '../render/text.js';
import { UsageError } from '../pipeline/usage-error.js';

export abstract class KexpCommand extends Command {
  /**
   * An AbortController aborted by the first Ctrl-C (SIGINT) or SIGTERM, for commands that talk
   * to a cluster; the command observes the signal, finishes (closes the recording, prints what
   * it saw) and returns normally with exit code 130 (never this.exit() from a signal handler,
   * libraries.md B.2). A second signal while it finishes exits at once with 130. Call
   * `dispose()` when done.
   *
   * The handlers stay installed until `dispose()` — never `process.once`. Why: ora's spinner
   * hides the cursor through cli-cursor → restore-cursor, which registers signal-exit; on a
   * signal, signal-exit's own handler re-raises the signal with the default action (death by
   * SIGINT: no end line, no result, no exit code 130) whenever it finds itself the only listener.
   * A one-shot listener is already removed when signal-exit looks, so one Ctrl-C in a real
   * terminal killed kexp. With kexp's listener still there, signal-exit leaves the signal
   * alone. (ora's `discardStdin` is off — createSpinner in spinner.ts — so Ctrl-C reaches kexp
   * as the terminal's SIGINT, not as a byte ora re-signals.)
   */
  protected abortOnSignals(): AbortController & { dispose(): void } {
    const ac = new AbortController() as AbortController & { dispose(): void };
    const onSig = (sig: NodeJS.Signals) => {
      if (!ac.signal.aborted) {
        ac.abort();
        return;
      }
      process.stderr.write(`kexp: ${sig} again; exiting without finishing\n`);
      process.exit(EXIT.INTERRUPTED);
    };
    process.on('SIGINT', onSig);
    process.on('SIGTERM', onSig);
    ac.dispose = () => {
      process.off('SIGINT', onSig);
      process.off('SIGTERM', onSig);
    };
    return ac;
  }

  /**
   * For the file commands (replay, audit, kcm-log), once their result is printed: when a signal
   * came (while reading, analysing or rendering), says how far the reading got (`cut`, from src/pipeline/read-interrupt.ts; undefined
   * when the input had been read whole before it) and sets exit code 130. False without a signal.
   */
  protected async endInterrupted(signal: AbortSignal, cut: string | undefined): Promise<boolean> {
    // The analysis and the rendering run without yielding: a signal that came meanwhile is
    // still queued in the event loop (libuv reads it in the poll phase). Two check-phase turns
    // put a whole loop iteration, poll included, before the test below — one is not always
    // enough: an immediate queued from the check phase itself can run before the next poll —
    // so the signal reaches abortOnSignals's handler before dispose removes it, and the first
    // Ctrl-C in any phase ends the command with 130, never a verdict's code as if it had not come.
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    if (!signal.aborted) return false;
    this.logToStderr(cut !== undefined ? `kexp: interrupted ${cut} — partial result` : 'kexp: interrupted after the input was read whole; the result is complete');
    process.exitCode = EXIT.INTERRUPTED;
    return true;
  }

  /**
   * Warnings, problems and errors on stderr, with any control character from the input made
   * visible; on a terminal, a line wider than it is wrapped at word boundaries (continuation
   * lines indented two columns), so the terminal never breaks a word or a FILE:LINE; to a pipe
   * or a file each message stays one line, for grep.
   */
  override logToStderr(message = '', ...args: unknown[]): void {
    const safe = terminalSafe(message);
    const columns = process.stderr.isTTY ? process.stderr.columns : undefined;
    clearedFor(() => super.logToStderr(columns ? wrapForTerminal(safe, columns) : safe, ...args.map((a) => (typeof a === 'string' ? terminalSafe(a) : a))));
  }

  /**
   * Ends the command on `err`: `kexp: ` and `text` (by default the error's first line) on
   * stderr through `write` (by default logToStderr), and the exit code of the error's type
   * (src/cli/error-exit.ts).
   */
  protected fail(err: unknown, write: (line: string) => void = (line) => this.logToStderr(line), text: string = oneLine(err)): void {
    write(`kexp: ${text}`);
    process.exitCode = exitCodeForError(err);
  }

  /**
   * The validate step of a live command (explain, record, adopt) failed: a UsageError, written
   * as one terminal line (a tab shown as `\t`, like the flag-parsing errors below; the file
   * commands print theirs through `fail` as it is).
   */
  protected usageError(err: unknown): void {
    this.fail(UsageError.of(err), writeLine);
  }

  /**
   * oclif's "Expected --output=jsno to be one of: …" and "Nonexistent flag: --outptu" as one line
   * with the closest valid choice (the same distance rule as mistyped commands), e.g.
   * `--output "jsno" is not one of table, wide, json, yaml; did you mean "json"?`; undefined for
   * other errors.
   */
  private suggestionFor(message: string): string | undefined {
    const value = /^Expected --([\w-]+)=([\s\S]*) to be one of: (.*)$/.exec(message);
    if (value) {
      const [, flag, given, list] = value as unknown as [string, string, string, string];
      const choices = list.split(',').map((c) => c.trim()).filter(Boolean);
      const near = closestCommand(given, choices);
      return `--${flag} ${JSON.stringify(given)} is not one of ${choices.join(', ')}${near !== undefined ? `; did you mean ${JSON.stringify(near)}?` : ''}`;
    }
    const unknown = /^Nonexistent flags?: (--?[^\s,]+)/.exec(message);
    if (unknown) {
      const typed = unknown[1]!;
      const flags = Object.entries((this.constructor as typeof Command).flags ?? {}).filter(([, f]) => !(f as { hidden?: boolean }).hidden);
      const names = flags.map(([name]) => `--${name}`);
      for (const [name, f] of flags) if ((f as { allowNo?: boolean }).allowNo) names.push(`--no-${name}`);
      const near = closestCommand(typed.replace(/=.*$/, ''), names);
      return `unknown flag ${typed}${near !== undefined ? `; did you mean ${near}?` : ''} (see kexp ${this.id ?? ''} --help)`;
    }
    return undefined;
  }

  /**
   * oclif's "Missing 1 required arg:" names the argument only on the lines after it, which the
   * one-line error drops: the missing arguments by name with their description, and the
   * command's first example as the usage to copy, e.g. `missing FILE (Input file(s));
   * e.g. kexp replay examples/scale-up-gated.kexp.jsonl (see kexp replay --help)`.
   */
  private missingArgs(args: ReadonlyArray<{ name?: string; description?: string }>): string {
    const cmd = this.constructor as typeof Command;
    // The description's first sentence: what to give, not every way to give it.
    const first = (d: string) => /^.*?\.(?=\s|$)/.exec(d)?.[0].replace(/\.$/, '') ?? d;
    const what = args.map((a) => `${(a.name ?? 'argument').toUpperCase()}${a.description ? ` (${first(a.description)})` : ''}`).join(' and ');
    const example = exampleOf(cmd.examples?.[0], this.id ?? '');
    return `missing ${what}${example ? `; e.g. ${example}` : ''} (see kexp ${this.id ?? ''} --help)`;
  }

  protected override async catch(err: Error & { oclif?: { exit?: number }; exitCode?: number; args?: Array<{ name?: string; description?: string }> }): Promise<unknown> {
    const parseError = err?.oclif?.exit === 2 || /Unexpected argument|Nonexistent flag|Expected --|Parsing --|Missing required|Missing \d+ required|cannot also be provided|must also be provided/.test(err?.message ?? '');
    if (parseError) {
      const first = (err.message ?? String(err)).split('\n').map((l) => l.trim()).find((l) => l.length > 0 && !/^(Error: )?The following errors? occurred:?$/i.test(l)) ?? 'bad arguments';
      const suggestion = /^Missing \d+ required args?/.test(first) && err.args?.length ? this.missingArgs(err.args) : this.suggestionFor(first.replace(/^Error:\s*/, ''));
      this.fail(new UsageError(suggestion ?? `${first.replace(/^Error:\s*/, '')} (see kexp ${this.id ?? ''} --help)`, { cause: err }), writeLine);
      return;
    }
    return super.catch(err);
  }
}

/** Each line of `text` wider than `columns` word-wrapped, its continuation lines indented two columns. */
export function wrapForTerminal(text: string, columns: number): string {
  return text.split('\n').map((l) => (displayLength(l) <= columns ? l : wrap(l, columns, '  ').replace(/^ {2}/, ''))).join('\n');
}

/** A command's example (`<%= config.bin %> <%= command.id %> …`) as typed: `kexp replay …`. */
function exampleOf(example: string | { command: string } | undefined, id: string): string | undefined {
  const text = typeof example === 'string' ? example : example?.command;
  return text?.replace(/<%= config\.bin %>/g, 'kexp').replace(/<%= command\.id %>/g, id);
}

/** Writes `line` to stderr as one terminal line: newlines and tabs shown as escapes too. */
function writeLine(line: string): void {
  process.stderr.write(`${terminalSafeLine(line)}\n`);
}
