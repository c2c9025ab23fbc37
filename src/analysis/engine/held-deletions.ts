/**
 * Held deletions: pods the input saw leave a ReplicaSet (deleted, terminating, finished, or given
 * another controller) whose departure the controller's informer had not delivered yet — the
 * symmetric of the pods view-alignment.ts withholds because their ADD had not reached it.
 *
 * syncReplicaSet (pkg/controller/replicaset/replica_set.go) lists the ReplicaSet's pods from its
 * informer cache at the start of a sync and ends it with updateReplicaSetStatus, whose
 * status.replicas is the number of active pods it listed (calculateStatus in
 * replica_set_utils.go; FilterActivePods drops terminating and finished pods). Syncs of one key
 * never overlap, so a sync whose status write follows the previous one listed after it: a pod the
 * input showed leaving more than VIEW_JITTER_MS before that previous write is not in an
 * up-to-date list. A status write counting more active pods than the input then had (its active
 * pods, plus every departure since the previous write that the sync may still have listed) shows
 * that many departures still in the controller's cache. The informer delivers in order, so they
 * are the newest of the older departures; kexp names them when the input has that many, else it
 * says how many.
 *
 * Holding a departure makes kexp's model hold what the controller held: the pod goes back into
 * the model's cache as it was when last active (no handler runs), and if its departure lowered
 * the record still in force (deletePod → DeletionObserved) that lower is given back
 * (ControllerExpectations.unobserveDeletion), so the window stays open and the syncs in it are
 * gated, as upstream's were. The held departure is delivered to the model's handlers — and the
 * record lowered as upstream lowers it — when the evidence shows the catch-up: a status write no
 * longer counting it (`checkStatus`), a gap in the pods the input shows (`releaseAll`: the view
 * cannot be pinned across it), a relist of the controller's pod informer in its own log
 * (`releaseAtRelist`, unless its status still counts the pod after it: kubernetes#115658) — a ghost a
 * 404 pinned after kexp's model had run its handler leaves the cache with no second run (`handled`) —, or the
 * end of input (`restoreAll`: the report counts what the input shows). The 5-minute expiry needs nothing here: the model's record expires, and the
 * controller's cache still holds the pod (a delete of it then is answered 404, as upstream's was).
 *
 * Contract: ViewAlignment calls `noteDeparture` for every pod observation that takes an active
 * pod from its controller (before its own delivery), `intercept` before delivering any pod
 * observation (true: the observation concerns a held pod and is kept, not delivered), and
 * `checkStatus` at each status write with an anchor. Writes RsTrack.heldDeletions and
 * heldReleased, and a viewUnknown span from the first held departure to the write that showed it
 * (kexp's model ran without the pod until then).
 *
 * Cost: O(1) per pod observation (a delete-key read only for a departure); a status write costs
 * O(departures since the previous write) unless a departure or a held pod is pending, then one
 * walk of the ReplicaSet's pods. Pure: no I/O, no clock.
 */
import type { Pod, ReplicaSet } from '../../model/objects.js';
import type { SourceRef, TimelineEvent } from '../../timeline/event.js';
import type { EngineController } from './engine-controller.js';
import type { RsTrack } from './rs-track.js';

/**
 * How long before the controller's previous status write a departure must be for an up-to-date
 * informer to have delivered it before the next sync listed: the input's watch and the
 * controller's see the same change within moments, but on separate streams (pods, ReplicaSets).
 */
export const VIEW_JITTER_MS = 1000;

/** A pod the input showed leaving a ReplicaSet's active pods. */
interface Departure {
  pk: string;
  rsKey: string;
  rsUid: string;
  at: number;
  source: SourceRef;
  /** The pod as it was when last active (what the controller's cache holds until it sees the departure). */
  active: Pod;
  /** The input's latest state of the pod; `deleted`: its last state was a DELETED. */
  latest: Pod;
  deleted: boolean;
  /** The Set time of the record whose delete key kexp's model observed at the departure (or, for a kind whose lower comes first, at the pod's deletionTimestamp). */
  lowered?: number;
  /**
   * The record just after that lower, and where the store's log stood then (to put the record back
   * if the model Set it again since); `prior`: the pod as cached before the event that lowered it.
   */
  loweredRecord?: { add: number; del: number; timestamp: number; at: number; lowers: number; prior?: Pod };
  /** Held as the newest of these candidates (the evidence counted, did not name): a later 404 may name another. */
  among?: string[];
  /**
   * Pinned by the controller's DELETE answered 404 (`pinGhost`) after kexp's model had already run
   * the departure's handler (the model delivered it when the input showed it): an informer
   * delivers each event once, so its release takes the pod out of the model's cache with no second
   * handler run (no second DeletionObserved).
   */
  handled?: boolean;
}

