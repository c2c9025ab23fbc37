/**
 * The DaemonSet model against the real v1.37.2 controller, sync by sync: each DaemonSet capture of
 * issue #22 (examples/captures/ds-*) fed to the model as the controller's informers got it
 * (test/model/job/captured-view.ts: the recording less the events the fault proxy hid), compared
 * with the controller's own -v=4 log — its rounds ("Nodes needing daemon pods", "Pods to delete",
 * manage's and the rolling update's), its gated syncs ("still waiting"), the expiry, and the
 * NotFound re-deletes of a pod its cache kept. The consistency gate's skips (the log's "… is not as
 * new as written version …") are answered by the replay engine's oracle, not here: the comparisons
 * leave those syncs out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DaemonSetController } from '../../../src/model/daemonset/daemonset-controller.js';
import type { SyncRecord } from '../../../src/model/controller/sync-record.js';
import type { DaemonSet } from '../../../src/model/objects.js';
import { parseK8sVersion } from '../../../src/model/version.js';
import { capturedView, capturePodControl, feed, logSyncs } from '../job/captured-view.js';

function replayModel(name: string): SyncRecord[] {
  const view = capturedView(name);
  const syncs: SyncRecord[] = [];
  const dc = new DaemonSetController({ version: parseK8sVersion('v1.37.2'), podControl: capturePodControl<DaemonSet>(view), onSync: (s) => syncs.push(s) });
  feed(dc, view);
  return syncs;
}

/** The rounds of a sync as the log prints them: manage's, then the rolling update's. */
function roundsOf(s: SyncRecord): { creates: number[]; deletes: number[]; notFound: string[] } {
  const u = s.daemon?.update;
  const creates = [s.create && s.create !== u?.create ? s.create.n : 0, u?.create?.n ?? 0].filter((n) => n > 0);
  const manageDelete = s.delete && s.delete !== u?.delete ? s.delete : undefined;
  const deletes = [manageDelete?.n ?? 0, u?.delete?.n ?? 0].filter((n) => n > 0);
  const notFound = [...(manageDelete?.notFound ?? []), ...(u?.delete?.notFound ?? [])].map((k) => k.split('/')[1]!);
  return { creates, deletes, notFound };
}

test('ds-scale-nodes: the model\'s rounds are the log\'s (3 creates, then 1 and 1 for the new nodes, 1 delete for the node that lost its label), no sync gated, as in the log', () => {
  const syncs = replayModel('ds-scale-nodes');
  const log = logSyncs('ds-scale-nodes').filter((l) => !l.consistencySkip);
  assert.deepEqual(syncs.flatMap((s) => roundsOf(s).creates), log.flatMap((l) => l.creates));
  assert.deepEqual(syncs.flatMap((s) => roundsOf(s).deletes), log.flatMap((l) => l.deletes));
  assert.deepEqual(log.flatMap((l) => [...l.creates.map((n) => `+${n}`), ...l.deletes.map((n) => `-${n}`)]), ['+3', '+1', '+1', '-1']);
  assert.equal(syncs.filter((s) => s.outcome === 'gated').length, 0);
  assert.equal(log.filter((l) => l.decision === 'still-waiting').length, 0);
});

test('ds-deletion-loss: with the pod\'s deletion hidden, the model is gated at the log\'s 7 syncs from the delete round to the expiry; the expired sync re-deletes the kept pod (404) in manage and in the rolling update (5 old pods), as every later sync does', () => {
  const syncs = replayModel('ds-deletion-loss');
  const log = logSyncs('ds-deletion-loss').filter((l) => !l.consistencySkip);
  const deleteRound = syncs.findIndex((s) => s.delete?.n === 1 && s.delete.notFound.length === 0);
  const expired = syncs.findIndex((s) => s.expectations === 'expired');
  assert.ok(deleteRound >= 0 && expired > deleteRound);
  const logDelete = log.findIndex((l) => l.deletes.length === 1 && l.notFound.length === 0);
  const logExpired = log.findIndex((l) => l.decision === 'expired');
  // The leak: del=1 never lowered, every sync between gated.
  const gated = syncs.slice(deleteRound + 1, expired);
  const logGated = log.slice(logDelete + 1, logExpired);
  assert.equal(logGated.length, 7);
  assert.deepEqual(gated.map((s) => s.expectations), logGated.map((l) => l.decision));
  gated.forEach((s, i) => assert.ok(Math.abs(s.at - logGated[i]!.end) <= 50, `gated sync ${i}: ${new Date(s.at).toISOString()} vs the log's ${new Date(logGated[i]!.end).toISOString()}`));
  assert.ok(Math.abs(syncs[expired]!.at - log[logExpired]!.decidedAt!) <= 50);
  // The expired sync: manage deletes the pod its cache kept (NotFound, lowered silently), then the rolling update replaces the 5 old pods, that one among them.
  assert.deepEqual(roundsOf(syncs[expired]!), { creates: [], deletes: log[logExpired]!.deletes, notFound: log[logExpired]!.notFound });
  assert.deepEqual(log[logExpired]!.deletes, [1, 5]);
  assert.deepEqual(log[logExpired]!.notFound, ['agent-twctt', 'agent-twctt']);
  // Every later sync the rolling update reaches deletes it twice more, NotFound both times, as the log's do.
  const later = syncs.slice(expired + 1).filter((s) => s.daemon?.update?.delete);
  assert.ok(later.length >= 3);
  for (const s of later) assert.deepEqual(roundsOf(s).notFound, ['agent-twctt', 'agent-twctt']);
  assert.ok(log.slice(logExpired + 1).every((l) => l.notFound.join() === 'agent-twctt,agent-twctt'));
  // Not compared: which syncs make the 4 replacements (the log's 3 + 1). The real syncs last while
  // their NotFound calls do (~5 ms each), which this feed does not answer; the departures of the
  // old pods fall inside or between them accordingly.
});
