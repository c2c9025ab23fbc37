/**
 * The outcome of each create call of a round, read from the input: the create half of the
 * evidence oracle. The model's manageReplicas (pkg/controller/replicaset/replica_set.go) makes
 * its creates through slowStartBatch (1, 2, 4, … calls, stopping after the first batch with a
 * failure); the input shows them as:
 *
 * - audit: the ReplicaSet controller's pod create writes for this ReplicaSet, consumed batch by
 *   batch (201 ok; 403 with cause NamespaceTerminating counted as success; else a failed call);
 *   an audit log that records the controller's writes and shows none means the call was not made;
 * - watch: ADDs of new pods controlled by this ReplicaSet (each attributed to one round only),
 *   then SuccessfulCreate Event occurrences naming pods not yet seen, then FailedCreate
 *   occurrences, a terminating namespace, or the ReplicaFailure condition; with no evidence
 *   either way the call is taken as made and its outcome reported unknown.
 *
 * Contract: `createPod` answers PodControl.createPod, planning the whole round at its first
 * call; the round's evidence (basis, sources, pods) waits in `takeRoundEvidence` for the
 * engine. A round longer than the match window keeps running: `beforeSyncs` attributes its later
 * ADDs to it and reports through `onRoundProgress` how long its sync now lasts (and when the
 * status write that ends it arrives). `observePod` must see every delivered pod.
 *
 * Calls are judged by their request (issue #21 item 4): a round whose calls pause before all
 * are made, with no status write of its ReplicaSet to end its sync, is still running — its
 * calls are in flight (slowStartBatch waits for every call of a batch; a throttled or stalled
 * client, a slow apiserver or webhook holds them). The key stays busy (the real worker holds it
 * in processNextWorkItem until syncHandler returns) up to CALL_TIMEOUT_MS past the last call;
 * a create of the round requested meanwhile (audit: the controller's POST; watch: the pod's
 * ADD) is that round's call, made and completed late, and the pause is kept as its evidence
 * (`RoundEvidence.pause`, the slow-api-calls finding). The round ends at its status write or at
 * the bound; from an audit log that records the controller's writes the calls it never shows
 * were not made, and `onRoundCut` lowers the model's record by them (the real controller
 * counted fewer, or its client gave up).
 *
 * Cost: one scan (or indexed read) of the match window per round and a few per later ADD; state
 * per pod UID seen (the input's pods). Pure: no I/O, no clock.
 */
import type { CreateResult } from '../../model/controller/pod-control.js';
import { controllerRefOf, objectKey, type CoreEvent, type Pod, type ReplicaSet } from '../../model/objects.js';
import type { SourceRef, TimelineEvent, WriteEvent } from '../../timeline/event.js';
import type { Basis } from '../report-types.js';
import type { EventOccurrences } from './event-occurrences.js';
import { isRSControllerPodWrite, podOwnerUid, type EvidenceWindow } from './evidence-window.js';
import { messageOf, type WriteLedger } from './write-ledger.js';
import { REPLICA_SET_OWNER, type EngineOwnerKind } from './engine-controller.js';

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

/**
 * How long one API call of the controller can take before its client gives up: the
 * kube-apiserver answers a request it holds longer than its --request-timeout (default 1m,
 * k8s.io/apiserver pkg/server/config.go) with 504, and client-go's HTTP/2 health check
 * (k8s.io/apimachinery pkg/util/net/http.go: ReadIdleTimeout 30 s + PingTimeout 15 s) drops a
 * connection that stopped answering. A round's calls paused for less than this may still be in
 * flight; after it, they are not.
 */
export const CALL_TIMEOUT_MS = 60_000;

/** How far out of time order the look-ahead may deliver events (merged inputs, causal reorder): a scan for the earliest of something stops this far past the first it found. */
const DELIVERY_SLACK_MS = 5_000;

/** A pause in a round's calls: the calls before it, the calls after it, and how long they waited. */
export interface CallPause {
  /** When the last call before the pause was requested / the first after it (epoch ms). */
  from: number;
  until: number;
  /** The calls of the round made before the pause, and those made (completed late) after it. */
  before: number;
  after: number;
  /** Calls of the round neither side shows: not made (audit), or outcome unknown (watch). */
  missing: number;
  /** The longest time the apiserver took to answer one call of the round, when the input dates both ends (audit). */
  serverMaxMs?: number;
  /** The last call before the pause and the first after it. */
  lastBefore: SourceRef;
  firstAfter?: SourceRef;
  /** How the input shows the calls: the controller's requests (audit) or the pods' appearance (watch). */
  form: 'audit' | 'watch';
}

/** How the oracle answered one round, for the report. */
export interface RoundEvidence {
  basis: Basis;
  note?: string;
  sources: SourceRef[];
  /** Create rounds: pod keys attributed to the round. */
  pods?: string[];
  /** The round's calls paused longer than a call takes, and its sync held its key meanwhile. */
  pause?: CallPause;
}

