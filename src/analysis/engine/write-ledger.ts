/**
 * The write ledger: every pod write of the ReplicaSet controller that the input shows, entered
 * once, and what explains it. This is where the model's predictions meet the evidence:
 *
 * - the engine enters every event as it joins the look-ahead buffer (`enter`), so a write has
 *   its identity before any sync looks for it;
 * - the evidence oracle, answering the model's API calls for a round, claims the writes it
 *   used (`claimEvent`, `claimEventOccurrences`, `claimPod`); a write not yet entered (a
 *   SuccessfulDelete Event arriving after the window) is claimed when it enters;
 * - a round whose outcome the input could not tell registers what it still awaits
 *   (`await`), and a matching write observed later is claimed by it as `late`;
 * - whatever stays unclaimed when it is delivered is unexplained: the engine forces a sync at
 *   that moment (the real controller evidently synced) and, if the model still would not have
 *   written, records why (`explain`), which becomes a divergence finding.
 *
 * What counts as one write depends on what the input records:
 * - audit logs (`mode: 'audit'`): the controller's own pod requests — create, delete, and the
 *   ownerReference patches of adopt/release — one per request, whatever its status;
 * - watch inputs (`mode: 'watch'`): a pod that appears inside the input with a controllerRef
 *   to a ReplicaSet (a create), a pod whose controllerRef is set or removed by a MODIFIED
 *   (adopt / release), and the controller's Events — each occurrence of SuccessfulCreate,
 *   FailedCreate, SuccessfulDelete, FailedDelete. A SuccessfulCreate naming a pod and that
 *   pod's appearance are one write; aggregated occurrences that name no pod are merged with
 *   an appearance of the same ReplicaSet within MERGE_MS at the end.
 *
 * Accounting identity per ReplicaSet: writes = in rounds + in findings (unexplained).
 * Pure: no I/O, no clock.
 */
import { controllerRefOf, objectKey, type CoreEvent, type Pod } from '../../model/objects.js';
import { labelSelectorMatches } from '../../model/selector.js';
import type { ReplicaSet } from '../../model/objects.js';
import type { ObservedEvent, SourceRef, TimelineEvent, WriteEvent } from '../../timeline/event.js';
import { REPLICA_SET_OWNER, type EngineOwnerKind } from './engine-controller.js';

export type WriteKind = 'create' | 'delete' | 'adopt' | 'release';
export type WriteOutcome = 'ok' | 'failed' | 'namespace-terminating' | 'not-found';
export type WriteForm = 'audit' | 'pod' | 'event';

/** Why a write no round explains happened, as far as the input tells. */
export type DivergenceKind =
  /** The model's record for the key was unfulfilled and not expired: the real controller had none (restart, or a record kexp got wrong). */
  | 'while-gated'
  /** Same, and the controller's credential changed since the record was set: kube-controller-manager restarted. */
  | 'after-restart'
  /** The model's count says the ReplicaSet had enough pods: the controller counted fewer (stale cache). */
  | 'surplus-create'
  /** Same, more than 5 minutes after the controller's last Set raised creates: that record expired while its informer had not delivered them (kubernetes#129795). */
  | 'expired-over-create'
  /** The model's count says there was no surplus: the controller counted more (a lost or clobbered record, a stale cache). */
  | 'extra-delete'
  /** An adopt or release the model's ClaimObject did not make at that moment. */
  | 'unexpected-claim'
  /** An adopt of a pod the controller had already adopted, its owner unchanged since: its informer had not delivered its own first adoption (a no-op PATCH). */
  | 'repeat-adopt'
  /** The model's ReplicaSet had a deletionTimestamp (its sync writes no pod): the controller's cache had not seen the deletion request. */
  | 'owner-deleting'
  /** The ReplicaSet is not in the model (object missing from the input, or deleted): nothing to compare with. */
  | 'no-model'
  /** The model was mid-sync for the key (its calls still running) and the write did not fit the round. */
  | 'outside-round';

export interface ControllerWrite {
  id: number;
  rsKey: string;
  kind: WriteKind;
  outcome: WriteOutcome;
  /** `namespace/name` of the pod when the input names it. */
  pod?: string;
  podUid?: string;
  /** Time of the write: the request's start for audit records, else the first evidence. */
  at: number;
  forms: WriteForm[];
  sources: SourceRef[];
  error?: string;
  /** Model round number that explains it. */
  round?: number;
  /** Claimed by a round whose outcome was unknown, after the match window: the observation lag. */
  lateMs?: number;
  /** Set when no round explains it. */
  divergence?: { kind: DivergenceKind; detail: string };
  /** Aggregated Event occurrence without a pod name (merged at the end when possible). */
  unnamed?: boolean;
  /** Adopt/release: the pod already had a deletionTimestamp (ClaimObject never adopts such a pod). */
  podTerminating?: boolean;
  /**
   * Audit adopt: the controller's own earlier adoption of this pod, with no owner change shown
   * since — this PATCH found the ownerReference already there (a no-op). `at` its request, `doneAt`
   * its response (the audit stage time).
   */
  repeatOf?: { at: number; doneAt: number; source: SourceRef };
  /** When the input first showed the written pod itself (its ADD; the write for audit records). */
  observedAt?: number;
  /**
   * Writes this entry stands for (default 1): an Event whose count jumps by more than
   * MAX_OCCURRENCES in one observation keeps the rest as one entry, so a huge count costs O(1).
   */
  count?: number;
}

