/**
 * Delivers each input event to the controller model, as the shared informers deliver watch
 * events to the ReplicaSet controller's handlers (addPod/updatePod/deletePod and
 * addRS/updateRS/deleteRS in pkg/controller/replicaset/replica_set.go), and records on the
 * ReplicaSet tracks what the input shows of the objects on the way:
 *
 * - a pod: the keys it triggers (provenance.ts); an expected-delete pod that lost its
 *   controllerRef (orphanedExpected); a deletion of a chosen pod key by a pod of another UID
 *   (nameReuse); a pod reaching phase Failed (podFailures); its first sighting
 *   (pod-sightings.ts); then the pod itself through the view alignment (which withholds pods the
 *   controller had not observed), and the counts it changes (count-series.ts);
 * - a ReplicaSet: its first sighting and whether it was created inside the input, its UIDs, its
 *   deletion, its owner, its status write (view-alignment.ts), then the object itself;
 * - a gap: kept for the report, and marked inside every open window.
 *
 * Contract: `deliver(e, inputStart)` is called once per event, in input order, after the
 * oracle observed it (`inputStart`: the first event's time). It never runs syncs (they are the
 * workqueue's, run by the driver). Writes the object fields of RsTrack (see rs-track.ts).
 *
 * Cost: O(1) per event (map lookups by `namespace/name`) plus what the model's handlers cost;
 * a status write as view-alignment.ts says. Pure: no I/O, no clock.
 */
import { controllerRefOf, desiredReplicas, objectKey, type Pod } from '../../model/objects.js';
import type { GapEvent, ObservedEvent, TimelineEvent } from '../../timeline/event.js';
import type { CountSeries } from './count-series.js';
import { REPLICA_SET_OWNER, type EngineController, type EngineOwnerKind } from './engine-controller.js';
import type { PodSightings } from './pod-sightings.js';
import type { Provenance } from './provenance.js';
import type { RsTrack, RsTracks } from './rs-track.js';
import type { ViewAlignment } from './view-alignment.js';

type DeliveryController = Pick<EngineController, 'pods' | 'expectations' | 'podCounts' | 'deliverOwner' | 'deliverNode' | 'queue'>;

export class Delivery {
  /** The input's gaps, in order. */
  readonly gaps: GapEvent[] = [];

  constructor(
    private readonly tracks: RsTracks,
    private readonly controller: DeliveryController,
    private readonly provenance: Provenance,
    private readonly sightings: PodSightings,
    private readonly view: Pick<ViewAlignment, 'deliverPod' | 'noteStatusWrite'> & Partial<Pick<ViewAlignment, 'noteGap' | 'afterDelivery' | 'noteNodeEvent'>>,
    private readonly series: CountSeries,
    /** Sees each event first (the reconciler's record of the controller's last pod write). */
    private readonly writes: { noteWrite(e: TimelineEvent): void },
    /** Start of what the input covers, if earlier than its first event (ReplayOptions.coverageStart). */
    private readonly coverageStart?: () => number | undefined,
    /** The owner kind whose pods are tracked (their controllerRef kind). */
    private readonly owner: EngineOwnerKind = REPLICA_SET_OWNER,
  ) {}

  deliver(e: TimelineEvent, inputStart: number): void {
    this.writes.noteWrite(e);
    if (e.type === 'gap') {
      this.gaps.push(e);
      // A gap is a gap only in the streams it names: a quiet Events watch that relisted does not
      // hide a pod or the ReplicaSet, so it leaves the windows' basis (and held deletions) alone
      // (unnamed: every stream).
      if (e.owner) {
        // A gap in one owner's objects (a create that lost its object): only its window is
        // uncertain; the held departures of other owners stay pinned.
        const t = e.owner.kind === this.owner.kind ? this.tracks.get(`${e.owner.namespace}/${e.owner.name}`) : undefined;
        if (t?.open) {
          t.open.gapInside = true;
          t.open.gapAt ??= e.at;
        }
        return;
      }
      if (this.gapHidesWindows(e)) {
        for (const t of this.tracks.values()) {
          if (!t.open) continue;
          t.open.gapInside = true;
          // (a window that turns out to have ended before the gap — at a fulfilment the engine
          // closes at its next sync — is cleared of it when it ends: window-tracker.ts)
          t.open.gapAt ??= e.at;
        }
        this.view.noteGap?.(e);
      }
      return;
    }
    if (e.type !== 'observed') return;
    if (e.kind === 'Pod') this.deliverPod(e);
    else if (e.kind === 'ReplicaSet') this.deliverReplicaSet(e, inputStart);
    // Nodes reach a kind that watches them (the DaemonSet controller's node informer); the others have none.
    else if (e.kind === 'Node' && this.controller.deliverNode) {
      this.controller.deliverNode(e.watchType, e.object, e.at);
      this.view.noteNodeEvent?.(e, e.object.metadata?.name ?? '', (key) => this.controller.queue.dueAt(key) === e.at);
    }
  }

