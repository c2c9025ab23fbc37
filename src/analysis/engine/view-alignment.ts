/**
 * Keeps kexp's informer cache aligned with the controller's own view of its pods, as its status
 * writes show it (controller-view.ts). syncReplicaSet (pkg/controller/replicaset/replica_set.go)
 * counts the pods its informer delivered; when a status write counts fewer than the input showed,
 * the controller had not observed the newest of them, so kexp withholds those pods from its
 * model (and gives back the lower their ADD made of a record still in force: the controller's
 * record still waits for them). Withheld pods are delivered once a status write counts every pod
 * (the informer caught up), or once a write of the controller shows it passed its gate
 * (`releaseWithheld`). Where the input cannot tell what the controller observed, the track's
 * `viewUnknown` says from when to when.
 *
 * Contract:
 * - `deliverPod` delivers a pod observation to the model unless the pod is withheld (then only
 *   its latest state is kept); a withheld pod deleted or given another controller leaves the
 *   view question (forgetWithheld), with its record possibly waiting for it until it expires;
 * - `noteStatusWrite` checks each status write of a ReplicaSet and aligns the cache; a write
 *   raising the count more than LATE_STATUS_MS after the pods it counts, with nothing kexp
 *   models to delay it, makes the time from their ADDs to it unknown (`checkLateWrite`);
 * - the reconciler (write-reconciler.ts) asks `releaseWithheld`, `withholdRound` and
 *   `createsAhead` when a write of the controller tells what its cache held;
 * - `restoreAll` puts every withheld pod back at the end (the report counts every pod).
 * Writes the view fields of RsTrack (viewBehind, viewCaughtUp, lastStatus, statusWrites, viewUnknown).
 *
 * Cost: a status write is settled in O(pods sighted since the previous one) unless kexp holds
 * pods back or its view is unknown or behind; then it walks the ReplicaSet's pods (indexed by
 * controller). Withheld pods are few (the newest of a lagging round). The late-write check reads
 * the sightings of the last two intervals, and walks the pods only for a write it found late.
 * Pure: no I/O, no clock.
 */
import { EXPECTATIONS_TIMEOUT_MS } from '../../model/expectations.js';
import { controllerRefOf, objectKey, type OwnerReference, type Pod, type ReplicaSet } from '../../model/objects.js';
import type { ObservedEvent, SourceRef, TimelineEvent } from '../../timeline/event.js';
import { checkStatusWrite, existedAt, type ViewBehind } from './controller-view.js';
import { REPLICA_SET_OWNER, REPLICA_SET_STATUS_COUNT, type EngineController, type EngineOwnerKind } from './engine-controller.js';
import type { OwnerStatusCount } from '../../model/controller/controller.js';
import type { PodCounter } from '../../model/pod-store.js';
import { FIRST_CALL_MS } from './evidence-oracle.js';
import { isRSControllerPodWrite } from './evidence-window.js';
import { HeldDeletions, VIEW_JITTER_MS } from './held-deletions.js';
import type { LookaheadIndex } from './lookahead-buffer.js';
import type { PodSightings } from './pod-sightings.js';
import type { RsTrack, RsTracks } from './rs-track.js';

type ViewController = Pick<EngineController, 'pods' | 'expectations' | 'owners' | 'withholdPod' | 'deliverPod' | 'restorePod' | 'isBusy' | 'runDue' | 'observedDuringSync'>;

/**
 * How long after the input shows a pod the controller's status write counting it may come: the
 * ADD enqueues the key at once and the sync it triggers ends with its status write, the sync's
 * first call when it creates or deletes nothing — kexp bounds that at FIRST_CALL_MS after the
 * sync's trigger (the workers, a client-side throttled client).
 */
export const LATE_STATUS_MS = FIRST_CALL_MS;

/** Pods held apart from their last event beyond which `scanAhead` scans rather than merging their postings. */
const MAX_APART = 64;

/**
 * The timeline kind of the owner's own events in the engine: a ReplicationController reaches its
 * engine converted to the ReplicaSet shape (pipeline/owner-kind-views.ts `convert`).
 */
const OWNER_EVENT = 'ReplicaSet';

/**
 * The pod cache's counter predicate for `count` (pod-store.ts `counter`), closing over `count`
 * alone: the cache outlives the replay (ReplayResult.pods), and a predicate closing over the view
 * alignment kept the whole engine reachable while the report was built (bench/README.md "Memory
 * by live objects", second session: 84 MB more live heap after a 50,000-pod replay).
 */
function countedBy(count: OwnerStatusCount<ReplicaSet>): (p: Pod) => boolean {
  return (p) => count.counts(p);
}

/** A pod withheld from the model (ViewAlignment.withheldPods). */
export interface Withheld {
  pod: Pod;
  rsKey: string;
  raisedFor?: number;
  atAdd?: boolean;
  lostAdd?: boolean;
}

/**
 * The withheld pods by pod key (a Map: insertion order), and by ReplicaSet key: `of(rsKey)` holds
 * the entries `[...this].filter(([, w]) => w.rsKey === rsKey)` would, in the same order — read on
 * every status write of a ReplicaSet kexp holds pods back for, which walked every withheld pod of
 * every ReplicaSet (std 1 GB: 3,877 such writes). An entry's position in the Map is its first
 * insertion's; a new key is the newest, so appending keeps each ReplicaSet's entries in Map
 * order, and a key moved to another ReplicaSet (not done today) re-sorts that one's from the Map.
 * Cost: O(1) per set/delete; the index holds the same entries.
 */
export class WithheldPods extends Map<string, Withheld> {
  private readonly byRs = new Map<string, Map<string, Withheld>>();
  private static readonly NONE: ReadonlyMap<string, Withheld> = new Map();

  /** The entries of `rsKey`'s withheld pods, in Map order (live: copy before changing the map). */
  of(rsKey: string): ReadonlyMap<string, Withheld> {
    return this.byRs.get(rsKey) ?? WithheldPods.NONE;
  }

  override set(pk: string, w: Withheld): this {
    const old = super.get(pk);
    super.set(pk, w);
    if (old !== undefined && old.rsKey !== w.rsKey) {
      this.unindex(pk, old.rsKey);
      const m = new Map<string, Withheld>();
      for (const [k, v] of this) if (v.rsKey === w.rsKey) m.set(k, v);
      this.byRs.set(w.rsKey, m);
      return this;
    }
    let m = this.byRs.get(w.rsKey);
    if (!m) this.byRs.set(w.rsKey, (m = new Map()));
    m.set(pk, w);
    return this;
  }

  override delete(pk: string): boolean {
    const old = super.get(pk);
    if (old === undefined) return super.delete(pk);
    this.unindex(pk, old.rsKey);
    return super.delete(pk);
  }

  override clear(): void {
    super.clear();
    this.byRs.clear();
  }

  private unindex(pk: string, rsKey: string): void {
    const m = this.byRs.get(rsKey);
    if (!m) return;
    m.delete(pk);
    if (m.size === 0) this.byRs.delete(rsKey);
  }
}

/** What one scanAhead reads with: the owner, its callbacks, and the status signature and end it has reached. */
interface AheadScan {
  ns: string | undefined;
  name: string | undefined;
  uid: string | undefined;
  deletingEnds: boolean;
  on: {
    status?: (w: { at: number; source: SourceRef; replicas: number; signature: string; object: ReplicaSet }) => boolean | void;
    pod?: (x: ObservedEvent & { kind: 'Pod' }) => void;
    /** A status write of the controller's the apiserver refused: what its request named (`OwnerStatusCount.seen`). */
    refusedStatus?: (x: TimelineEvent & { type: 'write' }) => void;
  };
  signature: string;
  end: number;
}