/** Occurrences of one Event observation entered one by one; the rest become one counted entry. */
export const MAX_OCCURRENCES = 1000;

/** How many writes `w` stands for. */
export function writeCount(w: ControllerWrite): number {
  return w.count ?? 1;
}

interface PodMemo {
  uid?: string;
  ownerUid?: string;
  ownerName?: string;
  labels?: Record<string, string> | null;
}

interface RsMemo {
  key: string;
  rs: ReplicaSet;
}

interface Awaiting {
  round: number;
  rsKey: string;
  kind: 'create' | 'delete';
  remaining: number;
  at: number;
  /** Time of the round's latest write seen so far (a round's own writes follow each other closely). */
  lastAt: number;
  pods?: Set<string>;
}

/**
 * A write itself (an audit record, the controller's Event) can only belong to a round still
 * making calls: at most this long after the round's previous write. A pod's appearance can
 * come any time later (informer or recorder lag).
 */
export const ROUND_CHAIN_MS = 2000;

/** Aggregated Event occurrences and the appearance they stand for lie within this of each other. */
export const MERGE_MS = 10_000;

const CREATED_RE = /Created pod: (\S+)/;
const DELETED_RE = /Deleted pod: (\S+)/;

/** An Event's message, or `fallback` when it is missing or not a string. */
export function messageOf(ev: CoreEvent, fallback: string): string {
  return typeof ev.message === 'string' ? ev.message : fallback;
}

function isControllerEvent(ev: CoreEvent, component: string): boolean {
  const c = ev.source?.component ?? ev.reportingComponent;
  return c === undefined || c === component;
}

export class WriteLedger {
  readonly writes: ControllerWrite[] = [];
  private nextId = 1;
  /** The write each event is evidence of (an Event with a count increment may stand for several). */
  private readonly byEvent = new WeakMap<TimelineEvent, ControllerWrite[]>();
  /** Named writes: `kind|rsKey|podKey` → write, to merge the forms of one write. */
  private readonly byName = new Map<string, ControllerWrite>();
  /** Claims made before the write entered: `kind|rsKey|podKey` → round. */
  private readonly pendingClaims = new Map<string, number>();
  private readonly pods = new Map<string, PodMemo>();
  private readonly rsByUid = new Map<string, RsMemo>();
  private readonly eventCounts = new Map<string, number>();
  private awaiting: Awaiting[] = [];
  /** Earliest time entered (the input's start, for "created inside the input"). */
  private start?: number;

  constructor(
    readonly mode: 'audit' | 'watch',
    private readonly coverageStart?: () => number | undefined,
    /** The owner kind whose writes are accounted (its pods' controllerRef kind, its component). */
    private readonly owner: EngineOwnerKind = REPLICA_SET_OWNER,
  ) {}

  /** Registers the writes `e` is evidence of. Called in time order, as events join the look-ahead. */
  enter(e: TimelineEvent): void {
    this.start ??= Math.min(e.at, this.coverageStart?.() ?? Infinity);
    if (e.type === 'write') {
      if (this.mode === 'audit') this.enterAuditWrite(e);
      return;
    }
    if (e.type !== 'observed') return;
    if (!(e.object as { metadata?: unknown } | undefined)?.metadata) return; // shapes are checked at delivery
    if (e.kind === 'ReplicaSet') {
      const uid = e.object.metadata.uid;
      if (uid) this.rsByUid.set(uid, { key: objectKey(e.object.metadata), rs: e.object });
      return;
    }
    if (e.kind === 'Pod') {
      this.enterPod(e as ObservedEvent & { kind: 'Pod' });
      return;
    }
    if (e.kind === 'Event' && this.mode === 'watch' && e.watchType !== 'DELETED') this.enterEvent(e as ObservedEvent & { kind: 'Event' });
  }

  private add(e: TimelineEvent, w: Omit<ControllerWrite, 'id' | 'forms' | 'sources'>, form: WriteForm): ControllerWrite {
    const nameKey = w.pod && !w.unnamed ? `${w.kind}|${w.rsKey}|${w.pod}` : undefined;
    const existing = nameKey ? this.byName.get(nameKey) : undefined;
    // A second form of the same write (a pod's appearance and its SuccessfulCreate), unless the
    // pod is a new one under a reused name.
    if (existing && (!w.podUid || !existing.podUid || existing.podUid === w.podUid) && !existing.forms.includes(form)) {
      existing.forms.push(form);
      existing.sources.push(e.source);
      existing.podUid ??= w.podUid;
      if (w.observedAt !== undefined) existing.observedAt ??= w.observedAt;
      if (w.at < existing.at) existing.at = w.at;
      this.link(e, existing);
      return existing;
    }
    const full: ControllerWrite = { ...w, id: this.nextId++, forms: [form], sources: [e.source] };
    this.writes.push(full);
    if (nameKey) {
      this.byName.set(nameKey, full);
      const pending = this.pendingClaims.get(nameKey);
      if (pending !== undefined) {
        full.round = pending;
        this.pendingClaims.delete(nameKey);
        // The call was undecided when its round was planned: its evidence came later.
        const a = this.awaitingOf(pending, full.kind);
        if (a) {
          a.remaining--;
          full.lateMs = Math.max(0, full.at - a.at);
        }
      }
    }
    this.link(e, full);
    return full;
  }