/** Deleted departures remembered for a later DELETE answered 404 (`pinGhost`), oldest dropped first. */
const GONE_KEPT = 10_000;

type HeldController = Pick<EngineController, 'expectations' | 'withholdPod' | 'restorePod' | 'deliverPod' | 'runDue'>;

/** `e`, a later state of pod `pk` delivered as usual, kept on its departure `x` (same pod: same key, no other UID). */
function noteLater(x: Departure, e: TimelineEvent & { type: 'observed'; kind: 'Pod' }, pk: string): void {
  if (x.pk !== pk || (e.object.metadata.uid && x.active.metadata.uid && e.object.metadata.uid !== x.active.metadata.uid)) return;
  x.latest = e.object;
  x.deleted = e.watchType === 'DELETED';
}

export class HeldDeletions {
  /** Per ReplicaSet key: departures not yet settled by a status write (in input order). */
  private readonly departures = new Map<string, Departure[]>();
  /** Departures the controller's status writes show it had not observed, by pod key. */
  private readonly held = new Map<string, Departure>();
  /** Departures by pod key, newest per key, for `pinGhost` (at most GONE_KEPT). */
  private readonly gone = new Map<string, Departure>();
  /** Per ReplicaSet key: the last status write a trigger's check read (later writes are checked again). */
  private readonly decidedUntil = new Map<string, number>();

  constructor(private readonly controller: HeldController) {}

  /** Held pods of `rsKey` (their model pod is the last active state). */
  heldFor(rsKey: string): number {
    let n = 0;
    for (const h of this.held.values()) if (h.rsKey === rsKey) n++;
    return n;
  }

  /** Whether `rsKey` has a departure or a held pod a status write must be checked against. */
  pending(rsKey: string): boolean {
    return (this.departures.get(rsKey)?.length ?? 0) > 0 || this.heldFor(rsKey) > 0;
  }

  /** The owner keys with departures no status write or trigger has settled yet. */
  departureKeys(): string[] {
    return [...this.departures.keys()].filter((k) => this.hasDepartures(k));
  }

  /** Whether `rsKey` has departures no status write or trigger has settled yet. */
  hasDepartures(rsKey: string): boolean {
    return (this.departures.get(rsKey)?.length ?? 0) > 0;
  }

  /** The held pod keys (every ReplicaSet's). */
  heldPodKeys(): IterableIterator<string> {
    return this.held.keys();
  }

  /** Whether the pod key is held (in the model's cache as the controller's, gone in the input). */
  isHeld(pk: string): boolean {
    return this.held.has(pk);
  }

  /** Whether the pod key is held and the input saw it deleted (a DELETE of it finds nothing). */
  isHeldDeleted(pk: string): boolean {
    return this.held.get(pk)?.deleted === true;
  }

  /** An observation of a held pod: kept as its latest state (true), unless it is another pod under the name (then the held one is released first). */
  intercept(e: TimelineEvent & { type: 'observed'; kind: 'Pod' }, pk: string, track: (key: string) => RsTrack): boolean {
    const h = this.held.get(pk);
    if (!h) {
      // A later state of a departed pod, delivered as usual: kept for when a write holds it (or a 404 pins it).
      if (this.departures.size > 0) for (const d of this.departures.values()) for (const x of d) noteLater(x, e, pk);
      const g = this.gone.get(pk);
      if (g) noteLater(g, e, pk);
      return false;
    }
    if (e.object.metadata.uid && h.active.metadata.uid && e.object.metadata.uid !== h.active.metadata.uid) {
      // The informer delivers in order: a later pod under this name means it delivered the deletion.
      this.release([h], e.at, e.source, 'a new pod under its name', track(h.rsKey));
      return false;
    }
    h.latest = e.object;
    h.deleted = e.watchType === 'DELETED';
    return true;
  }

