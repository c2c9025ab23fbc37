/**
 * The real -v=4 capture of kube-controller-manager v1.37.2 (test/e2e/control-plane/sample-kcm-v4.log,
 * produced by the control-plane smoke run): every line must be read as the right kind.
 * Skipped when the capture is not there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';

import type { ControllerLogEvent, ControllerLogKind } from '../../src/timeline/event.js';
import { openKcmLogSource } from '../../src/sources/kcm-log/kcm-log-source.js';
import { buildGroundTruth } from '../../src/sources/kcm-log/ground-truth.js';

const SAMPLE = new URL('../e2e/control-plane/sample-kcm-v4.log', import.meta.url).pathname;

/** Message → kind; `null` = not in the catalogue (skipped, counted). */
const EXPECTED: Record<string, ControllerLogKind | null> = {
  'Starting controller': 'controller-started',
  Adding: 'other',
  'replicaSet updated. Desired pod count change.': 'other',
  'Pod created': 'other',
  'Pod deleted': 'other',
  'Controller either never recorded expectations, or the ttl expired': 'never-recorded',
  'Setting expectations': 'setting-expectations',
  'Lowered expectations': 'lowered-expectations',
  'Controller expectations fulfilled': 'expectations-fulfilled',
  'Controller expectations expired': 'expectations-expired',
  'Controller still waiting on expectations': 'still-waiting',
  'Controller waiting on deletions': 'waiting-on-deletions',
  'Clobbering existing delete keys': 'clobbering-delete-keys',
  'Controller received delete for pod': 'received-delete',
  'Too few replicas': 'too-few-replicas',
  'Too many replicas': 'too-many-replicas',
  'Slow-start failure. Skipping creation of pods, decrementing expectations': 'slow-start-failure',
  'Failed to delete pod, decremented expectations': 'failed-delete',
  'Finished syncing': 'finished-syncing',
  deleted: 'rs-deleted-sync',
  'Controller created pod': 'controller-created-pod',
  'Deleting pod': 'deleting-pod',
  'Event occurred': 'controller-event', // the ReplicaSet's own Events (kind="ReplicaSet")
  'Found related pods': null,
  'Pod objectMeta updated.': null,
  'Orphan Pod created': null,
};

function expectedKind(line: string): ControllerLogKind | null | undefined {
  const m = /^\S+ \S+ +\d+ \S+\] "((?:[^"\\]|\\.)*)"/.exec(line);
  if (!m) return undefined;
  const msg = m[1]!;
  if (msg.startsWith('Updating status for ')) return 'status-update';
  if (msg === 'Unhandled Error') return /err="sync \\"/.test(line) ? 'sync-failed' : null;
  return EXPECTED[msg];
}

test('real KCM v1.37.2 -v=4 capture: every line is read as the right kind', { skip: !existsSync(SAMPLE) && 'sample-kcm-v4.log not present' }, async () => {
  const raw = readFileSync(SAMPLE, 'utf8').split('\n');
  const problems: unknown[] = [];
  const src = await openKcmLogSource(SAMPLE, { diagnostics: { problem: (p) => problems.push(p), warn: () => {} } });
  const byLine = new Map<number, ControllerLogEvent>();
  for await (const e of src.events) byLine.set(e.source.line, e as ControllerLogEvent);
  const stats = src.stats();
  assert.deepEqual(problems, []);
  assert.equal(stats.ambiguous, 0);
  assert.equal(stats.contextUnresolved, 0);
  assert.deepEqual(stats.excluded, {});

  let uncatalogued = 0;
  raw.forEach((line, i) => {
    if (!line) return;
    const want = expectedKind(line);
    assert.notEqual(want, undefined, `line ${i + 1}: message not in the test's table: ${line.slice(0, 120)}`);
    const got = byLine.get(i + 1);
    if (want === null) {
      uncatalogued++;
      assert.equal(got, undefined, `line ${i + 1} should be skipped`);
      return;
    }
    assert.ok(got, `line ${i + 1} (${want}) was not emitted`);
    assert.equal(got.logKind, want, `line ${i + 1}`);
    if (want !== 'controller-started') assert.ok(got.rsKey, `line ${i + 1} (${want}) has no rsKey`);
  });
  assert.equal(stats.uncatalogued, uncatalogued);
  assert.equal(stats.events, byLine.size);

  // Keyless "Setting expectations": counts from the neighbouring "Too few replicas" / "waiting on deletions".
  raw.forEach((line, i) => {
    if (!line.includes('"Setting expectations" expectations={}')) return;
    const ev = byLine.get(i + 1)!;
    const next = raw.slice(i + 1, i + 4).find((l) => l.includes('"Too few replicas"'));
    const prev = raw.slice(Math.max(0, i - 3), i).find((l) => l.includes('"Controller waiting on deletions"'));
    if (next) assert.deepEqual([ev.add, ev.del], [Number(/creating=(\d+)/.exec(next)![1]), 0], `line ${i + 1}`);
    else if (prev) assert.deepEqual([ev.add, ev.del], [0, new Set(JSON.parse(/keys=(\[.*?\])/.exec(prev)![1]!)).size], `line ${i + 1}`);
    else assert.fail(`line ${i + 1}: no neighbour in the capture`);
    assert.equal(ev.numbers?.fromContext, 1);
  });

  // Ground truth: one ReplicaSet, every window starts at a Setting.
  const gts = buildGroundTruth([...byLine.values()]);
  assert.equal(gts.size, 1);
  const gt = [...gts.values()][0]!;
  assert.equal(gt.restarts.length, raw.filter((l) => l.includes('"Starting controller" name="replicaset"')).length);
  assert.equal(gt.raises.length, raw.filter((l) => l.includes('"Setting expectations"')).length);
  assert.equal(gt.slowStartFailures.length, raw.filter((l) => l.includes('"Slow-start failure.')).length);
  assert.ok(gt.gatedWindows.length > 0);
  assert.ok(gt.gatedWindows.every((w) => w.startedBy === 'setting'));
});