  private link(e: TimelineEvent, w: ControllerWrite): void {
    const list = this.byEvent.get(e);
    if (list) list.push(w);
    else this.byEvent.set(e, [w]);
  }

  /**
   * When the ReplicaSet controller's credential changed (a new token: a restarted
   * kube-controller-manager, or a rotation), with the pause in its writes before it.
   */
  readonly credentialChanges: Array<{ at: number; source: SourceRef; event: TimelineEvent; pauseMs: number }> = [];
  private credential?: string;
  private lastControllerWriteAt?: number;

  /** The first credential change in (from, to], if any. */
  credentialChangeBetween(from: number, to: number): { at: number; source: SourceRef } | undefined {
    const c = this.credentialChanges.find((x) => x.at > from && x.at <= to);
    return c && { at: c.at, source: c.source };
  }

  /** The credential change `e` is the first write of, if any. */
  credentialChangeAt(e: TimelineEvent): { at: number; source: SourceRef; pauseMs: number } | undefined {
    const c = this.credentialChanges.find((x) => x.event === e);
    return c && { at: c.at, source: c.source, pauseMs: c.pauseMs };
  }

  /**
   * Writes of OTHER actors to the owner's pods that change what it owns: a pod created with its
   * controllerRef (a person's POST; in a watch, a pod whose name the controller could not have
   * generated) and an ownerReference removed by someone else. Never controller writes: named in
   * the report as another actor's (the actor when the audit log names it), never in a round.
   */
  readonly otherActorWrites: OtherActorWrite[] = [];

  /**
   * The Job controller's tracking writes in an audit log (no pod claims, no rounds): its removals
   * of the batch.kubernetes.io/job-tracking finalizer (removeTrackingFinalizerPatch) and its
   * jobs/status updates (trackJobStatusAndRemoveFinalizers), each with its outcome.
   */
  readonly jobTrackingWrites: JobTrackingWrite[] = [];