  /** Whether a gap may hide what a window rests on: its pods or its owner (a gap naming no kind may hide anything). */
  private gapHidesWindows(e: GapEvent): boolean {
    return !e.kinds || e.kinds.length === 0 || e.kinds.some((k) => k === 'Pod' || k === this.owner.kind);
  }

  private deliverPod(e: ObservedEvent & { kind: 'Pod' }): void {
    const pod = e.object;
    if (!pod.metadata?.name || !pod.metadata.namespace) return;
    const ref = controllerRefOf(pod.metadata);
    const kind = this.owner.kind;
    // The pod's key and its owner's, made once for every lookup below (a fresh `ns/name` string is hashed anew by each map it is looked up in).
    const pk = objectKey(pod.metadata);
    const rk = ref?.kind === kind ? `${pod.metadata.namespace}/${ref.name}` : undefined;
    if (rk !== undefined) this.provenance.noteTrigger(rk, e.source, pk);
    const old = this.controller.pods.get(pk);
    const oldRef = old ? controllerRefOf(old.metadata) : undefined;
    if (old && oldRef?.kind === kind && (!ref || ref.uid !== oldRef.uid)) {
      // An expected-delete pod that lost its controllerRef before its deletion was observed (case 8).
      const rsKey = `${pod.metadata.namespace}/${oldRef.name}`;
      const t = this.tracks.get(rsKey);
      if (t && this.controller.expectations.getDeleteKeys(rsKey).includes(pk)) {
        t.orphanedExpected.push({ at: e.at, podKey: pk, source: e.source });
      }
      this.provenance.noteTrigger(rsKey, e.source, pk);
    }
    if (rk !== undefined) this.notePodOfReplicaSet(e, pod, old, pk, rk);
    if (!old && e.watchType !== 'DELETED' && pod.metadata.deletionTimestamp && rk !== undefined) {
      // First seen already terminating: addPod routes it to deletePod (every pod-owning controller),
      // so a record waiting for creations never counts it.
      const rec = this.controller.expectations.get(rk);
      const t = this.tracks.get(rk);
      if (t && rec && rec.add > 0 && t.addedTerminating.length < 100) t.addedTerminating.push({ pod: pk, at: e.at, source: e.source, add: rec.add, setAt: rec.timestamp });
    }
    this.sightings.note(e.watchType === 'DELETED', pod, pk, ref, e.at, e.source);
    if (!this.view.deliverPod(e, pk, ref, old)) return;
    // Counts change with every pod event, not only at syncs: sample them here too (the new owner,
    // then the old — unless it is the same owner, whose point the first sample just settled).
    if (rk !== undefined) this.sampleCounts(e, rk);
    if (oldRef?.kind === kind && !(rk !== undefined && oldRef.name === ref!.name)) this.sampleCounts(e, `${pod.metadata.namespace}/${oldRef.name}`);
  }

  /** A point of the owner's count series after a pod event (`key`: an owner of the tracked kind). */
  private sampleCounts(e: ObservedEvent & { kind: 'Pod' }, key: string): void {
    const t = this.tracks.get(key);
    const c = this.controller.podCounts(key);
    if (!t?.rs || !c || t.deletedAt !== undefined) return;
    const desired = desiredReplicas(t.rs);
    // Most pod events change no count: no point built for the series to drop.
    if (!this.series.repeats(t, desired, c)) this.series.push(t, { at: e.at, desired, ...c });
  }