export class ViewAlignment {
  /** RsTracks.of, made once (the held departures' intercept takes it on every pod delivery). */
  private readonly trackOf = (k: string): RsTrack => this.tracks.of(k);
  /**
   * Pods the controller's status writes show it had not observed: out of the model's cache (latest
   * state kept). `raisedFor`: the Set time of the record whose lower their ADD made was given back.
   */
  private readonly withheldPods = new WithheldPods();
  /**
   * Withheld pods the input deleted (or gave another controller) while their record still waited
   * for them: whether the controller's informer delivered their ADD first (a lag: the record was
   * lowered) or never (a lost event: it waits until it expires), the input does not show — until
   * a write of the controller passes the gate (releaseWithheld), or the record expires.
   */
  private readonly pendingLowers = new Map<string, { rsKey: string; setAt: number; span: RsTrack['viewUnknown'][number] }>();
  /**
   * Pods whose event lowered the model's `del` before their departure (a count-only kind lowers at
   * the deletionTimestamp, its status counts the pod until it is gone): the lower a held departure
   * gives back, and the pod as the model cached it before that event (`prior`: what a cache that
   * never delivered the event still holds). Entries live until the pod departs or is deleted.
   */
  private readonly delLowered = new Map<string, { rsKey: string; setAt: number; record: { add: number; del: number; timestamp: number; at: number; lowers: number; prior?: Pod } }>();
  /** Pods whose ADD lowered the model's `add` (the record's Set time), to give the lower back when withheld. */
  private readonly loweredBy = new Map<string, { rsKey: string; setAt: number }>();
  /**
   * Per ReplicaSet key: the pods first shown as its own in the interval its last status write
   * closed (that write's sync may have listed before them), for `checkLateWrite`.
   */
  private readonly priorSightings = new Map<string, Array<{ pk: string; at: number }>>();
  /** Departures of pods the controller's status writes show it had not observed (held-deletions.ts). */
  private readonly departed: HeldDeletions;
  /** How the owner kind's status writes count the pods its cache held (the ReplicaSet's: active pods). */
  private readonly count: OwnerStatusCount<ReplicaSet>;
  /** The model cache's count of the pods `count` counts, per owner (made on first use). */
  private counted: PodCounter | undefined;

  constructor(
    private readonly tracks: RsTracks,
    private readonly controller: ViewController,
    private readonly sightings: PodSightings,
    private readonly windows: { drain(): void },
    /** The look-ahead: upcoming events, starting with the next unprocessed one. */
    private readonly upcoming: () => Iterable<TimelineEvent>,
    private readonly matchWindowMs: number,
    /** The owner kind replayed (its pods' controllerRef kind, its writes' component). */
    private readonly owner: EngineOwnerKind = REPLICA_SET_OWNER,
    /**
     * Once the input is read to its end: the time its coverage is declared to reach (a recording's end marker);
     * undefined while more may come. Past the look-ahead's last event the input shows nothing
     * more up to that time.
     */
    private readonly endOfInput: () => number | undefined = () => undefined,
    /** The ends of the controller's pod-informer relists from its own log ("Caches populated"; controller-log.ts relists). */
    podRelists: ReadonlyArray<{ at: number; source: SourceRef }> = [],
    /** The look-ahead's pod DELETEs by the controller from `from` to `to` (a superset is fine: filtered here); default: a scan of `upcoming`. */
    private readonly controllerDeletes: (from: number, to: number) => Iterable<TimelineEvent> = () => this.upcoming(),
    /**
     * The modelled controller has the consistency gate (1.36+, a kind with a consistency store:
     * model/replicaset/owner-kind.ts): a sync may return before its status write while its
     * informer's read version trails its own writes, so the absence of a status write tells
     * nothing of its cache (`addUnseen`).
     */
    private readonly gateSkipsStatus = false,
    /** The look-ahead's index (lookahead-buffer.ts): `scanAhead` reads the events that can answer instead of every one; undefined: it scans. */
    private readonly index?: LookaheadIndex,
  ) {
    this.count = owner.statusCount ?? REPLICA_SET_STATUS_COUNT;
    this.departed = new HeldDeletions(controller);
    this.podRelists = [...podRelists].sort((a, b) => a.at - b.at);
  }

  /** Pod-informer relist ends not yet applied, in time order. */
  private readonly podRelists: Array<{ at: number; source: SourceRef }>;

  /**
   * Called with every event before the syncs due ahead of it run: the 404 DELETEs that pin
   * ghosts (`pinGhostDeletes`), then the controller's pod-informer relists that ended by `at`: the syncs due before a relist's end run first, then the pods it
   * held back for each ReplicaSet are delivered at the relist's end (held-deletions.ts
   * releaseAtRelist) — but for as many as the controller's status still counts after it: the
   * status standing LATE_STATUS_MS after the relist's enqueue (Replace → deletePod enqueues the
   * ReplicaSet; each status write within that time may end a sync already running, so the time
   * runs again from it, as in `checkTrigger`), above the active pods the input shows then, shows
   * the relist missed that many deletes (kubernetes#115658). Where the look-ahead does not reach
   * that time, or the key's sync is still running then, the relist alone decides: delivered.
   */
  beforeSyncs(at: number): void {
    this.pinGhostDeletes(at);
    while (this.podRelists.length && this.podRelists[0]!.at <= at) {
      const r = this.podRelists.shift()!;
      const keys = this.departed.heldKeys();
      if (!keys.length) continue;
      this.controller.runDue(r.at);
      this.windows.drain();
      for (const key of keys) this.departed.releaseAtRelist(key, this.countedAfterRelist(key, r.at), r.at, r.source, this.tracks.of(key));
      this.windows.drain();
    }
  }

  /**
   * The controller's pod DELETEs answered 404 the look-ahead shows received by FIRST_CALL_MS past
   * `at` (before the syncs that make them run): each of a pod the input saw deleted before it is
   * a ghost of its cache (held-deletions.ts pinGhost) — held from now on, so the sync that chose
   * it chooses it in kexp's model too. Audit logs only (a watch shows no 404).
   */
  private pinGhostDeletes(at: number): void {
    if (!this.departed.remembersGone()) return;
    const bound = at + FIRST_CALL_MS;
    let held = false;
    for (const x of this.controllerDeletes(at, bound)) {
      if (x.at > bound) continue;
      if (!isRSControllerPodWrite(x, 'delete', this.owner.component) || x.status.code !== 404 || !x.name || this.ghostsPinned.has(x)) continue;
      this.ghostsPinned.add(x);
      const pk = `${x.namespace ?? ''}/${x.name}`;
      const ref = this.departed.rsKeyOfGone(pk);
      if (ref && this.departed.pinGhost(pk, { at: x.receivedAt ?? x.at, source: x.source }, this.tracks.of(ref))) held = true;
    }
    if (held) this.windows.drain();
  }

  /** The 404 DELETEs already read by `pinGhostDeletes`. */
  private readonly ghostsPinned = new WeakSet<TimelineEvent>();

  /** How many of `rsKey`'s held pods its status still counts after the relist ending at `at` (0 when the input does not tell). */
  private countedAfterRelist(rsKey: string, at: number): number {
    const rs = this.controller.owners.get(rsKey);
    const t = this.tracks.of(rsKey);
    if (!rs || !t.lastStatus || t.lastStatus.uid !== rs.metadata.uid || t.lastStatus.replicas === undefined) return 0;
    const { uid, namespace: ns } = rs.metadata;
    let replicas = t.lastStatus.replicas;
    const added = new Set<string>();
    const scan = this.scanAhead(rs, t.lastStatus.signature, at, false, {
      status: (w) => void (replicas = w.replicas),
      pod: (x) => {
        const pk = objectKey(x.object.metadata);
        const cur = this.controller.pods.get(pk) ?? this.withheldPods.get(pk)?.pod;
        const wasMine = !!cur && this.count.counts(cur) && controllerRefOf(cur.metadata)?.uid === uid;
        if (!wasMine && x.watchType !== 'DELETED' && this.count.counts(x.object) && controllerRefOf(x.object.metadata)?.uid === uid) added.add(pk);
      },
    });
    if (scan.gone || !scan.covered) return 0;
    if (this.controller.isBusy(rsKey, scan.end)) return 0;
    // Active pods the input shows (held ones not counted), those withheld, and those it adds by then.
    const active = added.size + this.activeOf(ns, uid, { heldDepartures: false, withheldOf: rsKey });
    return Math.max(0, replicas - active);
  }

