/**
 * kexp's progress spinner (ora), shown only on an interactive stderr that reports a real width
 * (a PTY with 0 columns makes ora redraw forever), never with --quiet, CI or NO_COLOR-only
 * logs. Everything else gets plain progress lines or nothing.
 *
 * `discardStdin: false`: ora's default puts a TTY stdin into raw mode and turns the Ctrl-C
 * byte back into a SIGINT itself, and only while its event loop turn comes (libraries.md B.3);
 * kexp reads nothing from stdin while it spins, so the terminal delivers Ctrl-C as a signal to
 * the handlers of KexpCommand.abortOnSignals, which keep it from killing the process.
 */
import ora, { type Ora } from 'ora';

export function spinnerEnabled(quiet: boolean): boolean {
  const s = process.stderr;
  return !quiet && Boolean(s.isTTY) && (s.columns ?? 0) > 0 && !process.env.CI;
}

/** An ora spinner on stderr, started when enabled (see spinnerEnabled). */
export function createSpinner(text: string, quiet: boolean): Ora {
  const spinner = ora({ text, stream: process.stderr, isEnabled: spinnerEnabled(quiet), discardStdin: false });
  if (spinner.isEnabled) spinner.start();
  return spinner;
}
