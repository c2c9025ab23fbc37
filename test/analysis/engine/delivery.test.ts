/**
 * Event delivery (src/analysis/engine/delivery.ts) to the real controller model, and the event
 * feed that fills the look-ahead (event-feed.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReplicaSetController } from '../../../src/model/replicaset/replicaset-controller.js';
import { DEFAULT_K8S_VERSION, parseK8sVersion } from '../../../src/model/version.js';
import { CountSeries } from '../../../src/analysis/engine/count-series.js';
import { Delivery } from '../../../src/analysis/engine/delivery.js';
import { EventFeed } from '../../../src/analysis/engine/event-feed.js';
import { PodSightings } from '../../../src/analysis/engine/pod-sightings.js';
import { Provenance } from '../../../src/analysis/engine/provenance.js';
import { RsTracks } from '../../../src/analysis/engine/rs-track.js';
import { ViewAlignment } from '../../../src/analysis/engine/view-alignment.js';
import type { GapEvent, TimelineEvent } from '../../../src/timeline/event.js';
import { NS, observed, podObj, podWrite, rsObj, src, T0 } from '../../support/timeline-events.js';

const KEY = `${NS}/web`;

function setup() {
  const noCalls = () => assert.fail('no sync runs in these tests');
  const controller = new ReplicaSetController({
    version: parseK8sVersion(DEFAULT_K8S_VERSION), recordClaimDecisions: false,
    podControl: { createPod: noCalls, deletePod: noCalls, getFreshOwner: noCalls, patchPod: noCalls },
  });
  const tracks = new RsTracks();
  const provenance = new Provenance();
  const sightings = new PodSightings();
  const drain = { drain: () => (controller.expectations.log.length = 0) };
  const view = new ViewAlignment(tracks, controller, sightings, drain, () => [], 5000);
  const series = new CountSeries(100);
  const noted: TimelineEvent[] = [];
  const delivery = new Delivery(tracks, controller, provenance, sightings, view, series, { noteWrite: (e) => noted.push(e) }, () => T0 - 60_000);
  return { controller, tracks, provenance, sightings, series, delivery, noted };
}

test('Delivery: a ReplicaSet\'s first sighting, UIDs, deletion and owner; every event seen by the write record first', () => {
  const s = setup();
  const rs = { ...rsObj('web', 2), metadata: { ...rsObj('web', 2).metadata, creationTimestamp: new Date(T0 + 1000).toISOString(), ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep-1', controller: true }] } };
  const added = { ...observed(T0 + 1000, 'ReplicaSet', 'ADDED', rs), atBasis: 'audit-stage' as const };
  s.delivery.deliver(added, T0);
  const t = s.tracks.of(KEY);
  assert.equal(t.firstSeenAt, T0 + 1000);
  assert.equal(t.createdInCoverage, true, 'created after the input started');
  assert.deepEqual(t.owner, { kind: 'Deployment', name: 'web', uid: 'dep-1' });
  assert.deepEqual(s.provenance.trigger(KEY), added.source);
  assert.ok(s.controller.owners.get(KEY));
  s.delivery.deliver(observed(T0 + 2000, 'ReplicaSet', 'DELETED', rs), T0);
  assert.equal(t.deletedAt, T0 + 2000);
  assert.equal(s.controller.owners.get(KEY), undefined);
  const again = rsObj('web', 1, { uid: 'uid-web-2' });
  s.delivery.deliver(observed(T0 + 3000, 'ReplicaSet', 'ADDED', again), T0);
  assert.equal(t.deletedAt, undefined);
  assert.deepEqual(t.uidChanges.map((c) => [c.oldUid, c.newUid]), [['uid-web', 'uid-web-2']]);
  assert.equal(s.noted.length, 3);
});

test('Delivery: pods — triggers, failures, counts, an expected-delete pod orphaned, a chosen key reused by another pod', () => {
  const s = setup();
  const rs = rsObj('web', 2);
  s.delivery.deliver(observed(T0, 'ReplicaSet', 'ADDED', rs), T0);
  const a = podObj('web-a', rs);
  const added = observed(T0 + 10, 'Pod', 'ADDED', a);
  s.delivery.deliver(added, T0);
  assert.deepEqual(s.provenance.trigger(KEY), added.source);
  assert.equal(s.sightings.get('shop/web-a')?.at, T0 + 10);
  s.delivery.deliver(observed(T0 + 20, 'Pod', 'MODIFIED', podObj('web-a', rs, { phase: 'Failed', createdAt: T0 - 5000 })), T0);
  const t = s.tracks.of(KEY);
  assert.deepEqual(t.podFailures.map((f) => [f.pod, f.failedAt - T0, f.reason, f.createdAt! - T0]), [['shop/web-a', 20, 'Failed', -5000]]);
  s.series.finish();
  assert.deepEqual(t.series.map((p) => [p.at - T0, p.desired, p.active]), [[10, 2, 1], [20, 2, 0]]);
  // The controller chose web-b for deletion; it loses its controllerRef before its deletion is observed.
  const b = podObj('web-b', rs);
  s.delivery.deliver(observed(T0 + 30, 'Pod', 'ADDED', b), T0);
  s.controller.expectations.expectDeletions(KEY, ['shop/web-b', 'shop/web-c'], T0 + 40);
  s.delivery.deliver(observed(T0 + 50, 'Pod', 'MODIFIED', podObj('web-b', undefined)), T0);
  assert.deepEqual(t.orphanedExpected.map((o) => [o.at - T0, o.podKey]), [[50, 'shop/web-b']]);
  // web-c is chosen with one UID; a pod of another UID under that name is deleted.
  t.chosen = new Map([['shop/web-c', 'uid-old']]);
  s.delivery.deliver(observed(T0 + 60, 'Pod', 'DELETED', podObj('web-c', rs, { uid: 'uid-new' })), T0);
  assert.deepEqual(t.nameReuse.map((r) => [r.podKey, r.chosenUid, r.observedUid]), [['shop/web-c', 'uid-old', 'uid-new']]);
});

test('Delivery: a gap is kept and marks every open window', () => {
  const s = setup();
  const t = s.tracks.of(KEY);
  t.open = { start: T0, setAt: T0, raised: { add: 1, del: 0 }, basis: 'inferred', gatedSyncs: 0, evidence: [] };
  const gap: GapEvent = { type: 'gap', at: T0 + 5, atBasis: 'received', source: src(), reason: 'watch-relist' };
  s.delivery.deliver(gap, T0);
  assert.deepEqual(s.delivery.gaps, [gap]);
  assert.equal(t.open.gapInside, true);
});

test('EventFeed: events join the look-ahead projected and entered in the ledger; invalid ones are reported and skipped', async () => {
  const rs = rsObj('web');
  const good = podWrite(T0, 'create', podObj('web-a', rs));
  const bad = { ...observed(T0 + 1, 'Pod', 'ADDED', podObj('web-b', rs)), object: { metadata: 'nope' } } as unknown as TimelineEvent;
  const later = observed(T0 + 9000, 'Pod', 'ADDED', podObj('web-c', rs));
  async function* input() {
    yield good;
    yield bad;
    yield later;
  }
  const entered: TimelineEvent[] = [];
  const invalid: string[] = [];
  const feed = new EventFeed(input(), { enter: (e) => entered.push(e) }, 5000, (source, message) => invalid.push(`${source.line}: ${message}`));
  assert.equal(await feed.pull(), true);
  const first = feed.buffer.peek()!;
  assert.equal(feed.wantsMore(first), true);
  assert.equal(await feed.pull(), true);
  assert.equal(invalid.length, 1, 'reported at its line');
  assert.equal(feed.buffer.length, 1, 'and never buffered');
  assert.equal(await feed.pull(), true);
  assert.equal(feed.wantsMore(first), false, 'the buffer reaches past the match window');
  assert.equal(await feed.pull(), false);
  assert.equal(feed.exhausted, true);
  assert.deepEqual(entered, [...feed.buffer.iterate()]);
  assert.notEqual(first, good, 'the pod bodies are projected (informer-transform.ts)');
  const look = feed.lookahead(() => T0 + 60_000);
  assert.equal(look.coverageEnd?.(), T0 + 60_000);
  assert.ok(look.keyed && look.ordered?.());
  assert.equal(feed.lookahead(() => undefined, true).keyed, undefined, 'tests only: answer by scanning');
});
