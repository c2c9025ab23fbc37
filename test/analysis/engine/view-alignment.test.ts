/**
 * The view alignment (src/analysis/engine/view-alignment.ts) on the real controller model: pods
 * a status write shows the controller had not observed are withheld and their lowers given back,
 * then delivered when a status write counts every pod or a write of the controller passes the
 * gate; and the pod sightings it reads (pod-sightings.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ReplicaSetController } from '../../../src/model/replicaset/replicaset-controller.js';
import { controllerRefOf, objectKey, type Pod, type ReplicaSet } from '../../../src/model/objects.js';
import { DEFAULT_K8S_VERSION, parseK8sVersion } from '../../../src/model/version.js';
import { PodSightings } from '../../../src/analysis/engine/pod-sightings.js';
import { RsTracks } from '../../../src/analysis/engine/rs-track.js';
import { LATE_STATUS_MS, ViewAlignment } from '../../../src/analysis/engine/view-alignment.js';
import type { TimelineEvent } from '../../../src/timeline/event.js';
import { NS, observed, podObj, podWrite, rsObj, T0 } from '../../support/timeline-events.js';

const KEY = `${NS}/web`;

test('PodSightings: the first sighting of each pod (of its UID), forgotten at deletion; recent ones per ReplicaSet until its next status write', () => {
  const s = new PodSightings();
  const rs = rsObj();
  const a = podObj('web-a', rs);
  const ref = controllerRefOf(a.metadata);
  s.note(false, a, 'shop/web-a', ref, T0, { file: 'f', line: 1 });
  s.note(false, a, 'shop/web-a', ref, T0 + 5, { file: 'f', line: 2 });
  assert.deepEqual(s.get('shop/web-a'), { at: T0, source: { file: 'f', line: 1 }, uid: 'uid-web-a' });
  const reused = podObj('web-a', rs, { uid: 'uid-2' });
  s.note(false, reused, 'shop/web-a', ref, T0 + 10, { file: 'f', line: 3 });
  assert.equal(s.get('shop/web-a')?.at, T0 + 10, 'a new pod under the same name');
  s.note(false, podObj('web-b', rs), 'shop/web-b', ref, T0 + 20, { file: 'f', line: 4 });
  assert.deepEqual(s.takeRecent(KEY, T0 + 10)?.map((r) => r.at - T0), [0, 10, 20], 'every sighting since the last status write');
  assert.deepEqual(s.takeRecent(KEY, T0 + 30)?.map((r) => r.at - T0), [10, 20], 'those from the previous write on were kept');
  s.note(true, a, 'shop/web-a', ref, T0 + 40, { file: 'f', line: 5 });
  assert.equal(s.has('shop/web-a'), false);
});

function setup(upcoming: TimelineEvent[] = [], opts: { gateSkipsStatus?: boolean } = {}) {
  const noCalls = () => assert.fail('no sync runs in these tests');
  const controller = new ReplicaSetController({
    version: parseK8sVersion(DEFAULT_K8S_VERSION), recordClaimDecisions: false,
    podControl: { createPod: noCalls, deletePod: noCalls, getFreshOwner: noCalls, patchPod: noCalls },
  });
  const tracks = new RsTracks();
  const sightings = new PodSightings();
  const view = new ViewAlignment(tracks, controller, sightings, { drain: () => (controller.expectations.log.length = 0) }, () => upcoming, 5000,
    undefined, () => undefined, [], undefined, opts.gateSkipsStatus ?? false);
  const deliver = (at: number, watchType: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod) => {
    const e = observed(at, 'Pod', watchType, pod);
    const pk = objectKey(pod.metadata);
    const ref = controllerRefOf(pod.metadata);
    const old = controller.pods.get(pk);
    sightings.note(watchType === 'DELETED', pod, pk, ref, at, e.source);
    return view.deliverPod(e as typeof e & { kind: 'Pod' }, pk, ref, old);
  };
  const status = (at: number, rs: ReplicaSet, replicas: number) => {
    const next = { ...rs, status: { replicas, observedGeneration: 1 } };
    view.noteStatusWrite(tracks.of(KEY), next, observed(at, 'ReplicaSet', 'MODIFIED', next));
  };
  return { controller, tracks, view, deliver, status };
}

/** A ReplicaSet whose record awaits 3 creates, its 3 pods delivered, and two status writes (the first anchors nothing). */
function threePods(s: ReturnType<typeof setup>) {
  const rs = rsObj('web', 3);
  s.controller.deliverOwner('ADDED', rs, T0);
  s.view.noteStatusWrite(s.tracks.of(KEY), rs, observed(T0, 'ReplicaSet', 'ADDED', rs));
  s.controller.expectations.expectCreations(KEY, 3, T0 + 10);
  const pods = ['web-a', 'web-b', 'web-c'].map((n) => podObj(n, rs));
  pods.forEach((p, i) => assert.equal(s.deliver(T0 + 100 * (i + 1), 'ADDED', p), true));
  assert.equal(s.controller.expectations.get(KEY)?.add, 0);
  s.status(T0 + 400, rs, 1);
  return { rs, pods };
}