  /**
   * Active pods the model holds for the ReplicaSet `ns`/`uid`: with or without the departures it
   * holds (held-deletions.ts: still in its cache as the controller's), plus the pods it withholds
   * for `withheldOf` (not yet observed by the controller) when asked.
   */
  private activeOf(ns: string | undefined, uid: string | undefined, o: { heldDepartures: boolean; withheldOf?: string }): number {
    // The cache's count of its counted pods (pod-store.ts, kept per change), less the held ones:
    // the same number as a walk of the ReplicaSet's pods, without the walk.
    this.counted ??= this.controller.pods.counter(countedBy(this.count));
    let active = this.counted.count(ns, uid);
    if (!o.heldDepartures) {
      for (const pk of this.departed.heldPodKeys()) {
        const p = this.controller.pods.get(pk);
        if (p && p.metadata.namespace === ns && controllerRefOf(p.metadata)?.uid === uid && this.count.counts(p)) active--;
      }
    }
    if (o.withheldOf !== undefined) for (const w of this.withheldPods.of(o.withheldOf).values()) if (this.count.counts(w.pod)) active++;
    return active;
  }

  /**
   * Reads the look-ahead as the controller's status should show a sync enqueued at `from`: the
   * ReplicaSet's status writes (a status that changed from `signature`, with a numeric replicas)
   * and the pod events of its namespace, up to LATE_STATUS_MS after `from` — each status write
   * runs the time again from it, as it may end a sync already running. `on.status` stops the
   * scan by returning true. `gone`: the ReplicaSet is deleted or replaced first (or, with
   * `deletingEnds`, marked for deletion), so no status write pins the view; `covered`: the
   * look-ahead (or the input's known end) reaches `end`. Shared by the held deletions' trigger
   * check, the relist check and the held adds: one scan of the buffered events each.
   */
  private scanAhead(
    rs: ReplicaSet, signature: string, from: number, deletingEnds: boolean,
    on: AheadScan['on'],
  ): { gone: boolean; stopped: boolean; covered: boolean; end: number } {
    const { uid, namespace: ns, name } = rs.metadata;
    const s: AheadScan = { ns, name, uid, deletingEnds, on, signature, end: from + LATE_STATUS_MS };
    const keys = this.index?.sortedByAt() ? this.indexKeys(ns, name, !!on.refusedStatus) : undefined;
    if (keys) {
      // The same reads as the scan below, of the events that can answer (lookahead-buffer.ts
      // header): the owner's own events, status writes to it, the pod events that turn a pod's
      // standing, and every event of the pods whose cached standing is not their last event's.
      // The scan stops at the first event past `end`: in `at` order, a binary search.
      const idx = this.index!;
      let stop = idx.positionAfter(s.end);
      for (const pos of idx.merged(keys)) {
        if (pos >= stop) break;
        const r = this.readAhead(idx.at(pos), s);
        if (r === 'gone') return { gone: true, stopped: false, covered: false, end: s.end };
        if (r === 'stopped') return { gone: false, stopped: true, covered: false, end: s.end };
        if (r === 'moved') stop = idx.positionAfter(s.end);
      }
      return { gone: false, stopped: false, covered: stop < idx.endPosition || (this.endOfInput() ?? -Infinity) >= s.end, end: s.end };
    }
    let covered = false;
    for (const x of this.upcoming()) {
      if (x.at > s.end) {
        covered = true;
        break;
      }
      const r = this.readAhead(x, s);
      if (r === 'gone') return { gone: true, stopped: false, covered: false, end: s.end };
      if (r === 'stopped') return { gone: false, stopped: true, covered: false, end: s.end };
    }
    return { gone: false, stopped: false, covered: covered || (this.endOfInput() ?? -Infinity) >= s.end, end: s.end };
  }

  /**
   * One buffered event as scanAhead reads it, whichever way it walks the look-ahead (the index or
   * the scan): a refused status write of the owner is reported; a change of the owner's counted
   * status is offered to `on.status` and runs the time again from it ('moved'), unless the owner is
   * gone or `on.status` stops the scan; a pod event of the namespace goes to `on.pod`.
   */
  private readAhead(x: TimelineEvent, s: AheadScan): 'next' | 'gone' | 'stopped' | 'moved' {
    const { ns, name, on } = s;
    if (x.type === 'write') {
      if (on.refusedStatus && this.isRefusedStatusWrite(x, ns, name)) on.refusedStatus(x);
      return 'next';
    }
    if (x.type !== 'observed' || x.object.metadata?.namespace !== ns) return 'next';
    if (x.kind === OWNER_EVENT && x.object.metadata?.name === name) {
      if (x.watchType === 'DELETED' || x.object.metadata.uid !== s.uid || (s.deletingEnds && x.object.metadata.deletionTimestamp)) return 'gone';
      const sig = this.count.signature(x.object as ReplicaSet);
      const r = this.count.of(x.object as ReplicaSet);
      if (sig === s.signature || typeof r !== 'number') return 'next';
      s.signature = sig;
      if (on.status?.({ at: x.at, source: x.source, replicas: r, signature: sig, object: x.object as ReplicaSet })) return 'stopped';
      s.end = x.at + LATE_STATUS_MS;
      return 'moved';
    }
    if (x.kind === 'Pod') on.pod?.(x);
    return 'next';
  }

  /**
   * The index keys `scanAhead` reads for the owner `ns/name` (lookahead-buffer.ts keysOf): its
   * events, the status writes to it (when asked), the turns of its namespace's pods, and the
   * events of every pod whose standing in the model's cache the index cannot take from its last
   * event — those it holds apart from it (withheld adds, held departures) too. Only those of the
   * owner's namespace: readAhead passes on no pod event of another (a key `namespace/name`, and
   * neither has a `/`), so reading theirs changes nothing — and kexp holding back many pods of
   * other namespaces no longer sends every read to the scan (std 1 GB). Undefined (scan instead)
   * when those pods are many.
   */
  private indexKeys(ns: string | undefined, name: string | undefined, statusWrites: boolean): string[] | undefined {
    const diverged = this.index!.divergedPods();
    if (!diverged) return undefined;
    const keys = [`rs:${ns ?? ''}/${name ?? ''}`, `podt:${ns ?? ''}`];
    if (statusWrites) keys.push(`stw:${ns ?? ''}/${name ?? ''}`);
    const prefix = `${ns ?? ''}/`;
    const apart = new Set<string>();
    for (const pks of [diverged, this.withheldPods.keys(), this.departed.heldPodKeys()]) {
      for (const pk of pks) {
        if (!pk.startsWith(prefix)) continue;
        apart.add(pk);
        if (apart.size > MAX_APART) return undefined;
      }
    }
    for (const pk of apart) keys.push(`pod:${pk}`);
    return keys;
  }

  /**
   * The controller's status update of its owner `ns/name` that the apiserver refused (4xx, with its
   * request body): no status changed, but the sync that sent it ran and computed it from its cache
   * — a refused Job status still names the finished pods it listed (kubernetes#139428: refused 422
   * "cannot set more ready pods than active", its uncountedTerminatedPods naming the failed pod).
   */
  private isRefusedStatusWrite(x: TimelineEvent & { type: 'write' }, ns: string | undefined, name: string | undefined): boolean {
    return x.actor.controller === this.owner.component && x.subresource === 'status' && x.namespace === ns && x.name === name
      && x.resource === `${this.owner.kind.toLowerCase()}s` && x.status.code >= 400 && x.status.code < 500 && typeof x.requestObject === 'object' && x.requestObject !== null;
  }