/** A watch-evidenced creation round still running past the look-ahead window. */
interface RunningRound {
  rsUid: string;
  pending: number;
  lastDone: number;
  pods: string[];
  round: number;
  evidence?: RoundEvidence;
  /** The ReplicaSet's status as the sync saw it (a different status is the sync's status write). */
  status: string;
  /** Calls observed so far (ADDs, SuccessfulCreate Events). */
  made: number;
  /** Set once the round's ADDs paused longer than a call with no status write: its calls are in flight. */
  pause?: CallPause;
  /** The controller's recorder already combined this round's SuccessfulCreate Events (COMBINED_RE). */
  aggregated?: boolean;
}

/** A round whose calls paused with its sync still running (no status write ended it). */
interface StalledRound {
  rs: ReplicaSet;
  round: number;
  /** Calls of the round not yet shown. */
  rest: number;
  /** Calls shown before the pause. */
  before: number;
  /** Calls shown after it. */
  after: number;
  /** When the round's last call shown was requested; the round ends at it + CALL_TIMEOUT_MS unless a call comes. */
  lastCall: number;
  /** The ReplicaSet's status as the sync saw it (a different status is the sync's status write). */
  status: string;
  pause: CallPause;
  evidence: RoundEvidence;
  form: 'audit' | 'watch';
  serverMaxMs: number;
  /** The credential of the round's calls: a call with another is a new process's (restart-detector.ts), not this round's. */
  credential?: string;
}

/** What the create evidence asks the rest of the oracle. */
export interface CreateFacts {
  /** The input records the controller's pod writes themselves: a write it does not show was not made. */
  writesRecorded(): boolean;
  /** Whether the namespace is terminating, if the input showed it. */
  namespaceTerminating(ns: string): boolean | undefined;
  /** The modelled release creates in slow-start batches (v1.8+, version.ts slowStartBatch); absent: it does. */
  slowStartBatch?: boolean;
  /**
   * The modelled release counts a create that timed out (504) as made (version.ts
   * createTimeoutAsSuccess): the call returns no error, so its batch does not stop the round.
   */
  createTimeoutAsSuccess?: boolean;
}

/** Audit: is `e` a create of the ReplicaSet controller for this ReplicaSet (by owner, else generateName)? */
export function isCreateFor(e: TimelineEvent, rs: ReplicaSet, kind: EngineOwnerKind = REPLICA_SET_OWNER): e is WriteEvent {
  if (!isRSControllerPodWrite(e, 'create', kind.component) || e.namespace !== rs.metadata.namespace) return false;
  const owner = podOwnerUid(e.requestObject, kind.kind) ?? podOwnerUid(e.responseObject, kind.kind);
  if (owner !== undefined) return owner === rs.metadata.uid;
  return (e.requestObject as Pod | undefined)?.metadata?.generateName === `${rs.metadata.name}-`;
}

/** A round's plan while it is being made (the evidence found so far). */
interface Draft {
  rs: ReplicaSet;
  rsKey: string;
  n: number;
  at: number;
  round: number;
  sources: SourceRef[];
  pods: string[];
  plan: CreateResult[];
}

export class CreateEvidence {
  private readonly attributedPods = new Set<string>(); // pod uids attributed to a creation round
  /** Pods attributed to rounds but not yet delivered, per RS key (for the 1.36 consistency gate). */
  private readonly pendingOwnWrites = new Map<string, Set<string>>();
  private readonly roundPlans = new Map<number, CreateResult[]>();
  private readonly roundEvidence = new Map<number, RoundEvidence>();
  /**
   * Creation rounds still running past the look-ahead window (e.g. 500 creates throttled at
   * 20 qps take ~25 s): later ADDs of the ReplicaSet's new pods keep extending the sync.
   */
  private readonly runningRounds = new Map<string, RunningRound>();
  /** UIDs of every pod delivered so far (a later MODIFIED of one of them is not a create). */
  private readonly seenPods = new Set<string>();
  /** Keys (`namespace/name`) of pods attributed to a creation round by their ADD. */
  private readonly attributedPodKeys = new Set<string>();
  /** Pods whose create a round took from a SuccessfulCreate Event (their later ADD is the same write). */
  private readonly createdByEvent = new Set<string>();
  /** Rounds whose calls are done and whose sync now waits for its status write: key → deadline. */
  private readonly awaitingStatus = new Map<string, number>();

  constructor(
    private readonly window: EvidenceWindow,
    private readonly occurrences: EventOccurrences,
    private readonly facts: CreateFacts,
    private readonly ledger?: WriteLedger,
    /** Called when a running round's sync is seen to last longer (the engine extends the key's busy time). */
    private readonly onRoundProgress?: (rsKey: string, doneAt: number) => void,
    /** Called when a stalled round ends with `add` of its creates never made (the engine lowers the model's record). */
    private readonly onRoundCut?: (rsKey: string, add: number, at: number) => void,
    /** Logged starts of the controller (sorted): the process that made a round's calls died there. */
    private readonly controllerStarts: readonly number[] = [],
    /** Called when a watch-evidenced round's creates resume after a pause: from the last call before it to the first after. */
    private readonly onPauseResumed?: (rsKey: string, from: number, until: number, source: SourceRef) => void,
  ) {}

