/**
 * Reconciles the writes of the controller the input shows with the model's rounds. A write no
 * round explains (write-ledger.ts `settle`) means the real controller synced the key then, so
 * kexp syncs it too (a predicted sync a little later is advanced to the write); if the model
 * still would not have made the write, this stage looks for what the controller knew that kexp
 * did not, in order:
 *
 * 1. pods kexp withholds as unobserved (view-alignment.ts): a write that passed the gate, or a
 *    delete of a surplus that needs them, shows the informer had delivered them;
 * 2. creates past an expired record whose round's pods the controller had not observed
 *    (kubernetes#129795): kexp holds them back as the controller did and syncs again;
 * 3. a write while kexp's record said gated: the controller's record was gone (a restart, shown
 *    by a new credential, or an observation the input lacks): kexp drops it and syncs again;
 * and otherwise records why the write stays unexplained (the divergence kinds of write-ledger.ts).
 *
 * Contract: `reconcile(e)` is called with each event after the syncs due before it ran and
 * before it is delivered; `noteWrite(e)` with each event as it is delivered (the controller's
 * last pod write per ReplicaSet, before the pod sightings take a new pod). Writes RsTrack's
 * divergences and lagOverCreates, and viewUnknown spans where the input does not show when.
 *
 * Cost: O(1) per event without an unexplained write (the ledger's lookup); each unexplained
 * write costs up to four syncs of its key. Pure: no I/O, no clock.
 */
import type { SyncRecord } from '../../model/controller/sync-record.js';
import { EXPECTATIONS_TIMEOUT_MS, type ExpectationsRecord } from '../../model/expectations.js';
import { controllerRefOf, objectKey } from '../../model/objects.js';
import type { TimelineEvent } from '../../timeline/event.js';
import { REPLICA_SET_OWNER, type EngineController, type EngineOwnerKind } from './engine-controller.js';
import type { PodSightings } from './pod-sightings.js';
import type { RsTracks } from './rs-track.js';
import type { SyncRecorder } from './sync-recorder.js';
import type { ViewAlignment } from './view-alignment.js';
import type { ControllerWrite, DivergenceKind, WriteLedger } from './write-ledger.js';

/** A predicted sync this close after an unexplained write is taken to be the write's own sync. */
const ADVANCE_MS = 1000;

type ReconcileController = Pick<EngineController, 'owners' | 'isBusy' | 'expectations' | 'queue'>;

/** The writes of `ws` no round explains yet. */
const unexplained = (ws: ControllerWrite[]): ControllerWrite[] => ws.filter((w) => w.round === undefined);

export class WriteReconciler {
  /** The controller's last pod write per ReplicaSet key the input showed (a create write, or a new pod it controls). */
  private readonly lastWriteAt = new Map<string, number>();

  constructor(
    private readonly tracks: RsTracks,
    private readonly controller: ReconcileController,
    private readonly ledger: Pick<WriteLedger, 'settle' | 'explain' | 'credentialChangeBetween'>,
    private readonly oracle: { setForcedEvent(e: TimelineEvent | undefined): void },
    private readonly syncs: Pick<SyncRecorder, 'forced'>,
    private readonly view: Pick<ViewAlignment, 'releaseWithheld' | 'withholdRound' | 'createsAhead' | 'reopenedFor'>,
    private readonly sightings: Pick<PodSightings, 'has'>,
    private readonly windows: { drain(): void },
    private readonly matchWindowMs: number,
    /** The owner kind replayed (its writes' component, its pods' controllerRef kind). */
    private readonly owner: EngineOwnerKind = REPLICA_SET_OWNER,
  ) {}