test('ViewAlignment: a status write counting fewer pods than the input showed withholds the newest and gives its lower back; one counting all delivers it', () => {
  const s = setup();
  const { rs, pods } = threePods(s);
  const t = s.tracks.of(KEY);
  assert.deepEqual(t.statusWrites.map((x) => x - T0), [0, 400]);
  s.status(T0 + 500, rs, 2);
  assert.deepEqual(t.viewBehind.map((b) => [b.statusReplicas, b.expected, b.missing.map((m) => m.pod)]), [[2, 3, ['shop/web-c']]]);
  assert.deepEqual(t.viewUnknown.map((u) => [u.from - T0, u.until! - T0]), [[300, 500]]);
  assert.equal(s.controller.pods.get('shop/web-c'), undefined, 'withheld from the model');
  assert.equal(s.controller.expectations.get(KEY)?.add, 1, 'the controller\'s record still waits for it');
  const newer = { ...pods[2]!, status: { phase: 'Running', reason: 'newer' } };
  assert.equal(s.deliver(T0 + 550, 'MODIFIED', newer), false, 'not observed by the controller yet: its latest state is kept');
  s.status(T0 + 600, rs, 3);
  assert.deepEqual(t.viewCaughtUp.map((c) => c.at - T0), [600]);
  assert.equal(s.controller.pods.get('shop/web-c')?.status?.reason, 'newer', 'delivered with its latest state');
});

test('ViewAlignment: a withheld pod the input deletes leaves its record waiting; a write of the controller that passes the gate settles it', () => {
  const s = setup();
  const { rs, pods } = threePods(s);
  s.status(T0 + 500, rs, 2);
  assert.equal(s.deliver(T0 + 700, 'DELETED', pods[2]!), true);
  const t = s.tracks.of(KEY);
  const span = t.viewUnknown.at(-1)!;
  assert.match(span.reason, /^the input deleted a pod the controller had not observed \(shop\/web-c\)/);
  assert.equal(span.until, T0 + 10 + 5 * 60_000, 'unknown until the record expires');
  assert.equal(s.controller.expectations.get(KEY)?.add, 1);
  assert.equal(s.view.releaseWithheld(KEY, T0 + 900), true);
  assert.equal(span.until, T0 + 900, 'settled by the write');
  assert.equal(s.controller.expectations.get(KEY)?.add, 0, 'its ADD came first: the record was lowered');
  assert.equal(s.view.releaseWithheld(KEY, T0 + 950), false, 'nothing left to release');
});

