/**
 * Answers the model's API calls from the evidence in the input (the PodControl a replay
 * uses). The real controller's creates and deletes happen inside its sync; a watch
 * recording or an audit log shows their consequences shortly after. The oracle looks ahead
 * in the time-ordered input, within `matchWindowMs` of the sync, and decides:
 *
 * - creates: an RS-controller pod create write (audit) for this ReplicaSet → its status
 *   (201 ok, 403 with cause NamespaceTerminating → counted as success, anything else → a
 *   failed call); otherwise the ADDs of new pods controlled by this ReplicaSet (each
 *   attributed to one round only) are successes, FailedCreate Event occurrences are failed
 *   calls, and a namespace known to be terminating makes the rest NamespaceTerminating
 *   rejections (no Event is emitted for those). With no evidence either way the call is
 *   assumed to have succeeded if the input carries Events (a failure would have produced a
 *   FailedCreate Event), and the round is marked `unknown` otherwise.
 * - deletes: a deletion observation (deletionTimestamp set, or DELETED) of the chosen pod,
 *   a FailedDelete Event, or an RS-controller delete write with its status.
 * - the scale-down victims: when the input shows a different set of this ReplicaSet's pods
 *   being deleted right after the sync, those are what the controller chose (Go's sort is
 *   not stable, so ties may break differently from kexp's ranking).
 * - CanAdopt's live GET: the newest state of the ReplicaSet at the sync time (a deletion
 *   that lands within the window counts, as the GET is a quorum read).
 *
 * Pure: no I/O, no clock; the lookahead buffer is supplied by the replay engine.
 */
import type { CreateResult, DeleteResult, PodControl } from '../../model/replicaset-controller.js';
import { comparePodsForDeletion, rankPodsByRelatedPodsOnSameNode } from '../../model/pod-ranking.js';
import { controllerRefOf, objectKey, type CoreEvent, type Namespace, type Pod, type ReplicaSet } from '../../model/objects.js';
import type { SourceRef, TimelineEvent, WriteEvent } from '../../timeline/event.js';
import type { Basis } from '../report-types.js';
import { messageOf, type WriteLedger } from './write-ledger.js';

/**
 * How long after a sync its first API call may reach the apiserver (the workers, a throttled
 * client). A controller write later than this, with no call of the round before it, belongs
 * to another sync.
 */
export const FIRST_CALL_MS = 2000;

/** Default look-ahead for matching a sync's writes to their consequences: 5 s. */
export const DEFAULT_MATCH_WINDOW_MS = 5000;

/**
 * A watch shows when a write's consequence arrived, not when the API call returned. A sync
 * lasts until its last call returns (events meanwhile only mark the key dirty), so the
 * arrival time is used as the call's completion, capped at this long after the previous
 * call completed: a longer pause means a slow informer, not a slow call.
 */
export const MAX_WATCH_CALL_MS = 1000;

/**
 * A sync ends with its status write (updateReplicaSetStatus), which a client-side throttled
 * client may delay; the ReplicaSet MODIFIED carrying it marks the end of the sync when it
 * arrives within this long after the round's last call.
 */
export const STATUS_WRITE_MS = 500;

/** Read access to the upcoming events (the engine's lookahead buffer). */
export interface Lookahead {
  /** Upcoming events in order, starting with the next unprocessed one. */
  upcoming(): Iterable<TimelineEvent>;
  /** True when the input has been read to its end (the buffer holds everything left). */
  exhausted(): boolean;
  /**
   * Optional index (lookahead-buffer.ts): the upcoming events carrying `key` that a scan from
   * `from` to `to` (by `at`) would reach, cut where `stop` would end the scan. Used only while
   * `ordered()`; otherwise the oracle scans `upcoming()`.
   */
  keyed?(key: string, from: number, to: number, stop?: { after: number; by: 'at' | 'call' }): Iterable<TimelineEvent>;
  ordered?(): boolean;
  /** Where the input declares its coverage ends (a recording's end line), beyond its last event. */
  coverageEnd?(): number | undefined;
}

/** How the oracle answered one round, for the report. */
export interface RoundEvidence {
  basis: Basis;
  note?: string;
  sources: SourceRef[];
  /** Create rounds: pod keys attributed to the round. */
  pods?: string[];
}

function podOwnerUid(obj: unknown): string | undefined {
  const meta = (obj as Pod | undefined)?.metadata;
  if (!meta) return undefined;
  const ref = controllerRefOf(meta);
  return ref && ref.kind === 'ReplicaSet' ? ref.uid : undefined;
}

function isRSControllerPodWrite(e: TimelineEvent, verb: string): e is WriteEvent {
  return e.type === 'write' && e.actor.replicaSetController && e.resource === 'pods' && !e.subresource && e.verb === verb;
}

function eventCount(ev: CoreEvent): number {
  return ev.count ?? 1;
}