  private enterAuditWrite(e: WriteEvent): void {
    if (e.actor.controller !== this.owner.component) {
      // Another writer of a pod between two adoptions (a garbage collector's orphaning logged
      // without its body, a person's patch): the second is no longer known to repeat the first.
      if (e.resource === 'pods' && !e.subresource && e.name) this.auditAdopts.delete(`${e.namespace ?? ''}/${e.name}`);
      this.noteOtherActor(e);
      return;
    }
    const cred = e.actor.credential;
    const at = e.receivedAt ?? e.at;
    if (cred !== undefined) {
      if (this.credential !== undefined && cred !== this.credential) {
        this.credentialChanges.push({ at, source: e.source, event: e, pauseMs: at - (this.lastControllerWriteAt ?? at) });
      }
      this.credential = cred;
    }
    this.lastControllerWriteAt = Math.max(this.lastControllerWriteAt ?? at, at);
    if (e.resource === 'jobs' && e.subresource === 'status' && e.verb === 'update' && e.name) {
      const ok = e.status.code >= 200 && e.status.code < 300;
      this.jobTrackingWrites.push({ rsKey: `${e.namespace ?? ''}/${e.name}`, kind: 'status', at, ok, ...(ok ? {} : { error: e.status.message ?? `HTTP ${e.status.code}` }), source: e.source });
      return;
    }
    if (e.resource !== 'pods' || e.subresource) return;
    if (e.verb !== 'create' && e.verb !== 'delete' && e.verb !== 'patch') return;
    const code = e.status.code;
    const ok = code >= 200 && code < 300;
    const nsTerm = (e.status.causes ?? []).some((c) => c.type === 'NamespaceTerminating');
    const outcome: WriteOutcome = ok ? 'ok' : nsTerm ? 'namespace-terminating' : code === 404 && e.verb === 'delete' ? 'not-found' : 'failed';
    const ns = e.namespace ?? '';
    const podKey = e.name ? `${ns}/${e.name}` : undefined;
    const owner = e.owner;
    let kind: WriteKind;
    let rsName: string | undefined = owner?.state === 'owned' && owner.kind === this.owner.kind ? owner.name : undefined;
    if (e.verb === 'create') {
      kind = 'create';
      if (!rsName) {
        const gen = (e.requestObject as Pod | undefined)?.metadata?.generateName;
        const rs = this.rsByGenerateName(ns, gen);
        if (rs) rsName = rs;
      }
    } else if (e.verb === 'delete') {
      kind = 'delete';
      // Owner at the time of the call (#21 item 6): the controller chose this pod from its cache,
      // where it was still this owner's, even when someone orphaned it while the call was in
      // flight — the pod's last controllerRef (the orphaned-delete leak rests on this write).
      if (!rsName && podKey) {
        const m = this.auditOwners.get(podKey);
        const last = m?.owner ?? m?.previous;
        if (last) rsName = last;
      }
    } else if (e.verb === 'patch') {
      // Adopt / release patches carry the ownerReference change (input-formats.md §1.9). A patch
      // whose body changes none is no claim: the Job controller's removal of its tracking
      // finalizer (removeTrackingFinalizerPatch, pkg/controller/job/job_controller.go).
      const body = (e.requestObject as Pod | undefined)?.metadata;
      if (body !== undefined && body.ownerReferences === undefined) {
        if (rsName && podKey && Array.isArray((body as Record<string, unknown>)['$deleteFromPrimitiveList/finalizers'])) {
          this.jobTrackingWrites.push({ rsKey: `${ns}/${rsName}`, kind: 'finalizer-removal', pod: podKey, at: e.receivedAt ?? e.at, ok, ...(ok ? {} : { error: e.status.message ?? `HTTP ${code}` }), source: e.source });
        }
        return;
      }
      const refs = body?.ownerReferences as Array<{ uid?: string; $patch?: string }> | undefined;
      const released = Array.isArray(refs) ? refs.find((r) => r && r.$patch === 'delete') : undefined;
      if (released) {
        kind = 'release';
        const rs = released.uid ? this.rsByUid.get(released.uid) : undefined;
        rsName = rs ? rs.key.slice(rs.key.indexOf('/') + 1) : owner?.state === 'owned' && owner.basis === 'earlier-state' ? owner.name : undefined;
      } else kind = 'adopt';
    } else return;
    if (!rsName) {
      // A write kexp cannot attribute to a ReplicaSet: counted under an empty key so it is not lost.
      this.add(e, { rsKey: `${ns}/`, kind, outcome, pod: podKey, at: e.receivedAt ?? e.at, ...(ok ? {} : { error: e.status.message ?? `HTTP ${code}` }) }, 'audit');
      return;
    }
    const podUid = (e.responseObject as Pod | undefined)?.metadata?.uid;
    const terminating = kind === 'adopt' && Boolean((e.responseObject as Pod | undefined)?.metadata?.deletionTimestamp);
    const repeatOf = kind === 'adopt' && ok && podKey ? this.noteAdopt(podKey, rsName, e) : undefined;
    this.add(e, {
      ...(ok && kind === 'create' ? { observedAt: e.at } : {}),
      ...(terminating ? { podTerminating: true } : {}),
      ...(repeatOf ? { repeatOf } : {}),
      rsKey: `${ns}/${rsName}`, kind, outcome, pod: podKey, ...(podUid ? { podUid } : {}), at: e.receivedAt ?? e.at,
      ...(ok ? {} : { error: e.status.message ?? `HTTP ${code}` }),
    }, 'audit');
  }

  /** Audit: each pod's owner by its last observed state, and the one before a change at that instant. */
  private readonly auditOwners = new Map<string, { owner?: string; previous?: string; at: number }>();

  /** Audit: the controller's first successful adoption of each pod, while the pod stays with that owner. */
  private readonly auditAdopts = new Map<string, { owner: string; ownerUid: string; podUid?: string; at: number; doneAt: number; source: SourceRef }>();

  /**
   * The controller's successful adopt PATCH of `podKey` for `owner`: the earlier adoption it
   * repeats when the controller had adopted the pod for the same owner and the input shows no
   * owner change since (the pod's observed owner is still `owner`). ClaimObject adopts only a
   * pod its cache shows without a controllerRef, so a repeat means the informer had not yet
   * delivered the first PATCH (controller_ref_manager.go ClaimObject / AdoptPod).
   */
  private noteAdopt(podKey: string, owner: string, e: WriteEvent): ControllerWrite['repeatOf'] {
    // The owner by UID, from the PATCH's own ownerReference (a recreated owner of the same name is another).
    const body = (e.requestObject as Pod | undefined)?.metadata;
    const ownerUid = body?.ownerReferences?.find((r) => r?.controller)?.uid;
    const podUid = (e.responseObject as Pod | undefined)?.metadata?.uid ?? body?.uid;
    if (!ownerUid) return undefined;
    const first = this.auditAdopts.get(podKey);
    if (first && first.owner === owner && first.ownerUid === ownerUid && (first.podUid === undefined || first.podUid === podUid) && this.auditOwners.get(podKey)?.owner === owner) {
      return { at: first.at, doneAt: first.doneAt, source: first.source };
    }
    this.auditAdopts.set(podKey, { owner, ownerUid, ...(podUid ? { podUid } : {}), at: e.receivedAt ?? e.at, doneAt: e.at, source: e.source });
    return undefined;
  }