  /** What a pod observation shows about the ReplicaSet controlling it: a name reused under a chosen key, a failure. */
  private notePodOfReplicaSet(e: ObservedEvent & { kind: 'Pod' }, pod: Pod, old: Pod | undefined, pk: string, rsKey: string): void {
    // Name reuse: a deletion observation of a chosen key by a pod with another UID (case 14).
    if (e.watchType === 'DELETED' || pod.metadata.deletionTimestamp) {
      const t = this.tracks.get(rsKey);
      const chosenUid = t?.chosen.get(pk);
      if (t && chosenUid && pod.metadata.uid && chosenUid !== pod.metadata.uid && this.controller.expectations.getDeleteKeys(rsKey).includes(pk)) {
        t.nameReuse.push({ at: e.at, podKey: pk, chosenUid, observedUid: pod.metadata.uid, source: e.source });
      }
    }
    if (pod.status?.phase === 'Failed' && (!old || old.status?.phase !== 'Failed')) {
      const created = pod.metadata.creationTimestamp ? Date.parse(pod.metadata.creationTimestamp) : NaN;
      const failures = this.tracks.of(rsKey).podFailures;
      // Failed is terminal: a later observation of the same pod (its deletion, a finalizer PATCH's
      // response) without the state before it is no second failure.
      if (failures.some((f) => f.pod === pk && f.createdAt === (Number.isNaN(created) ? undefined : created))) return;
      failures.push({
        pod: pk, failedAt: e.at, reason: typeof pod.status.reason === 'string' && pod.status.reason ? pod.status.reason : 'Failed', source: e.source, ...(Number.isNaN(created) ? {} : { createdAt: created }),
      });
    }
  }

  private deliverReplicaSet(e: ObservedEvent & { kind: 'ReplicaSet' }, inputStart: number): void {
    const rs = e.object;
    if (!rs.metadata?.name || !rs.metadata.namespace) return;
    const key = objectKey(rs.metadata);
    const t = this.tracks.of(key);
    this.provenance.noteTrigger(key, e.source);
    if (t.firstSeenAt === undefined) this.firstSeen(t, e, inputStart);
    const uid = rs.metadata.uid;
    const prevUid = t.rs?.metadata.uid ?? t.uids[t.uids.length - 1];
    let change: RsTrack['uidChanges'][number] | undefined;
    if (uid && !t.uids.includes(uid)) {
      if (t.uids.length > 0) t.uidChanges.push(change = { at: e.at, oldUid: prevUid, newUid: uid, source: e.source });
      t.uids.push(uid);
    }
    if (e.watchType === 'DELETED') {
      t.deletedAt = e.at;
      t.rs = rs;
    } else {
      t.rs = rs;
      t.deletedAt = undefined;
      if (rs.metadata.deletionTimestamp) t.deletingSince ??= e.at;
      else t.deletingSince = undefined;
    }
    const owner = controllerRefOf(rs.metadata);
    if (owner) t.owner = { kind: owner.kind, name: owner.name, uid: owner.uid };
    if (e.watchType !== 'DELETED') this.view.noteStatusWrite(t, rs, e);
    this.controller.deliverOwner(e.watchType, rs, e.at);
    if (change) {
      // What the new ReplicaSet starts with: a record still waiting is the old one's, inherited by key
      // (before 1.17 deleteRS kept it: kubernetes#82572).
      const rec = this.controller.expectations.get(key);
      if (rec && (rec.add > 0 || rec.del > 0)) change.inherited = { add: rec.add, del: rec.del, setAt: rec.timestamp };
    }
    this.view.afterDelivery?.();
  }

  /**
   * The ReplicaSet's first sighting. Created after the input started (not part of the initial
   * list), the controller cannot hold expectations for this key yet (a deleted namesake's were
   * cleared by deleteRS).
   */
  private firstSeen(t: RsTrack, e: ObservedEvent & { kind: 'ReplicaSet' }, inputStart: number): void {
    const rs = e.object;
    t.firstSeenAt = e.at;
    const created = rs.metadata.creationTimestamp ? Date.parse(rs.metadata.creationTimestamp) : NaN;
    const from = Math.min(inputStart, this.coverageStart?.() ?? Infinity);
    // An audit log has no initial list: its ADDED is the create request itself.
    t.createdInCoverage = e.watchType === 'ADDED' && (e.at - from > 200 || e.atBasis === 'audit-stage') &&
      !Number.isNaN(created) && created >= Math.floor(from / 1000) * 1000;
  }
}
