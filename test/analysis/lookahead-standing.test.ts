/**
 * The view alignment's indexed look-ahead reads (lookahead-buffer.ts: pod standings, turns,
 * diverged pods; view-alignment.ts `scanAhead`) against the scan of every buffered event they
 * replace:
 * - on random pod streams, the turns the buffer posts and the pods it reports diverged from the
 *   model's cache are exactly what their definitions say, recomputed from scratch;
 * - whole replays of recordings (every example, the DaemonSet and Job captures, a generated
 *   churn with deletions and replacements) and of the audit captures give the same report,
 *   byte for byte, with the index as with the scan, and the index answered most reads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { LookaheadBuffer, ORPHAN } from '../../src/analysis/engine/lookahead-buffer.js';
import { PodStore } from '../../src/model/pod-store.js';
import { controllerRefOf, type Pod } from '../../src/model/objects.js';
import { isPodActive } from '../../src/model/pod-ranking.js';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { auditFiles } from '../../src/pipeline/audit-files.js';
import type { TimelineEvent } from '../../src/timeline/event.js';
import { rng } from '../fuzz/mutate.js';

function pod(r: () => number, name: string): Pod {
  const owner = r();
  const ownerReferences = owner < 0.6 ? [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: owner < 0.4 ? 'u1' : 'u2', controller: true }] : owner < 0.8 ? [] : undefined;
  const phase = r() < 0.15 ? 'Succeeded' : 'Running';
  return { metadata: { namespace: 'a', name, ...(ownerReferences ? { ownerReferences } : {}), ...(r() < 0.1 ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) }, status: { phase } } as Pod;
}

const standing = (p: Pod | undefined): string | undefined => (p && isPodActive(p) ? (controllerRefOf(p.metadata)?.uid ?? ORPHAN) : undefined);

test('look-ahead: turns and diverged pods match their definitions on random pod streams', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const r = rng(seed);
    const buf = new LookaheadBuffer();
    const store = new PodStore();
    buf.trackPods(store);
    // The stream in input order (all events ever pushed) and how many have been delivered.
    const pushed: Array<TimelineEvent & { type: 'observed'; kind: 'Pod' }> = [];
    let delivered = 0;
    let at = 0;
    for (let step = 0; step < 400; step++) {
      const x = r();
      if (x < 0.5 || buf.length === 0) {
        const name = `p${Math.floor(r() * 6)}`;
        const e = { type: 'observed', kind: 'Pod', watchType: r() < 0.15 ? 'DELETED' : r() < 0.3 ? 'ADDED' : 'MODIFIED', at: (at += 1), atBasis: 'watch-receive', source: { file: 'x', line: step + 1 }, object: pod(r, name) } as TimelineEvent & { type: 'observed'; kind: 'Pod' };
        buf.push(e);
        pushed.push(e);
      } else if (x < 0.8) {
        const e = buf.shift() as (typeof pushed)[number];
        delivered++;
        // The model mostly follows the stream, sometimes not (withheld, held, filtered): both kinds of change.
        if (r() < 0.85) {
          if (e.watchType === 'DELETED') store.delete(`a/${e.object.metadata.name}`);
          else store.set(`a/${e.object.metadata.name}`, e.object);
        }
      } else {
        const name = `p${Math.floor(r() * 6)}`;
        if (r() < 0.5) store.delete(`a/${name}`);
        else store.set(`a/${name}`, pod(r, name));
      }
      // Diverged: the cache's standing differs from that of the pod's last delivered event.
      const lastDelivered = new Map<string, string | undefined>();
      for (const e of pushed.slice(0, delivered)) lastDelivered.set(`a/${e.object.metadata.name}`, e.watchType === 'DELETED' ? undefined : standing(e.object));
      const want = new Set<string>();
      for (const name of ['p0', 'p1', 'p2', 'p3', 'p4', 'p5']) {
        const k = `a/${name}`;
        if (standing(store.get(k)) !== lastDelivered.get(k)) want.add(k);
      }
      assert.deepEqual([...buf.divergedPods()!].sort(), [...want].sort(), `seed ${seed} step ${step}`);
      // Turns: buffered events whose standing differs from their pod's previous event in the stream.
      const turns: number[] = [];
      const prev = new Map<string, string | undefined>();
      pushed.forEach((e, i) => {
        const s = e.watchType === 'DELETED' ? undefined : standing(e.object);
        if (i >= delivered && s !== prev.get(e.object.metadata.name!)) turns.push(i);
        prev.set(e.object.metadata.name!, s);
      });
      assert.deepEqual([...buf.merged(['podt:a'])], turns, `seed ${seed} step ${step}`);
    }
  }
});

test('look-ahead: merged reads yield each position once, in order, from the head', () => {
  const buf = new LookaheadBuffer();
  const ev = (name: string, at: number, ns = 'a'): TimelineEvent => ({ type: 'observed', kind: 'Pod', watchType: 'MODIFIED', at, atBasis: 'watch-receive', source: { file: 'x', line: at }, object: { metadata: { namespace: ns, name } } } as TimelineEvent);
  for (let i = 0; i < 10; i++) buf.push(ev(`p${i % 3}`, i, i % 2 ? 'a' : 'b'));
  buf.shift();
  // p0 at 0 (shifted), 3, 6, 9; p1 at 1, 4, 7; the first event of every pod turns it (none before).
  assert.deepEqual([...buf.merged(['pod:b/p0', 'pod:a/p1', 'pod:a/p0', 'pod:b/p1'])], [1, 3, 4, 6, 7, 9]);
  assert.deepEqual([...buf.merged(['pod:a/p1'])], [1, 7]);
  assert.equal(buf.sortedByAt(), true);
  assert.equal(buf.positionAfter(4), 5);
  assert.equal(buf.endPosition, 10);
  assert.equal(buf.at(5).at, 5);
});

/** The report of `kexp replay` (or `audit`, `audit: true`) of `files`, with the index (true) or with `scanAhead` scanning (false). */
async function reportOf(files: string[], audit: boolean, indexed: boolean): Promise<string> {
  const proto = LookaheadBuffer.prototype as unknown as { trackPods: (...a: unknown[]) => void };
  const track = proto.trackPods;
  if (!indexed) proto.trackPods = () => undefined;
  try {
    const quiet = { onWarning: () => undefined, onProblem: () => undefined };
    const r = audit ? await auditFiles({ files, ...quiet }) : await replayFiles({ files, ...quiet });
    return JSON.stringify({ report: r.report, problems: r.problems });
  } finally {
    proto.trackPods = track;
  }
}

