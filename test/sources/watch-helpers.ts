/** Shared helpers for the watch-source tests (not a test file itself). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { ObservedEvent, TimelineEvent } from '../../src/timeline/event.js';
import type { Diagnostics, InputProblem, OpenedSource } from '../../src/sources/source.js';
import { openWatchSource } from '../../src/sources/watch/index.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/watch/', import.meta.url));
export const fx = (name: string): string => join(FIXTURES, name);

export interface Collected {
  source: OpenedSource;
  events: TimelineEvent[];
  problems: InputProblem[];
  warnings: string[];
}

export function recorder(): { diagnostics: Diagnostics; problems: InputProblem[]; warnings: string[] } {
  const problems: InputProblem[] = [];
  const warnings: string[] = [];
  return { diagnostics: { problem: (p) => problems.push(p), warn: (m) => warnings.push(m) }, problems, warnings };
}

export async function collect(
  path: string,
  opts: { format?: string; stdin?: NodeJS.ReadableStream } = {},
): Promise<Collected> {
  const r = recorder();
  const source = await openWatchSource(path, { ...opts, diagnostics: r.diagnostics });
  const events: TimelineEvent[] = [];
  for await (const e of source.events) events.push(e);
  return { source, events, problems: r.problems, warnings: r.warnings };
}

/** Compact view of an event for exact comparisons. */
export function brief(e: TimelineEvent): string {
  if (e.type === 'observed') {
    const o = e as ObservedEvent;
    return `${e.source.line} ${o.kind} ${o.watchType} ${o.object.metadata.name}@${o.object.metadata.resourceVersion}`;
  }
  if (e.type === 'gap') return `${e.source.line} gap ${e.reason}${e.kinds ? ` [${e.kinds.join(',')}]` : ''}`;
  return `${e.source.line} ${e.type}`;
}

/** Epoch ms of a whole-second UTC time on 2026-11-30. */
export const T = (hh: number, mm: number, ss: number, ms = 0): number => Date.UTC(2026, 10, 30, hh, mm, ss) + ms;

/** A temp directory for files built inside a test. */
export function tmpFile(name: string, content: string | Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'kexp-watch-'));
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}
