/**
 * Records every sync the model runs (syncReplicaSet in pkg/controller/replicaset/replica_set.go)
 * on its ReplicaSet's track: the count by outcome, errors and their backoff, syncs the input
 * shows the controller did not make (withheld), and each round of creates, deletes or claims
 * with the evidence the oracle found for it; it gives the open gated window its round, and
 * samples the counts the sync saw.
 *
 * Contract: `record(s)` is the model's onSync callback; it first drains the expectations log
 * (the Set a round makes belongs to the window the round then describes). `forced(key, at, why)`
 * runs a sync the input forced (write-reconciler.ts): its rounds carry `why` as `forced`.
 * Writes the sync fields of RsTrack, the open window's round fields and `chosen` UIDs.
 *
 * Cost: O(1) per sync, O(chosen pods) for a delete round. Pure: no I/O, no clock.
 */
import type { CreateRound, DeleteRound, SyncRecord } from '../../model/controller/sync-record.js';
import type { RoundEvidence } from './create-evidence.js';
import type { CountSeries } from './count-series.js';
import type { EngineController } from './engine-controller.js';
import type { Provenance } from './provenance.js';
import type { RoundTrack, RsTracks } from './rs-track.js';

export class SyncRecorder {
  /** Set while the engine runs a sync the input forced (see forced). */
  private forcing: string | undefined;

  constructor(
    private readonly tracks: RsTracks,
    private readonly controller: Pick<EngineController, 'expectations' | 'sync'>,
    private readonly windows: { drain(): void; triggeredUnseen?(key: string): boolean },
    private readonly provenance: Provenance,
    private readonly evidence: { takeRoundEvidence(round: number): RoundEvidence | undefined },
    private readonly series: CountSeries,
  ) {}

  /** Runs a sync of `key` at `at` because the input showed a write no predicted sync explains. */
  forced(key: string, at: number, why: string): SyncRecord {
    this.forcing = why;
    try {
      return this.controller.sync(key, at);
    } finally {
      this.forcing = undefined;
      this.windows.drain();
    }
  }

  record(s: SyncRecord): void {
    this.provenance.syncStarting(s.key);
    try {
      this.recordSync(s);
    } finally {
      this.provenance.syncEnded(s.key, s.requeue?.kind === 'rate-limited');
    }
  }

