/**
 * `iso` in a module of its own: `kexp explain`'s snapshot
 * analysis needs it, and importing report-builder for it would load the whole replay model at
 * start-up (bench/explain).
 */

/** RFC 3339 with ms; undefined for absent or unrepresentable times (never throws). */
export function iso(ms: number | undefined): string | undefined {
  if (ms === undefined || !Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return undefined;
  return new Date(Math.floor(ms)).toISOString();
}