  /**
   * Delivers a pod observation to the model, unless the controller had not observed the pod yet
   * (then its latest state is kept for when it does): false when withheld.
   */
  deliverPod(e: ObservedEvent & { kind: 'Pod' }, pk: string, ref: OwnerReference | undefined, old: Pod | undefined): boolean {
    const pod = e.object;
    if (this.departed.intercept(e, pk, this.trackOf)) return false;
    const held = this.withheldPods.get(pk);
    if (held && e.watchType !== 'DELETED' && ref?.uid === controllerRefOf(held.pod.metadata)?.uid) {
      if (held.lostAdd && e.watchType === 'MODIFIED') {
        // Its ADD was lost, not late (`swapNamed`): this update is the first event of the pod the
        // informer receives, and processDeltas (client-go tools/cache/controller.go) adds an updated
        // object its store does not hold — the handlers run addPod, which lowers the record.
        this.withheldPods.delete(pk);
        this.tracks.of(held.rsKey).lostAddsDelivered.push({ pod: pk, at: e.at, source: e.source });
        this.controller.deliverPod('ADDED', pod, e.at);
        this.windows.drain();
        return true;
      }
      // Not observed by the controller yet: keep its latest state for when it is.
      held.pod = pod;
      return false;
    }
    // Deleted, or now another controller's (or none's): no status write of the ReplicaSet it was
    // held for can tell any more whether the controller observed it; delivered as it is now.
    if (held) this.forgetWithheld(pk, held, e, e.watchType === 'DELETED' ? 'the input deleted' : 'the input released');
    const rsKeyOf = ref?.kind === this.owner.kind ? `${pod.metadata.namespace}/${ref.name}` : undefined;
    // The records are read live (`peek`: no copy per event) and their fields kept before the delivery changes them in place.
    const before = rsKeyOf && e.watchType === 'ADDED' && !old ? this.controller.expectations.peek(rsKeyOf) : undefined;
    const addBefore = before?.add;
    const addBeforeSetAt = before?.timestamp;
    // The ADD the record waits for last (while more are due, the round's calls may still be running,
    // and the record waits anyway): did the controller observe it?
    // A pod whose ADD a sync of the model observed already (the DaemonSet's rolling-update check) is no held add.
    const early = pod.metadata.uid !== undefined && this.controller.observedDuringSync?.(pod.metadata.uid) === true;
    const unseen = before && addBefore === 1 && !early ? this.addUnseen(rsKeyOf!, e, pk) : 0;
    if (unseen > 0) {
      // A held add: the controller's informer had not delivered it, nor the newest of the others it
      // lacked (they lowered the record in kexp's model: given back), so its record still waits.
      this.withheldPods.set(pk, { pod, rsKey: rsKeyOf!, raisedFor: addBeforeSetAt!, atAdd: true });
      for (const w of this.withholdRound(rsKeyOf!, addBeforeSetAt!, unseen - 1, e.at)) this.withheldPods.get(w.pod)!.atAdd = true;
      return false;
    }
    const departing = this.departingFrom(e, old);
    // The key whose `del` this event may lower: the pod's controller (as cached, else as now).
    const lowerKey = departing?.rsKey ?? this.ownKeyOf(old) ?? rsKeyOf;
    const lowerBefore = lowerKey ? this.controller.expectations.peek(lowerKey) : undefined;
    const lowerSetAt = lowerBefore?.timestamp;
    const lowerDel = lowerBefore?.del;
    this.controller.deliverPod(e.watchType, pod, e.at);
    if (lowerKey && lowerSetAt !== undefined && lowerDel !== undefined) {
      // Whether the delivery lowered the record's `del` (DeletionObserved of an expected pod key in
      // the ReplicaSet's store; any deletion of its pods in a count-only store like the DaemonSet's,
      // whose handlers lower at the deletionTimestamp while its status counts the pod until it is gone).
      const after = this.controller.expectations.peek(lowerKey);
      if (after && after.timestamp === lowerSetAt && after.del < lowerDel) {
        // The first lower is kept (an informer delivers in order: a controller that missed it missed
        // the later ones); later lowers of the same record are counted with it.
        const first = this.delLowered.get(pk);
        if (!first || first.rsKey !== lowerKey) {
          this.delLowered.set(pk, { rsKey: lowerKey, setAt: lowerSetAt, record: { add: after.add, del: after.del, timestamp: after.timestamp, at: e.at, lowers: lowerDel - after.del, ...(old ? { prior: old } : {}) } });
        } else if (first.setAt === after.timestamp) first.record.lowers += lowerDel - after.del;
      }
    }
    if (departing) {
      const l = this.delLowered.get(pk);
      this.delLowered.delete(pk);
      const lowered = l && l.rsKey === departing.rsKey ? l : undefined;
      this.departed.noteDeparture(e, pk, old!, departing.rsKey, departing.rsUid, lowered?.setAt, lowered?.record);
    }
    if (e.watchType === 'DELETED') this.delLowered.delete(pk);
    if (addBeforeSetAt !== undefined && addBefore !== undefined && addBefore > 0) {
      const after = this.controller.expectations.peek(rsKeyOf!);
      if (after && after.timestamp === addBeforeSetAt && after.add < addBefore) this.loweredBy.set(pk, { rsKey: rsKeyOf!, setAt: addBeforeSetAt });
    }
    // addPod / updatePod / deletePod enqueue the pod's controller (and its old one on a change).
    const oldKey = departing?.rsKey;
    if (oldKey) this.checkPodTrigger(oldKey, e, pk);
    if (rsKeyOf && rsKeyOf !== oldKey) this.checkPodTrigger(rsKeyOf, e, pk);
    return true;
  }

  /**
   * `checkTrigger` for a pod event of `pk`; its closure made here, only when the key has
   * departures, so `deliverPod` makes no closure (nor the context one would force) per event.
   */
  private checkPodTrigger(rsKey: string, e: TimelineEvent, pk: string): void {
    if (this.departed.hasDepartures(rsKey)) this.checkTrigger(rsKey, e, e.at, () => `the pod event of ${pk}`);
  }

  /**
   * A ReplicaSet's key was enqueued by `e` (held-deletions.ts `checkTrigger`): reads, from the
   * look-ahead, the controller's status standing LATE_STATUS_MS after the sync it enqueued — each
   * status write within that time may be the end of a sync already running, so the time runs
   * again from it — and the pods the input added meanwhile, and asks whether the status still
   * counts departures from before `cut`. Nothing is decided when the look-ahead does not reach
   * that time, or when kexp models the controller as unable to sync then (a sync of the key still
   * running, a failed sync, a restart): then the input does not pin the view.
   */
  /** `what` names the trigger in the finding; built only when the check runs (the hot path has no departures). */
  private checkTrigger(rsKey: string, e: TimelineEvent, cut: number, what: () => string): void {
    if (!this.departed.hasDepartures(rsKey)) return;
    const s = this.standingStatus(rsKey, e);
    if (!s) return;
    const t = this.tracks.of(rsKey);
    if (this.departed.checkTrigger(t, s.uid, { at: e.at, source: e.source, cut, what: what(), lateMs: LATE_STATUS_MS }, s.status, s.active + s.added.size, s.leaving.size, s.seen)) this.windows.drain();
  }