test('ViewAlignment: the creates of one sync ahead, and withholding a round\'s newest pods', () => {
  const rs = rsObj('web', 3);
  const w = (at: number, name: string) => podWrite(at, 'create', podObj(name, rs));
  const first = w(T0 + 1000, 'web-x');
  const s = setup([first, w(T0 + 2500, 'web-y'), w(T0 + 5000, 'web-z')]);
  threePods(s);
  assert.equal(s.view.createsAhead(KEY, first), 2, 'the third is more than FIRST_CALL_MS after the second: another sync');
  assert.deepEqual(s.view.withholdRound(KEY, T0 + 999, 1, T0 + 1000), [], 'not the record in force');
  assert.deepEqual(s.view.withholdRound(KEY, T0 + 10, 2, T0 + 1000), [{ pod: 'shop/web-c', seenAt: T0 + 300 }, { pod: 'shop/web-b', seenAt: T0 + 200 }]);
  assert.equal(s.controller.expectations.get(KEY)?.add, 2);
  assert.equal(s.controller.pods.get('shop/web-b'), undefined);
  s.view.restoreAll();
  assert.ok(s.controller.pods.get('shop/web-b') && s.controller.pods.get('shop/web-c'), 'the report counts every pod');
});

/**
 * A ReplicaSet scaled 0→3: its first status (anchors nothing), its 3 pods shown at T0+10, +20,
 * +30, and the creating sync's own status write at T0+35 (new generation, still 0 replicas: it
 * listed before its creates).
 */
function scaleUp(s: ReturnType<typeof setup>) {
  const rs = rsObj('web', 3);
  s.controller.deliverOwner('ADDED', rs, T0);
  s.view.noteStatusWrite(s.tracks.of(KEY), rs, observed(T0, 'ReplicaSet', 'ADDED', rs));
  ['web-a', 'web-b', 'web-c'].forEach((n, i) => assert.equal(s.deliver(T0 + 10 * (i + 1), 'ADDED', podObj(n, rs)), true));
  const created = { ...rs, status: { replicas: 0, observedGeneration: 2 } };
  s.view.noteStatusWrite(s.tracks.of(KEY), created, observed(T0 + 35, 'ReplicaSet', 'MODIFIED', created));
  return rs;
}
const late = (t: { viewUnknown: Array<{ reason: string }> }) => t.viewUnknown.filter((u) => /status write counting \d+ more pod/.test(u.reason));

test('ViewAlignment: a status write counting new pods long after the input showed them makes the time from their first ADD to it unknown', () => {
  const s = setup();
  const rs = scaleUp(s);
  s.status(T0 + 8035, rs, 3);
  const t = s.tracks.of(KEY);
  assert.deepEqual(t.viewUnknown.map((u) => [u.from - T0, u.until! - T0]), [[10, 8035]], 'from the first ADD to the write');
  assert.match(t.viewUnknown[0]!.reason, /counting 3 more pod\(s\) came 8000 ms after the input showed them/);
  assert.equal(LATE_STATUS_MS, 2000);
});

test('ViewAlignment: a status write within LATE_STATUS_MS of the pods and of the previous write is not late', () => {
  for (const at of [T0 + 60, T0 + 35 + LATE_STATUS_MS]) {
    const s = setup();
    s.status(at, scaleUp(s), 3);
    assert.deepEqual(s.tracks.of(KEY).viewUnknown, [], `${at - T0}`);
  }
  const s = setup();
  s.status(T0 + 36 + LATE_STATUS_MS, scaleUp(s), 3);
  assert.equal(late(s.tracks.of(KEY)).length, 1, 'one ms later it is');
});

test('ViewAlignment: a late status write kexp\'s model explains (a sync that returned before its status write) leaves the view known', () => {
  const s = setup();
  const rs = scaleUp(s);
  s.tracks.of(KEY).syncErrors.push({ at: T0 + 100, error: 'ConsistencyError: informer has not observed the controller\'s last write', backoffMs: 5 });
  s.status(T0 + 8035, rs, 3);
  assert.deepEqual(s.tracks.of(KEY).viewUnknown, []);
});

