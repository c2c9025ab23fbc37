/**
 * Answers the model's API calls from the evidence in the input (the PodControl a replay
 * uses). The real controller's creates and deletes happen inside its sync; a watch
 * recording or an audit log shows their consequences shortly after. The oracle looks ahead
 * in the time-ordered input, within `matchWindowMs` of the sync (evidence-window.ts), and decides:
 *
 * - creates: see create-evidence.ts (audit writes, else pod ADDs, SuccessfulCreate and
 *   FailedCreate Events, a terminating namespace, the ReplicaFailure condition, else unknown).
 * - deletes: a deletion observation (deletionTimestamp set, or DELETED) of the chosen pod,
 *   a FailedDelete Event, or an RS-controller delete write with its status.
 * - the scale-down victims: see deletion-victims.ts (Go's sort is not stable, so ties may
 *   break differently from kexp's ranking).
 * - CanAdopt's live GET: the newest state of the ReplicaSet at the sync time (a deletion
 *   that lands within the window counts, as the GET is a quorum read).
 * - the adopt/release patches of ClaimObject, and whether the controller made a round at all
 *   (madeNoWrites).
 *
 * Contract: every setting comes through the constructor (OracleSettings); the engine calls
 * `beforeSyncs` with each event before the syncs due ahead of it run and `observe` with it
 * before the model sees it, brackets a sync it forces with `setForcedEvent`, and takes each
 * round's evidence once with `takeRoundEvidence`.
 *
 * Cost: each answer reads the match window once (indexed by object while the look-ahead is in
 * order, lookahead-buffer.ts); state per pod, Event and namespace the input shows.
 * Pure: no I/O, no clock; the lookahead buffer is supplied by the replay engine.
 */
import type { PatchResult } from '../../model/adoption.js';
import type { CreateResult, DeleteResult, PodControl } from '../../model/controller/pod-control.js';
import { controllerRefOf, objectKey, type Namespace, type Pod, type ReplicaSet } from '../../model/objects.js';
import type { SourceRef, TimelineEvent, WriteEvent } from '../../timeline/event.js';
import { CreateEvidence, isCreateFor, MAX_WATCH_CALL_MS, STATUS_WRITE_MS, type RoundEvidence } from './create-evidence.js';
import { chooseDeletions } from './deletion-victims.js';
import { EventOccurrences } from './event-occurrences.js';
import { EvidenceWindow, isOwnerStatusWrite, isRSControllerPodWrite, podOwnerUid, type Lookahead } from './evidence-window.js';
import type { WriteLedger } from './write-ledger.js';
import { OwnerStatusConsistency } from './owner-status-consistency.js';
import type { SyncRecord } from '../../model/controller/sync-record.js';
import type { EngineOwnerKind } from './engine-controller.js';

/**
 * How long after a sync its first API call may reach the apiserver (the workers, a throttled
 * client). A controller write later than this, with no call of the round before it, belongs
 * to another sync.
 */
export const FIRST_CALL_MS = 2000;