  /**
   * The controller's status of `rsKey` standing LATE_STATUS_MS after a sync the event `e`
   * enqueued (`scanAhead`); with the active pods the model holds for it now (held departures not
   * counted, withheld pods counted) and the pods the input adds to it (`added`) and takes from it
   * (`leaving`) by then. Undefined — the input does not pin the view — when the look-ahead does
   * not reach that time, the ReplicaSet is deleted or replaced first, or kexp models the controller
   * as unable to sync then (a sync of the key still running, a failed sync, a restart).
   */
  private standingStatus(rsKey: string, e: TimelineEvent): {
    uid: string | undefined; status: { at: number; source: SourceRef; replicas: number; signature: string }; active: number; added: Set<string>; leaving: Set<string>;
    seen: { uids: ReadonlySet<string>; by?: { at: number; source: SourceRef } };
  } | undefined {
    const rs = this.controller.owners.get(rsKey);
    const t = this.tracks.of(rsKey);
    if (!rs || rs.metadata.deletionTimestamp || !t.lastStatus || t.lastStatus.uid !== rs.metadata.uid || t.lastStatus.at === undefined || t.lastStatus.replicas === undefined) return undefined;
    const { uid, namespace: ns } = rs.metadata;
    let status = { at: t.lastStatus.at, source: t.lastStatus.source ?? e.source, replicas: t.lastStatus.replicas, signature: t.lastStatus.signature };
    const added = new Set<string>();
    const leaving = new Set<string>();
    // Pods the controller's status writes of the time name as listed (a Job's uncountedTerminatedPods), refused ones too.
    const seen = new Set<string>();
    let seenBy: { at: number; source: SourceRef } | undefined;
    const noteSeen = (owner: unknown): void => {
      for (const u of this.count.seen?.(owner as ReplicaSet) ?? []) seen.add(u);
    };
    const scan = this.scanAhead(rs, status.signature, e.at, true, {
      status: (w) => {
        status = { at: w.at, source: w.source, replicas: w.replicas, signature: w.signature };
        noteSeen(w.object);
      },
      refusedStatus: (x) => {
        noteSeen(x.requestObject);
        seenBy ??= { at: x.at, source: x.source };
      },
      pod: (x) => {
        const pk = objectKey(x.object.metadata);
        const cur = this.controller.pods.get(pk) ?? this.withheldPods.get(pk)?.pod;
        const wasMine = !!cur && this.count.counts(cur) && controllerRefOf(cur.metadata)?.uid === uid && !this.departed.isHeld(pk);
        const isMine = x.watchType !== 'DELETED' && this.count.counts(x.object) && controllerRefOf(x.object.metadata)?.uid === uid;
        if (isMine && !wasMine) added.add(pk);
        else if (!isMine && wasMine) leaving.add(pk);
      },
    });
    if (scan.gone || !scan.covered) return undefined;
    const end = scan.end;
    if (this.controller.isBusy(rsKey, end)) return undefined;
    if (t.syncErrors.some((s) => s.at >= e.at && s.at <= end) || t.restarts.some((r) => r.at >= e.at - LATE_STATUS_MS && r.at <= end)) return undefined;
    return { uid, status, active: this.activeOf(ns, uid, { heldDepartures: false, withheldOf: rsKey }), added, leaving, seen: { uids: seen, ...(seenBy ? { by: seenBy } : {}) } };
  }

  /**
   * How many of its pods the controller had not observed at the ADD `e` of its pod `pk` (of
   * `rsKey`, whose record waits for this creation last); 0 when it had, or when the input does not
   * tell. addPod (replica_set.go) lowers the record and enqueues the key at once, and the sync it
   * triggers ends with updateReplicaSetStatus counting the pod ("Always updates status as pods
   * come up or die"). Syncs of one key never overlap and each writes its status once, so of the
   * status writes the look-ahead shows after `e`, the first may end a sync that listed before
   * it, but the second ends one that started after the first. If neither counts the active pods
   * the model holds and this one — every departure by then allowed for — the controller's cache
   * lacked that many of them; an informer delivers in order, so it lacked the newest, this one
   * first: the record still waited for it (a held add; its syncs gated, inferred). Pods the input
   * adds later do not count: a status counting them counts this one too. Pods kexp already
   * withholds are left out: behind the same lag they are older than this one, but a lost ADD never
   * comes, and the controller counts newer pods without it.
   *
   * With fewer than two status writes, the status standing LATE_STATUS_MS after the last (or after
   * `e`) decides the same way — no later sync saw a change — where the input shows this
   * ReplicaSet's status writes (one seen before), unless the consistency gate is on
   * (1.36+, `gateSkipsStatus`): it skips syncs before their status write while the informer's
   * read version trails the controller's own writes, whatever its cache holds, so there only a
   * status written tells. Undecided where the look-ahead does not reach that time, the
   * ReplicaSet is deleted or replaced first, or kexp models the controller as unable to sync then
   * (a sync of the key still running, a failed sync, a restart).
   */
  private addUnseen(rsKey: string, e: TimelineEvent, pk: string): number {
    const rs = this.controller.owners.get(rsKey);
    const t = this.tracks.of(rsKey);
    // (The status standing before `e` may be the first kexp saw, written at a time the input does not show.)
    if (!rs || rs.metadata.deletionTimestamp || !t.lastStatus || t.lastStatus.uid !== rs.metadata.uid || t.lastStatus.replicas === undefined) return 0;
    const uid = rs.metadata.uid;
    const active = 1 + this.activeOf(rs.metadata.namespace, uid, { heldDepartures: false });
    let standing = t.lastStatus.replicas;
    let writes = 0;
    let decided = 0;
    const leaving = new Set<string>();
    const unableBetween = (from: number, to: number): boolean =>
      t.syncErrors.some((s) => s.at >= from && s.at <= to) || t.restarts.some((q) => q.at >= from - LATE_STATUS_MS && q.at <= to);
    const scan = this.scanAhead(rs, t.lastStatus.signature, e.at, true, {
      status: (w) => {
        standing = w.replicas;
        writes++;
        const expected = active - leaving.size;
        if (w.replicas >= expected) return true;
        if (writes < 2) return false;
        decided = unableBetween(e.at, w.at) ? 0 : expected - w.replicas;
        return true;
      },
      pod: (x) => {
        const xk = objectKey(x.object.metadata);
        if (xk === pk) return;
        const cur = this.controller.pods.get(xk);
        const wasMine = !!cur && this.count.counts(cur) && controllerRefOf(cur.metadata)?.uid === uid && !this.departed.isHeld(xk);
        const isMine = x.watchType !== 'DELETED' && this.count.counts(x.object) && controllerRefOf(x.object.metadata)?.uid === uid;
        if (wasMine && !isMine) leaving.add(xk);
      },
    });
    if (scan.gone) return 0;
    if (scan.stopped) return decided;
    // Nothing written tells only where writes would show: not with the consistency gate, nor before
    // the input has shown a status write of this ReplicaSet (an audit policy may leave them out).
    if (this.gateSkipsStatus || t.lastStatus.at === undefined) return 0;
    if (!scan.covered) return 0;
    if (this.controller.isBusy(rsKey, scan.end) || unableBetween(e.at, scan.end)) return 0;
    return Math.max(0, active - leaving.size - standing);
  }

  /**
   * The ReplicaSet an observation takes an active pod from (`old`: the model's cached pod): the
   * pod is deleted, no longer active (terminating, finished) or now controlled by another.
   */
  private departingFrom(e: ObservedEvent & { kind: 'Pod' }, old: Pod | undefined): { rsKey: string; rsUid: string } | undefined {
    if (!old || !this.count.counts(old)) return undefined;
    const ref = controllerRefOf(old.metadata);
    if (ref?.kind !== this.owner.kind) return undefined;
    const gone = e.watchType === 'DELETED' || !this.count.counts(e.object) || controllerRefOf(e.object.metadata)?.uid !== ref.uid;
    return gone ? { rsKey: `${old.metadata.namespace}/${ref.name}`, rsUid: ref.uid } : undefined;
  }

  /** The owner key of a cached pod's controllerRef, when it is of the kind replayed. */
  private ownKeyOf(p: Pod | undefined): string | undefined {
    const ref = p ? controllerRefOf(p.metadata) : undefined;
    return ref?.kind === this.owner.kind ? `${p!.metadata.namespace}/${ref.name}` : undefined;
  }

  /** Whether kexp holds pod `pk` back as not yet observed by the controller (a held add). */
  isWithheld(pk: string): boolean {
    return this.withheldPods.has(pk);
  }

  /**
   * Whether the controller never had pod `pk`'s latest events: held back as not yet observed (a held
   * add), or held in its cache as it was before a departure it had not observed (a held deletion).
   * A sync such an event triggered in kexp's model never ran in the controller's.
   */
  eventsUnseen(pk: string): boolean {
    return this.withheldPods.has(pk) || this.departed.isHeld(pk);
  }

  /** Whether the controller's cache holds pod `pk` although the input saw it deleted (a held deletion). */
  heldGone(pk: string): boolean {
    return this.departed.isHeldDeleted(pk);
  }