  /** `old` (the model's cached pod, active, controlled by `rsKey`) leaves it with `e`; `lowered`: the Set time of the record whose delete key kexp's model observed. */
  noteDeparture(e: TimelineEvent & { type: 'observed'; kind: 'Pod' }, pk: string, old: Pod, rsKey: string, rsUid: string, lowered: number | undefined, loweredRecord?: Departure['loweredRecord']): void {
    let list = this.departures.get(rsKey);
    if (!list) this.departures.set(rsKey, (list = []));
    const d: Departure = {
      pk, rsKey, rsUid, at: e.at, source: e.source, active: old, latest: e.object, deleted: e.watchType === 'DELETED',
      ...(lowered !== undefined ? { lowered } : {}), ...(loweredRecord ? { loweredRecord } : {}),
    };
    list.push(d);
    this.gone.delete(pk);
    this.gone.set(pk, d);
    if (this.gone.size > GONE_KEPT) this.gone.delete(this.gone.keys().next().value!);
  }

  /**
   * A status write of `rs` at `e` with a previous one at `previous`: compares its status.replicas
   * with the active pods the input shows (`inputActive`: not counting held pods) and the
   * departures the sync may still have listed; holds or releases accordingly. Returns the pods
   * newly held (for the caller to drain the expectation log).
   */
  checkStatus(t: RsTrack, rs: ReplicaSet, e: TimelineEvent, replicas: number, previous: number, inputActive: () => number): boolean {
    const uid = rs.metadata.uid;
    const list = (this.departures.get(t.key) ?? []).filter((d) => d.rsUid === uid);
    const ghosts = [...this.held.values()].filter((h) => h.rsKey === t.key);
    const cut = previous - VIEW_JITTER_MS;
    const allowed = list.filter((d) => d.at >= cut);
    const candidates = list.filter((d) => d.at < cut);
    // The departures from the cut on stay for the next write; the older ones are settled by this one.
    if (allowed.length) this.departures.set(t.key, allowed);
    else this.departures.delete(t.key);
    if (candidates.length === 0 && ghosts.length === 0) return false;
    const existed = inputActive() + allowed.length;
    const surplus = replicas - existed;
    if (surplus <= 0) {
      // It does not count them (an in-order informer that delivered a newer departure delivered the older).
      if (ghosts.length) this.release(ghosts, e.at, e.source, 'a status write no longer counting it', t);
      return ghosts.length > 0;
    }
    const pool = [...ghosts, ...candidates].sort((a, b) => b.at - a.at);
    const keep = pool.slice(0, surplus);
    const keepSet = new Set(keep);
    const older = ghosts.filter((g) => !keepSet.has(g));
    if (older.length) this.release(older, e.at, e.source, 'a status write counting fewer of them (the older departures delivered)', t);
    const fresh = keep.filter((d) => !this.held.has(d.pk));
    for (const d of fresh) this.hold(d, e.at, t);
    // The input names them only when every departure the write could count is held: otherwise
    // kexp holds the newest (a lagging informer delivers in order) but a dropped event may be any.
    const pinned = keep.length === pool.length;
    if (!pinned) for (const d of fresh) d.among = pool.map((x) => x.pk);
    t.heldDeletions.push({
      at: e.at, source: e.source, statusReplicas: replicas, existed,
      pods: keep.map((d) => ({ pod: d.pk, departedAt: d.at, source: d.source, deleted: d.deleted })),
      unnamed: Math.max(0, surplus - keep.length),
      ...(pinned ? {} : { among: pool.map((d) => d.pk).sort() }),
    });
    if (fresh.length) {
      const from = Math.min(...fresh.map((d) => d.at));
      t.viewUnknown.push({
        from, until: e.at, sources: [e.source],
        reason: `the controller's status write counted ${replicas} active pod(s) while ${existed} existed: its informer had not delivered the departure of ${fresh.map((d) => d.pk).join(', ')}; kexp's model ran without ${fresh.length === 1 ? 'it' : 'them'} until this write`,
      });
    }
    return true;
  }