  private noteAuditOwner(e: ObservedEvent & { kind: 'Pod' }): void {
    const key = objectKey(e.object.metadata);
    if (e.watchType === 'DELETED') {
      this.auditOwners.delete(key);
      this.auditAdopts.delete(key);
      return;
    }
    const ref = controllerRefOf(e.object.metadata);
    const owner = ref?.kind === this.owner.kind ? ref.name : undefined;
    const m = this.auditOwners.get(key);
    if (!m) this.auditOwners.set(key, { owner, at: e.at });
    else if (m.owner !== owner) this.auditOwners.set(key, { owner, previous: m.owner, at: e.at });
    // An owner other than the adopter's (orphaned, or another's): a later adopt is a new one.
    if (m?.owner !== owner && this.auditAdopts.get(key)?.owner !== owner) this.auditAdopts.delete(key);
  }

  /** An audit write by someone else that creates a pod under the owner's controllerRef or removes it. */
  private noteOtherActor(e: WriteEvent): void {
    if (e.resource !== 'pods' || e.subresource || e.status.code >= 300) return;
    const ns = e.namespace ?? '';
    const who = e.actor.username ?? e.actor.userAgent ?? 'unknown';
    const actor = e.actor.impersonated !== undefined ? `${who} (impersonating ${e.actor.impersonated})` : who;
    if (e.verb === 'create') {
      const pod = e.responseObject as Pod | undefined;
      const ref = pod ? controllerRefOf(pod.metadata) : undefined;
      if (ref?.kind !== this.owner.kind || !pod) return;
      this.otherActorWrites.push({ rsKey: `${ns}/${ref.name}`, kind: 'create', pod: objectKey(pod.metadata), at: e.receivedAt ?? e.at, actor, source: e.source });
      return;
    }
    if (e.verb !== 'patch' && e.verb !== 'update') return;
    const key = e.name ? `${ns}/${e.name}` : undefined;
    const memo = key ? this.auditOwners.get(key) : undefined;
    const after = e.responseObject as Pod | undefined;
    if (!key || !after || !memo) return;
    // The write's own response may already be the memo's state (same instant): then the owner before it.
    const before = memo.at >= e.at && memo.previous !== undefined ? memo.previous : memo.owner;
    const ref = controllerRefOf(after.metadata);
    // The garbage collector orphans only the dependents of an owner deleted with orphan
    // propagation: the report names that through the ReplicaSet's deletion.
    if (e.actor.username === 'system:serviceaccount:kube-system:generic-garbage-collector') return;
    if (before && (!ref || ref.kind !== this.owner.kind)) {
      this.otherActorWrites.push({ rsKey: `${ns}/${before}`, kind: 'orphan', pod: key, at: e.receivedAt ?? e.at, actor, source: e.source });
    }
  }

  private rsByGenerateName(ns: string, gen: string | undefined): string | undefined {
    if (!gen) return undefined;
    for (const m of this.rsByUid.values()) {
      if (m.rs.metadata.namespace === ns && `${m.rs.metadata.name}-` === gen) return m.rs.metadata.name;
    }
    return undefined;
  }

  private enterPod(e: ObservedEvent & { kind: 'Pod' }): void {
    // Audit logs show the controller's writes themselves; pods' appearances are only consequences
    // (their owner is remembered, for another actor's removal of it: noteOtherActor).
    if (this.mode !== 'watch') {
      this.noteAuditOwner(e);
      return;
    }
    const pod = e.object;
    const key = objectKey(pod.metadata);
    const before = this.pods.get(key);
    if (e.watchType === 'DELETED') {
      this.pods.delete(key);
      return;
    }
    const ref = controllerRefOf(pod.metadata);
    const rsRef = ref?.kind === this.owner.kind ? ref : undefined;
    // Hot path (a status update of a known pod): update the memo in place, nothing to enter.
    if (before && before.uid === pod.metadata.uid && before.ownerUid === ref?.uid) {
      before.labels = pod.metadata.labels;
      return;
    }
    this.pods.set(key, { uid: pod.metadata.uid, ownerUid: ref?.uid, ownerName: rsRef?.name, labels: pod.metadata.labels });
    const ns = pod.metadata.namespace ?? '';
    const sameObject = before !== undefined && (!before.uid || before.uid === pod.metadata.uid);
    if (!sameObject) {
      // First sighting of this pod: a create of the ReplicaSet controller when it was created inside the input.
      if (!rsRef || !this.createdInside(pod, e.at)) return;
      if (!generatedBy(pod, rsRef.name)) {
        // GetPodFromTemplate always names the controller's pods by generateName "<owner>-": a
        // pod named otherwise was created by someone else, with the controllerRef set by hand.
        this.otherActorWrites.push({ rsKey: `${ns}/${rsRef.name}`, kind: 'create', pod: key, at: e.at, source: e.source });
        return;
      }
      this.add(e, { rsKey: `${ns}/${rsRef.name}`, kind: 'create', outcome: 'ok', pod: key, ...(pod.metadata.uid ? { podUid: pod.metadata.uid } : {}), at: e.at, observedAt: e.at }, 'pod');
      return;
    }
    if (before.ownerUid === ref?.uid) return;
    if (rsRef && !before.ownerUid) {
      this.add(e, { rsKey: `${ns}/${rsRef.name}`, kind: 'adopt', outcome: 'ok', pod: key, ...(pod.metadata.deletionTimestamp ? { podTerminating: true } : {}), ...(pod.metadata.uid ? { podUid: pod.metadata.uid } : {}), at: e.at }, 'pod');
      return;
    }
    if (!ref && before.ownerUid && before.ownerName) {
      // The controller releases a pod whose labels stopped matching; the garbage collector
      // orphans the pods of a ReplicaSet deleted with propagationPolicy=Orphan (not a controller write).
      const rs = this.rsByUid.get(before.ownerUid)?.rs;
      if (!rs || rs.metadata.deletionTimestamp) return;
      if (labelSelectorMatches(rs.spec?.selector, pod.metadata.labels)) {
        // Still matching a live ReplicaSet: ClaimObject would keep it, so the controller did not
        // release it — someone else removed the ownerReference (the garbage collector orphans only
        // the pods of a ReplicaSet being deleted).
        this.otherActorWrites.push({ rsKey: `${ns}/${before.ownerName}`, kind: 'orphan', pod: key, at: e.at, source: e.source });
        return;
      }
      this.add(e, { rsKey: `${ns}/${before.ownerName}`, kind: 'release', outcome: 'ok', pod: key, ...(pod.metadata.uid ? { podUid: pod.metadata.uid } : {}), at: e.at }, 'pod');
    }
  }

