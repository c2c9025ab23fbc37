/**
 * When kexp shows an ora spinner: only on an interactive stderr that reports a real width
 * (a PTY with 0 columns makes ora redraw forever), never with --quiet, CI or NO_COLOR-only
 * logs. Everything else gets plain progress lines or nothing.
 */
export function spinnerEnabled(quiet: boolean): boolean {
  const s = process.stderr;
  return !quiet && Boolean(s.isTTY) && (s.columns ?? 0) > 0 && !process.env.CI;
}