  /**
   * The rule of an enqueue (a pod event of the ReplicaSet's pods, an update of the ReplicaSet,
   * its own status write included): every sync, gated or not, ends with calculateStatus +
   * updateReplicaSetStatus (syncReplicaSet, pkg/controller/replicaset/replica_set.go), which
   * writes only when the status differs. So once the controller's informer delivered the trigger,
   * the status standing `LATE_STATUS_MS` after the sync it enqueued counts no departure from before
   * the trigger (`cut`: the trigger's time for a pod event — the pod informer delivers in order —
   * or VIEW_JITTER_MS before it for a ReplicaSet event, another stream). `status` is that standing
   * status (the last write of the chain the caller read from the look-ahead; writes up to it are
   * not checked again by `checkStatus`), `active` the active pods the input had after the trigger
   * plus those it added up to the status, `leaving` those of them the look-ahead shows leaving by
   * then. A status above `active` and the departures after the cut means that many departures from
   * before the cut were still in the controller's cache: the newest are held (a lagging informer
   * delivers in order; the input names them only when every candidate is held), the older settled.
   * A status no higher than `active - leaving` settles them (delivered); in between nothing is
   * decided (it may count a later departure instead of a missed one).
   * Returns whether it held a pod (the caller drains the expectation log).
   */
  checkTrigger(
    t: RsTrack, rsUid: string | undefined, trigger: { at: number; source: SourceRef; cut: number; what: string; lateMs: number },
    status: { at: number; source: SourceRef; replicas: number }, active: number, leaving: number,
    seen?: { uids: ReadonlySet<string>; by?: { at: number; source: SourceRef } },
  ): boolean {
    this.decidedUntil.set(t.key, Math.max(this.decidedUntil.get(t.key) ?? -Infinity, status.at));
    if (seen && seen.uids.size) this.settleSeen(t, seen.uids, seen.by ?? status);
    const list = this.departures.get(t.key) ?? [];
    const before = list.filter((d) => d.at <= trigger.cut && d.rsUid === rsUid);
    if (before.length === 0) return false;
    // Departures after the cut the sync may not have listed yet: the status may still count them.
    const existed = active + (list.length - before.length);
    const ghosts = this.heldFor(t.key);
    const surplus = status.replicas - existed - ghosts;
    if (surplus <= 0) {
      // Settled (delivered) only if even a status that saw every later departure (`leaving`,
      // the look-ahead's up to the status) could not hide one of these: otherwise undecided.
      if (status.replicas <= active - leaving) {
        const rest = list.filter((d) => !before.includes(d));
        if (rest.length) this.departures.set(t.key, rest);
        else this.departures.delete(t.key);
      }
      return false;
    }
    const fresh = [...before].sort((a, b) => b.at - a.at).slice(0, surplus);
    // The older departures before the cut are settled with it (as `checkStatus` settles them).
    const rest = list.filter((d) => !before.includes(d));
    if (rest.length) this.departures.set(t.key, rest);
    else this.departures.delete(t.key);
    for (const d of fresh) this.hold(d, trigger.at, t);
    if (fresh.length < before.length) for (const d of fresh) d.among = before.map((x) => x.pk);
    const pods = [...this.held.values()].filter((h) => h.rsKey === t.key).sort((a, b) => a.at - b.at);
    const entry = {
      at: status.at, source: status.source, statusReplicas: status.replicas, existed,
      pods: pods.map((d) => ({ pod: d.pk, departedAt: d.at, source: d.source, deleted: d.deleted })),
      unnamed: Math.max(0, status.replicas - existed - pods.length),
      trigger: { at: trigger.at, source: trigger.source, what: trigger.what },
      // A lagging informer delivers in order (kexp holds the newest), but a dropped event may be
      // any of them: the input names them only when every candidate is held.
      ...(fresh.length < before.length ? { among: [...new Set([...pods.map((d) => d.pk), ...before.map((d) => d.pk)])].sort() } : {}),
    };
    // One status standing through several triggers is one piece of evidence: its entry grows.
    const last = t.heldDeletions[t.heldDeletions.length - 1];
    if (last && last.at === status.at && last.source.file === status.source.file && last.source.line === status.source.line) {
      t.heldDeletions[t.heldDeletions.length - 1] = { ...entry, trigger: last.trigger ?? entry.trigger };
    } else {
      t.heldDeletions.push(entry);
    }
    const from = Math.min(...fresh.map((d) => d.at));
    t.viewUnknown.push({
      from, until: trigger.at, sources: [trigger.source, status.source],
      reason: `the controller's status still counted ${status.replicas} active pod(s) ${trigger.lateMs} ms after ${trigger.what} while ${existed} existed: its informer had not delivered the departure of ${fresh.map((d) => d.pk).join(', ')}`,
    });
    return true;
  }

