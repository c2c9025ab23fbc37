/**
 * Feeds a stored kexp recording (examples/, examples/captures/) into a kexp serve registry as its
 * reflectors would have delivered it: every event and gap line through the registry's sink of
 * its watch, with its recorded receive time, up to a given time. The recording's watches are the
 * registry's. For the serve tests and bench/serve-memory.ts.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import { parseRfc3339 } from '../../src/sources/watch/recording-format.ts';
import type { RecordingWatch } from '../../src/sources/watch/recording-format.ts';
import type { ServeRegistry } from '../../src/serve/registry.ts';

export interface RecordingLines {
  header: { serverVersion?: string; namespace?: string; watches: RecordingWatch[] };
  lines: Array<{ at: number; src: string; event?: { type: string; object: Record<string, unknown> }; synthetic?: 'initial-list' | 'relist'; gap?: { reason: 'watch-relist' | 'watch-reconnect'; detail?: string } }>;
  end?: number;
}

export function readRecording(file: string): RecordingLines {
  const raw = fs.readFileSync(file);
  const text = (file.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8');
  const out: RecordingLines = { header: { watches: [] }, lines: [] };
  for (const [i, l] of text.split('\n').entries()) {
    if (!l.trim()) continue;
    const o = JSON.parse(l);
    if (i === 0) {
      out.header = o;
      continue;
    }
    const at = parseRfc3339(o.recv)!;
    if (o.end) out.end = at;
    else out.lines.push({ at, src: String(o.src).split('/')[0]!, ...(o.event ? { event: o.event } : {}), ...(o.synthetic ? { synthetic: o.synthetic } : {}), ...(o.gap ? { gap: o.gap } : {}) });
  }
  return out;
}

/** Feeds the lines received in [from, until) to the registry; returns how many. */
export function feed(reg: ServeRegistry, rec: RecordingLines, until: number, from = -Infinity): number {
  let n = 0;
  const sinks = new Map<string, ReturnType<ServeRegistry['sink']>>();
  for (const l of rec.lines) {
    if (l.at < from || l.at >= until) continue;
    let s = sinks.get(l.src);
    if (!s) sinks.set(l.src, (s = reg.sink(l.src)));
    if (l.event) s.event(l.event.type as 'ADDED', l.event.object, l.at, l.synthetic);
    else if (l.gap) s.gap(l.gap.reason, l.gap.detail ?? '', l.at);
    n++;
  }
  for (const w of rec.header.watches) if (from === -Infinity) reg.sink(w.resource).synced?.();
  return n;
}
