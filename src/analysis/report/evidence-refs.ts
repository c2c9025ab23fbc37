/**
 * How a replayed report cites its evidence: `FILE:LINE` of the input line an event came from
 * (a SourceRef), each cited once and at most `max` per list (10 by default), in the order given;
 * `parseRef` reads a citation back (the one home of the format: a report's consumers that need
 * the file or the line of a citation parse it here).
 *
 * Pure; `refs` is O(n × max), `parseRef` O(length).
 */
import type { SourceRef } from '../../timeline/event.js';

export function ref(s: SourceRef): string;
export function ref(s: SourceRef | undefined): string | undefined;
export function ref(s: SourceRef | undefined): string | undefined {
  return s ? `${s.file}:${s.line}` : undefined;
}

/**
 * The exact inverse of `ref`: `FILE:LINE` → its SourceRef, or undefined for a string `ref` does
 * not make. The line is what follows the last ':' (a 1-based line, written as `ref` writes a
 * number), so a file name may hold ':' itself (`a:b:12` is line 12 of `a:b`).
 */
export function parseRef(r: string): SourceRef | undefined {
  const i = r.lastIndexOf(':');
  if (i < 0) return undefined;
  const text = r.slice(i + 1);
  const line = Number(text);
  return Number.isSafeInteger(line) && line >= 1 && String(line) === text ? { file: r.slice(0, i), line } : undefined;
}

/** Distinct citations of `list` (absent ones skipped), the first `max` of them. */
export function refs(list: Array<SourceRef | undefined>, max = 10): string[] {
  const out: string[] = [];
  for (const s of list) {
    const r = ref(s);
    if (r && !out.includes(r)) out.push(r);
    if (out.length >= max) break;
  }
  return out;
}