test('replay: indexed look-ahead reads and the scan give the same reports', { timeout: 600_000 }, async () => {
  // Each input with the controller's log beside it, when the capture has one (its relists are read ahead too).
  const runs: Array<{ files: string[]; audit: boolean }> = fs.readdirSync('examples').filter((f) => /\.kexp\.jsonl(\.gz)?$/.test(f)).map((f) => ({ files: [path.join('examples', f)], audit: false }));
  for (const d of fs.readdirSync('examples/captures')) {
    const dir = path.join('examples/captures', d);
    const kcm = fs.existsSync(path.join(dir, 'kcm.log')) ? [path.join(dir, 'kcm.log')] : [];
    if (fs.existsSync(path.join(dir, 'recording.kexp.jsonl'))) runs.push({ files: [path.join(dir, 'recording.kexp.jsonl'), ...kcm], audit: false });
    if (fs.existsSync(path.join(dir, 'audit.jsonl'))) runs.push({ files: [path.join(dir, 'audit.jsonl'), ...kcm], audit: true });
  }
  assert.ok(runs.length >= 40, `inputs: ${runs.length}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-standing-'));
  const gen = path.join(dir, 'churn.kexp.jsonl');
  const g = spawnSync(process.execPath, ['--import', 'tsx', 'bench/replay/generate.ts', gen, '30000', '60'], { encoding: 'utf8' });
  assert.equal(g.status, 0, g.stderr);
  runs.push({ files: [gen], audit: false });
  const proto = LookaheadBuffer.prototype as unknown as { merged: (...a: unknown[]) => unknown };
  const merged = proto.merged;
  let reads = 0;
  proto.merged = function (this: LookaheadBuffer, ...a: unknown[]) {
    reads++;
    return merged.apply(this, a);
  };
  try {
    for (const r of runs) {
      const before = reads;
      const scanned = await reportOf(r.files, r.audit, false);
      assert.equal(reads, before, `${r.files[0]}: the scan read the index`);
      assert.equal(await reportOf(r.files, r.audit, true), scanned, r.files[0]);
    }
  } finally {
    proto.merged = merged;
    fs.rmSync(dir, { recursive: true, force: true });
  }
  assert.ok(reads > 1_000, `indexed reads: ${reads}`);
});
