/**
 * The indexed look-ahead (src/analysis/engine/lookahead-buffer.ts) against the scans it replaces:
 * - on random event streams, `keyed` returns exactly the events a scan of the buffer with the
 *   same bounds and stop rule reaches that carry the key, in the same order, and `ordered()`
 *   turns false for out-of-order input (when the oracle falls back to scanning);
 * - whole replays of audit logs (the captures in examples/ and a generated busy-cluster log)
 *   give the same result with the index as with the oracle scanning the whole look-ahead.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { keysOf, LookaheadBuffer } from '../../src/analysis/engine/lookahead-buffer.js';
import { replicaSetControllerFactory } from '../../src/model/replicaset/replicaset-controller.js';
import { replay } from '../../src/analysis/engine/replay.js';
import type { ReplayResult } from '../../src/analysis/engine/replay-result.js';
import { openAuditSource } from '../../src/sources/audit/audit-source.js';
import { mergeSources } from '../../src/sources/watch/merge.js';
import { parseK8sVersion, DEFAULT_K8S_VERSION } from '../../src/model/version.js';
import type { TimelineEvent } from '../../src/timeline/event.js';
import { rng } from '../fuzz/mutate.js';


const src = { file: 'x', line: 1 };
function randomEvent(r: () => number, at: number, line: number): TimelineEvent {
  const ns = r() < 0.5 ? 'a' : 'b';
  const name = `p${Math.floor(r() * 5)}`;
  const x = r();
  const source = { ...src, line };
  if (x < 0.35) {
    const ref = r() < 0.7 ? [{ apiVersion: 'apps/v1', kind: r() < 0.9 ? 'ReplicaSet' : 'Job', name: 'rs', uid: `u${Math.floor(r() * 3)}`, controller: true }] : undefined;
    return { type: 'observed', kind: 'Pod', watchType: r() < 0.2 ? 'DELETED' : 'MODIFIED', at, atBasis: 'audit-stage', source, object: { metadata: { namespace: ns, name, ownerReferences: ref } } };
  }
  if (x < 0.5) return { type: 'observed', kind: 'ReplicaSet', watchType: 'MODIFIED', at, atBasis: 'audit-stage', source, object: { metadata: { namespace: ns, name: `rs${Math.floor(r() * 2)}` } } };
  if (x < 0.6) {
    return { type: 'observed', kind: 'Event', watchType: 'ADDED', at, atBasis: 'audit-stage', source, object: { metadata: { namespace: ns, name: `e${line}` }, reason: 'FailedCreate', involvedObject: { kind: r() < 0.8 ? 'ReplicaSet' : 'Pod', namespace: ns, name: `rs${Math.floor(r() * 2)}` } } } as TimelineEvent;
  }
  const verb = (['create', 'delete', 'patch', 'update'] as const)[Math.floor(r() * 4)]!;
  return {
    type: 'write', at, atBasis: 'audit-stage', source, verb, resource: r() < 0.9 ? 'pods' : 'replicasets', namespace: ns, name, subresource: r() < 0.1 ? 'status' : undefined,
    receivedAt: at - Math.floor(r() * 3000), status: { code: 201 }, actor: { username: 'u', ...(r() < 0.8 ? { controller: 'replicaset-controller' as const } : {}) },
  };
}

/** The scan `window(at, before)` plus a caller's stop rule, keeping the events that carry `key`. */
function scan(all: TimelineEvent[], key: string, from: number, to: number, stop?: { after: number; by: 'at' | 'call' }): TimelineEvent[] {
  const out: TimelineEvent[] = [];
  for (const e of all) {
    if (e.at < from) continue;
    if (e.at > to) break;
    if (stop && (stop.by === 'call' && e.type === 'write' ? (e.receivedAt ?? e.at) : e.at) > stop.after) break;
    if (keysOf(e)?.includes(key)) out.push(e);
  }
  return out;
}