test('ViewAlignment: a late count it need not reflect — short of the pods shown, or raised by adopting pods shown before — is not this rule\'s', () => {
  const s = setup();
  s.status(T0 + 8035, scaleUp(s), 2);
  const t = s.tracks.of(KEY);
  assert.deepEqual(late(t), [], 'counting 2 of 3: the view-behind check speaks');
  assert.equal(t.viewBehind.length, 1);
  const o = setup();
  const rs = rsObj('web', 2);
  o.controller.deliverOwner('ADDED', rs, T0);
  o.view.noteStatusWrite(o.tracks.of(KEY), rs, observed(T0, 'ReplicaSet', 'ADDED', rs));
  o.status(T0 + 5, rs, 0);
  const anchored = { ...rs, status: { replicas: 0, observedGeneration: 2 } };
  o.view.noteStatusWrite(o.tracks.of(KEY), anchored, observed(T0 + 6, 'ReplicaSet', 'MODIFIED', anchored));
  ['web-a', 'web-b'].forEach((n, i) => o.deliver(T0 + 10 * (i + 1), 'ADDED', podObj(n, undefined)));
  ['web-a', 'web-b'].forEach((n) => o.deliver(T0 + 8000, 'MODIFIED', podObj(n, rs)));
  o.status(T0 + 8030, rs, 2);
  assert.deepEqual(o.tracks.of(KEY).viewUnknown, [], 'orphans adopted: the count rose with their adoption, not their ADDs');
});

test('ViewAlignment: the controller\'s DELETE answered 404 of a pod the input saw deleted pins a ghost — held in the model from before the sync that chose it, with the 404 write as evidence', () => {
  const upcoming: TimelineEvent[] = [];
  const s = setup(upcoming);
  const { rs, pods } = threePods(s);
  s.status(T0 + 600, rs, 3);
  const t = s.tracks.of(KEY);
  // The input deletes web-a; the controller's status never says otherwise (no status write follows).
  assert.equal(s.deliver(T0 + 1000, 'DELETED', pods[0]!), true);
  assert.equal(s.controller.pods.get('shop/web-a'), undefined);
  // Minutes later the look-ahead shows the controller's DELETE of web-a answered 404 (and a 200 of web-b, not a ghost).
  const notFound = podWrite(T0 + 300_500, 'delete', pods[0]!, 404);
  const ok = podWrite(T0 + 300_510, 'delete', pods[1]!, 200);
  upcoming.push(notFound, ok);
  s.view.beforeSyncs(T0 + 300_000);
  assert.equal(s.view.heldGone('shop/web-a'), true, 'its cache still held it');
  assert.equal(s.controller.pods.get('shop/web-a')?.metadata.name, 'web-a', 'back in the model\'s cache as last active');
  assert.equal(s.view.heldGone('shop/web-b'), false);
  assert.equal(t.heldDeletions.length, 1);
  const h = t.heldDeletions[0]!;
  assert.deepEqual([h.at - T0, h.source, h.pods.map((p) => [p.pod, p.departedAt - T0]), h.notFound], [300_500, notFound.source, [['shop/web-a', 1000]], {}]);
  assert.deepEqual(t.viewUnknown.filter((u) => /answered 404/.test(u.reason)).map((u) => [u.from - T0, u.until! - T0]), [[1000, 300_500]]);
  // Read once: the same write does not pin it again.
  s.view.beforeSyncs(T0 + 300_100);
  assert.equal(t.heldDeletions.length, 1);
  // A status write counting the pods the input has settles it (delivered).
  s.status(T0 + 301_000, rs, 2);
  assert.equal(s.view.heldGone('shop/web-a'), false);
  assert.equal(t.heldReleased.at(-1)?.pods[0], 'shop/web-a');
});

test('ViewAlignment: a 404 of a pod the input never saw deleted before it, or of a pod never this ReplicaSet\'s, pins nothing', () => {
  const upcoming: TimelineEvent[] = [];
  const s = setup(upcoming);
  const { pods } = threePods(s);
  upcoming.push(podWrite(T0 + 2000, 'delete', pods[2]!, 404));
  s.view.beforeSyncs(T0 + 1500);
  assert.equal(s.view.heldGone('shop/web-c'), false);
  assert.equal(s.tracks.of(KEY).heldDeletions.length, 0);
});

/**
 * Held adds: a record awaiting 3 creates, an anchoring status write, then the round's 3 ADDs with
 * `ahead` (the status writes the look-ahead shows after them) queued before the third is delivered.
 */