  /** A sync of the controller's at `at` shows its cache no longer held the ghost `pk` (evidence-oracle.ts controllerHolds). */
  ghostGone(pk: string, at: number): void {
    this.departed.dropGhost(pk, at, (k) => this.tracks.of(k));
  }

  /** A gap in the pods the input shows: held departures cannot be pinned across it (held-deletions.ts). */
  noteGap(e: TimelineEvent & { type: 'gap' }): void {
    if (e.kinds && !e.kinds.includes('Pod')) return;
    this.departed.releaseAll(e.at, e.source, (k) => this.tracks.of(k));
    this.windows.drain();
  }

  /**
   * A change of the status fields is the controller's status write: compare what it counted
   * with the pods the input showed (controller-view.ts). The first status seen has no previous
   * write to anchor the comparison.
   */
  noteStatusWrite(t: RsTrack, rs: ReplicaSet, e: TimelineEvent): void {
    this.noteStatus(t, rs, e);
    // updateRS enqueues the key on every update of the ReplicaSet (its own status writes too); the
    // pod informer is another stream: only departures VIEW_JITTER_MS older are surely listed.
    this.pendingOwnerTrigger = { key: t.key, e };
  }

  /**
   * A node event just delivered to the model (a kind that watches nodes: the DaemonSet controller's
   * addNode/updateNode enqueue every DaemonSet whose placement on the node changed what it must do).
   * For each owner with unsettled departures that the event enqueued (`enqueued`), the status its
   * sync writes is checked as for a pod or owner event (`checkTrigger`); the pod informer is another
   * stream, so only departures VIEW_JITTER_MS older are surely listed.
   */
  noteNodeEvent(e: TimelineEvent, name: string, enqueued: (key: string) => boolean): void {
    for (const key of this.departed.departureKeys()) {
      if (enqueued(key)) this.checkTrigger(key, e, e.at - VIEW_JITTER_MS, () => `the node event of ${name}`);
    }
  }

  /** The ReplicaSet event just delivered to the model (the trigger is checked once the model has it). */
  private pendingOwnerTrigger: { key: string; e: TimelineEvent } | undefined;

  /** After the delivery of an event: a ReplicaSet update's trigger is checked against the model's new state. */
  afterDelivery(): void {
    const p = this.pendingOwnerTrigger;
    if (!p) return;
    this.pendingOwnerTrigger = undefined;
    this.checkTrigger(p.key, p.e, p.e.at - VIEW_JITTER_MS, () => `the update of ${p.key} at ${new Date(p.e.at).toISOString()}`);
  }

  private noteStatus(t: RsTrack, rs: ReplicaSet, e: TimelineEvent): void {
    const signature = this.count.signature(rs);
    const uid = rs.metadata.uid;
    // The first status of this ReplicaSet (of this UID) kexp sees was written at a time the input
    // does not show — perhaps by a sync still running, whose next write counts what it listed
    // before pods the input already shows: it anchors no comparison.
    const first = !t.lastStatus || t.lastStatus.uid !== uid;
    if (!first && t.lastStatus!.signature === signature) return;
    const previous = first ? undefined : t.lastStatus!.at;
    const previousReplicas = first ? undefined : t.lastStatus!.replicas;
    const replicas = this.count.of(rs);
    t.lastStatus = first ? { signature, uid, replicas } : { at: e.at, signature, uid, replicas, source: e.source };
    t.statusWrites.push(e.at);
    const ns = rs.metadata.namespace;
    const held = [...this.withheldPods.of(t.key).values()];
    // Read lazily: a status counting at least as many pods as `mine` can count settles the check
    // without the walk (a large ReplicaSet writes its status thousands of times). The bound is
    // the cache's count of this ReplicaSet's counted pods (pod-store.ts PodCounter, kept per
    // change: exactly the cached pods the walk counts) plus every withheld one — not every pod of
    // the index, whose pods that ended or are terminating stay in it and grow with the input.
    const pods = this.controller.pods;
    const mine = function* (): Generator<Pod> {
      yield* pods.controlledBy(ns, uid);
      for (const w of held) yield w.pod;
    };
    this.counted ??= pods.counter(countedBy(this.count));
    const atMost = this.counted.count(ns, uid) + held.length;
    const recent = this.sightings.takeRecent(t.key, e.at);
    const prior = this.priorSightings.get(t.key);
    if (recent) this.priorSightings.set(t.key, recent);
    else this.priorSightings.delete(t.key);
    if (previous !== undefined && replicas !== undefined && this.departed.pending(t.key) && !this.departed.decided(t.key, e.at)) {
      const ghosts = this.departed.heldFor(t.key);
      const inputActive = (): number => {
        let n = 0;
        for (const p of mine()) if (this.count.counts(p) && controllerRefOf(p.metadata)?.uid === uid && !this.departed.isHeld(objectKey(p.metadata))) n++;
        return n;
      };
      if (this.departed.checkStatus(t, rs, e, replicas, previous, inputActive) || ghosts > 0) this.windows.drain();
    }
    if (previous !== undefined && previousReplicas !== undefined) {
      this.checkLateWrite(t, rs, e, replicas, { at: previous, replicas: previousReplicas }, [...(prior ?? []), ...(recent ?? [])], mine, atMost);
    }
    const open = t.viewUnknown.find((u) => u.until === undefined);
    const lastBehind = t.viewBehind[t.viewBehind.length - 1];
    const lastUp = t.viewCaughtUp[t.viewCaughtUp.length - 1];
    // Whether the status counts every pod matters only while kexp holds pods back or its view is
    // unknown or behind; otherwise only a status showing the view behind does, and that needs
    // more older pods than the status counts: at most every counted pod (`atMost`) but those first
    // seen since the previous write (a scale-up's status lags by those). Bounded so, the check
    // walks the ReplicaSet's pods only when it could find it behind.
    const statusReplicas = this.count.of(rs);
    if (held.length === 0 && !open && (!lastBehind || (lastUp !== undefined && lastUp.at >= lastBehind.at)) && typeof statusReplicas === 'number') {
      let fresh = 0;
      if (previous !== undefined) {
        for (const r of recent ?? []) {
          const p = pods.get(r.pk);
          if (p && this.sightings.get(r.pk)?.at === r.at && this.count.counts(p) && controllerRefOf(p.metadata)?.uid === uid && !existedAt(p, r.at, previous)) fresh++;
        }
      }
      if (previous === undefined || atMost - fresh <= statusReplicas) return;
    }
    // Withheld pods this write proves listed (a Job's uncountedTerminatedPods, its ready count): the cache had them.
    const named = held.length ? this.namedWithheld(t.key, rs) : [];
    const { behind, caughtUp } = checkStatusWrite(rs, e.at, e.source, mine(), this.sightings.byPod, previous, atMost, this.count, named.length ? new Set(named) : undefined);
    let behindSpan: RsTrack['viewUnknown'][number] | undefined;
    if (behind && behind.missing.every((m) => this.withheldPods.get(m.pod)?.atAdd)) {
      // kexp held these adds back from their ADDs on (`addUnseen`): its model decided on the controller's view.
      behind.heldFromAdd = true;
    } else if (behind && behind.missing.every((m) => this.withheldPods.has(m.pod))) {
      // kexp's model already lacks every pod this write shows missing (an earlier write made it
      // hold them, with its own basis): its gate decisions since followed the controller's view.
    } else if (behind) {
      behindSpan = { from: behind.since, until: e.at, reason: `the controller's status write counted ${behind.statusReplicas} of ${behind.expected} pods the input showed`, sources: [e.source] };
    } else if (caughtUp) {
      if (open) {
        open.until = e.at;
        open.sources.push(e.source);
      }
    } else if (!open && previous !== undefined && held.length > 0 && !this.countsAtMostDelivered(rs, statusReplicas)) {
      // No status write since the last one means the controller's view had not changed (a pod
      // it observes triggers a sync whose status write would show it); this one may count the
      // withheld pods or newer ones instead: unknown from its sync until one counts every pod.
      // The sync that wrote it started within the match window before (its view changed then).
      t.viewUnknown.push({ from: Math.max(previous, e.at - this.matchWindowMs), reason: 'the controller\'s status write may count pods kexp holds back as unobserved, or newer ones instead', sources: [e.source] });
    }
    if (behind) t.viewBehind.push(behind);
    else if (caughtUp && t.viewBehind.length && (t.viewCaughtUp.length === 0 || t.viewCaughtUp[t.viewCaughtUp.length - 1]!.at < t.viewBehind[t.viewBehind.length - 1]!.at)) {
      t.viewCaughtUp.push({ at: e.at, source: e.source });
    }
    this.alignView(t, behind, caughtUp, e);
    if (named.length) this.swapNamed(t, named, behind, e);
    if (behindSpan && !this.reopenedFor(t, behind!.missing.map((m) => m.pod))) t.viewUnknown.push(behindSpan);
  }

