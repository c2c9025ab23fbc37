/**
 * The controller's own view of its pods, read from its status writes.
 *
 * syncReplicaSet (pkg/controller/replicaset/replica_set.go) lists the ReplicaSet's pods from
 * its informer cache at the start of a sync, and ends the sync with updateReplicaSetStatus,
 * whose status.replicas is the number of active pods it listed (calculateStatus in
 * replica_set_utils.go). Syncs of one key never overlap, so every pod that existed before the
 * controller's previous status write of that ReplicaSet existed when the current sync listed
 * its pods. If the status counts fewer active pods than the input shows of those, the
 * controller's informer had not delivered them (lag) or never will (a lost event): its
 * decisions then rest on a cache kexp's input does not show, and kexp's replay — which
 * delivers every event at the time the input saw it — cannot vouch for them.
 *
 * Another kind counts its own way (OwnerStatusCount: a DaemonSet counts the nodes with a daemon pod);
 * the check takes the kind's count and its notion of a counted pod.
 *
 * The check compares only in that direction (fewer): a status counting more pods can be a
 * pod deleted after the sync listed them. Pods created after the previous status write may or
 * may not have been listed, so a status can hide a missing older pod behind a newer one: the
 * view has caught up only when the status counts every active pod the input shows.
 * Cost: the check walks the ReplicaSet's pods, so a caller with many pods and many status writes
 * passes `atMost` (a cheap upper bound on how many of `pods` the count counts, e.g. the cache's
 * kept count of them, pod-store.ts PodCounter): a status counting at least that many pods has
 * caught up and can hide nothing, and is answered without the walk — the steady state of a large
 * ReplicaSet costs O(1) per write.
 * Pure: no I/O, no clock.
 */
import { controllerRefOf, objectKey, type Pod, type ReplicaSet } from '../../model/objects.js';
import type { OwnerStatusCount } from '../../model/controller/controller.js';
import { REPLICA_SET_STATUS_COUNT } from './engine-controller.js';
import type { SourceRef } from '../../timeline/event.js';

/** One status write showing the controller's cache behind the input. */
export interface ViewBehind {
  /** The status write. */
  at: number;
  source: SourceRef;
  statusReplicas: number;
  /** Active pods of this ReplicaSet the input showed before the controller's previous status write. */
  expected: number;
  /** The newest of those: the ones a lagging informer had not delivered yet (in order, newest last). */
  missing: Array<{ pod: string; seenAt: number; source?: SourceRef }>;
  /** The input's time of the oldest missing pod: the controller's view is behind from then at least. */
  since: number;
  /**
   * Every missing pod was held out of kexp's model from its ADD on (view-alignment.ts
   * `addUnseen`): kexp's gate decisions already followed the controller's view.
   */
  heldFromAdd?: boolean;
  /**
   * A later status write named pods kexp had taken as these missing ones (view-alignment.ts
   * `swapNamed`): `missing` was rewritten to the pods that write showed the cache lacked. `lost`:
   * they are older than a named pod — an informer delivers in order, so their ADDs were lost.
   */
  corrected?: { at: number; source: SourceRef; named: string[]; lost: boolean };
}

export interface PodSighting {
  at: number;
  source?: SourceRef;
}

/**
 * Compares a status write with the pods the input showed. `pods` are this ReplicaSet's pods in
 * kexp's cache at the write (read lazily: not at all when `atMost` settles it); `sightings` when
 * the input first showed each (by namespace/name); `previousWriteAt` the controller's previous
 * status write of this ReplicaSet (undefined: none kexp knows the time of).
 */
export interface StatusCheck {
  /** The status counts fewer of the older pods than exist: the view is behind. */
  behind?: ViewBehind;
  /** The status counts every active pod the input shows: nothing is missing from its view. */
  caughtUp: boolean;
}