  /** `e` is being delivered: a pod write of the controller it shows. */
  noteWrite(e: TimelineEvent): void {
    if (e.type === 'write' && e.actor.controller === this.owner.component && e.resource === 'pods' && e.owner?.state === 'owned' && e.owner.kind === this.owner.kind) {
      this.lastWriteAt.set(`${e.namespace}/${e.owner.name}`, e.at);
    }
    if (e.type === 'observed' && e.kind === 'Pod' && e.watchType === 'ADDED') {
      const ref = e.object.metadata ? controllerRefOf(e.object.metadata) : undefined;
      if (ref?.kind === this.owner.kind && !this.sightings.has(objectKey(e.object.metadata))) this.lastWriteAt.set(`${e.object.metadata.namespace}/${ref.name}`, e.at);
    }
  }

  /**
   * Called with the event about to be delivered: writes of the controller it shows that no
   * round explains. The real controller evidently synced the key now, so kexp syncs it too; if
   * the model still would not have made the write, kexp records why (the divergence), and where
   * the write proves the controller held no unfulfilled record, drops kexp's record (a restart
   * resets every key) and syncs again.
   */
  reconcile(e: TimelineEvent): void {
    const open = this.ledger.settle(e);
    if (open.length === 0) return;
    const keys = [...new Set(open.map((w) => w.rsKey))];
    for (const key of keys) {
      const ws = open.filter((w) => w.rsKey === key);
      const rs = this.controller.owners.get(key);
      if (!rs) {
        const t = this.tracks.get(key);
        const why = t?.deletedAt !== undefined ? 'the ReplicaSet had been deleted (as kexp saw it) when the controller wrote' : 'the ReplicaSet is not in kexp\'s model at this time (its object is not in the input)';
        for (const w of ws) this.ledger.explain(w, 'no-model', why);
        continue;
      }
      if (this.controller.isBusy(key, e.at)) {
        // Inside a sync kexp is already following: a write that sync did not predict.
        for (const w of ws) {
          if (w.kind === 'adopt' || w.kind === 'release') this.explainClaim(w, `kexp's ClaimObject would not ${w.kind} this pod in the sync then in progress`);
          else this.ledger.explain(w, 'outside-round', 'kexp\'s model was still inside a sync of this ReplicaSet whose calls did not include this write');
        }
        continue;
      }
      const recordBefore = this.controller.expectations.get(key);
      // A sync kexp predicted shortly after is this one, a little earlier (timer and event timing).
      const due = this.controller.queue.dueAt(key);
      const advance = due !== undefined && due >= e.at && due - e.at <= ADVANCE_MS;
      if (advance) this.controller.queue.take(key);
      this.oracle.setForcedEvent(e);
      try {
        this.resync(key, ws, e, recordBefore, advance
          ? `kexp's predicted sync ran ${Math.round(due! - e.at)} ms earlier, at the controller's write`
          : 'no predicted sync explains the controller\'s write here: kexp synced at the write');
      } finally {
        this.oracle.setForcedEvent(undefined);
      }
    }
  }

  /** Syncs `key` at the write, then tries each explanation in turn until every write of `ws` is in a round. */
  private resync(key: string, ws: ControllerWrite[], e: TimelineEvent, recordBefore: ExpectationsRecord | undefined, why: string): void {
    let s1 = this.syncs.forced(key, e.at, why);
    if (unexplained(ws).length === 0) return;
    const deletes = unexplained(ws).some((w) => w.kind === 'delete' && w.outcome === 'ok');
    if ((s1.outcome === 'gated' || deletes) && this.view.releaseWithheld(key, e.at)) {
      // The controller wrote (passing its gate, or deleting a surplus that needs them), so its
      // informer had delivered the pods kexp held back — when, the input does not tell: after
      // its last status write, within the sync's reach.
      const t = this.tracks.of(key);
      t.viewUnknown.push({
        from: Math.max(t.lastStatus?.at ?? -Infinity, e.at - this.matchWindowMs), until: e.at, sources: [e.source],
        reason: 'the controller\'s informer delivered the pods kexp held back as unobserved at a time the input does not show (before this write)',
      });
      s1 = this.syncs.forced(key, e.at, 'the controller wrote, so its informer had delivered the pods kexp held back as unobserved: kexp delivered them and synced at the write');
      if (unexplained(ws).length === 0) return;
    }
    const sat = s1.expectations;
    s1 = this.resyncLagging(key, ws, e, s1);
    if (unexplained(ws).length === 0) return;
    if (s1.outcome === 'gated' && recordBefore) {
      this.dropRecord(key, ws, e, recordBefore);
      return;
    }
    this.explainRest(key, ws, e, s1, sat);
  }

