/**
 * kubectl-style borderless tables: upper-case headers, columns separated by three spaces, no
 * box drawing, one line per row. Unless `wide`, the table fits `width` columns: when the
 * natural widths are too wide, the free-text columns (`flex`: Why, Evidence, Detail, What)
 * shrink first, widest first; then the other text columns (`text`: names); `fixed` columns
 * (times, numbers, short keywords) never shrink. A shrunk cell ends in `…`; `-o wide` prints
 * every cell in full (and may then be wider than the terminal, as `kubectl -o wide` is).
 *
 * Own code rather than cli-table3 with its border characters set to '': cli-table3 wraps or
 * truncates only to column widths given up front, so the shrink-the-free-text-first rule
 * would have to measure every cell here anyway, and it is slow for the thousands of rows
 * `-o wide` can list (libraries.md B.4); this is one measuring pass and one padding pass.
 */
import { terminalSafeLine } from './terminal-safe.js';

export type ColumnKind = 'fixed' | 'text' | 'flex';

export interface Column {
  /** Header text; printed in upper case. */
  header: string;
  /** How the column may shrink (default `text`). */
  kind?: ColumnKind;
  align?: 'left' | 'right';
}

export interface TableOptions {
  width: number;
  /** No truncation: every cell in full. */
  wide?: boolean;
  /** Prefix of every line (counted in the width). */
  indent?: string;
}

export const GAP = 3;
const FLEX_MIN = 12;
const TEXT_MIN = 8;

/** Display length (code points; the renderers print single-width text). */
export function displayLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** `s` cut to `w` columns, ending in `…` when cut. */
export function truncate(s: string, w: number): string {
  if (displayLength(s) <= w) return s;
  if (w <= 0) return '';
  return [...s].slice(0, w - 1).join('') + '…';
}

/** The column widths for the given natural widths (exported for tests). */
export function fitWidths(columns: Column[], natural: number[], o: TableOptions): number[] {
  const w = [...natural];
  if (o.wide) return w;
  const total = () => displayLength(o.indent ?? '') + w.reduce((a, b) => a + b, 0) + GAP * Math.max(0, w.length - 1);
  const shrink = (kind: ColumnKind, floor: (i: number) => number) => {
    let excess = total() - o.width;
    while (excess > 0) {
      let best = -1;
      for (let i = 0; i < w.length; i++) {
        if ((columns[i]!.kind ?? 'text') !== kind || w[i]! <= floor(i)) continue;
        if (best < 0 || w[i]! > w[best]!) best = i;
      }
      if (best < 0) return;
      // Down to the next-widest column of the same kind (or the floor) in one step.
      let next = floor(best);
      for (let i = 0; i < w.length; i++) if (i !== best && (columns[i]!.kind ?? 'text') === kind && w[i]! < w[best]! && w[i]! > next) next = w[i]!;
      const cut = Math.min(excess, w[best]! - next || 1);
      w[best] = w[best]! - cut;
      excess -= cut;
    }
  };
  const head = (i: number) => displayLength(columns[i]!.header);
  shrink('flex', (i) => Math.min(natural[i]!, Math.max(head(i), FLEX_MIN)));
  shrink('text', (i) => Math.min(natural[i]!, Math.max(head(i), TEXT_MIN)));
  shrink('flex', (i) => Math.min(natural[i]!, head(i)));
  return w;
}

/** The table as lines (header first). Cells are made single-line and terminal-safe. */
export function formatTable(columns: Column[], rows: string[][], o: TableOptions): string[] {
  const indent = o.indent ?? '';
  const cells = rows.map((r) => columns.map((_, i) => terminalSafeLine(r[i] ?? '')));
  const heads = columns.map((c) => c.header.toUpperCase());
  const natural = heads.map((h, i) => cells.reduce((m, r) => Math.max(m, displayLength(r[i]!)), displayLength(h)));
  const widths = fitWidths(columns, natural, o);
  const line = (r: string[]) => {
    const parts = r.map((c, i) => {
      const s = truncate(c, widths[i]!);
      const pad = ' '.repeat(widths[i]! - displayLength(s));
      return columns[i]!.align === 'right' ? pad + s : i === r.length - 1 ? s : s + pad;
    });
    // trimEnd, not a /\s+$/ replace: that regex is quadratic in a long run of blanks.
    const text = indent + parts.join(' '.repeat(GAP)).trimEnd();
    // Still too wide (fixed columns alone exceed the width): cut the row, never wrap it.
    return o.wide ? text : truncate(text, o.width);
  };
  return [line(heads), ...cells.map(line)];
}
