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
import type { SyncRecord } from '../../model/controller/sync-record.js';
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
    private readonly windows: { drain(): void },
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
    this.windows.drain();
    const t = this.tracks.of(s.key);
    t.syncs++;
    t.syncsByOutcome[s.outcome] = (t.syncsByOutcome[s.outcome] ?? 0) + 1;
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
    if (s.create || s.delete) {
      const round = t.rounds.length;
      const modelRound = s.create?.round ?? s.delete!.round;
      const ev = this.evidence.takeRoundEvidence(modelRound);
      const rt: RoundTrack = { at: s.at, round, modelRound, kind: s.create ? 'create' : 'delete', sync: s, evidence: ev, trigger: trig, ...(forcing ? { forced: forcing } : {}) };
      t.rounds.push(rt);
      if (s.delete) {
        t.chosen = new Map(s.delete.keys.map((k, i) => [k, s.delete!.uids[i] ?? '']));
      }
      // A round whose walk-backs fulfilled the record at once never gates.
      const rec = this.controller.expectations.get(s.key);
      if (t.open && rec && rec.add <= 0 && rec.del <= 0) t.open = undefined;
      if (t.open) {
        t.open.round = round;
        t.open.basis = rt.evidence?.basis ?? 'inferred';
        t.open.note = rt.evidence?.note ?? s.delete?.note;
        t.open.namespaceTerminating = s.create?.namespaceTerminating;
        if (s.create?.timedOut) t.open.timedOut = s.create.timedOut;
        if (s.create?.timedOutNodes?.length) t.open.timedOutNodes = s.create.timedOutNodes;
        if (s.delete?.notFoundKept?.length) t.open.notFoundKept = s.delete.notFoundKept;
        if (s.delete?.removedNodePods?.length) t.open.removedNodePods = s.delete.removedNodePods;
        if (s.delete) t.open.raised.keys = s.delete.keys;
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
