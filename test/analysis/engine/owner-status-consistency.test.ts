/**
 * The consistency store's record of the controller's own owner status writes (1.36+
 * StaleControllerConsistency{DaemonSet,Job}): the unit, and the skips of the real v1.37.2
 * daemonset controller in examples/captures/ds-scale-nodes reproduced from its recording.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { OwnerStatusConsistency, resourceVersionNumber } from '../../../src/analysis/engine/owner-status-consistency.js';
import { SyncRecorder } from '../../../src/analysis/engine/sync-recorder.js';
import type { SyncRecord } from '../../../src/model/controller/sync-record.js';
import { replayFiles } from '../../../src/pipeline/replay-files.js';
import { logLines } from '../../e2e/scenarios/controller-truth.js';

test('a status write gates the key until the owner informer delivers its resourceVersion (any object of the resource)', () => {
  const c = new OwnerStatusConsistency();
  assert.equal(c.behind('ns/a'), undefined);
  c.observeOwner('245');
  c.wrote('ns/a', '259');
  assert.deepEqual(c.behind('ns/a'), { written: 259, read: 245 });
  c.observeOwner('250'); // another DaemonSet's event: LastStoreSyncResourceVersion advances, not far enough
  assert.deepEqual(c.behind('ns/a'), { written: 259, read: 250 });
  c.observeOwner('259');
  assert.equal(c.behind('ns/a'), undefined);
  c.wrote('ns/a', '255'); // older than what the informer already delivered: nothing to wait for
  assert.equal(c.behind('ns/a'), undefined);
  c.wrote('ns/a', '300');
  c.clear('ns/a');
  assert.equal(c.behind('ns/a'), undefined);
  assert.equal(resourceVersionNumber('abc'), undefined);
  assert.equal(resourceVersionNumber('012'), undefined);
});

test('ds-scale-nodes (v1.37.2): the sync right after the delete round\'s status write is a consistency skip, as the log\'s', async () => {
  const dir = 'examples/captures/ds-scale-nodes';
  const skips = logLines(path.join(dir, 'kcm.log'), 2026).filter((l) => /is not as new as written version: \d+ for group resource daemonsets\.apps/.test(l.text)).map((l) => l.at);
  assert.equal(skips.length, 2);
  const records: SyncRecord[] = [];
  const orig = SyncRecorder.prototype.record;
  SyncRecorder.prototype.record = function (s: SyncRecord) {
    if (s.key === 'kexp-ds-scale-nodes/agent') records.push(s);
    return orig.call(this, s);
  };
  try {
    await replayFiles({ files: [path.join(dir, 'recording.kexp.jsonl')] });
  } finally {
    SyncRecorder.prototype.record = orig;
  }
  const deleteRound = records.findIndex((s) => s.delete !== undefined);
  assert.ok(deleteRound >= 0);
  const next = records[deleteRound + 1]!;
  assert.equal(next.outcome, 'consistency-skip');
  assert.equal(next.requeue?.kind, 'rate-limited');
  assert.ok(Math.abs(next.at - skips[1]!) < 50, `skip at ${new Date(next.at).toISOString()} vs the log's ${new Date(skips[1]!).toISOString()}`);
  // Skips end with the informer's delivery of the written DaemonSet: the next sync passes.
  const after = records.slice(deleteRound + 1).find((s) => s.outcome !== 'consistency-skip')!;
  assert.equal(after.outcome, 'synced');
});