  /** Created inside the input: its creationTimestamp (whole seconds) is not before the input's start, and it is not part of the initial list. */
  private createdInside(pod: Pod, at: number): boolean {
    const created = pod.metadata.creationTimestamp ? Date.parse(pod.metadata.creationTimestamp) : NaN;
    const start = this.start ?? at;
    if (Number.isNaN(created)) return false;
    if (created < Math.floor(start / 1000) * 1000) return false;
    // The initial list arrives in the first instants; a pod created in that same second is ambiguous.
    return at - start > 200 || created >= Math.floor(start / 1000) * 1000 + 1000;
  }

  private enterEvent(e: ObservedEvent & { kind: 'Event' }): void {
    const ev = e.object;
    const reason = ev.reason;
    if (reason !== 'SuccessfulCreate' && reason !== 'FailedCreate' && reason !== 'SuccessfulDelete' && reason !== 'FailedDelete') return;
    const io = ev.involvedObject;
    if (!io || io.kind !== this.owner.kind || !io.name || !isControllerEvent(ev, this.owner.eventComponent ?? this.owner.component)) return;
    const ek = objectKey(ev.metadata);
    const count = typeof ev.count === 'number' && Number.isSafeInteger(ev.count) && ev.count > 0 ? ev.count : 1;
    const before = this.eventCounts.get(ek);
    this.eventCounts.set(ek, Math.max(before ?? 0, count));
    // First sighting: all its occurrences happened inside the input only if it was created here.
    let occurrences = before === undefined ? count : count - before;
    if (before === undefined && e.listed === 'initial-list') {
      // An item of the initial LIST (a recording says so): every occurrence came before the input,
      // however close its whole-second lastTimestamp is to the start.
      occurrences = 0;
    } else if (before === undefined && count > 1) {
      const first = Date.parse(ev.firstTimestamp ?? ev.metadata.creationTimestamp ?? '');
      if (!Number.isNaN(first) && first < Math.floor((this.start ?? e.at) / 1000) * 1000) occurrences = 1;
      if (e.at - (this.start ?? e.at) <= 200) occurrences = 0; // the initial list: history before the input
    } else if (before === undefined && e.at - (this.start ?? e.at) <= 200) {
      const last = Date.parse(ev.lastTimestamp ?? ev.eventTime ?? ev.metadata.creationTimestamp ?? '');
      if (Number.isNaN(last) || last < Math.floor((this.start ?? e.at) / 1000) * 1000) occurrences = 0;
    }
    if (occurrences <= 0) return;
    const ns = io.namespace ?? ev.metadata.namespace ?? '';
    const rsKey = `${ns}/${io.name}`;
    const create = reason.endsWith('Create');
    const ok = reason.startsWith('Successful');
    const m = (create ? CREATED_RE : DELETED_RE).exec(messageOf(ev, ''));
    const pod = m ? `${ns}/${m[1]}` : undefined;
    const combined = /combined from similar events/.test(messageOf(ev, ''));
    // A huge jump (an Event aggregated over hours) keeps its oldest occurrences as one counted entry.
    const bulk = occurrences > MAX_OCCURRENCES ? occurrences - (MAX_OCCURRENCES - 1) : 0;
    if (bulk) {
      this.add(e, {
        rsKey, kind: create ? 'create' : 'delete', outcome: ok ? 'ok' : 'failed', at: e.at, count: bulk,
        ...(ok ? {} : { error: messageOf(ev, reason).replace(/^Error (creating|deleting): /, '') }),
      }, 'event');
      occurrences -= bulk;
    }
    for (let i = 0; i < occurrences; i++) {
      const named = ok && pod !== undefined && i === occurrences - 1;
      this.add(e, {
        rsKey, kind: create ? 'create' : 'delete', outcome: ok ? 'ok' : 'failed', at: e.at,
        ...(named ? { pod } : {}),
        ...(ok && (!named || combined) ? { unnamed: true } : {}),
        ...(ok ? {} : { error: messageOf(ev, reason).replace(/^Error (creating|deleting): /, '') }),
      }, 'event');
    }
  }