  /**
   * The controller's status writes after a trigger name pods as listed in their new state (a Job's
   * status.uncountedTerminatedPods: the finished pods its sync found holding the finalizer) — a
   * refused write too (`by`: the first refused one), since the sync that sent it listed them: the
   * departure of each (its pod finished) was delivered. Such departures are settled, and a held one
   * released: a count cannot outweigh a pod named.
   */
  private settleSeen(t: RsTrack, uids: ReadonlySet<string>, by: { at: number; source: SourceRef }): void {
    const named = (d: Departure) => !!d.active.metadata.uid && uids.has(d.active.metadata.uid);
    const list = this.departures.get(t.key);
    if (list?.some(named)) {
      const rest = list.filter((d) => !named(d));
      if (rest.length) this.departures.set(t.key, rest);
      else this.departures.delete(t.key);
    }
    const ghosts = [...this.held.values()].filter((h) => h.rsKey === t.key && named(h));
    if (ghosts.length) this.release(ghosts, by.at, by.source, 'a status write of the controller naming it as a finished pod it listed', t);
  }

  /** Whether the status write at `at` of `rsKey` was already read by a trigger's check (`checkTrigger`). */
  decided(rsKey: string, at: number): boolean {
    return at <= (this.decidedUntil.get(rsKey) ?? -Infinity);
  }

  /** The ReplicaSet keys with held pods. */
  heldKeys(): string[] {
    return [...new Set([...this.held.values()].map((h) => h.rsKey))];
  }

  /**
   * The controller's pod informer relisted, its LIST in its cache at `at` (reflector "Caches
   * populated", `source`): the pods the LIST lacks are deleted from its cache (Reflector.list →
   * store.Replace: DeletedFinalStateUnknown → deletePod), so held departures of `rsKey` are
   * delivered then — all but the newest `keep`, which the controller's status still counts after
   * the relist (a relist may miss a delete, kubernetes#115658; the caller reads the status).
   */
  releaseAtRelist(rsKey: string, keep: number, at: number, source: SourceRef, t: RsTrack): void {
    const hs = [...this.held.values()].filter((h) => h.rsKey === rsKey).sort((a, b) => b.at - a.at);
    const out = hs.slice(Math.max(0, keep));
    if (out.length) this.release(out, at, source, 'the controller\'s pod informer relisted: its reflector\'s "Caches populated", from which its cache is the LIST\'s', t);
  }

  /** A gap in the pods the input shows: what the controller's cache held across it cannot be pinned; held departures are delivered. */
  releaseAll(at: number, source: SourceRef, track: (key: string) => RsTrack): void {
    const byKey = new Map<string, Departure[]>();
    for (const h of this.held.values()) {
      let l = byKey.get(h.rsKey);
      if (!l) byKey.set(h.rsKey, (l = []));
      l.push(h);
    }
    for (const [key, hs] of byKey) this.release(hs, at, source, 'a gap in the input\'s pods (the view cannot be pinned across it)', track(key));
    this.departures.clear();
  }

  /** End of input: the model's cache shows the pods as the input does (no handler runs). */
  restoreAll(): void {
    for (const h of this.held.values()) {
      this.controller.withholdPod(h.pk);
      if (!h.deleted) this.controller.restorePod(h.latest);
    }
    this.held.clear();
  }