function heldAdd(ahead: Array<[number, number]>, opts: { gateSkipsStatus?: boolean } = {}) {
  const upcoming: TimelineEvent[] = [];
  const s = setup(upcoming, opts);
  const rs = rsObj('web', 3);
  s.controller.deliverOwner('ADDED', rs, T0);
  s.view.noteStatusWrite(s.tracks.of(KEY), rs, observed(T0, 'ReplicaSet', 'ADDED', rs));
  const anchor = { ...rs, status: { replicas: 0, observedGeneration: 2 } };
  s.view.noteStatusWrite(s.tracks.of(KEY), anchor, observed(T0 + 5, 'ReplicaSet', 'MODIFIED', anchor)); // a status write the input shows: it records them
  s.controller.expectations.expectCreations(KEY, 3, T0 + 10);
  const pods = ['web-a', 'web-b', 'web-c'].map((n) => podObj(n, rs));
  assert.equal(s.deliver(T0 + 20, 'ADDED', pods[0]!), true);
  assert.equal(s.deliver(T0 + 30, 'ADDED', pods[1]!), true);
  const writes = ahead.map(([dt, n]) => {
    const next = { ...rs, status: { replicas: n, observedGeneration: 3 + dt } };
    return observed(T0 + dt, 'ReplicaSet', 'MODIFIED', next);
  });
  upcoming.push(...writes, observed(T0 + 60_000, 'Namespace', 'MODIFIED', { metadata: { name: NS } } as never));
  const delivered = s.deliver(T0 + 40, 'ADDED', pods[2]!);
  return { s, rs, pods, delivered, writes, upcoming };
}

test('ViewAlignment: held add — the second status write after the record\'s last ADD counts 2 of 3, so that ADD is held from the start and the record keeps waiting; a write counting 3 delivers it', () => {
  const { s, rs, delivered, writes, upcoming } = heldAdd([[45, 0], [1045, 2]]);
  assert.equal(delivered, false, 'held from its ADD');
  assert.equal(s.controller.expectations.get(KEY)?.add, 1, 'no lower: the controller\'s record still waits');
  const t = s.tracks.of(KEY);
  // The two writes themselves arrive: the behind write finds the pod already held, so no unknown span.
  upcoming.splice(0, 2);
  for (const w of writes) s.view.noteStatusWrite(t, w.object as ReplicaSet, w);
  assert.equal(t.viewBehind.at(-1)?.heldFromAdd, true);
  assert.deepEqual(t.viewUnknown, []);
  s.status(T0 + 3000, rs, 3);
  assert.equal(s.controller.expectations.get(KEY)?.add, 0, 'the status counting every pod delivered it: the record is fulfilled then');
  assert.ok(s.controller.pods.get('shop/web-c'));
});

test('ViewAlignment: held add — a status write counting the pod, or the first write alone under the consistency gate, leaves it delivered', () => {
  assert.equal(heldAdd([[45, 0], [1045, 3]]).delivered, true, 'the second write counts it');
  assert.equal(heldAdd([[45, 3]]).delivered, true, 'the first write counts it');
  // One write only, then nothing for LATE_STATUS_MS: no later sync saw a change …
  const quiet = heldAdd([[45, 2]]);
  assert.equal(quiet.delivered, false, 'without the gate, the quiet status is evidence');
  // … unless the consistency gate may have skipped the syncs before their status writes.
  assert.equal(heldAdd([[45, 2]], { gateSkipsStatus: true }).delivered, true);
  assert.equal(heldAdd([[45, 0], [1045, 2]], { gateSkipsStatus: true }).delivered, false, 'a second write is a sync that ran: evidence under the gate too');
});

test('ViewAlignment: held add — the count short by two holds this ADD and gives back the lower of the newest other pod of the round', () => {
  const { s, delivered } = heldAdd([[45, 0], [1045, 1]]);
  assert.equal(delivered, false);
  assert.equal(s.controller.pods.get('shop/web-b'), undefined, 'the newest delivered pod of the round is withheld too');
  assert.ok(s.controller.pods.get('shop/web-a'));
  assert.equal(s.controller.expectations.get(KEY)?.add, 2);
});