export function checkStatusWrite(
  rs: ReplicaSet,
  at: number,
  source: SourceRef,
  pods: Iterable<Pod>,
  sightings: Map<string, PodSighting>,
  previousWriteAt: number | undefined,
  atMost?: number,
  count: OwnerStatusCount<ReplicaSet> = REPLICA_SET_STATUS_COUNT,
  /** Pods the write proves the cache held (view-alignment.ts `namedWithheld`): never among the missing. */
  named?: ReadonlySet<string>,
): StatusCheck {
  const statusReplicas = count.of(rs);
  if (typeof statusReplicas !== 'number') return { caughtUp: false };
  // Active pods ≤ atMost ≤ status: every one is counted, none can be missing.
  if (atMost !== undefined && statusReplicas >= atMost) return { caughtUp: true };
  const uid = rs.metadata.uid;
  // The older pods' keys and sightings (in walk order); their report entries are built only for
  // the missing ones, when there is a deficit (most writes of a large ReplicaSet have none).
  const olderKeys: string[] = [];
  const olderSeen: PodSighting[] = [];
  // creationTimestamp has whole seconds: a pod created before the previous write's second existed then.
  const previousSecond = previousWriteAt === undefined ? undefined : Math.floor(previousWriteAt / 1000) * 1000;
  let active = 0;
  let namedOlder = 0;
  const facts = factsFor(count);
  for (const p of pods) {
    const f = factsOf(p, count, facts);
    if (!f.counted || f.controller !== uid) continue;
    active++;
    if (previousWriteAt === undefined) continue;
    const key = f.key;
    const seen = sightings.get(key);
    if (!seen) continue;
    const existed = existedAt(p, seen.at, previousWriteAt, previousSecond);
    if (existed && !named?.has(key)) {
      olderKeys.push(key);
      olderSeen.push(seen);
    } else if (existed) namedOlder++;
  }
  const caughtUp = statusReplicas >= active;
  // Named pods were counted: the deficit falls on the others.
  const deficit = olderKeys.length + namedOlder - statusReplicas;
  if (deficit <= 0 || !olderKeys.length) return { caughtUp };
  const olderThanPrevious = olderKeys.map((pod, i) => {
    const seen = olderSeen[i]!;
    return { pod, seenAt: seen.at, ...(seen.source ? { source: seen.source } : {}) };
  });
  olderThanPrevious.sort((a, b) => a.seenAt - b.seenAt);
  const missing = olderThanPrevious.slice(-Math.min(deficit, olderThanPrevious.length));
  return { caughtUp, behind: { at, source, statusReplicas, expected: olderThanPrevious.length + namedOlder, missing, since: missing[0]!.seenAt } };
}

/**
 * What the walk above reads of a pod object, read once per object: whether `count` counts it,
 * its controllerRef's UID and its key (namespace/name, objectKey). The walk runs on every status
 * write of a ReplicaSet the view alignment finds behind (std 1 GB: 3,877 walks, 170k pods), and
 * its cost was these reads — property reads on pods of many shapes (megamorphic), and a key
 * built anew, a new string whose hash the sightings lookup computes each time. The cache
 * replaces a pod's object at each change and never changes one (pod-store.ts PodCounter relies
 * on the same), and `counts` reads only the pod (OwnerStatusCount), so the facts kept are the
 * facts; an entry goes with its object.
 */
interface PodFacts {
  key: string;
  counted: boolean;
  controller: string | undefined;
}
type FactsCache = WeakMap<Pod, PodFacts>;
const factsByCount = new WeakMap<OwnerStatusCount<never>, FactsCache>();

function factsFor<O>(count: OwnerStatusCount<O>): FactsCache {
  const c = count as unknown as OwnerStatusCount<never>;
  let m = factsByCount.get(c);
  if (!m) factsByCount.set(c, (m = new WeakMap()));
  return m;
}

function factsOf<O>(p: Pod, count: OwnerStatusCount<O>, cache: FactsCache): PodFacts {
  let f = cache.get(p);
  if (f === undefined) cache.set(p, (f = { key: objectKey(p.metadata), counted: count.counts(p), controller: controllerRefOf(p.metadata)?.uid }));
  return f;
}

/**
 * Whether a pod the input first showed at `seenAt` existed at the controller's previous status
 * write: seen before it, or created before its second (creationTimestamp has whole seconds). The
 * timestamp is parsed only when the first test fails.
 */
export function existedAt(p: Pod, seenAt: number, previousWriteAt: number, previousSecond = Math.floor(previousWriteAt / 1000) * 1000): boolean {
  if (seenAt < previousWriteAt) return true;
  const created = p.metadata.creationTimestamp ? Date.parse(p.metadata.creationTimestamp) : NaN;
  return !Number.isNaN(created) && created < previousSecond;
}