  // ─────────────────────────── claims (the oracle) ───────────────────────────

  /** The writes `e` is evidence of, if any. */
  writesOf(e: TimelineEvent): ControllerWrite[] | undefined {
    return this.byEvent.get(e);
  }

  /** A round used `e` as evidence of one of its calls: claim the (first unclaimed) write it shows. */
  claimEvent(e: TimelineEvent, round: number): void {
    const list = this.byEvent.get(e);
    const w = list?.find((x) => x.round === undefined && x.count === undefined);
    if (!w) return;
    w.round = round;
    // A call the round was still awaiting has its evidence now.
    const a = this.awaitingOf(round, w.kind);
    if (a) {
      a.remaining--;
      if (w.forms.includes('audit') || w.forms.includes('event')) a.lastAt = Math.max(a.lastAt, w.at);
    }
  }

  /** A round used `n` occurrences of an Event: claim that many of its unclaimed writes. */
  claimEventOccurrences(e: TimelineEvent, n: number, round: number): void {
    for (const w of this.byEvent.get(e) ?? []) {
      if (n <= 0) break;
      if (w.round !== undefined || w.count !== undefined) continue;
      w.round = round;
      n--;
    }
  }

  /** A round made `kind` on `podKey`: claim its write now (returns true), or when it enters. */
  claimPod(kind: WriteKind, rsKey: string, podKey: string, round: number): boolean {
    const k = `${kind}|${rsKey}|${podKey}`;
    const w = this.byName.get(k);
    if (w && w.round === undefined) {
      w.round = round;
      return true;
    }
    if (!w) this.pendingClaims.set(k, round);
    return false;
  }

  /** A round whose outcome the input could not tell still awaits `n` writes of `kind`. */
  await(round: number, rsKey: string, kind: 'create' | 'delete', n: number, at: number, pods?: string[], lastAt = at): void {
    if (n <= 0) return;
    const a: Awaiting = { round, rsKey, kind, remaining: n, at, lastAt, ...(pods ? { pods: new Set(pods) } : {}) };
    this.awaiting.push(a);
    const list = this.awaitingByRound.get(round);
    if (list) list.push(a);
    else this.awaitingByRound.set(round, [a]);
  }

  private readonly awaitingByRound = new Map<number, Awaiting[]>();

  private awaitingOf(round: number, kind: WriteKind): Awaiting | undefined {
    return this.awaitingByRound.get(round)?.find((x) => x.kind === kind && x.remaining > 0);
  }

  /** Drops awaiting entries that have nothing left to wait for (keeps `settle` linear on long inputs). */
  private pruneAwaiting(): void {
    if (this.awaiting.length > 64 && this.awaiting[0]!.remaining <= 0) this.awaiting = this.awaiting.filter((x) => x.remaining > 0);
  }

  /**
   * Called when `e` is delivered: claims its unclaimed writes for a round that awaited them
   * (an outcome the input showed only late). Returns the writes still unexplained.
   */
  settle(e: TimelineEvent): ControllerWrite[] {
    const list = this.byEvent.get(e);
    if (!list) return [];
    this.pruneAwaiting();
    const open: ControllerWrite[] = [];
    for (const w of list) {
      if (w.round !== undefined || w.divergence) continue;
      // A counted entry (the bulk of a huge Event count) is settled at the end, as one finding.
      if (w.count !== undefined) continue;
      // Aggregated Event occurrences are usually another form of a write seen elsewhere: decided at the end.
      if (w.unnamed) continue;
      // Only a write known from its pod's appearance alone may be claimed at any lag; a form that
      // dates the write itself (its audit record, the controller's Event) must continue the round.
      const observation = !w.forms.includes('audit') && !w.forms.includes('event');
      const a = this.awaiting.find((x) => x.rsKey === w.rsKey && x.kind === w.kind && x.remaining > 0 && (!x.pods || !w.pod || x.pods.has(w.pod)) && x.at <= w.at &&
        (observation || w.at - x.lastAt <= ROUND_CHAIN_MS));
      if (a) {
        w.round = a.round;
        w.lateMs = Math.max(0, w.at - a.at);
        a.remaining--;
        if (!observation) a.lastAt = Math.max(a.lastAt, w.at);
        continue;
      }
      open.push(w);
    }
    return open;
  }