/** Everything the oracle is configured with. */
export interface OracleSettings {
  /** The engine's look-ahead. */
  look: Lookahead;
  /** The owner kind whose evidence is read (default the ReplicaSet). */
  owner?: EngineOwnerKind;
  /** How far ahead of a sync its writes' consequences are looked for (default DEFAULT_MATCH_WINDOW_MS). */
  matchWindowMs?: number;
  /** The controller's writes in the input; rounds claim the ones they explain. */
  ledger?: WriteLedger;
  /** Audit inputs: whether the log records the controller's pod writes (a pre-scan's answer), if known. */
  writesRecorded?: boolean;
  /** The modelled version ranks sidecar restarts (v1.32+), for telling ties from disagreements (default true). */
  sidecarRestartTiebreak?: boolean;
  /** The modelled release creates in slow-start batches (v1.8+); default true. */
  slowStartBatch?: boolean;
  /** The modelled release counts a timed-out create (504) as made: no error, its batch goes on (before v1.18; VersionFeatures.createTimeoutAsSuccess); default false. */
  createTimeoutAsSuccess?: boolean;
  /** The input declares it watches Events (recording header), even if none arrived (default false). */
  eventsWatched?: boolean;
  /** Called when a running round's sync is seen to last longer (the engine extends the key's busy time). */
  onRoundProgress?: (rsKey: string, doneAt: number) => void;
  /** Called when a round whose calls paused ends with `add` creates the input shows were never made (the engine lowers the model's record). */
  onRoundCut?: (rsKey: string, add: number, at: number) => void;
  /** When the controller's log shows it (re)started its controller: a round's calls never continue across one. */
  controllerStarts?: number[];
  /** Called when a watch-evidenced round's creates resume after a pause (create-evidence.ts). */
  onPauseResumed?: (rsKey: string, from: number, until: number, source: SourceRef) => void;
  /** The modelled controller's consistency store records its owner status writes (owner-status-consistency.ts; default false). */
  ownerStatusConsistency?: boolean;
}

export class EvidenceOracle implements PodControl<ReplicaSet> {
  private readonly window: EvidenceWindow;
  private readonly occurrences: EventOccurrences;
  private readonly creates: CreateEvidence;
  private readonly ledger?: WriteLedger;
  private readonly namespaces = new Map<string, Namespace>();
  private readonly writesRecordedHint?: boolean;
  private readonly sidecarRestartTiebreak: boolean;
  private readonly eventsWatched: boolean;
  /**
   * Set by the engine while it syncs because of this event (a write no predicted sync
   * explained): the write is the sync's own, whatever its pod's creationTimestamp says.
   */
  private forcedEvent?: TimelineEvent;
  /** The consistency store's record of the controller's own status writes, when its kind and release keep one. */
  private readonly statusWrites?: OwnerStatusConsistency;

  constructor(settings: OracleSettings) {
    this.window = new EvidenceWindow(settings.look, settings.matchWindowMs, settings.owner);
    this.ledger = settings.ledger;
    this.writesRecordedHint = settings.writesRecorded;
    this.sidecarRestartTiebreak = settings.sidecarRestartTiebreak ?? true;
    this.eventsWatched = settings.eventsWatched ?? false;
    if (settings.ownerStatusConsistency) this.statusWrites = new OwnerStatusConsistency();
    this.occurrences = new EventOccurrences(this.window, this.ledger);
    this.creates = new CreateEvidence(this.window, this.occurrences, {
      writesRecorded: () => this.writesRecorded(),
      namespaceTerminating: (ns) => this.namespaceTerminating(ns),
      slowStartBatch: settings.slowStartBatch ?? true,
      createTimeoutAsSuccess: settings.createTimeoutAsSuccess ?? false,
    }, this.ledger, settings.onRoundProgress, settings.onRoundCut, settings.controllerStarts, settings.onPauseResumed);
  }

  /**
   * True when the input records the controller's pod writes themselves (an audit log that has
   * shown at least one of them): a write it does not show was not made.
   */
  private writesRecorded(): boolean {
    if (this.ledger?.mode !== 'audit') return false;
    return this.writesRecordedHint ?? this.ledger.writes.length > 0;
  }

  /** The engine syncs because of `e` (a write no predicted sync explained) until called with undefined. */
  setForcedEvent(e: TimelineEvent | undefined): void {
    this.forcedEvent = e;
  }

  /** The evidence of a round (create rounds only), handed over once. */
  takeRoundEvidence(round: number): RoundEvidence | undefined {
    return this.creates.takeRoundEvidence(round);
  }