  /**
   * The pods withheld for `key` that the status write of `rs` proves its sync listed: named by UID
   * (`OwnerStatusCount.seen`), or needed for its ready count (`OwnerStatusCount.ready`: more pods
   * ready than kexp's model holds ready, and exactly that many withheld pods ready — with more
   * candidates the write does not tell which).
   */
  private namedWithheld(key: string, rs: ReplicaSet): string[] {
    const mine = [...this.withheldPods.of(key)];
    const uids = this.count.seen?.(rs);
    const out = uids ? mine.filter(([, w]) => w.pod.metadata.uid && uids.has(w.pod.metadata.uid)).map(([pk]) => pk) : [];
    const ready = this.count.ready;
    const statusReady = ready?.of(rs);
    if (ready && statusReady !== undefined && statusReady > 0) {
      const { uid, namespace: ns } = rs.metadata;
      let delivered = 0;
      for (const p of this.controller.pods.controlledBy(ns, uid)) if (this.count.counts(p) && ready.is(p)) delivered++;
      const cands = mine.filter(([pk, w]) => !out.includes(pk) && this.count.counts(w.pod) && ready.is(w.pod)).map(([pk]) => pk);
      if (statusReady > delivered && cands.length === statusReady - delivered) out.push(...cands);
    }
    return out;
  }

  /**
   * A status write names pods kexp withheld as unobserved (`named`): the controller's cache held
   * them, so the pods an earlier write showed it lacked were others. kexp took the newest (a
   * lagging informer delivers in order); a lost event (a dropped ADD) can leave any pod out. The
   * pods this write shows missing are already held back (`alignView`, first, so the record's
   * raise comes before the lowers below); the named ones are delivered now, with their latest
   * state, and the earlier writes that named them as missing are rewritten to the pods held now
   * (`ViewBehind.corrected`). The count the controller waited for is unchanged by the swap, so its
   * gate decisions in between stay as kexp modelled them; its syncs the named pods' own events
   * triggered meanwhile kexp did not run (the input cannot date them: they show in the report's
   * gated-sync counts).
   */
  private swapNamed(t: RsTrack, named: string[], behind: ViewBehind | undefined, e: TimelineEvent): void {
    const heldNow = [...this.withheldPods.of(t.key)].filter(([pk]) => !named.includes(pk)).map(([pk]) => pk);
    // An informer delivers in order: a held pod the input showed before a named one was not late
    // but lost (its ADD never reached the informer), so its next update delivers it (`deliverPod`).
    const newestNamed = Math.max(...named.map((pk) => this.sightings.get(pk)?.at ?? -Infinity));
    for (const pk of heldNow) {
      const seenAt = this.sightings.get(pk)?.at;
      if (seenAt !== undefined && seenAt < newestNamed) this.withheldPods.get(pk)!.lostAdd = true;
    }
    for (const pk of named) {
      const w = this.withheldPods.get(pk)!;
      this.withheldPods.delete(pk);
      this.controller.deliverPod('ADDED', w.pod, e.at);
    }
    for (const v of t.viewBehind) {
      if (v === behind || !v.missing.some((m) => named.includes(m.pod))) continue;
      const kept = v.missing.filter((m) => !named.includes(m.pod));
      const instead = heldNow.filter((pk) => !kept.some((m) => m.pod === pk)).slice(0, v.missing.length - kept.length)
        .map((pk) => ({ pod: pk, seenAt: this.sightings.get(pk)?.at ?? v.since, ...(this.sightings.get(pk)?.source ? { source: this.sightings.get(pk)!.source! } : {}) }));
      v.missing = [...kept, ...instead].sort((a, b) => a.seenAt - b.seenAt);
      if (v.missing.length) v.since = v.missing[0]!.seenAt;
      v.corrected = { at: e.at, source: e.source, named, lost: v.missing.length > 0 && v.missing.every((m) => m.seenAt < newestNamed) };
    }
    this.windows.drain();
  }

  /**
   * Whether kexp's model now waits for `pods` in the record it had seen fulfilled by their ADDs:
   * each withheld with its lower given back, and the window of that record open again (dated back
   * to its fulfilment: window-tracker.ts onRaised). An informer delivers in order and never takes
   * back a pod that still exists, so a cache lacking them now lacked them since their ADDs: the
   * controller's gate decisions in between are known (gated), not unknown.
   */
  reopenedFor(t: RsTrack, pods: string[]): boolean {
    const rec = this.controller.expectations.get(t.key);
    if (!rec || !t.open || t.open.setAt !== rec.timestamp || pods.length === 0) return false;
    return pods.every((pk) => this.withheldPods.get(pk)?.raisedFor === rec.timestamp);
  }

  /**
   * Whether a status write counts no more than the active pods kexp's model holds for the
   * ReplicaSet (withheld ones left out): consistent with the controller's view as kexp models
   * it. An informer delivers in order and the withheld pods are its newest, so a status counting
   * that many or fewer (a sync that listed before some of them) counted none of them; one
   * counting more counted some of them, or newer ones kexp does not hold.
   */
  private countsAtMostDelivered(rs: ReplicaSet, statusReplicas: number | undefined): boolean {
    if (typeof statusReplicas !== 'number') return false;
    const { uid, namespace: ns } = rs.metadata;
    // Held departures stay in the model's cache as the controller's (held-deletions.ts): it counts them.
    return statusReplicas <= this.activeOf(ns, uid, { heldDepartures: true });
  }

  /**
   * A status write raising `status.replicas` that comes later than LATE_STATUS_MS after the
   * pods it counts (and after the previous status write, the end of the sync that listed before
   * them): each of their ADDs enqueued the key at once (addPod in replica_set.go: enqueueRS, no
   * delay), and the sync it triggers ends with updateReplicaSetStatus, gated or not ("Always
   * updates status as pods come up or die", syncReplicaSet). A controller whose informer had
   * delivered them would have written this count within that time; the wait means it had not
   * (an informer lagging behind the input), unless kexp's model explains it: a sync of the key
   * still making its calls LATE_STATUS_MS before the write (busy time), or a sync that returned
   * before its status write meanwhile (consistency gate, claim error: `syncErrors`, each
   * requeued with backoff), or a restart. Then kexp cannot vouch for what the controller's
   * informer held from the first of those pods' ADDs to the write: a `viewUnknown` span.
   *
   * Counted only when the write counts every active pod the input shows (so it counts these
   * too), and when the increase is at most the pods first shown as this ReplicaSet's since the
   * status write before the previous one (`candidates`): a count raised by adopting older pods
   * has its trigger elsewhere. The span starts at the oldest of the newest `increase` of them
   * (a lagging informer delivers in order; older ones the previous write may have counted).
   */
  private checkLateWrite(
    t: RsTrack, rs: ReplicaSet, e: TimelineEvent, replicas: number | undefined, previous: { at: number; replicas: number },
    candidates: Array<{ pk: string; at: number }>, mine: () => Iterable<Pod>, atMost: number,
  ): void {
    if (replicas === undefined || replicas <= previous.replicas || e.at - previous.at <= LATE_STATUS_MS) return;
    const uid = rs.metadata.uid;
    const seen = new Map<string, number>();
    for (const c of candidates) {
      // A pod kexp withholds is one its model already has the controller not observe: its late count is modelled.
      if (this.withheldPods.has(c.pk)) continue;
      const p = this.controller.pods.get(c.pk);
      if (!p || this.sightings.get(c.pk)?.at !== c.at || !this.count.counts(p) || controllerRefOf(p.metadata)?.uid !== uid) continue;
      seen.set(c.pk, c.at);
    }
    const increase = replicas - previous.replicas;
    if (seen.size < increase) return;
    const times = [...seen.values()].sort((a, b) => a - b);
    const reflected = Math.max(previous.at, times[times.length - 1]!);
    const waited = e.at - reflected;
    if (waited <= LATE_STATUS_MS) return;
    if (this.controller.isBusy(t.key, e.at - LATE_STATUS_MS)) return;
    if (t.syncErrors.some((s) => s.at >= reflected && s.at <= e.at) || t.restarts.some((r) => r.at >= reflected && r.at <= e.at)) return;
    if (replicas < atMost) {
      let active = 0;
      for (const p of mine()) if (this.count.counts(p) && controllerRefOf(p.metadata)?.uid === uid) active++;
      if (replicas < active) return;
    }
    const from = times[times.length - increase]!;
    if (t.viewUnknown.some((u) => u.from <= from && (u.until === undefined || u.until >= e.at))) return;
    t.viewUnknown.push({
      from, until: e.at, sources: [e.source],
      reason: `the controller's status write counting ${increase} more pod(s) came ${Math.round(waited)} ms after the input showed them, with nothing kexp models to delay it (a sync writes status within ${LATE_STATUS_MS} ms of an ADD): its informer had not delivered them`,
    });
  }