  private recordSync(s: SyncRecord): void {
    this.windows.drain();
    const t = this.tracks.of(s.key);
    // A gated sync only the event of a pod the controller had not observed triggered never ran in
    // the controller (its informer never delivered that event): not one of its syncs (window-tracker.ts).
    const unseen = s.outcome === 'gated' && this.windows.triggeredUnseen?.(s.key) === true;
    if (!unseen) {
      t.syncs++;
      t.syncsByOutcome[s.outcome] = (t.syncsByOutcome[s.outcome] ?? 0) + 1;
      // A DaemonSet's gated sync names the nodes whose daemon pod it did not create.
      if (s.outcome === 'gated' && t.open && s.daemon?.gatedNeeding?.length) {
        t.open.gatedNeeding = [...new Set([...(t.open.gatedNeeding ?? []), ...s.daemon.gatedNeeding])];
        // The record was still in force then: a 404-kept delete's lower was lost (see notFoundUnconfirmed).
        delete t.open.notFoundUnconfirmed;
      }
    }
    t.lastSync = s;
    if (s.error) t.syncErrors.push({ at: s.at, error: s.error, ...(s.requeue?.kind === 'rate-limited' ? { backoffMs: s.requeue.delayMs } : {}) });
    if (s.noControllerNoise) t.noControllerNoise++;
    const trig = this.provenance.trigger(s.key);
    const forcing = this.forcing;
    if (s.outcome === 'withheld' && s.diff !== undefined) {
      t.withheld.push({ at: s.at, diff: s.diff, ...(s.recordBefore ? { record: s.recordBefore } : {}), ...(trig ? { trigger: trig } : {}) });
    }
    // A claim round is a patch the controller made or may have made; predicted patches the input
    // shows were not made (evidence `unmade`) are no round.
    if (s.claimRound !== undefined && (s.claims ?? []).some((c) => (c.action === 'adopt' || c.action === 'release') && c.evidence !== 'unmade')) {
      t.rounds.push({ at: s.at, round: t.rounds.length, modelRound: s.claimRound, kind: 'claim', sync: s, evidence: undefined, trigger: trig, ...(forcing ? { forced: forcing } : {}) });
    }
    const groups = roundGroups(s);
    if (groups.length) {
      const single = groups.length === 1 && groups[0]!.length === 1;
      let windowRound: { rt: RoundTrack; create?: CreateRound; delete?: DeleteRound } | undefined;
      for (const [g, calls] of groups.entries()) {
        for (const c of calls) {
          const round = t.rounds.length;
          const ev = this.evidence.takeRoundEvidence(c.round);
          // A sync with several rounds gives each its own view of the sync: that round's calls only.
          const sync: SyncRecord = single ? s : roundView(s, c);
          const rt: RoundTrack = { at: s.at, round, modelRound: c.round, kind: c.kind, sync, evidence: ev, trigger: trig, ...(forcing ? { forced: forcing } : {}) };
          t.rounds.push(rt);
          // The open window is the last Set's (each syncNodes Sets once): its create round, else its delete round.
          if (g === groups.length - 1 && (!windowRound || (windowRound.rt.kind !== 'create' && c.kind === 'create'))) windowRound = { rt, ...(c.kind === 'create' ? { create: c.calls as CreateRound } : {}) };
        }
      }
      const last = groups[groups.length - 1]!;
      const del = last.find((c) => c.kind === 'delete')?.calls as DeleteRound | undefined;
      const create = last.find((c) => c.kind === 'create')?.calls as CreateRound | undefined;
      if (del) t.chosen = new Map(del.keys.map((k, i) => [k, del.uids[i] ?? '']));
      // A round whose walk-backs fulfilled the record at once never gates.
      const rec = this.controller.expectations.get(s.key);
      if (t.open && rec && rec.add <= 0 && rec.del <= 0) t.open = undefined;
      if (t.open && windowRound) {
        const rt = windowRound.rt;
        t.open.round = rt.round;
        t.open.basis = rt.evidence?.basis ?? 'inferred';
        t.open.note = rt.evidence?.note ?? del?.note;
        t.open.namespaceTerminating = create?.namespaceTerminating;
        if (create?.timedOut) t.open.timedOut = create.timedOut;
        if (create?.timedOutNodes?.length) t.open.timedOutNodes = create.timedOutNodes;
        if (del?.notFoundKept?.length) {
          t.open.notFoundKept = del.notFoundKept;
          if (rec && rec.add <= 0 && rec.del > 0 && rec.del <= del.notFoundKept.length) t.open.notFoundUnconfirmed = true;
        }
        if (del?.removedNodePods?.length) t.open.removedNodePods = del.removedNodePods;
        if (del) t.open.raised.keys = del.keys;
        if (rec) t.open.remaining = { add: rec.add, del: rec.del };
      }
    }
    if (s.expectations === 'expired' && s.create) {
      const last = t.expiredSyncs[t.expiredSyncs.length - 1];
      if (last && last.at === s.at) last.created = s.create.successes;
    }
    if (s.desired !== undefined && s.active !== undefined) {
      this.series.push(t, { at: s.at, desired: s.desired, active: s.active, terminating: s.terminatingPods ?? 0, ready: s.ready ?? 0 });
    }
  }
}

/** One round's calls: a create or a delete round of one SetExpectations. */
interface RoundCalls {
  kind: 'create' | 'delete';
  round: number;
  calls: CreateRound | DeleteRound;
}

/**
 * The rounds of a sync, grouped by the SetExpectations each belongs to, in call order: manage's
 * (manageReplicas, the DaemonSet's manage → syncNodes, manageJob), then — for a DaemonSet whose
 * expectations manage left satisfied — the rolling update's (updateDaemonSet in
 * pkg/controller/daemon/daemon_controller.go: manage, then rollingUpdate → syncNodes again, each
 * syncNodes creating before it deletes). `s.create` / `s.delete` carry the rolling update's
 * round where manage made none of that kind (sync-record.ts), told apart by identity.
 */
export function roundGroups(s: SyncRecord): RoundCalls[][] {
  const u = s.daemon?.update;
  const manage: RoundCalls[] = [];
  if (s.create && s.create !== u?.create) manage.push({ kind: 'create', round: s.create.round, calls: s.create });
  if (s.delete && s.delete !== u?.delete) manage.push({ kind: 'delete', round: s.delete.round, calls: s.delete });
  const update: RoundCalls[] = [];
  if (u?.create) update.push({ kind: 'create', round: u.create.round, calls: u.create });
  if (u?.delete) update.push({ kind: 'delete', round: u.delete.round, calls: u.delete });
  return [manage, update].filter((g) => g.length > 0);
}

/** The sync as one of its rounds reports it: only that round's calls (what every reader of a round's `sync` reads). */
function roundView(s: SyncRecord, c: RoundCalls): SyncRecord {
  const { create: _c, delete: _d, ...rest } = s;
  return c.kind === 'create' ? { ...rest, create: c.calls as CreateRound } : { ...rest, delete: c.calls as DeleteRound };
}
