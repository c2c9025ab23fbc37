/** Turns any thrown value into the one line kexp prints on stderr (never a stack trace). */
export function oneLine(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.split('\n')[0];
}
