/**
 * The controller's Events in a watch's initial LIST are history from before the input began,
 * however close their whole-second timestamps are to its start: `kexp serve` (and `kexp record`)
 * started in the same second a ReplicaSet's last pods were created lists their SuccessfulCreate
 * Events with `synthetic: "initial-list"`, and none of them is a write inside the input (no
 * `unexplained-writes` "the ReplicaSet is not in kexp's model at this time"). Without the mark
 * (a watch dump) the heuristic of write-ledger.ts still reads them by their timestamps. Seen in
 * the #24 e2e (test/e2e/live-serve.test.ts), whose serve started 0.8 s after the pods' second.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { RecordingBuilder } from '../support/recording-builder.js';
import { validateReport } from '../support/report-schema.js';

/** Serve's start: the lists (pods, Events, then the ReplicaSet, as serve orders them) 820 ms into the second the 2 pods were created in; then a quiet minute. */
function startedInTheSameSecond(marked: boolean): string {
  const b = new RecordingBuilder('shop', 'web-7d9c6b8f5d', Date.UTC(2026, 10, 30, 10, 0, 0, 820));
  b.namespace();
  b.rs = { metadata: { creationTimestamp: '2026-11-30T10:00:00Z', generation: 0 }, spec: { replicas: -1 } };
  const pods = [b.addPod(0), b.addPod(1)];
  for (const p of pods) b.event('SuccessfulCreate', `Created pod: ${p}`);
  b.replicaSet(2, 'ADDED', { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 0, availableReplicas: 0, observedGeneration: 1 });
  if (marked) {
    for (let i = 1; i < b.lines.length; i++) {
      const o = JSON.parse(b.lines[i]!);
      o.synthetic = 'initial-list';
      b.lines[i] = JSON.stringify(o) + '\n';
    }
  }
  b.advance(60_000).end();
  return b.text();
}

test('initial-list Events of the start\'s own second are not writes inside the input', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kexp-initial-list-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const f = join(dir, 'serve-start.kexp.jsonl');
  writeFileSync(f, startedInTheSameSecond(true));
  const res = await replayFiles({ files: [f] });
  assert.deepEqual(validateReport(res.report), []);
  const rs = res.report.replicaSets.find((r) => r.name === 'web-7d9c6b8f5d')!;
  assert.deepEqual(rs.findings.map((x) => x.id).filter((id) => /unexplained|unattributed/.test(id)), []);
  assert.equal(rs.accounting.writes, 0, JSON.stringify(rs.accounting));
  assert.deepEqual(rs.rounds, []);
  assert.equal(rs.initialState.basis, 'unknown');
  assert.notEqual(rs.verdict.state, 'leaked');
});

test('the same lines without the initial-list mark (a watch dump) are still read by their timestamps: the start\'s second may hold writes', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kexp-initial-list-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const f = join(dir, 'unmarked.kexp.jsonl');
  writeFileSync(f, startedInTheSameSecond(false));
  const res = await replayFiles({ files: [f] });
  const rs = res.report.replicaSets.find((r) => r.name === 'web-7d9c6b8f5d')!;
  // The Events' second is the start's: without the mark they may be creations inside the input.
  assert.equal(rs.accounting.writes, 2, JSON.stringify(rs.accounting));
});