  /** Whether the controller's log shows a (re)start in (from, to]: calls after it are a new process's. */
  private restartedBetween(from: number, to: number): boolean {
    return this.controllerStarts.some((s) => s > from && s <= to);
  }

  /** Rounds whose calls paused with their sync still running, by ReplicaSet key. */
  private readonly stalled = new Map<string, StalledRound>();

  /** The evidence of `round`, handed over once (the engine records it on the round). */
  takeRoundEvidence(round: number): RoundEvidence | undefined {
    const ev = this.roundEvidence.get(round);
    this.roundEvidence.delete(round);
    return ev;
  }

  /** A pod (not a deletion) the engine delivers. */
  observePod(uid: string | undefined): void {
    if (uid) this.seenPods.add(uid);
    if (uid) {
      for (const [rsKey, set] of this.pendingOwnWrites) {
        if (set.delete(uid) && set.size === 0) this.pendingOwnWrites.delete(rsKey);
      }
    }
  }

  /** Whether the engine has delivered a pod with this UID. */
  seen(uid: string): boolean {
    return this.seenPods.has(uid);
  }

  informerBehindOwnWrites(rsKey: string): boolean {
    return (this.pendingOwnWrites.get(rsKey)?.size ?? 0) > 0;
  }

  /** PodControl.createPod; `forced` is the event the engine syncs at, if it forced the sync. */
  createPod(rs: ReplicaSet, call: { round: number; index: number; n: number; at: number }, forced: TimelineEvent | undefined): CreateResult {
    let plan = this.roundPlans.get(call.round);
    if (!plan) {
      // Rounds run one at a time: an earlier round's plan (ended early by a failure or an unmade call) is done.
      this.roundPlans.clear();
      plan = this.planCreates(rs, call.n, call.at, call.round, forced);
      this.roundPlans.set(call.round, plan);
    }
    const r = plan[call.index] ?? { ok: false, error: 'not attempted' };
    if (call.index === call.n - 1) this.roundPlans.delete(call.round);
    return r;
  }

  private planCreates(rs: ReplicaSet, n: number, at: number, round: number, forced: TimelineEvent | undefined): CreateResult[] {
    const d: Draft = { rs, rsKey: objectKey(rs.metadata), n, at, round, sources: [], pods: [], plan: [] };
    // 1. Audit writes by the ReplicaSet controller for this ReplicaSet.
    if (this.planFromAuditWrites(d)) return d.plan;
    // The audit log records the controller's creates and shows none for this round: not made.
    if (this.facts.writesRecorded()) {
      this.roundEvidence.set(round, { basis: 'observed', sources: d.sources, pods: d.pods, note: 'the audit log shows no create of this round' });
      return [{ ok: false, unmade: true }];
    }
    // 2. Watch evidence: ADDs of new pods controlled by this RS.
    return this.planFromWatch(d, forced);
  }