  private hold(d: Departure, at: number | undefined, t?: RsTrack): void {
    // The model's cache gets the pod back as the controller still has it.
    this.controller.withholdPod(d.pk);
    const rec = this.controller.expectations.get(d.rsKey);
    let givenBack = false;
    if (at !== undefined && d.lowered !== undefined && rec?.timestamp === d.lowered) {
      this.controller.expectations.unobserveDeletion(d.rsKey, d.pk, at);
      // A count-only store lowered at each of the pod's deletion events (deletionTimestamp, DELETED): all given back.
      const more = (d.loweredRecord?.lowers ?? 1) - 1;
      if (more > 0) this.controller.expectations.raise(d.rsKey, 0, more, at);
      givenBack = true;
    } else if (at !== undefined && d.loweredRecord && t) givenBack = this.restoreReplaced(d, at, t);
    this.controller.restorePod(this.cachedState(d, givenBack));
    this.held.set(d.pk, d);
  }

  /**
   * The pod as the controller's cache holds it. A kind that lowers at the deletionTimestamp (the
   * DaemonSet's updatePod → deletePod) while its status counts the pod until it is gone departs
   * at the DELETED, so its last active state already carries the deletionTimestamp. When the
   * hold gives back the lower that update made, the controller's record shows it never delivered
   * the update (an informer delivers in order), so its cache holds the pod as before it: no
   * deletionTimestamp, a pod its next unblocked sync chooses again (podsShouldBeOnNode skips only
   * pods being deleted) — and deletes again, answered 404 while the ghost lasts.
   */
  private cachedState(d: Departure, givenBack: boolean): Pod {
    const lr = d.loweredRecord;
    return givenBack && lr?.prior && lr.at < d.at ? lr.prior : d.active;
  }

  /**
   * The model Set the record again after the lower it should not have made: a kind whose every
   * satisfied sync Sets (the DaemonSet's SetExpectations(0, 0) once per syncNodes) replaces it at
   * the next pass. Those passes never happened — the controller's record still waited for this
   * deletion — so when every Set since was fulfilled at once (no round the input could show), the
   * record is put back as it stood before the first of them, with the lower given back. A Set with
   * a round is left alone: what the model wrote then is the reconciler's to explain.
   */
  private restoreReplaced(d: Departure, at: number, t: RsTrack): boolean {
    const lr = d.loweredRecord!;
    // The track's expectation changes (window-tracker.ts), in time order: from the lower on.
    const changes = t.changes;
    let i = changes.length - 1;
    while (i >= 0 && !(changes[i]!.op === 'lower' && changes[i]!.at === lr.at && changes[i]!.del === lr.del && changes[i]!.add === lr.add)) i--;
    if (i < 0) return false;
    let add = lr.add;
    let del = lr.del;
    let replaced = false;
    for (const c of changes.slice(i + 1)) {
      if (c.op === 'set') {
        if ((c.add ?? 0) > 0 || (c.del ?? 0) > 0) return false;
        replaced = true;
      } else if (!replaced && (c.op === 'lower' || c.op === 'raise')) {
        add = c.add ?? add;
        del = c.del ?? del;
      } else if (c.op === 'delete') return false;
    }
    if (!replaced) return false;
    this.controller.expectations.restore(d.rsKey, { add, del: del + lr.lowers, timestamp: lr.timestamp }, at);
    return true;
  }

  /**
   * The controller's DELETE of `pk` answered 404 (`write`) although the input saw the pod deleted
   * before it: the controller chose it from its cache (manageReplicas → getPodsToDelete lists the
   * informer's pods), so its informer had not delivered that deletion — a ghost. kexp holds it
   * from now on (its model's next rounds may choose it again, as upstream's did) until the
   * evidence of a catch-up, as a held deletion the 404 pins (basis inferred). A pod kexp held in
   * its place as the newest of candidates the status counted but did not name, among them this
   * one, was the wrong guess: it leaves the model's cache without a handler run (the deletion the
   * controller did observe was counted then, when the input cannot tell). The record of the
   * round that chose it is not touched: the gate was open for that round (upstream then counts
   * the 404 as DeletionObserved). Returns whether it held the pod.
   */
  /** Whether any departure is remembered (else no 404 can pin a ghost). */
  remembersGone(): boolean {
    return this.gone.size > 0;
  }

