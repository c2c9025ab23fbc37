import { test } from 'node:test';
import assert from 'node:assert/strict';

import type { TimelineEvent } from '../../src/timeline/event.js';
import type { FileCoverage, OpenedSource } from '../../src/sources/source.js';
import { mergeSources, openWatchSource } from '../../src/sources/watch/index.js';
import { brief, fx, recorder, T } from './watch-helpers.js';

test('mergeSources: two recordings interleave by receive time; ties go to the earlier argument', async () => {
  const r = recorder();
  const a = await openWatchSource(fx('recording.jsonl'), { diagnostics: r.diagnostics });
  const b = await openWatchSource(fx('recording-second.jsonl'), { diagnostics: r.diagnostics });
  const merged: Array<TimelineEvent & { seq: number }> = [];
  for await (const e of mergeSources([a, b])) merged.push(e);
  assert.deepEqual(
    merged.map((e) => `${e.source.file === fx('recording.jsonl') ? 'A' : 'B'}:${brief(e)}`),
    [
      'A:2 ReplicaSet ADDED web-7d9c6b8f5d@48190',
      'A:3 Pod ADDED web-7d9c6b8f5d-x7k2p@48102',
      'A:4 Namespace ADDED shop@1187',
      // A:6 and B:2 were both received at 10:15:02.134512: argument order decides.
      'A:6 Pod ADDED web-7d9c6b8f5d-m4q9z@48211',
      'B:2 Pod ADDED web-7d9c6b8f5d-r8t5w@48212',
      'A:7 Event ADDED web-7d9c6b8f5d.187c5a1e2f3b4c5d@48215',
      'B:3 Pod MODIFIED web-7d9c6b8f5d-r8t5w@48220',
      'A:8 Pod MODIFIED web-7d9c6b8f5d-m4q9z@48219',
      'A:9 gap watch-relist [Pod]',
      'A:11 Pod MODIFIED web-7d9c6b8f5d-m4q9z@48390',
    ],
  );
  assert.deepEqual(merged.map((e) => e.seq), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(merged[3]!.at, T(10, 15, 2, 134.512));
  assert.equal(merged[4]!.at, T(10, 15, 2, 134.512));
  for (let i = 1; i < merged.length; i++) assert.ok(merged[i]!.at >= merged[i - 1]!.at);
  // Swapping the arguments swaps the tie.
  const r2 = recorder();
  const a2 = await openWatchSource(fx('recording.jsonl'), { diagnostics: r2.diagnostics });
  const b2 = await openWatchSource(fx('recording-second.jsonl'), { diagnostics: r2.diagnostics });
  const order: string[] = [];
  for await (const e of mergeSources([b2, a2])) order.push(brief(e));
  assert.deepEqual(order.slice(3, 5), ['2 Pod ADDED web-7d9c6b8f5d-r8t5w@48212', '6 Pod ADDED web-7d9c6b8f5d-m4q9z@48211']);
  assert.equal(a.coverage().events, 8);
  assert.equal(b.coverage().events, 2);
});

test('mergeSources: a recording and an object-timestamp dump', async () => {
  const r = recorder();
  const rec = await openWatchSource(fx('recording-second.jsonl'), { diagnostics: r.diagnostics });
  const list = await openWatchSource(fx('list-kubectl.json'), { diagnostics: r.diagnostics });
  const out: string[] = [];
  for await (const e of mergeSources([rec, list])) out.push(`${e.atBasis}:${brief(e)}`);
  assert.deepEqual(out, [
    'object-timestamp:4 ReplicaSet ADDED web-7d9c6b8f5d@48209',
    'object-timestamp:67 Pod ADDED web-7d9c6b8f5d-x7k2p@48102',
    'received:2 Pod ADDED web-7d9c6b8f5d-r8t5w@48212',
    'received:3 Pod MODIFIED web-7d9c6b8f5d-r8t5w@48220',
    'object-timestamp:128 Pod ADDED web-7d9c6b8f5d-m4q9z@48390',
  ]);
});

/** A synthetic source that counts how far it was read and whether it was closed. */
function fake(name: string, ats: number[]): OpenedSource & { pulled: () => number; closed: () => boolean } {
  let pulled = 0;
  let closed = false;
  async function* gen(): AsyncGenerator<TimelineEvent> {
    try {
      for (const [i, at] of ats.entries()) {
        pulled++;
        yield { type: 'gap', reason: 'test', at, atBasis: 'received', source: { file: name, line: i + 1 } };
      }
    } finally {
      closed = true;
    }
  }
  const cov: FileCoverage = { file: name, format: 'test', timeBasis: 'received', endMarker: false, events: 0, problems: 0 };
  return { file: name, format: 'test', timeBasis: 'received', events: gen(), coverage: () => cov, pulled: () => pulled, closed: () => closed };
}

test('mergeSources: holds one event per source and closes all sources on early exit', async () => {
  const a = fake('a', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  const b = fake('b', [1, 5, 100]);
  const c = fake('c', []);
  const seen: string[] = [];
  for await (const e of mergeSources([a, b, c])) {
    seen.push(`${e.source.file}${e.source.line}@${e.at}`);
    if (seen.length === 4) break;
  }
  assert.deepEqual(seen, ['a1@1', 'b1@1', 'a2@2', 'a3@3']);
  assert.equal(a.pulled(), 4); // never more than one ahead
  assert.equal(b.pulled(), 2);
  assert.equal(a.closed(), true);
  assert.equal(b.closed(), true);
});