  /**
   * Audit: the controller's create writes, consumed batch by batch like slowStartBatch: 1, 2, 4,
   * … calls (before v1.8 one batch of all n); the round stops after the first batch with a
   * failure, and a pause longer than a call between writes ends it too. False when the window
   * holds none (the plan stays empty).
   */
  private planFromAuditWrites(d: Draft): boolean {
    const { rs, n, at, round, sources, pods, plan } = d;
    let batch = Math.min(n, this.facts.slowStartBatch === false ? n : 1);
    let inBatch = 0;
    let batchFailed = false;
    let lastWrite = at;
    let stoppedByFailure = false;
    const taken: WriteEvent[] = [];
    // An owner whose sync ends at its status write: a create requested after it is a later sync's.
    const statusWrite = this.window.ownStatusWriteAfter(d.rsKey, at);
    const endsBy = statusWrite ? (statusWrite.receivedAt ?? statusWrite.at) : Infinity;
    // (its stop conditions only look at matching writes: the index gives exactly those)
    for (const e of this.window.indexed(`rscw:create:${rs.metadata.namespace}`, at, 50) ?? this.window.scan(at, 50)) {
      if (plan.length >= n) break;
      if (!isCreateFor(e, rs, this.window.owner) || this.window.taken(e)) continue;
      // Matched by the request's start: a create answered after a long wait (504) is the same call.
      if ((e.receivedAt ?? e.at) > lastWrite + MAX_WATCH_CALL_MS || (e.receivedAt ?? e.at) > endsBy) break;
      lastWrite = Math.max(lastWrite, e.receivedAt ?? e.at);
      this.window.take(e);
      this.ledger?.claimEvent(e, round);
      sources.push(e.source);
      taken.push(e);
      const code = e.status.code;
      if (code >= 200 && code < 300) {
        const uid = (e.responseObject as Pod | undefined)?.metadata?.uid;
        if (uid) this.attributedPods.add(uid);
        const name = (e.responseObject as Pod | undefined)?.metadata?.name;
        if (name) pods.push(`${rs.metadata.namespace}/${name}`);
        plan.push({ ok: true, pod: name, doneAt: e.at });
      } else {
        const nsTerm = (e.status.causes ?? []).some((c) => c.type === 'NamespaceTerminating');
        const timeout = isTimeoutStatus(e.status);
        // A swallowed error (namespace terminating; a timeout before v1.18) is no failure to slowStartBatch.
        if (!nsTerm && !(timeout && this.facts.createTimeoutAsSuccess)) batchFailed = true;
        plan.push({ ok: false, error: e.status.message ?? `HTTP ${code}`, namespaceTerminating: nsTerm, timeout, doneAt: e.at });
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
    if (plan.length === 0) return false;
    const lastCall = Math.max(at, ...plan.map((r) => r.doneAt ?? at));
    let note: string | undefined;
    if (plan.length < n && !stoppedByFailure) {
      const rest = n - plan.length;
      // Writes up to the end of the window and more input to come: a round longer than the
      // window (throttled creates); its later writes are claimed as they arrive.
      const running = !this.window.exhausted() && lastWrite + MAX_WATCH_CALL_MS >= at + this.window.matchWindowMs;
      if (running) {
        note = `round still running after ${this.window.matchWindowMs} ms; ${rest} later create(s) are matched as they arrive`;
        this.ledger?.await(round, d.rsKey, 'create', rest, at, undefined, lastWrite);
        for (let i = 0; i < rest; i++) plan.push({ ok: true, unknown: true });
      } else if (this.stallsAfter(rs, lastWrite, taken[taken.length - 1]?.actor.credential)) {
        // No status write ended the sync: its other calls are in flight (a stalled or throttled
        // client, a slow apiserver); they are this round's calls whenever their requests arrive.
        note = `the controller's creates paused after ${plan.length} of ${n} with its sync still running (no status write): the rest are matched as their requests arrive, within ${CALL_TIMEOUT_MS / 1000} s`;
        this.ledger?.await(round, d.rsKey, 'create', rest, at, undefined, lastWrite);
        for (let i = 0; i < rest; i++) plan.push({ ok: true, unknown: true });
        const evidence: RoundEvidence = { basis: 'observed', sources, pods, note };
        const serverMaxMs = Math.max(0, ...taken.map((e) => e.at - (e.receivedAt ?? e.at)));
        this.stalled.set(d.rsKey, {
          rs, round, rest, before: n - rest, after: 0, lastCall: lastWrite, status: statusOf(rs), evidence, form: 'audit', serverMaxMs, credential: taken[taken.length - 1]?.actor.credential,
          pause: { from: lastWrite, until: lastWrite, before: n - rest, after: 0, missing: rest, lastBefore: sources[sources.length - 1]!, form: 'audit' },
        });
        this.roundEvidence.set(round, evidence);
        // The sync holds its key until its calls return, at most the call timeout.
        plan[plan.length - 1]!.doneAt = lastWrite + CALL_TIMEOUT_MS;
        return true;
      } else {
        note = `the audit log shows ${plan.length} of the ${n} creates kexp predicted; the controller made no more (its count of pods differed from kexp's)`;
        plan.push({ ok: false, unmade: true });
      }
    }
    this.roundEvidence.set(round, { basis: 'observed', sources, pods, ...(note ? { note } : {}) });
    // An owner whose sync ends at its status write: that write, answered by the oracle when the
    // model makes it (ownerStatusWrite), ends the sync — the calls end at the last create.
    if (plan.some((r) => r.ok) && !this.window.owner.syncEndsAtStatusWrite) {
      // Pods were created, so the sync still writes status (an RS-controller update of replicasets/status) before it is done.
      this.awaitingStatus.set(d.rsKey, lastCall + STATUS_WRITE_MS);
      plan[plan.length - 1]!.doneAt = lastCall + STATUS_WRITE_MS;
    }
    while (plan.length < n) plan.push({ ok: false, error: 'not attempted' });
    return true;
  }

  /** Watch: the ADDs of the round's new pods, then what else the input says of the rest. */
  private planFromWatch(d: Draft, forced: TimelineEvent | undefined): CreateResult[] {
    const { rs, rsKey, n, at, round, sources, pods, plan } = d;
    const pending = new Set<string>();
    let lastDone = at;
    // Only pods controlled by this UID pass the filter below (an RS without a UID matches pods with none: scan).
    const adds = rs.metadata.uid ? this.window.indexed(`own:${rs.metadata.uid}`, at, 0) : undefined;
    for (const e of adds ?? this.window.scan(at, 0)) {
      if (plan.length >= n) break;
      if (e.type !== 'observed' || e.kind !== 'Pod' || e.watchType === 'DELETED') continue;
      const p = e.object;
      const uid = p.metadata.uid;
      if (!uid || this.attributedPods.has(uid) || this.seenPods.has(uid)) continue; // a pod already known is not a new one
      if (podOwnerUid(p, this.window.owner.kind) !== rs.metadata.uid) continue;
      if (this.createdByEvent.has(objectKey(p.metadata))) continue; // taken from its SuccessfulCreate Event
      const created = p.metadata.creationTimestamp ? Date.parse(p.metadata.creationTimestamp) : undefined;
      if (e !== forced && created !== undefined && created < Math.floor(at / 1000) * 1000 - 1000) continue; // an older pod
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
    const { basis, note } = this.planUnobserved(d);
    const awaited = plan.slice(observedBefore).filter((r) => r.ok).length;
    if (awaited > 0 && !this.window.exhausted() && rs.metadata.uid) {
      this.runningRounds.set(rsKey, { rsUid: rs.metadata.uid, pending: awaited, lastDone, pods, round, status: statusOf(rs), made: plan.length - awaited });
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
   * Watch: the calls no pod ADD showed — SuccessfulCreate Events, FailedCreate Events, a
   * terminating namespace, the ReplicaFailure condition, or else an unknown outcome.
   */
  private planUnobserved(d: Draft): { basis: Basis; note?: string } {
    const { rs, rsKey, n, at, round, sources, pods, plan } = d;
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
      const failures = this.occurrences.takeWarnings(rs, 'FailedCreate', at, missing, sources, messages, round);
      const nsTerm = this.facts.namespaceTerminating(rs.metadata.namespace ?? '');
      for (let i = 0; i < failures; i++) {
        const error = (messages[i] ?? 'FailedCreate').replace(/^Error creating: /, '');
        plan.push({ ok: false, error, timeout: TIMEOUT_MESSAGE_RE.test(error) });
      }
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
            : this.window.exhausted()
              ? `${rest} create(s) not shown by the input before it ends (no pod ADD, no SuccessfulCreate or FailedCreate Event)`
              : `${rest} create(s) without a pod ADD or a create Event within ${this.window.matchWindowMs} ms: outcome unknown`;
          this.ledger?.await(round, rsKey, 'create', rest, at);
          for (let i = 0; i < rest; i++) plan.push({ ok: true, unknown: true });
        }
      }
    }
    return { basis, note };
  }

  /**
   * Pods named by SuccessfulCreate Event occurrences about this ReplicaSet inside the window
   * whose pods no round has yet (at most `max`); the occurrences are consumed and claimed.
   */
  private takeCreatedEvents(rs: ReplicaSet, at: number, max: number, sources: SourceRef[], pods: string[], round: number): string[] {
    const out: string[] = [];
    for (const e of this.window.indexed(`ev:${rs.metadata.namespace}/${rs.metadata.name}`, at, 1000) ?? this.window.scan(at, 1000)) {
      if (out.length >= max) break;
      if (e.type !== 'observed' || e.kind !== 'Event' || e.watchType === 'DELETED' || e.object.reason !== 'SuccessfulCreate') continue;
      const io = e.object.involvedObject;
      if (!io || io.kind !== this.window.owner.kind || io.name !== rs.metadata.name || io.namespace !== rs.metadata.namespace) continue;
      if (io.uid && rs.metadata.uid && io.uid !== rs.metadata.uid) continue;
      const m = /Created pod: (\S+)/.exec(messageOf(e.object, ''));
      if (!m) continue;
      const pod = `${rs.metadata.namespace}/${m[1]}`;
      if (pods.includes(pod) || this.createdByEvent.has(pod) || this.attributedPodKeys.has(pod)) continue;
      if (this.occurrences.take(e.object, 1) <= 0) continue;
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
   * The message of a ReplicaFailure condition with `reason` on the ReplicaSet as cached, or
   * on its next state within the window (the status write of this very sync).
   */
  private replicaFailure(rs: ReplicaSet, at: number, reason: string): string | undefined {
    const cond = (r: ReplicaSet) => (r.status?.conditions ?? []).find((c) => c.type === 'ReplicaFailure' && c.status === 'True' && c.reason === reason);
    const key = objectKey(rs.metadata);
    for (const e of this.window.indexed(`rs:${key}`, at, 0) ?? this.window.scan(at, 0)) {
      if (e.type === 'observed' && e.kind === 'ReplicaSet' && objectKey(e.object.metadata) === key && e.watchType !== 'DELETED') {
        const c = cond(e.object);
        return c ? (c.message ?? reason) : undefined;
      }
    }
    const c = cond(rs);
    return c ? (c.message ?? reason) : undefined;
  }

  /**
   * Called for each event before the syncs due ahead of it run: an ADD that continues a
   * running creation round (a new pod of the ReplicaSet arriving within MAX_WATCH_CALL_MS
   * of the previous one) is attributed to it and extends the sync's duration.
   */
  beforeSyncs(e: TimelineEvent): void {
    if (e.type === 'observed' && e.kind === 'Event' && e.watchType === 'ADDED' && e.object.reason === 'SuccessfulCreate') this.noteCreateEvent(e);
    if (this.stalled.size > 0) this.stalledBefore(e);
    if (this.runningRounds.size > 0) this.pausesBefore(e);
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
    const owner = podOwnerUid(p, this.window.owner.kind);
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
    if (e.at > r.lastDone + (r.pause ? CALL_TIMEOUT_MS : MAX_WATCH_CALL_MS) || this.restartedBetween(r.lastDone, e.at)) {
      this.runningRounds.delete(key);
      return;
    }
    if (r.pause && r.pause.after === 0 && ((r.aggregated && this.freshCreateEventNear(e.at, key)) || this.newRecorderAfter(key, r.pause.from, e.at))) {
      // The Events of the calls after the pause are no longer aggregated: a new process made them.
      this.runningRounds.delete(key);
      this.onRoundProgress?.(key, r.lastDone + MAX_WATCH_CALL_MS);
      return;
    }
    if (r.pause) {
      const created = p.metadata.creationTimestamp ? Date.parse(p.metadata.creationTimestamp) : undefined;
      if (r.pause.after === 0 && created !== undefined && created < Math.floor(r.pause.from / 1000) * 1000 + 1000) {
        // Created within the second of the last call before the pause: the call was made then
        // and only its pod arrived late (the watch lagged), so no call paused.
        r.pause = undefined;
      } else {
        if (r.pause.after === 0) {
          r.pause.until = e.at;
          r.pause.firstAfter = e.source;
          this.onPauseResumed?.(key, r.pause.from, e.at, e.source);
        }
        r.pause.after++;
      }
    }
    this.attributedPods.add(uid);
    this.attributedPodKeys.add(podKey);
    this.ledger?.claimEvent(e, r.round);
    r.lastDone = e.at;
    r.made++;
    r.pods.push(podKey);
    if (--r.pending <= 0) {
      this.runningRounds.delete(key);
      // Every create of the round has now been observed: the outcome is no longer a guess.
      if (r.evidence) {
        r.evidence.basis = 'inferred';
        r.evidence.note = undefined;
        if (r.pause) this.notePause(r.evidence, r.pause, 0);
      }
      this.awaitingStatus.set(key, e.at + STATUS_WRITE_MS);
      this.onRoundProgress?.(key, e.at + STATUS_WRITE_MS);
    } else this.onRoundProgress?.(key, e.at + MAX_WATCH_CALL_MS);
  }

  /**
   * Watch-evidenced running rounds: the ReplicaSet's status write ends the sync; ADDs pausing
   * longer than a call with no status write mean its calls are in flight — the key stays busy up
   * to CALL_TIMEOUT_MS past the last one; past that bound the round is over.
   */
  private pausesBefore(e: TimelineEvent): void {
    for (const [key, r] of this.runningRounds) {
      if (!r.pause && isCreateEventOf(e, key) && COMBINED_RE.test(e.object.message ?? '')) r.aggregated = true;
      if (isStatusWriteOf(e, key, r.status)) {
        this.runningRounds.delete(key);
        if (r.pause && r.evidence && r.pause.after > 0) this.notePause(r.evidence, r.pause, r.pending);
        this.onRoundProgress?.(key, e.at);
        continue;
      }
      if (e.at > r.lastDone + CALL_TIMEOUT_MS || this.restartedBetween(r.lastDone, e.at)) {
        this.runningRounds.delete(key);
        if (r.pause && r.evidence && r.pause.after > 0) this.notePause(r.evidence, r.pause, r.pending);
        continue;
      }
      if (e.at > r.lastDone + MAX_WATCH_CALL_MS && (!r.pause || r.pause.after > 0)) {
        // A (further) pause: the sync still runs, its calls in flight.
        if (!r.pause) {
          // Only a round whose pods were appearing paused; one known from its Events alone did not.
          if (r.made === 0) continue;
          const last = r.evidence?.sources[r.evidence.sources.length - 1];
          if (!last) continue;
          r.pause = { from: r.lastDone, until: r.lastDone, before: r.made, after: 0, missing: r.pending, lastBefore: last, form: 'watch' };
        }
        this.onRoundProgress?.(key, r.lastDone + CALL_TIMEOUT_MS);
      }
      if (r.pause && r.pause.after === 0 && r.aggregated && isFreshCreateEvent(e, key)) {
        // The controller's Events are no longer aggregated: a new EventCorrelator, a new
        // kube-controller-manager process. The round died with the old one at its pause.
        this.runningRounds.delete(key);
        this.onRoundProgress?.(key, r.lastDone + MAX_WATCH_CALL_MS);
        continue;
      }
    }
  }

  /**
   * Audit-evidenced stalled rounds: a create of the round's ReplicaSet requested before the
   * bound is the round's call, made and completed late; the status write, or the bound, ends it.
   */
  private stalledBefore(e: TimelineEvent): void {
    for (const [key, r] of this.stalled) {
      if (e.type === 'write' && isCreateFor(e, r.rs, this.window.owner) && !this.window.taken(e) && (e.receivedAt ?? e.at) <= r.lastCall + CALL_TIMEOUT_MS && !this.restartedBetween(r.lastCall, e.receivedAt ?? e.at) &&
        (r.credential === undefined || e.actor.credential === undefined || e.actor.credential === r.credential)) {
        this.window.take(e);
        this.ledger?.claimEvent(e, r.round);
        r.evidence.sources.push(e.source);
        const name = (e.responseObject as Pod | undefined)?.metadata?.name;
        if (name && e.status.code >= 200 && e.status.code < 300) r.evidence.pods?.push(`${r.rs.metadata.namespace}/${name}`);
        const uid = (e.responseObject as Pod | undefined)?.metadata?.uid;
        if (uid) this.attributedPods.add(uid);
        if (r.pause.after === 0) {
          r.pause.until = e.receivedAt ?? e.at;
          r.pause.firstAfter = e.source;
        }
        r.pause.after++;
        r.serverMaxMs = Math.max(r.serverMaxMs, e.at - (e.receivedAt ?? e.at));
        r.lastCall = Math.max(r.lastCall, e.receivedAt ?? e.at);
        if (--r.rest <= 0) {
          this.stalled.delete(key);
          this.endStalled(r, 0);
          this.awaitingStatus.set(key, e.at + STATUS_WRITE_MS);
          this.onRoundProgress?.(key, e.at + STATUS_WRITE_MS);
        } else this.onRoundProgress?.(key, r.lastCall + CALL_TIMEOUT_MS);
        return;
      }
      const ended = isStatusWriteOf(e, key, r.status) ? e.at : e.at > r.lastCall + CALL_TIMEOUT_MS ? r.lastCall + CALL_TIMEOUT_MS : undefined;
      if (ended === undefined) continue;
      // The sync ended with calls the audit log never shows: they were not made.
      this.stalled.delete(key);
      this.endStalled(r, r.rest);
      this.onRoundCut?.(key, r.rest, ended);
      this.onRoundProgress?.(key, ended);
    }
  }

  private endStalled(r: StalledRound, missing: number): void {
    r.pause.missing = missing;
    if (r.pause.after > 0) {
      if (r.serverMaxMs > 0) r.pause.serverMaxMs = r.serverMaxMs;
      this.notePause(r.evidence, r.pause, missing);
    } else {
      r.evidence.note = `the audit log shows ${r.before} of the ${r.before + missing} creates kexp predicted and no other before the sync ended; the controller made no more (its count of pods differed from kexp's, or its client gave up)`;
    }
  }

  /** Whether the look-ahead from `at` holds a SuccessfulCreate of `key` its recorder did not aggregate. */
  /** Per ReplicaSet key: the times of the controller's new SuccessfulCreate Events (the last AGGREGATE_WINDOW_MS). */
  private readonly createEventTimes = new Map<string, number[]>();

  private noteCreateEvent(e: TimelineEvent & { type: 'observed'; kind: 'Event' }): void {
    const io = e.object.involvedObject;
    if (!io) return;
    const key = `${io.namespace}/${io.name}`;
    let ts = this.createEventTimes.get(key);
    if (!ts) this.createEventTimes.set(key, (ts = []));
    ts.push(e.at);
    while (ts.length > 0 && ts[0]! < e.at - AGGREGATE_WINDOW_MS) ts.shift();
  }

  /**
   * The Events after a pause come from a new event recorder (a new process): client-go's
   * EventAggregator (tools/record/events_cache.go: defaultAggregateMaxEvents 10 similar events
   * in defaultAggregateIntervalInSeconds 600 s) would combine the (10 − k + 1)-th of them when
   * the same process had already recorded k similar ones before the pause; more fresh,
   * uncombined SuccessfulCreate Events than that after it mean a recorder that started anew.
   */
  private newRecorderAfter(key: string, pauseFrom: number, at: number): boolean {
    const before = (this.createEventTimes.get(key) ?? []).filter((t) => t <= pauseFrom && t >= pauseFrom - AGGREGATE_WINDOW_MS).length;
    if (before === 0) return false;
    const allowed = AGGREGATE_MAX_EVENTS - before;
    let fresh = 0;
    for (const x of this.window.scan(at, 0)) {
      if (!isCreateEventOf(x, key) || x.watchType !== 'ADDED') continue;
      if (COMBINED_RE.test(x.object.message ?? '')) return false;
      if (++fresh > allowed) return true;
    }
    return false;
  }

  private freshCreateEventNear(at: number, key: string): boolean {
    for (const e of this.window.scan(at, 0)) if (isFreshCreateEvent(e, key)) return true;
    return false;
  }

  /** The round's note once its pause is known: one round, its late calls made. */
  private notePause(ev: RoundEvidence, pause: CallPause, missing: number): void {
    ev.pause = { ...pause, missing };
    const secs = ((pause.until - pause.from) / 1000).toFixed(1);
    const how = pause.form === 'audit' ? 'requested' : 'seen';
    ev.note = `one round: its calls paused ${secs} s after ${pause.before} create(s); ${pause.after} more were ${how} after the pause — made, completed late — while its sync held the key` +
      (missing > 0 ? `; ${missing} ${pause.form === 'audit' ? 'never requested (not made)' : 'not shown (outcome unknown)'}` : '');
  }

  /**
   * After the round's last call at `after`, what the look-ahead shows first within the call
   * timeout: the ReplicaSet's status written (the sync ended: 'ended'), another create of the
   * round's ReplicaSet (its calls resumed: 'resumed'), or neither ('unseen'; the look-ahead may
   * not reach that far).
   */
  private stallsAfter(rs: ReplicaSet, after: number, credential: string | undefined): boolean {
    const next = this.afterPause(rs, after, credential);
    return next === 'resumed' || (next === 'unseen' && !this.window.exhausted());
  }

  private afterPause(rs: ReplicaSet, after: number, credential: string | undefined): 'ended' | 'resumed' | 'unseen' {
    const key = objectKey(rs.metadata);
    const status = statusOf(rs);
    let first: { at: number; what: 'ended' | 'resumed' } | undefined;
    for (const e of this.window.upcoming()) {
      // The buffer is in delivery order, not strictly by time: stop well past the bound, or well
      // past the first answer found (an earlier one could only come within the reorder slack).
      if (e.at > after + 2 * CALL_TIMEOUT_MS || (first && e.at > first.at + DELIVERY_SLACK_MS)) break;
      if (e.at <= after || e.at > after + CALL_TIMEOUT_MS || (first && e.at >= first.at)) continue;
      if (isStatusWriteOf(e, key, status)) first = { at: e.at, what: 'ended' };
      else if (e.type === 'write' && isCreateFor(e, rs, this.window.owner) && !this.window.taken(e)) first = { at: e.at, what: !this.restartedBetween(after, e.receivedAt ?? e.at) && (credential === undefined || e.actor.credential === undefined || e.actor.credential === credential) ? 'resumed' : 'ended' };
    }
    return first?.what ?? 'unseen';
  }

}

/**
 * apierrors.IsTimeout (k8s.io/apimachinery/pkg/api/errors): a Status with reason `Timeout`, which
 * the apiserver answers with 504 ("the server was unable to return a response in the time
 * allotted, but may still be processing the request").
 */
function isTimeoutStatus(status: { code: number; reason?: string }): boolean {
  return status.reason === 'Timeout' || status.code === 504;
}

/** NewTimeoutError's message, as a FailedCreate Event quotes it. */
const TIMEOUT_MESSAGE_RE = /the server was unable to return a response in the time allotted/;

/** The status of a ReplicaSet as a comparable string. */
function statusOf(rs: ReplicaSet): string {
  return JSON.stringify(rs.status ?? {});
}

/**
 * Whether `e` shows the status of ReplicaSet `key` written (updateReplicaSetStatus ends every
 * sync that changes it): the controller's status write (audit, any outcome), or the ReplicaSet
 * observed with a status other than `status`.
 */
function isStatusWriteOf(e: TimelineEvent, key: string, status: string): boolean {
  if (e.type === 'write') return e.resource === 'replicasets' && e.subresource === 'status' && `${e.namespace}/${e.name}` === key && e.actor.controller !== undefined;
  return e.type === 'observed' && e.kind === 'ReplicaSet' && e.watchType === 'MODIFIED' && objectKey(e.object.metadata) === key && JSON.stringify(e.object.status ?? {}) !== status;
}

/**
 * client-go's EventAggregator (tools/record/events_cache.go, defaultAggregateMaxEvents) turns
 * the 10th similar Event of one source within 10 minutes into "(combined from similar events)":
 * once a round's Events were combined, a SuccessfulCreate that is not comes from a new
 * recorder, i.e. a new kube-controller-manager process.
 */

const COMBINED_RE = /^\(combined from similar events\)/;

/** client-go tools/record/events_cache.go: defaultAggregateMaxEvents, defaultAggregateIntervalInSeconds. */
const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATE_WINDOW_MS = 600_000;

/** A SuccessfulCreate Event (new or updated) of the ReplicaSet `key`. */
function isCreateEventOf(e: TimelineEvent, key: string): e is TimelineEvent & { type: 'observed'; kind: 'Event'; object: CoreEvent } {
  if (e.type !== 'observed' || e.kind !== 'Event' || e.watchType === 'DELETED' || e.object.reason !== 'SuccessfulCreate') return false;
  const io = e.object.involvedObject;
  return !!io && `${io.namespace}/${io.name}` === key;
}

/** A new SuccessfulCreate Event of the ReplicaSet `key` that its recorder did not aggregate. */
function isFreshCreateEvent(e: TimelineEvent, key: string): boolean {
  return isCreateEventOf(e, key) && e.watchType === 'ADDED' && !COMBINED_RE.test(e.object.message ?? '');
}