export class EvidenceOracle implements PodControl {
  private readonly attributedPods = new Set<string>(); // pod uids attributed to a creation round
  /** Writes of the look-ahead a round has taken (forgotten once delivered: see observe). */
  private readonly consumedWrites = new Set<WriteEvent>();
  private readonly consumedEventCounts = new Map<string, number>(); // Event ns/name → occurrences used
  private readonly seenEventCounts = new Map<string, number>(); // Event ns/name → count delivered
  /** Pods attributed to rounds but not yet delivered, per RS key (for the 1.36 consistency gate). */
  private readonly pendingOwnWrites = new Map<string, Set<string>>();
  private readonly roundPlans = new Map<number, CreateResult[]>();
  readonly roundEvidence = new Map<number, RoundEvidence>();
  readonly namespaces = new Map<string, Namespace>();
  /** True once the input has delivered any core/v1 Event (so a missing FailedCreate means no failure). */
  sawEvents = false;
  /** True when the input declares it watches Events (recording header), even if none arrived. */
  eventsWatched = false;
  /**
   * Creation rounds still running past the look-ahead window (e.g. 500 creates throttled at
   * 20 qps take ~25 s): later ADDs of the ReplicaSet's new pods keep extending the sync.
   */
  private readonly runningRounds = new Map<string, { rsUid: string; pending: number; lastDone: number; pods: string[]; round: number; evidence?: RoundEvidence }>();
  /** UIDs of every pod delivered so far (a later MODIFIED of one of them is not a create). */
  private readonly seenPods = new Set<string>();
  /** Keys (`namespace/name`) of pods attributed to a creation round by their ADD. */
  private readonly attributedPodKeys = new Set<string>();
  /** Pods whose create a round took from a SuccessfulCreate Event (their later ADD is the same write). */
  private readonly createdByEvent = new Set<string>();
  /** Rounds whose calls are done and whose sync now waits for its status write: key → deadline. */
  private readonly awaitingStatus = new Map<string, number>();
  /**
   * Set by the engine while it syncs because of this event (a write no predicted sync
   * explained): the write is the sync's own, whatever its pod's creationTimestamp says.
   */
  forcedEvent?: TimelineEvent;
  /** Called when a running round's sync is seen to last longer (the engine extends the key's busy time). */
  onRoundProgress?: (rsKey: string, doneAt: number) => void;

  constructor(
    private readonly look: Lookahead,
    private readonly matchWindowMs = DEFAULT_MATCH_WINDOW_MS,
    /** The controller's writes in the input; rounds claim the ones they explain. */
    private readonly ledger?: WriteLedger,
  ) {}

  /**
   * True when the input records the controller's pod writes themselves (an audit log that has
   * shown at least one of them): a write it does not show was not made.
   */
  private writesRecorded(): boolean {
    if (this.ledger?.mode !== 'audit') return false;
    return this.writesRecordedHint ?? this.ledger.writes.length > 0;
  }

  /** The modelled version ranks sidecar restarts (v1.32+), for telling ties from disagreements. */
  sidecarRestartTiebreak = true;
  /** Audit inputs: whether the log records the controller's pod writes (a pre-scan's answer), if known. */
  writesRecordedHint?: boolean;

  /** Called by the engine for every event it delivers, before the model sees it. */
  observe(e: TimelineEvent): void {
    if (e.type === 'write') {
      // Delivered: it has left the look-ahead, so no later scan can meet it again.
      this.consumedWrites.delete(e);
      return;
    }
    if (e.type !== 'observed') return;
    if (e.kind === 'Namespace') {
      const name = e.object.metadata.name ?? '';
      if (e.watchType === 'DELETED') this.namespaces.delete(name);
      else this.namespaces.set(name, e.object);
    } else if (e.kind === 'Event') {
      this.sawEvents = true;
      const k = objectKey(e.object.metadata);
      this.seenEventCounts.set(k, Math.max(this.seenEventCounts.get(k) ?? 0, eventCount(e.object)));
    } else if (e.kind === 'Pod' && e.watchType !== 'DELETED') {
      const uid = e.object.metadata.uid;
      if (uid) this.seenPods.add(uid);
      if (uid) {
        for (const [rsKey, set] of this.pendingOwnWrites) {
          if (set.delete(uid) && set.size === 0) this.pendingOwnWrites.delete(rsKey);
        }
      }
    }
  }

  private *window(at: number, before = 0): Generator<TimelineEvent> {
    for (const e of this.look.upcoming()) {
      if (e.at < at - before) continue;
      if (e.at > at + this.matchWindowMs) return;
      yield e;
    }
  }

  /**
   * The events of `window(at, before)` that carry index `key` (see lookahead-buffer.ts keysOf),
   * ending where a scan would stop at the first event later than `stop.after`; undefined when
   * the index cannot answer exactly (then the caller scans the window). The callers keep every
   * filter and stop condition of the scan, so both give the same events in the same order.
   */
  private indexed(key: string, at: number, before: number, stop?: { after: number; by: 'at' | 'call' }): Iterable<TimelineEvent> | undefined {
    if (!this.look.keyed || !this.look.ordered?.()) return undefined;
    return this.look.keyed(key, at - before, at + this.matchWindowMs, stop);
  }

  private namespaceTerminating(ns: string): boolean | undefined {
    const n = this.namespaces.get(ns);
    if (!n) return undefined;
    return Boolean(n.metadata.deletionTimestamp) || n.status?.phase === 'Terminating';
  }

