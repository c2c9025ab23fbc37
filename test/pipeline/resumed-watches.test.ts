/**
 * Watches resumed after a cut (an apiserver restart, a broken network: what `kexp serve` and
 * `kexp record` live through): each resource's reflector reconnects after its own jittered
 * backoff and the server replays what it missed at once, so a ReplicaSet's scale-down can be
 * received after the deletion its sync caused, both late. The causal order
 * (src/timeline/causal-order.ts) puts the scale-down back first by resourceVersion — and it must
 * stay *before* the deletion in time, or the engine collapses both into one instant and no sync
 * runs between them: the delete round is lost and the deletion taken for a surplus the
 * controller's own count did not call for (`extra-delete`). The shape of the #24 e2e
 * (test/e2e/live-serve.test.ts) whose journal showed it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { RecordingBuilder } from '../support/recording-builder.js';
import { validateReport } from '../support/report-schema.js';

/**
 * A ReplicaSet of 3 pods scaled to 2 while every watch is cut: on resume the pods watch delivers
 * the victim's deletion at `resumedPods`, the ReplicaSet watch the scale-down (a lower
 * resourceVersion) and the status writes `rsLagMs` later, the Events watch the SuccessfulDelete
 * `eventLagMs` later.
 */
function resumedScaleDown(rsLagMs: number, eventLagMs: number): string {
  const b = new RecordingBuilder('shop', 'web-7d9c6b8f5d');
  // What the watches' initial lists show (as `kexp serve` and `kexp record` start): 3 pods, the
  // ReplicaSet at 3 with its status caught up.
  b.namespace();
  b.rs = { metadata: { creationTimestamp: new Date(b.t - 60_000).toISOString().replace('.000Z', 'Z'), generation: 0 }, spec: { replicas: -1 } };
  const pods: string[] = [];
  for (let i = 0; i < 3; i++) pods.push(b.addPod(i));
  b.replicaSet(3, 'ADDED', { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 0, availableReplicas: 0, observedGeneration: 1 });
  for (let i = 1; i < b.lines.length; i++) {
    const o = JSON.parse(b.lines[i]!);
    o.synthetic = 'initial-list';
    b.lines[i] = JSON.stringify(o) + '\n';
  }
  // The pods were created in one second: they rank equal (ActivePodsWithRanks.Less), the input names the victim.
  b.advance(20_000);
  const victim = pods[2]!;
  // What happened, in resourceVersion order (a cut hides it from kexp for ~1 s).
  const before = b.lines.length;
  b.replicaSet(2);
  b.advance(3).updatePod(victim, (p) => {
    p.metadata.deletionTimestamp = new Date(Math.floor(b.t / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    p.metadata.deletionGracePeriodSeconds = 0;
  });
  b.advance(1).deletePod(victim);
  b.advance(1).event('SuccessfulDelete', `Deleted pod: ${victim}`);
  b.advance(2).rsStatus(2);
  const lines = b.lines;
  // Received on resume: the pods first, the ReplicaSet and the Event later, all late.
  const resumedPods = b.t + 1000;
  const iso = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');
  const idx = { rs: before, podMod: before + 1, podDel: before + 2, ev: before + 3, status: before + 4 };
  const set = (i: number, ms: number) => {
    const o = JSON.parse(lines[i]!);
    o.recv = iso(ms);
    lines[i] = JSON.stringify(o) + '\n';
  };
  set(idx.podMod, resumedPods);
  set(idx.podDel, resumedPods + 1);
  set(idx.rs, resumedPods + rsLagMs);
  set(idx.status, resumedPods + rsLagMs + 1);
  set(idx.ev, resumedPods + eventLagMs);
  // File order = receive order.
  const tail = lines.splice(before, 5).sort((x, y) => JSON.parse(x).recv.localeCompare(JSON.parse(y).recv));
  lines.push(...tail);
  b.t = resumedPods + Math.max(rsLagMs, eventLagMs) + 5000;
  b.end();
  return b.text();
}

test('a scale-down received after the deletion it caused (watches resumed after a cut): the delete round is found, no extra-delete', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kexp-resumed-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [rsLag, evLag] of [[300, 380], [120, 450], [450, 20]] as const) {
    const f = join(dir, `resumed-${rsLag}-${evLag}.kexp.jsonl`);
    writeFileSync(f, resumedScaleDown(rsLag, evLag));
    const res = await replayFiles({ files: [f] });
    assert.deepEqual(validateReport(res.report), []);
    const rs = res.report.replicaSets.find((r) => r.name === 'web-7d9c6b8f5d')!;
    const label = `rs lag ${rsLag} ms, event lag ${evLag} ms`;
    assert.deepEqual(rs.rounds.filter((r) => r.kind === 'delete').map((r) => [r.n, r.writes]), [[1, 1]], `${label}: ${JSON.stringify(rs.rounds)}`);
    assert.deepEqual(rs.findings.map((x) => x.id).filter((id) => /extra-delete|unexplained|unattributed|disagrees/.test(id)), [], label);
    assert.equal(rs.accounting.inFindings, 0, label);
    assert.ok(rs.gatedWindows.every((w) => w.endedBy === 'fulfilled'), `${label}: ${JSON.stringify(rs.gatedWindows)}`);
  }
});