  /** Called by the engine for every event it delivers, before the model sees it. */
  observe(e: TimelineEvent): void {
    if (e.type === 'write') {
      // Delivered: it has left the look-ahead, so no later scan can meet it again.
      this.window.delivered(e);
      return;
    }
    if (e.type !== 'observed') return;
    if (e.kind === 'Namespace') {
      const name = e.object.metadata.name ?? '';
      if (e.watchType === 'DELETED') this.namespaces.delete(name);
      else this.namespaces.set(name, e.object);
    } else if (e.kind === 'Event') {
      this.occurrences.observe(e.object);
    } else if (e.kind === 'Pod' && e.watchType !== 'DELETED') {
      this.creates.observePod(e.object.metadata.uid);
    } else if (this.statusWrites && e.kind === 'ReplicaSet') {
      this.statusWrites.observeOwner(e.object.metadata.resourceVersion);
      if (e.watchType === 'DELETED') this.statusWrites.clear(objectKey(e.object.metadata));
    }
  }

  /**
   * A sync the model ran: if it wrote its owner's status (updateDaemonSetStatus, the Job's status
   * update), the written resourceVersion is the owner's first event after it in the input (its
   * watch MODIFIED, or the write's response in an audit log); recorded for the consistency gate.
   */
  noteSync(s: SyncRecord): void {
    if (!this.statusWrites || !s.rsUid || !(s.daemon?.statusWrite || (s.job?.statusWrites ?? 0) > 0)) return;
    // The write ends the sync: within STATUS_WRITE_MS of its last call, as the input shows it.
    const by = Math.max(s.at, s.doneAt ?? s.at) + STATUS_WRITE_MS;
    for (const e of this.window.scan(s.at, 0)) {
      if (e.at > by) break;
      if (e.type !== 'observed' || e.kind !== 'ReplicaSet' || e.watchType !== 'MODIFIED' || e.at < s.at) continue;
      if (objectKey(e.object.metadata) !== s.key || e.object.metadata.uid !== s.rsUid) continue;
      // The write is the event showing the status this sync computed (a sync the controller did
      // not make — its own skip — would otherwise take a later sync's write).
      if (!showsWrittenStatus(s, e.object.status as Record<string, unknown> | undefined)) continue;
      this.statusWrites.wrote(s.key, e.object.metadata.resourceVersion);
      return;
    }
  }

  /**
   * Called for each event before the syncs due ahead of it run: an ADD that continues a
   * running creation round extends the sync's duration (create-evidence.ts).
   */
  beforeSyncs(e: TimelineEvent): void {
    this.creates.beforeSyncs(e);
  }

  private namespaceTerminating(ns: string): boolean | undefined {
    const n = this.namespaces.get(ns);
    if (!n) return undefined;
    return Boolean(n.metadata.deletionTimestamp) || n.status?.phase === 'Terminating';
  }

  /** Audit: is `e` a delete of the ReplicaSet controller of a pod of this ReplicaSet? */
  private isDeleteFor(e: TimelineEvent, rs: ReplicaSet): e is WriteEvent {
    if (!isRSControllerPodWrite(e, 'delete', this.window.owner.component) || e.namespace !== rs.metadata.namespace) return false;
    const w = this.ledger?.writesOf(e)?.[0];
    return !w || w.rsKey === objectKey(rs.metadata) || w.rsKey === `${rs.metadata.namespace}/`;
  }

  /**
   * The input records the controller's writes and shows none for this ReplicaSet around `at`:
   * the real controller did not run this round (see PodControl.madeNoWrites).
   */
  madeNoWrites(rs: ReplicaSet, diff: number, at: number): boolean {
    if (!this.writesRecorded()) return this.syncedNoWhereInWatch(rs, diff, at);
    const key = `rscw:${diff < 0 ? 'create' : 'delete'}:${rs.metadata.namespace}`;
    for (const e of this.window.indexed(key, at, 50, { after: at + FIRST_CALL_MS, by: 'call' }) ?? this.window.scan(at, 50)) {
      // A round's first call goes out within moments of the sync: later writes are another sync's.
      if ((e.type === 'write' ? (e.receivedAt ?? e.at) : e.at) > at + FIRST_CALL_MS) break;
      if (this.window.taken(e)) continue;
      if (diff < 0 ? isCreateFor(e, rs, this.window.owner) : this.isDeleteFor(e, rs)) return false;
    }
    return true;
  }