  /**
   * Creates past the 5-minute timeout of a record whose round kexp saw fulfilled: the
   * controller's informer had not delivered that round's pods (kubernetes#129795). Hold them
   * back as the controller did, give the record its count back and sync again: the expired
   * record lets the sync through and it creates from the controller's count. Returns the sync
   * that now stands.
   */
  private resyncLagging(key: string, ws: ControllerWrite[], e: TimelineEvent, s1: SyncRecord): SyncRecord {
    if (s1.outcome !== 'synced' && s1.outcome !== 'withheld') return s1;
    const made = unexplained(ws).filter((w) => w.kind === 'create' && w.outcome === 'ok').length;
    const lastSet = made > 0 ? [...this.tracks.of(key).changes].reverse().find((c) => c.op === 'set' && c.at < e.at) : undefined;
    // Only then count the sync's creates ahead (a scan of the look-ahead).
    const creates = lastSet && (lastSet.add ?? 0) > 0 && e.at - lastSet.at > EXPECTATIONS_TIMEOUT_MS ? Math.max(made, this.view.createsAhead(key, e)) : 0;
    if (!(creates > 0 && lastSet && s1.active !== undefined && s1.desired !== undefined)) return s1;
    const held = this.view.withholdRound(key, lastSet.at, s1.active - s1.desired + creates, e.at);
    if (!held.length) return s1;
    const t = this.tracks.of(key);
    // The window kexp saw fulfilled is open again from its fulfilment (the record waited, and
    // expired): the decisions in between are known. Otherwise, unknown.
    if (!this.view.reopenedFor(t, held.map((h) => h.pod))) {
      t.viewUnknown.push({
        from: Math.min(...held.map((h) => h.seenAt)), until: e.at, sources: [e.source],
        reason: `the controller created again at ${new Date(e.at).toISOString()} from a cache without ${held.length} pod(s) of its round of ${new Date(lastSet.at).toISOString()}: its informer had not delivered them`,
      });
    }
    t.lagOverCreates.push({ at: e.at, setAt: lastSet.at, pods: held.map((h) => h.pod), source: e.source });
    return this.syncs.forced(key, e.at, 'the controller created again after its record expired: its informer had not delivered the earlier round\'s pods (kubernetes#129795); kexp held them back and synced at the write');
  }

  /** The controller wrote, so SatisfiedExpectations passed for it: its record was gone. */
  private dropRecord(key: string, ws: ControllerWrite[], e: TimelineEvent, recordBefore: ExpectationsRecord): void {
    const change = this.ledger.credentialChangeBetween(recordBefore.timestamp, e.at);
    const kind: DivergenceKind = change ? 'after-restart' : 'while-gated';
    const t = this.tracks.of(key);
    // The record was there at its Set and at the controller's last write for the key after
    // it (the same sync's calls); when it went, the input does not show.
    const since = Math.max(recordBefore.timestamp, this.lastWriteAt.get(key) ?? -Infinity);
    if (since < e.at) {
      t.viewUnknown.push({
        from: since, until: e.at, sources: [e.source],
        reason: change ? 'kube-controller-manager restarted at a time the input does not show exactly (a new credential by this write): its record was gone' : 'the controller\'s record was gone by this write (a restart, or an observation the input lacks); when it went, the input does not show',
      });
    }
    if (change) this.controller.expectations.reset(e.at);
    else this.controller.expectations.reset(e.at, key);
    this.windows.drain();
    t.divergences.push({ at: e.at, kind, record: recordBefore, writes: ws, ...(change ? { credentialChange: change } : {}) });
    this.syncs.forced(key, e.at, change
      ? 'kube-controller-manager restarted (new credential): expectations reset, kexp synced at the write'
      : 'the controller wrote while kexp\'s record said gated: kexp dropped its record and synced at the write');
    for (const w of unexplained(ws)) this.ledger.explain(w, kind, `after dropping its record kexp's model still would not make this ${w.kind}`);
  }