  /** Calls of `round` still awaiting the evidence of their outcome. */
  remaining(round: number): number {
    let n = 0;
    for (const a of this.awaitingByRound.get(round) ?? []) n += a.remaining;
    return n;
  }

  /** Records why a write stayed unexplained. */
  explain(w: ControllerWrite, kind: DivergenceKind, detail: string): void {
    w.divergence = { kind, detail };
  }

  /**
   * End of input: merges aggregated Event occurrences into the appearances they stand for,
   * and marks every write still unexplained. Returns the writes per ReplicaSet key.
   */
  finish(): Map<string, ControllerWrite[]> {
    const byRs = new Map<string, ControllerWrite[]>();
    for (const w of this.writes) {
      let list = byRs.get(w.rsKey);
      if (!list) byRs.set(w.rsKey, (list = []));
      list.push(w);
    }
    for (const [key, list] of byRs) {
      const kept: ControllerWrite[] = [];
      const unnamed = list.filter((w) => w.unnamed).sort((a, b) => a.at - b.at);
      const others = list.filter((w) => !w.unnamed);
      // Merge in time order, each occurrence with the earliest free appearance of the same kind
      // within MERGE_MS (two pointers per kind: linear, whatever the counts).
      const candidates = new Map<string, { list: ControllerWrite[]; next: number }>();
      for (const o of others.filter((x) => !x.forms.includes('event')).sort((a, b) => a.at - b.at)) {
        const k = `${o.kind}|${o.outcome}`;
        const c = candidates.get(k) ?? { list: [], next: 0 };
        c.list.push(o);
        candidates.set(k, c);
      }
      for (const u of unnamed) {
        const c = candidates.get(`${u.kind}|${u.outcome}`);
        while (c && c.next < c.list.length && c.list[c.next]!.at < u.at - MERGE_MS) c.next++;
        const best = c && c.next < c.list.length && c.list[c.next]!.at <= u.at + MERGE_MS ? c.list[c.next++] : undefined;
        if (best) {
          best.forms.push('event');
          best.sources.push(...u.sources.slice(0, 4));
          if (best.round === undefined && u.round !== undefined) best.round = u.round;
        } else kept.push(u);
      }
      const merged = [...others, ...kept].sort((a, b) => a.at - b.at || a.id - b.id);
      for (const w of merged) {
        if (w.round === undefined && !w.divergence && w.count !== undefined) {
          w.divergence = { kind: 'outside-round', detail: `${w.count} occurrences of one Event that jumped by more than ${MAX_OCCURRENCES} at once (an aggregated Event): too many to match to rounds one by one` };
        } else if (w.round === undefined && !w.divergence) {
          w.divergence = w.unnamed
            ? { kind: 'outside-round', detail: 'an Event occurrence of the controller that no round of kexp accounts for' }
            : { kind: 'outside-round', detail: 'no round of kexp accounts for this write' };
        }
      }
      byRs.set(key, merged);
    }
    return byRs;
  }
}

/** A tracking write of the Job controller (WriteLedger.jobTrackingWrites). */
export interface JobTrackingWrite {
  /** The Job's namespace/name. */
  rsKey: string;
  kind: 'finalizer-removal' | 'status';
  /** Finalizer removals: the pod patched. */
  pod?: string;
  at: number;
  ok: boolean;
  /** The apiserver's message when it refused the write. */
  error?: string;
  source: SourceRef;
}

/** A write of another actor to the owner's pods (WriteLedger.otherActorWrites). */
export interface OtherActorWrite {
  rsKey: string;
  /** `create`: a pod created with the owner's controllerRef; `orphan`: its ownerReference removed. */
  kind: 'create' | 'orphan';
  pod: string;
  at: number;
  /** The audit log's user (a watch does not name the writer). */
  actor?: string;
  source: SourceRef;
}

/**
 * Could the controller have created `pod` for `owner`? getPodsPrefix / GetPodFromTemplate in
 * pkg/controller/controller_utils.go set GenerateName to "<owner>-" (or "<owner>" when that is
 * not a valid prefix), and the apiserver appends 5 random characters (names.SimpleNameGenerator);
 * its managedFields name the field manager "kube-controller-manager". A pod whose generateName
 * differs, whose first manager is someone else, or — without generateName (a trimmed dump) — whose
 * name is not "<owner>-" plus 5 characters, was not created by the controller.
 */
function generatedBy(pod: Pod, owner: string): boolean {
  const gen = pod.metadata.generateName;
  if (gen !== undefined && gen !== '' && gen !== `${owner}-` && gen !== owner) return false;
  const managers = (pod.metadata as { managedFields?: Array<{ manager?: string }> }).managedFields;
  const first = Array.isArray(managers) ? managers[0]?.manager : undefined;
  if (first !== undefined && first !== 'kube-controller-manager') return false;
  if (gen !== undefined && gen !== '') return true;
  const name = pod.metadata.name ?? '';
  return name.length === owner.length + 6 && name.startsWith(`${owner}-`) && /^[a-z0-9]{5}$/.test(name.slice(owner.length + 1));
}