  /**
   * A watch recording that also watches Events shows every sync that changes the pods: a create
   * or delete leaves the pod's ADD or deletion and a SuccessfulCreate / FailedCreate /
   * SuccessfulDelete / FailedDelete Event, and a sync whose count differs from the ReplicaSet's
   * status rewrites it. Applies only when the model's count differs from that status. When the whole match window after `at` is in the input and shows none
   * of these for this ReplicaSet, the real controller did not run this round (its informer had
   * not delivered the change, or no trigger reached it): true. False whenever the input cannot
   * tell (no Events watched, the input ends inside the window).
   */
  private syncedNoWhereInWatch(rs: ReplicaSet, diff: number, at: number): boolean {
    if (!(this.eventsWatched || this.occurrences.sawEvents) || !rs.metadata.uid) return false;
    // Only a sync whose count differs from the status last written is sure to write status (an
    // unchanged one may write nothing: creates rejected for a terminating namespace leave no
    // pod, no Event and the same status).
    const active = diff + (rs.spec?.replicas ?? 1);
    // …and only where the input shows the controller writing status at all (observedGeneration).
    if (rs.status?.observedGeneration === undefined || (rs.status?.replicas ?? 0) === active) return false;
    // Creates rejected for a terminating namespace leave no Event.
    if (this.namespaceTerminating(rs.metadata.namespace ?? '')) return false;
    const matchWindowMs = this.window.matchWindowMs;
    let covered = false;
    for (const e of this.window.upcoming()) {
      if (e.at > at + matchWindowMs) {
        covered = true;
        break;
      }
      if (e.at < at || e.type !== 'observed' || e === this.forcedEvent) continue;
      if (e.kind === 'Pod') {
        if (e.object.metadata.namespace !== rs.metadata.namespace) continue;
        if (diff < 0 && e.watchType === 'ADDED' && podOwnerUid(e.object, this.window.owner.kind) === rs.metadata.uid && !this.creates.seen(e.object.metadata.uid ?? '')) return false;
        // The change that triggered this sync is delivered at `at`; a deletion the sync made comes
        // after it — of any pod of the namespace (a chosen pod may have lost its owner meanwhile).
        if (diff > 0 && e.at > at && (e.watchType === 'DELETED' || e.object.metadata.deletionTimestamp)) return false;
      } else if (e.kind === 'Event') {
        const ev = e.object;
        if (ev.involvedObject?.uid === rs.metadata.uid || (ev.involvedObject?.kind === this.window.owner.kind && ev.involvedObject?.name === rs.metadata.name && ev.metadata?.namespace === rs.metadata.namespace)) {
          if ((diff < 0 ? /^(Successful|Failed)Create$/ : /^(Successful|Failed)Delete$/).test(ev.reason ?? '')) return false;
        }
      } else if (e.kind === 'ReplicaSet' && e.object.metadata.uid === rs.metadata.uid && JSON.stringify(e.object.status ?? {}) !== JSON.stringify(rs.status ?? {})) {
        return false;
      }
    }
    // The input ended inside the window: covered only if it says it was still watching by then.
    return covered || (this.window.exhausted() && (this.window.coverageEnd() ?? -Infinity) >= at + matchWindowMs);
  }

  createPod(rs: ReplicaSet, call: { round: number; index: number; n: number; at: number }): CreateResult {
    return this.creates.createPod(rs, call, this.forcedEvent);
  }

  /** True when the input shows `pod` being deleted (deletionTimestamp set or DELETED) inside the window. */
  private deletionAhead(pod: Pod, at: number): TimelineEvent | undefined {
    const key = objectKey(pod.metadata);
    for (const e of this.window.indexed(`pod:${key}`, at, 0) ?? this.window.scan(at, 0)) {
      if (e.type !== 'observed' || e.kind !== 'Pod') continue;
      if (objectKey(e.object.metadata) !== key) continue;
      if (e.watchType === 'DELETED' || e.object.metadata.deletionTimestamp) return e;
    }
    return undefined;
  }