test('LookaheadBuffer.keyed: the events a bounded scan reaches that carry the key, in order', () => {
  let compared = 0;
  let found = 0;
  for (let seed = 1; seed <= 30; seed++) {
    const r = rng(seed);
    const buf = new LookaheadBuffer();
    let at = 1_000_000;
    let line = 0;
    const keys = new Set<string>();
    for (let step = 0; step < 3000; step++) {
      at += Math.floor(r() * 40);
      const e = randomEvent(r, at, ++line);
      for (const k of keysOf(e) ?? []) keys.add(k);
      buf.push(e);
      while (buf.length > 400) buf.shift();
      if (step % 50 !== 0) continue;
      assert.ok(buf.ordered(), 'in-order input with receipts before completion is ordered');
      const all = [...buf.iterate()];
      for (const key of keys) {
        const base = all[Math.floor(r() * all.length)]!.at;
        const before = [0, 50, 1000][Math.floor(r() * 3)]!;
        const stop = r() < 0.5 ? { after: base + Math.floor(r() * 3000), by: (r() < 0.5 ? 'at' : 'call') as 'at' | 'call' } : undefined;
        const want = scan(all, key, base - before, base + 5000, stop);
        const got = [...buf.keyed(key, base - before, base + 5000, stop)];
        assert.deepEqual(got.map((e) => e.source.line), want.map((e) => e.source.line), `seed ${seed} step ${step} key ${key}`);
        compared++;
        found += got.length;
      }
    }
  }
  assert.ok(compared > 10_000 && found > compared, `compared ${compared}, events found ${found}`);
});

test('LookaheadBuffer.ordered: false while an out-of-order event or a write received after it completed is buffered', () => {
  const buf = new LookaheadBuffer();
  const obs = (at: number, line: number): TimelineEvent => ({ type: 'observed', kind: 'ReplicaSet', watchType: 'MODIFIED', at, atBasis: 'audit-stage', source: { file: 'x', line }, object: { metadata: { namespace: 'a', name: 'r' } } });
  buf.push(obs(10, 1));
  buf.push(obs(5, 2)); // earlier than the one before it
  buf.push(obs(20, 3));
  assert.equal(buf.ordered(), false);
  buf.shift(); // the pair (10, 5) is gone once 10 has left
  assert.equal(buf.ordered(), true);
  buf.push({ type: 'write', at: 30, receivedAt: 31, atBasis: 'audit-stage', source: { file: 'x', line: 4 }, verb: 'create', resource: 'pods', namespace: 'a', status: { code: 201 }, actor: { username: 'u', controller: 'replicaset-controller' } });
  assert.equal(buf.ordered(), false);
  buf.shift();
  buf.shift();
  assert.equal(buf.ordered(), false);
  buf.shift();
  assert.equal(buf.ordered(), true);
  assert.equal(buf.length, 0);
});

/** A replay result as comparable data (Maps as entries). */
function comparable(r: ReplayResult): string {
  return JSON.stringify(r, (_k, v) => (v instanceof Map ? [...v.entries()] : v instanceof Set ? [...v] : v));
}

async function replayAudit(file: string, scanLookahead: boolean): Promise<ReplayResult> {
  const quiet = { problem: () => undefined, warn: () => undefined };
  const s = await openAuditSource(file, { diagnostics: quiet as never });
  return replay(mergeSources([s]), {
    version: parseK8sVersion(DEFAULT_K8S_VERSION), controller: replicaSetControllerFactory(parseK8sVersion(DEFAULT_K8S_VERSION)), matchWindowMs: 60_000, eventsWatched: true, writeEvidence: 'audit', scanLookahead,
  });
}

test('replay: the indexed look-ahead and the full scan give the same result on audit logs', async () => {
  const files = fs.readdirSync('examples/captures').flatMap((d) => ['audit.jsonl', 'audit.jsonl.gz'].map((f) => path.join('examples/captures', d, f))).filter((f) => fs.existsSync(f));
  assert.ok(files.length >= 8, `captures: ${files.length}`);
  // A busy-cluster log from the benchmark generator: many ReplicaSets, creates, deletes, Events.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-lookahead-'));
  const gen = path.join(dir, 'audit.log');
  const g = spawnSync(process.execPath, ['--import', 'tsx', 'bench/audit/generate.ts', '--mb', '12', '--out', gen, '--seed', '7'], { encoding: 'utf8' });
  assert.equal(g.status, 0, g.stderr);
  files.push(gen);
  let rounds = 0;
  // Count the oracle's look-ups the index answered (not vacuous: the scan fallback is not what runs).
  const proto = LookaheadBuffer.prototype as unknown as { keyed: (...a: unknown[]) => unknown };
  const keyed = proto.keyed;
  let indexed = 0;
  proto.keyed = function (this: LookaheadBuffer, ...a: unknown[]) {
    indexed++;
    return keyed.apply(this, a);
  };
  try {
    for (const f of files) {
      const a = await replayAudit(f, true);
      const b = await replayAudit(f, false);
      assert.equal(comparable(b), comparable(a), f);
      for (const t of a.tracks.values()) rounds += t.rounds.length;
    }
  } finally {
    proto.keyed = keyed;
  }
  assert.ok(rounds > 50, `rounds replayed: ${rounds}`);
  assert.ok(indexed > 2 * rounds, `index look-ups: ${indexed}`);
  fs.rmSync(dir, { recursive: true, force: true });
});