  /**
   * Makes kexp's cache hold what the controller's held at its status write: the pods it had not
   * observed are withheld from the model (and a lower their ADD made is given back: the
   * controller's record still waits for them); once a status counts every pod, the withheld
   * ones are delivered (the informer caught up).
   */
  private alignView(t: RsTrack, behind: ViewBehind | undefined, caughtUp: boolean, e: TimelineEvent): void {
    const missing = new Set(behind?.missing.map((m) => m.pod) ?? []);
    // Withheld pods are delivered only when the status proves the controller counts them all;
    // a status that may count newer pods instead of them proves nothing.
    if (caughtUp) this.deliverWithheld(t.key, e.at);
    for (const pk of missing) if (!this.withheldPods.has(pk)) this.holdBack(t.key, pk, e.at);
    this.windows.drain();
  }

  /**
   * The controller's creates for `key` the input shows from `e` on, one sync's worth (each
   * within FIRST_CALL_MS of the previous): create writes (audit) or new pods it controls (watch).
   */
  createsAhead(key: string, e: TimelineEvent): number {
    const rs = this.controller.owners.get(key);
    if (!rs) return 0;
    const name = key.slice(key.indexOf('/') + 1);
    const ns = rs.metadata.namespace;
    let n = 0;
    let last = e.at;
    const upcoming = this.upcoming;
    const ahead = function* (): Generator<TimelineEvent> {
      yield e;
      yield* upcoming();
    };
    for (const x of ahead()) {
      if (x.at - last > FIRST_CALL_MS) break;
      const isCreate = x.type === 'write'
        ? x.actor.controller === this.owner.component && x.resource === 'pods' && !x.subresource && x.verb === 'create' && x.namespace === ns && x.owner?.state === 'owned' && x.owner.name === name && x.status.code < 300
        : x.type === 'observed' && x.kind === 'Pod' && x.watchType === 'ADDED' && x.object.metadata?.namespace === ns && controllerRefOf(x.object.metadata)?.uid === rs.metadata.uid && !this.sightings.has(objectKey(x.object.metadata));
      if (!isCreate) continue;
      if (x !== e || n === 0) n++;
      last = x.at;
    }
    return n;
  }

  /**
   * Withholds up to `n` pods of the round whose record was Set at `setAt` (pods whose ADD
   * lowered that record), newest first, and gives their lowers back. Returns what it held.
   */
  withholdRound(key: string, setAt: number, n: number, at: number): Array<{ pod: string; seenAt: number }> {
    if (n <= 0) return [];
    const rec = this.controller.expectations.get(key);
    if (!rec || rec.timestamp !== setAt) return [];
    const cands = [...this.loweredBy].filter(([pk, l]) => l.rsKey === key && l.setAt === setAt && !this.withheldPods.has(pk) && this.controller.pods.get(pk))
      .map(([pk]) => ({ pod: pk, seenAt: this.sightings.get(pk)?.at ?? at }))
      .sort((a, b) => b.seenAt - a.seenAt)
      .slice(0, n);
    for (const c of cands) this.holdBack(key, c.pod, at);
    this.windows.drain();
    return cands;
  }

  /**
   * Takes one pod out of the model's cache as not yet observed by the controller; if its ADD
   * lowered the record still in force, gives that lower back (the controller's record still
   * waits for it). The caller drains the expectation log.
   */
  private holdBack(key: string, pk: string, at: number): void {
    const pod = this.controller.withholdPod(pk);
    if (!pod) return;
    const lowered = this.loweredBy.get(pk);
    const rec = this.controller.expectations.get(key);
    const raise = lowered !== undefined && lowered.rsKey === key && rec !== undefined && rec.timestamp === lowered.setAt;
    this.withheldPods.set(pk, { pod, rsKey: key, ...(raise ? { raisedFor: rec.timestamp } : {}) });
    if (raise) this.controller.expectations.raise(key, 1, 0, at);
  }

  /** Delivers the pods withheld for `key` to the model (the controller observed them); true if there were any. */
  private deliverWithheld(key: string, at: number): boolean {
    let any = false;
    for (const [pk, w] of [...this.withheldPods.of(key)]) {
      this.withheldPods.delete(pk);
      this.controller.deliverPod('ADDED', w.pod, at);
      any = true;
    }
    return any;
  }

  /**
   * Delivers the pods withheld for `key` (the controller evidently observed them), and lowers the
   * record for those the input deleted meanwhile (their ADD came first); true if there were any.
   */
  releaseWithheld(key: string, at: number): boolean {
    let any = this.deliverWithheld(key, at);
    for (const [pk, p] of [...this.pendingLowers]) {
      if (p.rsKey !== key) continue;
      this.pendingLowers.delete(pk);
      if (p.span.until === undefined || p.span.until > at) p.span.until = at;
      if (this.controller.expectations.get(key)?.timestamp !== p.setAt) continue;
      this.controller.expectations.creationObserved(key, at);
      any = true;
    }
    if (any) this.windows.drain();
    return any;
  }

  /**
   * A withheld pod leaves the view question (the input deleted it, or it now has another
   * controller): it is no longer held back. If its record still waits for it (kexp gave its lower
   * back), the controller's record stands at one of two counts until a write of the controller
   * settles it or the record expires: kexp keeps the waiting one and marks that time unknown.
   */
  private forgetWithheld(pk: string, w: { rsKey: string; raisedFor?: number }, e: TimelineEvent, why: string): void {
    this.withheldPods.delete(pk);
    const rec = this.controller.expectations.get(w.rsKey);
    if (w.raisedFor === undefined || !rec || rec.timestamp !== w.raisedFor || rec.add <= 0) return;
    const expires = rec.timestamp + EXPECTATIONS_TIMEOUT_MS;
    if (e.at >= expires) return;
    const span = {
      from: e.at, until: expires, sources: [e.source],
      reason: `${why} a pod the controller had not observed (${pk}): whether its informer delivered the pod's ADD first (lowering the record) or never, the input does not show until the controller writes or the record expires`,
    };
    this.tracks.of(w.rsKey).viewUnknown.push(span);
    this.pendingLowers.set(pk, { rsKey: w.rsKey, setAt: rec.timestamp, span });
  }

  /** End of input: the report counts every pod the input shows, observed by the controller or not. */
  restoreAll(): void {
    this.departed.restoreAll();
    for (const w of this.withheldPods.values()) this.controller.restorePod(w.pod);
  }
}