  /**
   * Pods the controller's cache still holds although the input saw them deleted (held-deletions.ts):
   * set by the engine once its view alignment exists.
   */
  private heldGone: (podKey: string) => boolean = () => false;

  setHeldGone(f: (podKey: string) => boolean, dropped?: (podKey: string, at: number) => void): void {
    this.heldGone = f;
    if (dropped) this.ghostDropped = dropped;
  }

  /** Told when a held ghost is found gone from the controller's cache (`controllerHolds`). */
  private ghostDropped: (podKey: string, at: number) => void = () => undefined;

  /**
   * PodControl.controllerHolds: a ghost (a pod the input saw deleted that kexp holds in the
   * controller's cache since a DELETE of it was answered 404) the model's sync would delete again,
   * where the input records the controller's writes and shows no DELETE of it by the sync's first
   * calls: the controller's cache no longer held it — its informer delivered the deletion — so
   * kexp drops the ghost. A DELETE of it there (answered 404 again) keeps it.
   */
  controllerHolds(rs: ReplicaSet, pod: Pod, at: number): boolean {
    const key = objectKey(pod.metadata);
    if (!this.heldGone(key) || !this.writesRecorded()) return true;
    const writes = this.window.indexed(`rscw:delete:${pod.metadata.namespace ?? ''}`, at, 50, { after: at + FIRST_CALL_MS, by: 'call' });
    for (const e of writes ?? this.window.scan(at, 50)) {
      if ((e.type === 'write' ? (e.receivedAt ?? e.at) : e.at) > at + FIRST_CALL_MS) break;
      if (!isRSControllerPodWrite(e, 'delete', this.window.owner.component) || this.window.taken(e)) continue;
      if (`${e.namespace}/${e.name}` === key) return true;
    }
    void rs;
    this.ghostDropped(key, at);
    return false;
  }

  /**
   * PodControl.controllerHoldsAgainstCreate: a ghost in the place of which the input shows the
   * controller create a pod (`samePlace`) by the sync's first calls, where the input records its
   * writes: its cache no longer held the ghost — kexp drops it, as `controllerHolds` does.
   */
  controllerHoldsAgainstCreate(rs: ReplicaSet, pod: Pod, samePlace: (created: Pod) => boolean, at: number): boolean {
    const key = objectKey(pod.metadata);
    if (!this.heldGone(key) || !this.writesRecorded()) return true;
    for (const e of this.window.scan(at, 50)) {
      if ((e.type === 'write' ? (e.receivedAt ?? e.at) : e.at) > at + FIRST_CALL_MS) break;
      if (!isCreateFor(e, rs, this.window.owner) || this.window.taken(e)) continue;
      const created = (e.requestObject ?? e.responseObject) as Pod | undefined;
      if (created && samePlace(created)) {
        this.ghostDropped(key, at);
        return false;
      }
    }
    return true;
  }

  chooseDeletions(rs: ReplicaSet, predicted: Pod[], active: Pod[], at: number): { pods: Pod[]; note?: string } {
    const r = chooseDeletions(this.window, rs, predicted, active, at, this.sidecarRestartTiebreak);
    if (r.note !== undefined || this.writesRecorded()) return r;
    // The input shows none of the predicted victims deleted, and the controller's cache holds a pod
    // the input saw deleted: a DELETE of that pod leaves no trace in a watch (answered 404), a
    // DELETE of a live pod would. The ghost ranks with the others it ties (its last active state).
    const ghosts = active.filter((p) => this.heldGone(objectKey(p.metadata)));
    if (ghosts.length === 0 || r.pods.some((p) => !this.heldGone(objectKey(p.metadata)) && this.deletionAhead(p, at))) return r;
    const n = r.pods.length;
    const pods = [...ghosts, ...r.pods.filter((p) => !this.heldGone(objectKey(p.metadata)))].slice(0, n);
    const names = pods.filter((p) => this.heldGone(objectKey(p.metadata))).map((p) => objectKey(p.metadata)).join(', ');
    return { pods, note: `the input shows no deletion of a live pod after this sync; the controller's cache still held ${names}, which the input saw deleted: its DELETE of it leaves no trace in a watch (answered 404, inferred)` };
  }