  /** Why each write still unexplained after kexp's sync at it was not the model's (`sat`: the expectations outcome of that sync). */
  private explainRest(key: string, ws: ControllerWrite[], e: TimelineEvent, s1: SyncRecord, sat: SyncRecord['expectations']): void {
    const deletionRequested = this.controller.owners.get(key)?.metadata.deletionTimestamp;
    for (const w of unexplained(ws)) {
      if (s1.outcome === 'rs-being-deleted' && (w.kind === 'create' || w.kind === 'delete')) {
        // syncReplicaSet manages no pod of a ReplicaSet with a deletionTimestamp: one that wrote had not seen it.
        this.ledger.explain(w, 'owner-deleting', `its deletion was requested at ${deletionRequested ?? 'a time the input shows'} (deletionTimestamp), and a sync of a ReplicaSet being deleted creates and deletes nothing`);
      } else if (s1.outcome !== 'synced' && s1.outcome !== 'withheld') {
        this.ledger.explain(w, 'outside-round', `kexp's sync at the write ended ${s1.outcome}${sat ? ` (expectations ${sat})` : ''}`);
      } else if (w.outcome !== 'ok' && (w.kind === 'create' || w.kind === 'delete')) {
        this.ledger.explain(w, 'outside-round', `a failed ${w.kind} that kexp's count does not call for (${s1.active ?? '?'} active pod(s) for ${s1.desired ?? '?'} desired)`);
      } else if (w.kind === 'create') {
        const lastSet = [...this.tracks.of(key).changes].reverse().find((c) => c.op === 'set' && c.at < e.at);
        if (lastSet && (lastSet.add ?? 0) > 0 && w.at - lastSet.at > EXPECTATIONS_TIMEOUT_MS) {
          this.ledger.explain(w, 'expired-over-create', `the controller's record from ${new Date(lastSet.at).toISOString()} (add=${lastSet.add}) was ${Math.round((w.at - lastSet.at) / 1000)} s old, past the 5-minute ExpectationsTimeout; kexp's cache had ${s1.active ?? '?'} active pod(s) for ${s1.desired ?? '?'} desired`);
        } else {
          this.ledger.explain(w, 'surplus-create', `kexp's cache had ${s1.active ?? '?'} active pod(s) for ${s1.desired ?? '?'} desired`);
        }
      } else if (w.kind === 'delete') {
        this.ledger.explain(w, 'extra-delete', `kexp's cache had ${s1.active ?? '?'} active pod(s) for ${s1.desired ?? '?'} desired`);
      } else {
        this.explainClaim(w, `kexp's ClaimObject would not ${w.kind} this pod at that moment`);
      }
    }
  }

  /** An adopt or release no round explains: a repeat of the controller's own adoption, or else a claim kexp's ClaimObject would not make (`why`). */
  private explainClaim(w: ControllerWrite, why: string): void {
    if (w.kind === 'adopt' && w.repeatOf) {
      // The key's next sync began after the first PATCH returned and listed before this one was sent.
      const span = Math.max(0, Math.round(w.at - w.repeatOf.doneAt));
      this.ledger.explain(w, 'repeat-adopt', `it had adopted this pod with a PATCH at ${new Date(w.repeatOf.at).toISOString()} (${w.repeatOf.source.file}:${w.repeatOf.source.line}), and its informer had not delivered that change when the next sync listed the pods — some time in the ${span} ms between that PATCH's response and this request`);
    } else this.ledger.explain(w, 'unexpected-claim', why);
  }
}
