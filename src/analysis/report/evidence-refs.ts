/**
 * How a replayed report cites its evidence: `FILE:LINE` of the input line an event came from
 * (a SourceRef), each cited once and at most `max` per list (10 by default), in the order given.
 *
 * Pure; `refs` is O(n × max).
 */
import type { SourceRef } from '../../timeline/event.js';

export function ref(s: SourceRef): string;
export function ref(s: SourceRef | undefined): string | undefined;
export function ref(s: SourceRef | undefined): string | undefined {
  return s ? `${s.file}:${s.line}` : undefined;
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