  /**
   * An owner whose sync ends at its status write: when the first status write after the sync's
   * start `at` was requested (a pod write requested after it is a later sync's), for the sync in
   * progress — its calls ask once per sync. Infinity when the input shows none.
   */
  private syncEndBy(rs: ReplicaSet, at: number): number {
    if (!this.window.owner.syncEndsAtStatusWrite) return Infinity;
    const key = objectKey(rs.metadata);
    if (this.syncEnd?.key === key && this.syncEnd.at === at) return this.syncEnd.by;
    const w = this.window.ownStatusWriteAfter(key, at);
    const by = w ? (w.receivedAt ?? w.at) : Infinity;
    this.syncEnd = { key, at, by };
    return by;
  }

  private syncEnd?: { key: string; at: number; by: number };

  /**
   * PodControl.ownerStatusWrite: the controller's status write of `owner` after the sync's calls
   * returned (`after`), requested within STATUS_WRITE_MS of them, where the input records the
   * controller's writes and its owner's sync ends at that write. A pod write of the controller for
   * the owner requested first belongs to a later sync: this one wrote no status the input shows.
   * Cost: a read of the owner's status writes (EvidenceWindow.ownStatusWriteAfter: indexed while
   * the look-ahead is in order, else a scan of the window); only when the first of them was
   * requested in time, a scan up to it (for the controller's pod writes before it).
   */
  ownerStatusWrite(owner: ReplicaSet, call: { at: number; after: number }): { doneAt?: number } {
    if (!this.window.owner.syncEndsAtStatusWrite || !this.writesRecorded()) return {};
    const key = objectKey(owner.metadata);
    // The only status write the scan below can return is the first untaken one of the owner
    // requested after call.at (a later one lies past it); when there is none, or it was requested
    // after the bound (the scan stops at it or before), the scan finds nothing: skip it.
    const first = this.window.ownStatusWriteAfter(key, call.at);
    if (!first || (first.receivedAt ?? first.at) > call.after + STATUS_WRITE_MS) return {};
    for (const e of this.window.scan(call.at, 0)) {
      if (e.type !== 'write') continue;
      const req = e.receivedAt ?? e.at;
      if (req > call.after + STATUS_WRITE_MS) break;
      if (req <= call.at || this.window.taken(e)) continue;
      if (isOwnerStatusWrite(e, key, this.window.owner.component)) {
        this.window.take(e);
        this.syncEnd = undefined;
        return { doneAt: e.at };
      }
      if (isCreateFor(e, owner, this.window.owner) || this.isDeleteFor(e, owner)) return {};
    }
    return {};
  }

  /**
   * PodControl.podsAddedDuring: ADDs of new pods controlled by `owner` in (`from`, `until`), where
   * the input records the controller's writes (an audit log dates both the calls' returns and the
   * ADDs: the create's response is the pod's first state, at its completion). An ADD at `until`
   * itself is the last call's own pod, which the informer delivers after that call returned (the
   * watch event follows the response): not delivered yet.
   */
  podsAddedDuring(owner: ReplicaSet, from: number, until: number): Pod[] {
    const uid = owner.metadata.uid;
    if (!uid || !(until > from) || !this.writesRecorded()) return [];
    const out: Pod[] = [];
    for (const e of this.window.indexed(`own:${uid}`, from, 0) ?? this.window.scan(from, 0)) {
      if (e.type !== 'observed' || e.kind !== 'Pod' || e.watchType !== 'ADDED' || e.at <= from || e.at >= until) continue;
      if (podOwnerUid(e.object, this.window.owner.kind) !== uid || this.creates.seen(e.object.metadata.uid ?? '')) continue;
      out.push(e.object);
    }
    return out;
  }