  /**
   * Occurrences of Warning events with `reason` about this RS inside the window that no
   * earlier round has used. Aggregated Events count their `count` increments.
   */
  private takeEventOccurrences(rs: ReplicaSet, reason: string, at: number, max: number, sources: SourceRef[], messages: string[] = [], round?: number): number {
    let taken = 0;
    for (const e of this.indexed(`ev:${rs.metadata.namespace}/${rs.metadata.name}`, at, 1000) ?? this.window(at, 1000)) {
      if (taken >= max) break;
      if (e.type !== 'observed' || e.kind !== 'Event' || e.watchType === 'DELETED') continue;
      const ev = e.object;
      if (ev.reason !== reason) continue;
      const io = ev.involvedObject;
      if (!io || io.kind !== 'ReplicaSet' || io.name !== rs.metadata.name || io.namespace !== rs.metadata.namespace) continue;
      if (io.uid && rs.metadata.uid && io.uid !== rs.metadata.uid) continue;
      const k = objectKey(ev.metadata);
      const used = Math.max(this.consumedEventCounts.get(k) ?? 0, this.seenEventCounts.get(k) ?? 0);
      const avail = eventCount(ev) - used;
      if (avail <= 0) continue;
      const take = Math.min(avail, max - taken);
      this.consumedEventCounts.set(k, used + take);
      if (round !== undefined) this.ledger?.claimEventOccurrences(e, take, round);
      taken += take;
      sources.push(e.source);
      for (let i = 0; i < take; i++) messages.push(messageOf(ev, reason).replace(/^\(combined from similar events\): /, ''));
    }
    return taken;
  }

  /** Audit: is `e` a create of the ReplicaSet controller for this ReplicaSet (by owner, else generateName)? */
  private isCreateFor(e: TimelineEvent, rs: ReplicaSet): e is WriteEvent {
    if (!isRSControllerPodWrite(e, 'create') || e.namespace !== rs.metadata.namespace) return false;
    const owner = podOwnerUid(e.requestObject) ?? podOwnerUid(e.responseObject);
    if (owner !== undefined) return owner === rs.metadata.uid;
    return (e.requestObject as Pod | undefined)?.metadata?.generateName === `${rs.metadata.name}-`;
  }