/**
 * Two pods created at S, a third at S+2 s (the newest UID, so within one age bucket it ranks
 * last); the controller scales 3→2 at S+10.3 s, when the third's age (8.3 s) is a log2 bucket
 * below the others' (10.3 s): it deletes the newest. The watches resumed late, kexp receives the
 * scale-down at S+11 s, when all three ages (9 s, 11 s) share a bucket and the UID order would
 * pick the oldest.
 */
function lateTriggerScaleDown(): { text: string; victim: string } {
  const S = Date.UTC(2026, 10, 30, 10, 0, 0);
  const b = new RecordingBuilder('shop', 'web-7d9c6b8f5d', S);
  b.namespace();
  b.rs = { metadata: { creationTimestamp: '2026-11-30T09:59:00Z', generation: 0 }, spec: { replicas: -1 } };
  const pods = [b.addPod(0), b.addPod(1)];
  b.advance(2000);
  pods.push(b.addPod(2));
  b.replicaSet(3, 'ADDED', { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 0, availableReplicas: 0, observedGeneration: 1 });
  const iso = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');
  for (let i = 1; i < b.lines.length; i++) {
    const o = JSON.parse(b.lines[i]!);
    o.synthetic = 'initial-list';
    o.recv = iso(S + 2000);
    b.lines[i] = JSON.stringify(o) + '\n';
  }
  const victim = pods[2]!;
  b.t = S + 10_300;
  const before = b.lines.length;
  b.replicaSet(2);
  b.advance(3).updatePod(victim, (p) => {
    p.metadata.deletionTimestamp = '2026-11-30T10:00:10Z';
    p.metadata.deletionGracePeriodSeconds = 0;
  });
  b.advance(1).deletePod(victim);
  b.advance(1).event('SuccessfulDelete', `Deleted pod: ${victim}`);
  b.advance(2).rsStatus(2);
  const recv = [S + 11_200, S + 11_000, S + 11_001, S + 11_300, S + 11_201];
  const tail = b.lines.splice(before, 5).map((l, i) => {
    const o = JSON.parse(l);
    o.recv = iso(recv[i]!);
    return JSON.stringify(o) + '\n';
  }).sort((x, y) => JSON.parse(x).recv.localeCompare(JSON.parse(y).recv));
  b.lines.push(...tail);
  b.t = S + 20_000;
  b.end();
  return { text: b.text(), victim };
}

test('received late, the scale-down is ranked at the time its deletion shows: the newest pod the controller deleted is no disagreement', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kexp-resumed-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { text, victim } = lateTriggerScaleDown();
  const f = join(dir, 'late-trigger.kexp.jsonl');
  writeFileSync(f, text);
  const res = await replayFiles({ files: [f] });
  assert.deepEqual(validateReport(res.report), []);
  const rs = res.report.replicaSets.find((r) => r.name === 'web-7d9c6b8f5d')!;
  const del = rs.rounds.filter((r) => r.kind === 'delete');
  assert.equal(del.length, 1, JSON.stringify(rs.rounds));
  assert.deepEqual(del[0]!.keys, [`shop/${victim}`]);
  assert.match(del[0]!.note ?? '', /^tie: .* at the time its deletion shows/);
  assert.deepEqual(rs.findings.map((x) => x.id).filter((id) => /disagrees|extra-delete|unexplained/.test(id)), []);
});