  /** The ReplicaSet a remembered deleted departure of `pk` left. */
  rsKeyOfGone(pk: string): string | undefined {
    const d = this.gone.get(pk);
    return d?.deleted ? d.rsKey : undefined;
  }

  pinGhost(pk: string, write: { at: number; source: SourceRef }, t: RsTrack): boolean {
    if (this.held.has(pk)) return false;
    const d = this.gone.get(pk);
    if (!d || !d.deleted || d.at >= write.at || d.rsKey !== t.key) return false;
    const guesses = [...this.held.values()].filter((h) => h.rsKey === d.rsKey && h.among?.includes(pk));
    const wrong = guesses.sort((a, b) => a.at - b.at)[0];
    if (wrong) {
      this.held.delete(wrong.pk);
      this.controller.withholdPod(wrong.pk);
      if (!wrong.deleted) this.controller.restorePod(wrong.latest);
      for (const h of this.held.values()) if (h.among) h.among = h.among.filter((x) => x !== pk);
    }
    this.hold(d, undefined);
    d.handled = true;
    const replicas = t.lastStatus?.replicas;
    t.heldDeletions.push({
      at: write.at, source: write.source, statusReplicas: replicas ?? 0, existed: replicas !== undefined ? replicas - this.heldFor(t.key) : 0, unnamed: 0,
      pods: [{ pod: pk, departedAt: d.at, source: d.source, deleted: true }],
      trigger: { at: write.at, source: write.source, what: `the controller's DELETE of ${pk}, answered 404` },
      notFound: wrong ? { replaced: wrong.pk } : {},
    });
    // In place of a wrong guess kexp's model held as many pods as the controller: its count (and
    // so its gate) was right, only the pod's name was not. Otherwise it ran without the ghost.
    if (!wrong) t.viewUnknown.push({
      from: d.at, until: write.at, sources: [write.source, d.source],
      reason: `the controller's DELETE of ${pk} at ${new Date(write.at).toISOString()} was answered 404: its cache still held the pod the input saw deleted at ${new Date(d.at).toISOString()}; kexp's model ran without it until then`,
    });
    return true;
  }

  /**
   * The controller's sync at `at` did not delete again the ghost `pk` it would have chosen (the
   * input records its writes): its cache no longer held the pod — its informer had delivered the
   * deletion, whose handler ran then (when, the input does not show: a DaemonSet's count-only
   * record absorbs a lower made before its Set, kubernetes#75836). kexp's model drops the pod with
   * no handler run, the record untouched.
   */
  dropGhost(pk: string, at: number, track: (key: string) => RsTrack): void {
    const h = this.held.get(pk);
    if (!h || !h.deleted) return;
    this.held.delete(pk);
    this.controller.withholdPod(pk);
    track(h.rsKey).heldReleased.push({ at, source: h.source, pods: [pk], via: 'a sync of the controller\'s that did not delete it again (the input records its writes and shows no DELETE of it): its cache no longer held it' });
  }

  /**
   * The controller's informer delivered these departures: its handlers run on them now (deletePod /
   * updatePod lower the record). A burst of them reaches the handlers one at a time, and the first
   * one's enqueue wakes the idle worker (processNextWorkItem blocks in the workqueue's Get): its
   * sync reads the record with only that departure lowered — still waiting for the others (the
   * ReplicaSet's "Lowered expectations", then "still waiting", then the other lowers, in a
   * kube-controller-manager -v=4 log of delayed deletions). So the syncs due then run after the first.
   */
  private release(hs: Departure[], at: number, source: SourceRef, via: string, t: RsTrack): void {
    const sorted = hs.sort((a, b) => a.at - b.at);
    sorted.forEach((h, i) => {
      this.held.delete(h.pk);
      if (h.handled) this.controller.withholdPod(h.pk);
      else if (h.deleted) this.controller.deliverPod('DELETED', h.latest, at);
      else this.controller.deliverPod('MODIFIED', h.latest, at);
      if (i === 0 && sorted.length > 1) this.controller.runDue(at, true);
    });
    t.heldReleased.push({ at, source, pods: hs.map((h) => h.pk), via });
  }
}