  deletePod(rs: ReplicaSet, pod: Pod, call: { round: number; at: number }): DeleteResult {
    const key = objectKey(pod.metadata);
    const rsKey = objectKey(rs.metadata);
    const writes = this.window.indexed(`rscw:delete:${pod.metadata.namespace ?? ''}`, call.at, 50, { after: call.at + FIRST_CALL_MS, by: 'call' });
    const endBy = this.syncEndBy(rs, call.at);
    for (const e of writes ?? this.window.scan(call.at, 50)) {
      // The deletes of a round go out together (one goroutine per pod), within moments of the sync.
      if ((e.type === 'write' ? (e.receivedAt ?? e.at) : e.at) > call.at + FIRST_CALL_MS) break;
      // …and before the status write that ends it (an owner whose sync ends there).
      if (e.type === 'write' && (e.receivedAt ?? e.at) > endBy) break;
      if (!isRSControllerPodWrite(e, 'delete', this.window.owner.component) || this.window.taken(e)) continue;
      if (`${e.namespace}/${e.name}` !== key) continue;
      this.window.take(e);
      this.ledger?.claimEvent(e, call.round);
      if (e.status.code === 404) return { ok: false, notFound: true, doneAt: e.at };
      if (e.status.code >= 200 && e.status.code < 300) return { ok: true, doneAt: e.at };
      return { ok: false, error: e.status.message ?? `HTTP ${e.status.code}`, doneAt: e.at };
    }
    // The audit log records the controller's deletes and has none for this pod: not made
    // (another actor may still have deleted it — that is not the controller's write).
    if (this.writesRecorded()) return { ok: false, unmade: true };
    // A pod the input saw deleted that the controller's cache still held: its DELETE finds nothing
    // (404; manageReplicas then counts it observed, as DeletionObserved, with no error).
    if (this.heldGone(key)) return { ok: false, notFound: true };
    const seen = this.deletionAhead(pod, call.at);
    if (seen) {
      this.ledger?.claimPod('delete', rsKey, key, call.round);
      return { ok: true, doneAt: Math.min(seen.at, call.at + MAX_WATCH_CALL_MS) };
    }
    const sources: SourceRef[] = [];
    const messages: string[] = [];
    if (this.occurrences.takeWarnings(rs, 'FailedDelete', call.at, 1, sources, messages, call.round) > 0) {
      return { ok: false, error: (messages[0] ?? 'FailedDelete').replace(/^Error deleting: /, '') };
    }
    // Neither observed nor reported: the outcome is unknown (a later deletion or SuccessfulDelete is matched to it).
    if (this.ledger?.claimPod('delete', rsKey, key, call.round)) return { ok: true };
    this.ledger?.await(call.round, rsKey, 'delete', 1, call.at, [key]);
    return { ok: true, unknown: true };
  }

  getFreshOwner(rs: ReplicaSet, at: number): ReplicaSet | { notFound: true } | { error: string } {
    const key = objectKey(rs.metadata);
    let fresh: ReplicaSet = rs;
    for (const e of this.window.indexed(`rs:${key}`, at, 0, { after: at + 1000, by: 'at' }) ?? this.window.scan(at, 0)) {
      if (e.at > at + 1000) break;
      if (e.type !== 'observed' || e.kind !== 'ReplicaSet' || objectKey(e.object.metadata) !== key) continue;
      if (e.watchType === 'DELETED') return { notFound: true };
      fresh = e.object;
    }
    return fresh;
  }