  /** Audit: is `e` a delete of the ReplicaSet controller of a pod of this ReplicaSet? */
  private isDeleteFor(e: TimelineEvent, rs: ReplicaSet): e is WriteEvent {
    if (!isRSControllerPodWrite(e, 'delete') || e.namespace !== rs.metadata.namespace) return false;
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
    for (const e of this.indexed(key, at, 50, { after: at + FIRST_CALL_MS, by: 'call' }) ?? this.window(at, 50)) {
      // A round's first call goes out within moments of the sync: later writes are another sync's.
      if ((e.type === 'write' ? (e.receivedAt ?? e.at) : e.at) > at + FIRST_CALL_MS) break;
      if (this.consumedWrites.has(e as WriteEvent)) continue;
      if (diff < 0 ? this.isCreateFor(e, rs) : this.isDeleteFor(e, rs)) return false;
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
    if (!(this.eventsWatched || this.sawEvents) || !rs.metadata.uid) return false;
    // Only a sync whose count differs from the status last written is sure to write status (an
    // unchanged one may write nothing: creates rejected for a terminating namespace leave no
    // pod, no Event and the same status).
    const active = diff + (rs.spec?.replicas ?? 1);
    // …and only where the input shows the controller writing status at all (observedGeneration).
    if (rs.status?.observedGeneration === undefined || (rs.status?.replicas ?? 0) === active) return false;
    // Creates rejected for a terminating namespace leave no Event.
    if (this.namespaceTerminating(rs.metadata.namespace ?? '')) return false;
    let covered = false;
    for (const e of this.look.upcoming()) {
      if (e.at > at + this.matchWindowMs) {
        covered = true;
        break;
      }
      if (e.at < at || e.type !== 'observed' || e === this.forcedEvent) continue;
      if (e.kind === 'Pod') {
        if (e.object.metadata.namespace !== rs.metadata.namespace) continue;
        if (diff < 0 && e.watchType === 'ADDED' && podOwnerUid(e.object) === rs.metadata.uid && !this.seenPods.has(e.object.metadata.uid ?? '')) return false;
        // The change that triggered this sync is delivered at `at`; a deletion the sync made comes
        // after it — of any pod of the namespace (a chosen pod may have lost its owner meanwhile).
        if (diff > 0 && e.at > at && (e.watchType === 'DELETED' || e.object.metadata.deletionTimestamp)) return false;
      } else if (e.kind === 'Event') {
        const ev = e.object;
        if (ev.involvedObject?.uid === rs.metadata.uid || (ev.involvedObject?.kind === 'ReplicaSet' && ev.involvedObject?.name === rs.metadata.name && ev.metadata?.namespace === rs.metadata.namespace)) {
          if ((diff < 0 ? /^(Successful|Failed)Create$/ : /^(Successful|Failed)Delete$/).test(ev.reason ?? '')) return false;
        }
      } else if (e.kind === 'ReplicaSet' && e.object.metadata.uid === rs.metadata.uid && JSON.stringify(e.object.status ?? {}) !== JSON.stringify(rs.status ?? {})) {
        return false;
      }
    }
    // The input ended inside the window: covered only if it says it was still watching by then.
    return covered || (this.look.exhausted() && (this.look.coverageEnd?.() ?? -Infinity) >= at + this.matchWindowMs);
  }

  private planCreates(rs: ReplicaSet, n: number, at: number, round: number): CreateResult[] {
    const rsKey = objectKey(rs.metadata);
    const sources: SourceRef[] = [];
    const pods: string[] = [];
    const plan: CreateResult[] = [];
    // 1. Audit writes by the ReplicaSet controller for this ReplicaSet, consumed batch by batch
    //    like slowStartBatch: 1, 2, 4, … calls; the round stops after the first batch with a
    //    failure, and a pause longer than a call between writes ends it too.
    let batch = Math.min(n, 1);
    let inBatch = 0;
    let batchFailed = false;
    let lastWrite = at;
    let stoppedByFailure = false;
    // (its stop conditions only look at matching writes: the index gives exactly those)
    for (const e of this.indexed(`rscw:create:${rs.metadata.namespace}`, at, 50) ?? this.window(at, 50)) {
      if (plan.length >= n) break;
      if (!this.isCreateFor(e, rs) || this.consumedWrites.has(e)) continue;
      // Matched by the request's start: a create answered after a long wait (504) is the same call.
      if ((e.receivedAt ?? e.at) > lastWrite + MAX_WATCH_CALL_MS) break;
      lastWrite = Math.max(lastWrite, e.receivedAt ?? e.at);
      this.consumedWrites.add(e);
      this.ledger?.claimEvent(e, round);
      sources.push(e.source);
      const code = e.status.code;
      if (code >= 200 && code < 300) {
        const uid = (e.responseObject as Pod | undefined)?.metadata?.uid;
        if (uid) this.attributedPods.add(uid);
        const name = (e.responseObject as Pod | undefined)?.metadata?.name;
        if (name) pods.push(`${rs.metadata.namespace}/${name}`);
        plan.push({ ok: true, pod: name, doneAt: e.at });
      } else {
        const nsTerm = (e.status.causes ?? []).some((c) => c.type === 'NamespaceTerminating');
        if (!nsTerm) batchFailed = true;
        plan.push({ ok: false, error: e.status.message ?? `HTTP ${code}`, namespaceTerminating: nsTerm, doneAt: e.at });
      }
      if (++inBatch === batch) {
        if (batchFailed) {
          stoppedByFailure = true;
          break;
        }
        inBatch = 0;
        batch = Math.min(2 * batch, n - plan.length);
      }
    }
    if (plan.length > 0) {
      const lastCall = Math.max(at, ...plan.map((r) => r.doneAt ?? at));
      let note: string | undefined;
      if (plan.length < n && !stoppedByFailure) {
        const rest = n - plan.length;
        // Writes up to the end of the window and more input to come: a round longer than the
        // window (throttled creates); its later writes are claimed as they arrive.
        const running = !this.look.exhausted() && lastWrite + MAX_WATCH_CALL_MS >= at + this.matchWindowMs;
        if (running) {
          note = `round still running after ${this.matchWindowMs} ms; ${rest} later create(s) are matched as they arrive`;
          this.ledger?.await(round, rsKey, 'create', rest, at, undefined, lastWrite);
          for (let i = 0; i < rest; i++) plan.push({ ok: true, unknown: true });
        } else {
          note = `the audit log shows ${plan.length} of the ${n} creates kexp predicted; the controller made no more (its count of pods differed from kexp's)`;
          plan.push({ ok: false, unmade: true });
        }
      }
      this.roundEvidence.set(round, { basis: 'observed', sources, pods, ...(note ? { note } : {}) });
      if (plan.some((r) => r.ok)) {
        // Pods were created, so the sync still writes status (an RS-controller update of replicasets/status) before it is done.
        this.awaitingStatus.set(rsKey, lastCall + STATUS_WRITE_MS);
        plan[plan.length - 1]!.doneAt = lastCall + STATUS_WRITE_MS;
      }
      while (plan.length < n) plan.push({ ok: false, error: 'not attempted' });
      return plan;
    }
    // The audit log records the controller's creates and shows none for this round: not made.
    if (this.writesRecorded()) {
      this.roundEvidence.set(round, { basis: 'observed', sources, pods, note: 'the audit log shows no create of this round' });
      return [{ ok: false, unmade: true }];
    }
    // 2. Watch evidence: ADDs of new pods controlled by this RS.
    const pending = new Set<string>();
    let lastDone = at;
    // Only pods controlled by this UID pass the filter below (an RS without a UID matches pods with none: scan).
    const adds = rs.metadata.uid ? this.indexed(`own:${rs.metadata.uid}`, at, 0) : undefined;
    for (const e of adds ?? this.window(at, 0)) {
      if (plan.length >= n) break;
      if (e.type !== 'observed' || e.kind !== 'Pod' || e.watchType === 'DELETED') continue;
      const p = e.object;
      const uid = p.metadata.uid;
      if (!uid || this.attributedPods.has(uid) || this.seenPods.has(uid)) continue; // a pod already known is not a new one
      if (podOwnerUid(p) !== rs.metadata.uid) continue;
      if (this.createdByEvent.has(objectKey(p.metadata))) continue; // taken from its SuccessfulCreate Event
      const created = p.metadata.creationTimestamp ? Date.parse(p.metadata.creationTimestamp) : undefined;
      if (e !== this.forcedEvent && created !== undefined && created < Math.floor(at / 1000) * 1000 - 1000) continue; // an older pod
      this.attributedPods.add(uid);
      this.attributedPodKeys.add(objectKey(p.metadata));
      this.ledger?.claimEvent(e, round);
      pending.add(uid);
      sources.push(e.source);
      pods.push(objectKey(p.metadata));
      // Calls run in slow-start batches one after another: a long round keeps progressing as
      // long as its ADDs keep coming; a pause longer than a call means a slow informer.
      lastDone = Math.min(e.at, lastDone + MAX_WATCH_CALL_MS);
      plan.push({ ok: true, pod: p.metadata.name, doneAt: lastDone });
    }
    if (pending.size) this.pendingOwnWrites.set(rsKey, pending);
    const observedBefore = plan.length;
    let basis: Basis = 'inferred';
    let note: string | undefined;
    if (plan.length < n) {
      // 2b. SuccessfulCreate Events: the controller reports each create it made, even when the
      //     pod's ADD comes later (informer lag) or never (a lost event).
      const made = this.takeCreatedEvents(rs, at, n - plan.length, sources, pods, round);
      for (const pod of made) plan.push({ ok: true, pod: pod.slice(pod.indexOf('/') + 1) });
      if (made.length) note = `${made.length} create(s) reported by SuccessfulCreate Events before their pods were observed`;
    }
    if (plan.length < n) {
      // A failure ends the round after its slow-start batch: at most the rest of that batch failed.
      let batchEnd = 0;
      for (let size = 1; batchEnd <= plan.length && batchEnd < n; size *= 2) batchEnd = Math.min(n, batchEnd + size);
      const missing = Math.max(1, batchEnd - plan.length);
      const messages: string[] = [];
      const failures = this.takeEventOccurrences(rs, 'FailedCreate', at, missing, sources, messages, round);
      const nsTerm = this.namespaceTerminating(rs.metadata.namespace ?? '');
      for (let i = 0; i < failures; i++) plan.push({ ok: false, error: (messages[i] ?? 'FailedCreate').replace(/^Error creating: /, '') });
      if (plan.length < n) {
        const rest = n - plan.length;
        if (nsTerm) {
          note = `${rest} create(s) rejected because namespace ${rs.metadata.namespace} is terminating (no Event is emitted for these)`;
          for (let i = 0; i < rest; i++) plan.push({ ok: false, error: 'namespace is terminating', namespaceTerminating: true });
        } else if (failures > 0) {
          // The round stopped at its first failing batch; the rest were never attempted.
          for (let i = 0; i < rest; i++) plan.push({ ok: false, error: 'not attempted' });
        } else if (this.replicaFailure(rs, at, 'FailedCreate')) {
          // Repeated failures are often not visible as Events (the EventCorrelator aggregates and
          // rate-limits them), but the sync keeps the ReplicaFailure condition while they last.
          const msg = this.replicaFailure(rs, at, 'FailedCreate')!;
          note = `create failure inferred from the ReplicaSet's ReplicaFailure condition (no new FailedCreate Event occurrence): ${msg}`;
          plan.push({ ok: false, error: msg });
          for (let i = 1; i < rest; i++) plan.push({ ok: false, error: 'not attempted' });
        } else {
          // Nothing in the input says whether these calls were made or how they ended. The model
          // goes on as the API usually answers (created), but their outcome is reported as
          // unknown and nothing (no failure, no leak verdict, no exit code) is built on it. The
          // round itself is evidenced when some of its calls are (then the Set happened).
          if (plan.length === 0) basis = 'unknown';
          note = this.ledger?.mode === 'audit'
            ? `${rest} create(s) of this round not shown by the audit log (it holds none of the controller's pod writes for them: they predate it, or its policy does not record them): outcome unknown`
            : this.look.exhausted()
              ? `${rest} create(s) not shown by the input before it ends (no pod ADD, no SuccessfulCreate or FailedCreate Event)`
              : `${rest} create(s) without a pod ADD or a create Event within ${this.matchWindowMs} ms: outcome unknown`;
          this.ledger?.await(round, rsKey, 'create', rest, at);
          for (let i = 0; i < rest; i++) plan.push({ ok: true, unknown: true });
        }
      }
    }
    const awaited = plan.slice(observedBefore).filter((r) => r.ok).length;
    if (awaited > 0 && !this.look.exhausted() && rs.metadata.uid) {
      this.runningRounds.set(rsKey, { rsUid: rs.metadata.uid, pending: awaited, lastDone, pods, round });
      // Still running: expect its next call to return within MAX_WATCH_CALL_MS.
      const last = plan[plan.length - 1]!;
      last.doneAt = lastDone + MAX_WATCH_CALL_MS;
    } else {
      this.runningRounds.delete(rsKey);
      // All calls accounted for: the sync still writes status before it is done.
      const lastCall = Math.max(at, ...plan.map((r) => r.doneAt ?? at));
      if (plan.some((r) => r.ok)) {
        this.awaitingStatus.set(rsKey, lastCall + STATUS_WRITE_MS);
        plan[plan.length - 1]!.doneAt = lastCall + STATUS_WRITE_MS;
      }
    }
    const evidence: RoundEvidence = { basis, note, sources, pods };
    const running = this.runningRounds.get(rsKey);
    if (running) running.evidence = evidence;
    this.roundEvidence.set(round, evidence);
    return plan;
  }

  /**
   * Pods named by SuccessfulCreate Event occurrences about this ReplicaSet inside the window
   * whose pods no round has yet (at most `max`); the occurrences are consumed and claimed.
   */
  private takeCreatedEvents(rs: ReplicaSet, at: number, max: number, sources: SourceRef[], pods: string[], round: number): string[] {
    const out: string[] = [];
    for (const e of this.indexed(`ev:${rs.metadata.namespace}/${rs.metadata.name}`, at, 1000) ?? this.window(at, 1000)) {
      if (out.length >= max) break;
      if (e.type !== 'observed' || e.kind !== 'Event' || e.watchType === 'DELETED' || e.object.reason !== 'SuccessfulCreate') continue;
      const io = e.object.involvedObject;
      if (!io || io.kind !== 'ReplicaSet' || io.name !== rs.metadata.name || io.namespace !== rs.metadata.namespace) continue;
      if (io.uid && rs.metadata.uid && io.uid !== rs.metadata.uid) continue;
      const m = /Created pod: (\S+)/.exec(messageOf(e.object, ''));
      if (!m) continue;
      const pod = `${rs.metadata.namespace}/${m[1]}`;
      if (pods.includes(pod) || this.createdByEvent.has(pod) || this.attributedPodKeys.has(pod)) continue;
      const k = objectKey(e.object.metadata);
      const used = Math.max(this.consumedEventCounts.get(k) ?? 0, this.seenEventCounts.get(k) ?? 0);
      if (eventCount(e.object) - used <= 0) continue;
      this.consumedEventCounts.set(k, used + 1);
      this.createdByEvent.add(pod);
      this.ledger?.claimEventOccurrences(e, 1, round);
      this.ledger?.claimPod('create', objectKey(rs.metadata), pod, round);
      sources.push(e.source);
      pods.push(pod);
      out.push(pod);
    }
    return out;
  }

  /**
   * Called for each event before the syncs due ahead of it run: an ADD that continues a
   * running creation round (a new pod of the ReplicaSet arriving within MAX_WATCH_CALL_MS
   * of the previous one) is attributed to it and extends the sync's duration.
   */
  beforeSyncs(e: TimelineEvent): void {
    if (this.awaitingStatus.size > 0 && e.type === 'observed' && e.kind === 'ReplicaSet' && e.watchType === 'MODIFIED') {
      const key = objectKey(e.object.metadata);
      const deadline = this.awaitingStatus.get(key);
      if (deadline !== undefined) {
        this.awaitingStatus.delete(key);
        if (e.at <= deadline) this.onRoundProgress?.(key, e.at);
      }
      return;
    }
    if (this.runningRounds.size === 0 || e.type !== 'observed' || e.kind !== 'Pod' || e.watchType !== 'ADDED') return;
    const p = e.object;
    const owner = podOwnerUid(p);
    const uid = p.metadata.uid;
    if (!owner || !uid || this.attributedPods.has(uid)) return;
    const podKey = objectKey(p.metadata);
    if (this.createdByEvent.has(podKey)) {
      // Its create was already taken from its SuccessfulCreate Event: this ADD observes it.
      this.attributedPods.add(uid);
      return;
    }
    const key = `${p.metadata.namespace}/${controllerRefOf(p.metadata)?.name}`;
    const r = this.runningRounds.get(key);
    if (!r || r.rsUid !== owner) return;
    if (e.at > r.lastDone + MAX_WATCH_CALL_MS) {
      this.runningRounds.delete(key);
      return;
    }
    this.attributedPods.add(uid);
    this.attributedPodKeys.add(podKey);
    this.ledger?.claimEvent(e, r.round);
    r.lastDone = e.at;
    r.pods.push(podKey);
    if (--r.pending <= 0) {
      this.runningRounds.delete(key);
      // Every create of the round has now been observed: the outcome is no longer a guess.
      if (r.evidence) {
        r.evidence.basis = 'inferred';
        r.evidence.note = undefined;
      }
      this.awaitingStatus.set(key, e.at + STATUS_WRITE_MS);
      this.onRoundProgress?.(key, e.at + STATUS_WRITE_MS);
    } else this.onRoundProgress?.(key, e.at + MAX_WATCH_CALL_MS);
  }

  /**
   * The message of a ReplicaFailure condition with `reason` on the ReplicaSet as cached, or
   * on its next state within the window (the status write of this very sync).
   */
  private replicaFailure(rs: ReplicaSet, at: number, reason: string): string | undefined {
    const cond = (r: ReplicaSet) => (r.status?.conditions ?? []).find((c) => c.type === 'ReplicaFailure' && c.status === 'True' && c.reason === reason);
    const key = objectKey(rs.metadata);
    for (const e of this.indexed(`rs:${key}`, at, 0) ?? this.window(at, 0)) {
      if (e.type === 'observed' && e.kind === 'ReplicaSet' && objectKey(e.object.metadata) === key && e.watchType !== 'DELETED') {
        const c = cond(e.object);
        return c ? (c.message ?? reason) : undefined;
      }
    }
    const c = cond(rs);
    return c ? (c.message ?? reason) : undefined;
  }

  createPod(rs: ReplicaSet, call: { round: number; index: number; n: number; at: number }): CreateResult {
    let plan = this.roundPlans.get(call.round);
    if (!plan) {
      // Rounds run one at a time: an earlier round's plan (ended early by a failure or an unmade call) is done.
      this.roundPlans.clear();
      plan = this.planCreates(rs, call.n, call.at, call.round);
      this.roundPlans.set(call.round, plan);
    }
    const r = plan[call.index] ?? { ok: false, error: 'not attempted' };
    if (call.index === call.n - 1) this.roundPlans.delete(call.round);
    return r;
  }

  /** True when the input shows `pod` being deleted (deletionTimestamp set or DELETED) inside the window. */
  private deletionAhead(pod: Pod, at: number): TimelineEvent | undefined {
    const key = objectKey(pod.metadata);
    for (const e of this.indexed(`pod:${key}`, at, 0) ?? this.window(at, 0)) {
      if (e.type !== 'observed' || e.kind !== 'Pod') continue;
      if (objectKey(e.object.metadata) !== key) continue;
      if (e.watchType === 'DELETED' || e.object.metadata.deletionTimestamp) return e;
    }
    return undefined;
  }

  chooseDeletions(rs: ReplicaSet, predicted: Pod[], active: Pod[], at: number): { pods: Pod[]; note?: string } {
    const n = predicted.length;
    const byKey = new Map(active.map((p) => [objectKey(p.metadata), p]));
    const observed: Pod[] = [];
    const seen = new Set<string>();
    // The controller issues all its DELETEs at once: take the ReplicaSet controller's delete
    // writes (audit) or else the first deletion observations of its active pods right after
    // the sync, in time order.
    let sawWrites = false;
    for (const e of this.indexed('rscw:delete', at, 50, { after: at + MAX_WATCH_CALL_MS, by: 'at' }) ?? this.window(at, 50)) {
      if (e.at > at + MAX_WATCH_CALL_MS || observed.length >= n) break;
      if (!isRSControllerPodWrite(e, 'delete')) continue;
      sawWrites = true;
      const p = byKey.get(`${e.namespace}/${e.name}`);
      if (p && !seen.has(objectKey(p.metadata))) {
        seen.add(objectKey(p.metadata));
        observed.push(p);
      }
    }
    if (!sawWrites) {
      // The controller's SuccessfulDelete Events name its victims, whatever the lag of the
      // deletions' watch events (and a deletion by another actor is not one of them).
      for (const e of this.indexed(`ev:${rs.metadata.namespace}/${rs.metadata.name}`, at, 1000) ?? this.window(at, 1000)) {
        if (observed.length >= n) break;
        if (e.type !== 'observed' || e.kind !== 'Event' || e.watchType === 'DELETED' || e.object.reason !== 'SuccessfulDelete') continue;
        const io = e.object.involvedObject;
        if (!io || io.kind !== 'ReplicaSet' || io.name !== rs.metadata.name || io.namespace !== rs.metadata.namespace) continue;
        const m = /Deleted pod: (\S+)/.exec(messageOf(e.object, ''));
        const p = m ? byKey.get(`${rs.metadata.namespace}/${m[1]}`) : undefined;
        if (p && !seen.has(objectKey(p.metadata))) {
          seen.add(objectKey(p.metadata));
          observed.push(p);
        }
      }
    }
    if (!sawWrites && observed.length < n) {
      for (const e of this.window(at, 0)) {
        if (e.at > at + MAX_WATCH_CALL_MS || observed.length >= n) break;
        if (e.type !== 'observed' || e.kind !== 'Pod') continue;
        if (!(e.watchType === 'DELETED' || e.object.metadata.deletionTimestamp)) continue;
        const p = byKey.get(objectKey(e.object.metadata));
        if (p && !seen.has(objectKey(p.metadata))) {
          seen.add(objectKey(p.metadata));
          observed.push(p);
        }
      }
    }
    const predictedKeys = new Set(predicted.map((p) => objectKey(p.metadata)));
    if (observed.length === 0 || observed.every((p) => predictedKeys.has(objectKey(p.metadata)))) return { pods: predicted };
    // Keep the input's choice first, then fill from the prediction.
    const chosen = observed.slice(0, n);
    const chosenKeys = new Set(chosen.map((p) => objectKey(p.metadata)));
    for (const p of predicted) {
      if (chosen.length >= n) break;
      if (!chosenKeys.has(objectKey(p.metadata))) chosen.push(p);
    }
    const differ = chosen.filter((p) => !predictedKeys.has(objectKey(p.metadata)));
    const chosenSet = new Set(chosen.map((p) => objectKey(p.metadata)));
    const dropped = predicted.filter((p) => !chosenSet.has(objectKey(p.metadata)));
    // Pods the ranking cannot tell apart are ordered by Go's unstable sort: not a disagreement.
    const rankList = rankPodsByRelatedPodsOnSameNode(active, active);
    const ranks = new Map(active.map((p, i) => [p, rankList[i] ?? 0]));
    const tied = differ.every((d) => dropped.some((x) => comparePodsForDeletion(d, x, { rankA: ranks.get(d) ?? 0, rankB: ranks.get(x) ?? 0, now: at, sidecarRestartTiebreak: this.sidecarRestartTiebreak }) === 0));
    const names = differ.map((p) => objectKey(p.metadata)).join(', ');
    return {
      pods: chosen,
      note: tied
        ? `tie: ${names} ranked equal to kexp's choice; the controller's unstable sort picked it (taken from the input)`
        : `the input shows ${names} deleted, which kexp's ranking did not predict (another actor deleting pods, or state kexp did not see)`,
    };
  }

  deletePod(rs: ReplicaSet, pod: Pod, call: { round: number; at: number }): DeleteResult {
    const key = objectKey(pod.metadata);
    const rsKey = objectKey(rs.metadata);
    const writes = this.indexed(`rscw:delete:${pod.metadata.namespace ?? ''}`, call.at, 50, { after: call.at + FIRST_CALL_MS, by: 'call' });
    for (const e of writes ?? this.window(call.at, 50)) {
      // The deletes of a round go out together (one goroutine per pod), within moments of the sync.
      if ((e.type === 'write' ? (e.receivedAt ?? e.at) : e.at) > call.at + FIRST_CALL_MS) break;
      if (!isRSControllerPodWrite(e, 'delete') || this.consumedWrites.has(e)) continue;
      if (`${e.namespace}/${e.name}` !== key) continue;
      this.consumedWrites.add(e);
      this.ledger?.claimEvent(e, call.round);
      if (e.status.code === 404) return { ok: false, notFound: true, doneAt: e.at };
      if (e.status.code >= 200 && e.status.code < 300) return { ok: true, doneAt: e.at };
      return { ok: false, error: e.status.message ?? `HTTP ${e.status.code}`, doneAt: e.at };
    }
    // The audit log records the controller's deletes and has none for this pod: not made
    // (another actor may still have deleted it — that is not the controller's write).
    if (this.writesRecorded()) return { ok: false, unmade: true };
    const seen = this.deletionAhead(pod, call.at);
    if (seen) {
      this.ledger?.claimPod('delete', rsKey, key, call.round);
      return { ok: true, doneAt: Math.min(seen.at, call.at + MAX_WATCH_CALL_MS) };
    }
    const sources: SourceRef[] = [];
    const messages: string[] = [];
    if (this.takeEventOccurrences(rs, 'FailedDelete', call.at, 1, sources, messages, call.round) > 0) {
      return { ok: false, error: (messages[0] ?? 'FailedDelete').replace(/^Error deleting: /, '') };
    }
    // Neither observed nor reported: the outcome is unknown (a later deletion or SuccessfulDelete is matched to it).
    if (this.ledger?.claimPod('delete', rsKey, key, call.round)) return { ok: true };
    this.ledger?.await(call.round, rsKey, 'delete', 1, call.at, [key]);
    return { ok: true, unknown: true };
  }

  getFreshReplicaSet(rs: ReplicaSet, at: number): ReplicaSet | { notFound: true } | { error: string } {
    const key = objectKey(rs.metadata);
    let fresh: ReplicaSet = rs;
    for (const e of this.indexed(`rs:${key}`, at, 0, { after: at + 1000, by: 'at' }) ?? this.window(at, 0)) {
      if (e.at > at + 1000) break;
      if (e.type !== 'observed' || e.kind !== 'ReplicaSet' || objectKey(e.object.metadata) !== key) continue;
      if (e.watchType === 'DELETED') return { notFound: true };
      fresh = e.object;
    }
    return fresh;
  }

  patchPod(pod: Pod, action: 'adopt' | 'release', at: number, round?: number, owner?: ReplicaSet): 'ok' | 'notfound' | 'invalid' | { error: string } {
    const key = objectKey(pod.metadata);
    const claim = (e: TimelineEvent) => {
      if (round !== undefined) this.ledger?.claimEvent(e, round);
    };
    let lostRace = false;
    for (const e of this.indexed(`pod:${key}`, at, 50) ?? this.window(at, 50)) {
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
      if (e.type === 'write' && e.resource === 'pods' && e.verb === 'patch' && `${e.namespace}/${e.name}` === key && e.actor.replicaSetController) {
        if (this.consumedWrites.has(e)) continue;
        // A successful adopt whose response names another ReplicaSet is that one's write.
        const written = e.status.code < 300 ? (e.responseObject as Pod | undefined)?.metadata : undefined;
        const writtenRef = written ? controllerRefOf(written) : undefined;
        if (action === 'adopt' && owner && writtenRef && writtenRef.uid !== owner.metadata.uid) continue;
        this.consumedWrites.add(e);
        claim(e);
        if (e.status.code === 404) return 'notfound';
        if (e.status.code === 422) return 'invalid';
        if (e.status.code >= 300) return { error: e.status.message ?? `HTTP ${e.status.code}` };
        return 'ok';
      }
    }
    return lostRace ? 'invalid' : 'ok';
  }

  informerBehindOwnWrites(rsKey: string): boolean {
    return (this.pendingOwnWrites.get(rsKey)?.size ?? 0) > 0;
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
