/**
 * `explain`'s snapshot rule for a held deletion, on the state of the real v1.37.2 capture
 * examples/deletion-loss.kexp.jsonl read in place: a minute into the 5-minute leak its ReplicaSet
 * (line 31: replicas 4, observedGeneration 2 = generation) stood beside 3 active pods — the
 * controller's cache still held web-tl9vt. Then the same ReplicaSet once its status counts right
 * (healthy, observed), and the status right after a pod change (not yet a held deletion).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Namespace, Pod, ReplicaSet } from '../../src/model/objects.js';
import { analyseSnapshot } from '../../src/analysis/snapshot-analysis.js';

const FILE = 'examples/deletion-loss.kexp.jsonl';
const lines = fs.readFileSync(FILE, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { recv: string; event?: { type: string; object: { kind: string; metadata: { name: string } } } });

/** The input's state up to line `n` (1-based): the ReplicaSet and the pods not deleted. */
function stateAt(n: number): { rs: ReplicaSet; pods: Pod[]; at: number } {
  let rs: ReplicaSet | undefined;
  const pods = new Map<string, Pod>();
  for (const l of lines.slice(0, n)) {
    const o = l.event?.object;
    if (!o || l.event!.type === 'BOOKMARK') continue;
    if (o.kind === 'ReplicaSet') rs = o as unknown as ReplicaSet;
    if (o.kind === 'Pod') {
      if (l.event!.type === 'DELETED') pods.delete(o.metadata.name);
      else pods.set(o.metadata.name, o as unknown as Pod);
    }
  }
  return { rs: rs!, pods: [...pods.values()], at: Date.parse(lines[n - 1]!.recv) };
}

const activeNs: Namespace = { metadata: { name: 'kexp-deletion-loss' }, status: { phase: 'Active' } };

test('status.replicas 4 beside 3 active pods with observedGeneration current: a held deletion, gated until the expiry (inferred), not HEALTHY', () => {
  const { rs, pods, at } = stateAt(31);
  assert.equal(rs.status?.replicas, 4);
  assert.equal(pods.length, 3);
  const a = analyseSnapshot(rs, { pods, events: [], ns: activeNs }, at + 30_000);
  const f = a.findings.find((x) => x.id === 'held-deletion');
  assert.ok(f, a.findings.map((x) => x.id).join(' '));
  assert.equal(f.basis, 'inferred');
  assert.match(f.title, /status\.replicas 4 counts 1 more pod than the 3 active that exist/);
  assert.equal(a.verdict.state, 'gated');
  assert.equal(a.verdict.basis, 'inferred');
  assert.match(a.verdict.summary, /expect a gate until .* the 5-minute expiry/);
  assert.equal(a.windows.length, 1);
  assert.equal(a.windows[0]!.endedBy, 'open');
  assert.deepEqual(a.windows[0]!.raised, { add: 0, del: 1 });
});

test('the same ReplicaSet once its status counts the 3 pods: healthy [observed], no held deletion', () => {
  const { rs, pods, at } = stateAt(31);
  const fixed = { ...rs, status: { ...rs.status, replicas: 3, fullyLabeledReplicas: 3 } } as ReplicaSet;
  const a = analyseSnapshot(fixed, { pods, events: [], ns: activeNs }, at + 30_000);
  assert.equal(a.findings.some((x) => x.id === 'held-deletion'), false);
  assert.equal(a.verdict.state, 'healthy');
  assert.equal(a.verdict.basis, 'observed');
});

test('a status read right after the pods changed may still be catching up: no held deletion yet', () => {
  // Line 23: the second deletion's DELETED; the ReplicaSet still shows the status of the sync before it (replicas 5).
  const { rs, pods, at } = stateAt(23);
  assert.equal(rs.status?.replicas, 5);
  const a = analyseSnapshot(rs, { pods, events: [], ns: activeNs }, at + 100);
  assert.equal(a.findings.some((x) => x.id === 'held-deletion'), false, a.findings.map((x) => x.id).join(' '));
});