  /**
   * An adopt/release PATCH, answered from the input: the controller's recorded patch (audit), the
   * pod's ownerReference change its watch shows (a write the ledger attributes to the controller),
   * a lost race (422). With neither, the patch was not made when the input records the
   * controller's writes (`unmade`), else the input cannot tell (`unknown`): adoption and release
   * are claimed only from the controller's own write.
   */
  patchPod(pod: Pod, action: 'adopt' | 'release', at: number, round?: number, owner?: ReplicaSet): PatchResult {
    const key = objectKey(pod.metadata);
    const claim = (e: TimelineEvent) => {
      if (round !== undefined) this.ledger?.claimEvent(e, round);
    };
    let lostRace = false;
    for (const e of this.window.indexed(`pod:${key}`, at, 50) ?? this.window.scan(at, 50)) {
      if (e.type === 'observed' && e.kind === 'Pod' && objectKey(e.object.metadata) === key) {
        if (e.watchType === 'DELETED') return 'notfound';
        // An adopt is this owner's only when the observed pod names it: another ReplicaSet
        // adopting the same orphan must not be claimed by this round. A pod state newer than
        // the one the sync decided on that names another controller means that one won the
        // race: this owner's patch would add a second controller reference, which the API
        // server rejects as Invalid (422) — unless a recorded patch of this pod later in the
        // window answers first (it is the write). The look-back can show the pod still owned
        // by a deleted predecessor before the garbage collector orphaned it, hence "newer".
        const ref = controllerRefOf(e.object.metadata);
        const foreign = action === 'adopt' && owner !== undefined && ref?.uid !== owner.metadata.uid;
        if (foreign && ref && newerState(e.object.metadata.resourceVersion, pod.metadata.resourceVersion, e.at >= at)) lostRace = true;
        const writes = this.ledger?.writesOf(e);
        if (!foreign && writes && !writes.every((w) => w.round !== undefined) && writes.some((w) => w.kind === action)) {
          claim(e);
          return 'ok';
        }
      }
      if (e.type === 'write' && e.resource === 'pods' && e.verb === 'patch' && `${e.namespace}/${e.name}` === key && e.actor.controller === this.window.owner.component) {
        if (this.window.taken(e)) continue;
        // A successful adopt whose response names another ReplicaSet is that one's write.
        const written = e.status.code < 300 ? (e.responseObject as Pod | undefined)?.metadata : undefined;
        const writtenRef = written ? controllerRefOf(written) : undefined;
        if (action === 'adopt' && owner && writtenRef && writtenRef.uid !== owner.metadata.uid) continue;
        this.window.take(e);
        claim(e);
        if (e.status.code === 404) return 'notfound';
        if (e.status.code === 422) return 'invalid';
        if (e.status.code >= 300) return { error: e.status.message ?? `HTTP ${e.status.code}` };
        return 'ok';
      }
    }
    if (lostRace) return 'invalid';
    return this.writesRecorded() ? 'unmade' : 'unknown';
  }

  informerBehindOwnWrites(rsKey: string): boolean {
    return this.creates.informerBehindOwnWrites(rsKey) || this.statusWrites?.behind(rsKey) !== undefined;
  }
}

/**
 * Whether an observed object state is newer than the one a decision was made on:
 * resourceVersions are etcd revisions (integers in every apiserver kexp reads); when either
 * is not, `fallback` (a time comparison) decides.
 */
function newerState(observed: string | undefined, decided: string | undefined, fallback: boolean): boolean {
  if (observed && decided && /^\d{1,15}$/.test(observed) && /^\d{1,15}$/.test(decided)) return Number(observed) > Number(decided);
  return fallback;
}

/** Whether an owner's status is the one sync `s` wrote: a DaemonSet's seven counts, a Job's pod counts. */
function showsWrittenStatus(s: SyncRecord, status: Record<string, unknown> | undefined): boolean {
  if (!status) return false;
  const n = (k: string) => (typeof status[k] === 'number' ? status[k] : 0);
  if (s.daemon) return Object.entries(s.daemon.status).every(([k, v]) => n(k) === v);
  if (s.job) {
    const j = s.job.status;
    return n('active') === j.active && n('succeeded') === j.succeeded && n('failed') === j.failed && n('ready') === j.ready;
  }
  return false;
}
