/**
 * Times in terminal tables: `HH:MM:SS.mmm` (UTC), the date written once in the section title
 * (kubectl-style tables repeat nothing a row does not need). A row whose time falls on another
 * day than the section's date keeps its date (`2026-12-01 00:00:01.250`), so nothing is
 * ambiguous in sections that span midnight.
 */

/** `2026-11-30` of an RFC 3339 time, or undefined. */
export function dateOf(iso: string | undefined): string | undefined {
  if (!iso) return undefined;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(0, 10) : undefined;
}

/** The first date among `isos` (the section's date), or undefined when none parses. */
export function sectionDate(isos: Array<string | undefined>): string | undefined {
  let best: number | undefined;
  for (const s of isos) {
    const v = s ? Date.parse(s) : NaN;
    if (Number.isFinite(v) && (best === undefined || v < best)) best = v;
  }
  return best === undefined ? undefined : new Date(best).toISOString().slice(0, 10);
}

/** A formatter for times of a section dated `date`: `HH:MM:SS.mmm`, with the date only for other days; `—` for none. */
export function clockFor(date: string | undefined): (iso: string | number | undefined) => string {
  return (v) => {
    if (v === undefined || v === '') return '—';
    const ms = typeof v === 'number' ? v : Date.parse(v);
    if (!Number.isFinite(ms)) return String(v);
    const s = new Date(Math.floor(ms)).toISOString();
    const clock = s.slice(11, 23);
    return s.slice(0, 10) === date ? clock : `${s.slice(0, 10)} ${clock}`;
  };
}

/** ` (2026-11-30, UTC)` for a section title, or ` (UTC)`. */
export function dateSuffix(date: string | undefined): string {
  return date ? ` (${date}, UTC)` : ' (UTC)';
}
