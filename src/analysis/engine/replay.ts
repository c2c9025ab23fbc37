/**
 * The replay engine: drives the ReplicaSet controller model with a time-ordered stream of
 * TimelineEvents and records, per ReplicaSet, what the report needs (syncs, rounds,
 * expectation changes, gated windows, evidence).
 *
 * Order of work for each input event `e` (design.md "Reconstructing the controller"):
 * 1. run every sync the workqueue has due strictly before `e.at` — the real controller
 *    syncs within milliseconds of an enqueue, and events with the same timestamp collapse
 *    into one sync like the workqueue's de-duplication does;
 * 2. deliver `e` to the informer handlers.
 * At the end of input, syncs due up to the end of coverage run.
 *
 * The engine keeps a bounded look-ahead buffer (events up to `matchWindowMs` ahead of the
 * current one) for the EvidenceOracle, so memory stays bounded by the window, not the input.
 */
import { ReplicaSetController, type SyncRecord } from '../../model/replicaset-controller.js';
import { controllerRefOf, desiredReplicas, objectKey } from '../../model/objects.js';
import { featuresOf } from '../../model/version.js';
import type { GapEvent, TimelineEvent } from '../../timeline/event.js';
import { EvidenceOracle } from './evidence-oracle.js';
import { DEFAULT_MATCH_WINDOW_MS } from './evidence-window.js';
import { invalidObservedObject, invalidWriteBody } from '../../timeline/validate.js';
import { LookaheadBuffer } from './lookahead-buffer.js';
import { WriteLedger, type DivergenceKind } from './write-ledger.js';
import { EXPECTATIONS_TIMEOUT_MS } from '../../model/expectations.js';
import { informerView } from './informer-transform.js';
import { CountSeries } from './count-series.js';
import { Provenance } from './provenance.js';
import type { ReplayOptions } from './replay-options.js';
import { settleWrites, type ReplayResult } from './replay-result.js';
import { RestartDetector } from './restart-detector.js';
import { RsTracks, type RsTrack } from './rs-track.js';
import { SilenceBridge } from './silence-bridge.js';
import { SyncRecorder } from './sync-recorder.js';
import { WindowTracker } from './window-tracker.js';
import { PodSightings } from './pod-sightings.js';
import { ViewAlignment } from './view-alignment.js';


/** A predicted sync this close after an unexplained write is taken to be the write's own sync. */
const ADVANCE_MS = 1000;

/**
 * Replays `events` (time-ordered) through the model. Never throws for odd input: events the
 * model cannot use are skipped (sources report malformed input themselves).
 */
export async function replay(events: AsyncIterable<TimelineEvent>, opts: ReplayOptions): Promise<ReplayResult> {
  const matchWindowMs = opts.matchWindowMs ?? DEFAULT_MATCH_WINDOW_MS;
  const it = events[Symbol.asyncIterator]();
  const buf = new LookaheadBuffer(); // the look-ahead: events up to the match window ahead, indexed by object
  let done = false;
  const writeEvidence = opts.writeEvidence ?? 'watch';
  const ledger = new WriteLedger(writeEvidence, opts.coverageStart);
  const oracle = new EvidenceOracle({
    look: {
      upcoming: () => buf.iterate(),
      exhausted: () => done,
      coverageEnd: () => opts.coverageEnd?.(),
      ...(opts.scanLookahead ? {} : { keyed: (key, from, to, stop) => buf.keyed(key, from, to, stop), ordered: () => buf.ordered() }),
    },
    matchWindowMs,
    ledger,
    writesRecorded: opts.writesRecorded,
    sidecarRestartTiebreak: featuresOf(opts.version).sidecarRestartTiebreak,
    eventsWatched: opts.eventsWatched ?? false,
    onRoundProgress: (key, until) => controller.extendBusy(key, until),
  });
  const controller = new ReplicaSetController({
    version: opts.version,
    podControl: oracle,
    recordClaimDecisions: false,
    onSync: (s) => syncs.record(s),
  });
  const tracks = new RsTracks();
  const track = (key: string): RsTrack => tracks.of(key);
  const provenance = new Provenance();
  const windows = new WindowTracker(tracks, controller, provenance, opts.maxExpectationChanges ?? 2000);
  const drainExpectations = (): void => windows.drain();
  const series = new CountSeries(opts.maxSeriesPoints ?? 5000);
  const syncs = new SyncRecorder(tracks, controller, windows, provenance, oracle, series);
  const silence = new SilenceBridge(controller, windows);
  const restarts = new RestartDetector(tracks, controller, ledger, windows, opts.controllerStarts);
  const gaps: GapEvent[] = [];

  const pull = async (): Promise<boolean> => {
    if (done) return false;
    const r = await it.next();
    if (r.done) {
      done = true;
      return false;
    }
    // Shape checks before anything reads the event (the oracle's and the ledger's look-ahead
    // too): an event that fails is reported at its FILE:LINE and never enters the buffer.
    if (r.value.type === 'observed' || r.value.type === 'write') {
      const why = r.value.type === 'observed' ? invalidObservedObject(r.value) : invalidWriteBody(r.value);
      if (why) {
        opts.onInvalidEvent?.(r.value.source, why);
        return true;
      }
    }
    const ev = informerView(r.value);
    buf.push(ev);
    try {
      ledger.enter(ev);
    } catch {
      // A shape the ledger cannot read: the engine reports it when the event is delivered.
    }
    return true;
  };


  const sightings = new PodSightings();
  const view = new ViewAlignment(tracks, controller, sightings, windows, () => buf.iterate(), matchWindowMs);
  /** The controller's last pod write per ReplicaSet key the input showed (a create write, or a new pod it controls). */
  const lastWriteAt = new Map<string, number>();

  const forceSync = (key: string, at: number, why: string): SyncRecord => syncs.forced(key, at, why);

  const reconcile = (e: TimelineEvent): void => {
    const open = ledger.settle(e);
    if (open.length === 0) return;
    const keys = [...new Set(open.map((w) => w.rsKey))];
    for (const key of keys) {
      const ws = open.filter((w) => w.rsKey === key);
      const unexplained = () => ws.filter((w) => w.round === undefined);
      const rs = controller.replicaSets.get(key);
      if (!rs) {
        const t = tracks.get(key);
        const why = t?.deletedAt !== undefined ? 'the ReplicaSet had been deleted (as kexp saw it) when the controller wrote' : 'the ReplicaSet is not in kexp\'s model at this time (its object is not in the input)';
        for (const w of ws) ledger.explain(w, 'no-model', why);
        continue;
      }
      if (controller.isBusy(key, e.at)) {
        // Inside a sync kexp is already following: a write that sync did not predict.
        for (const w of ws) {
          if (w.kind === 'adopt' || w.kind === 'release') ledger.explain(w, 'unexpected-claim', `kexp's ClaimObject would not ${w.kind} this pod in the sync then in progress`);
          else ledger.explain(w, 'outside-round', 'kexp\'s model was still inside a sync of this ReplicaSet whose calls did not include this write');
        }
        continue;
      }
      const recordBefore = controller.expectations.get(key);
      // A sync kexp predicted shortly after is this one, a little earlier (timer and event timing).
      const due = controller.queue.dueAt(key);
      const advance = due !== undefined && due >= e.at && due - e.at <= ADVANCE_MS;
      if (advance) controller.queue.take(key);
      oracle.setForcedEvent(e);
      try {
        let s1 = forceSync(key, e.at, advance
          ? `kexp's predicted sync ran ${Math.round(due! - e.at)} ms earlier, at the controller's write`
          : 'no predicted sync explains the controller\'s write here: kexp synced at the write');
        if (unexplained().length === 0) continue;
        const deletes = unexplained().some((w) => w.kind === 'delete' && w.outcome === 'ok');
        if ((s1.outcome === 'gated' || deletes) && view.releaseWithheld(key, e.at)) {
          // The controller wrote (passing its gate, or deleting a surplus that needs them), so its
          // informer had delivered the pods kexp held back — when, the input does not tell: after
          // its last status write, within the sync's reach.
          const t = track(key);
          t.viewUnknown.push({
            from: Math.max(t.lastStatus?.at ?? -Infinity, e.at - matchWindowMs), until: e.at, sources: [e.source],
            reason: 'the controller\'s informer delivered the pods kexp held back as unobserved at a time the input does not show (before this write)',
          });
          s1 = forceSync(key, e.at, 'the controller wrote, so its informer had delivered the pods kexp held back as unobserved: kexp delivered them and synced at the write');
          if (unexplained().length === 0) continue;
        }
        const sat = s1.expectations;
        // Creates past the 5-minute timeout of a record whose round kexp saw fulfilled: the
        // controller's informer had not delivered that round's pods (kubernetes#129795). Hold
        // them back as the controller did, give the record its count back and sync again: the
        // expired record lets the sync through and it creates from the controller's count.
        if (s1.outcome === 'synced' || s1.outcome === 'withheld') {
          const made = unexplained().filter((w) => w.kind === 'create' && w.outcome === 'ok').length;
          const lastSet = made > 0 ? [...track(key).changes].reverse().find((c) => c.op === 'set' && c.at < e.at) : undefined;
          // Only then count the sync's creates ahead (a scan of the look-ahead).
          const creates = lastSet && (lastSet.add ?? 0) > 0 && e.at - lastSet.at > EXPECTATIONS_TIMEOUT_MS ? Math.max(made, view.createsAhead(key, e)) : 0;
          if (creates > 0 && lastSet && s1.active !== undefined && s1.desired !== undefined) {
            const held = view.withholdRound(key, lastSet.at, s1.active - s1.desired + creates, e.at);
            if (held.length) {
              const t = track(key);
              t.viewUnknown.push({
                from: Math.min(...held.map((h) => h.seenAt)), until: e.at, sources: [e.source],
                reason: `the controller created again at ${new Date(e.at).toISOString()} from a cache without ${held.length} pod(s) of its round of ${new Date(lastSet.at).toISOString()}: its informer had not delivered them`,
              });
              t.lagOverCreates.push({ at: e.at, setAt: lastSet.at, pods: held.map((h) => h.pod), source: e.source });
              s1 = forceSync(key, e.at, 'the controller created again after its record expired: its informer had not delivered the earlier round\'s pods (kubernetes#129795); kexp held them back and synced at the write');
              if (unexplained().length === 0) continue;
            }
          }
        }
        if (s1.outcome === 'gated' && recordBefore) {
          // The controller wrote, so SatisfiedExpectations passed for it: its record was gone.
          const change = ledger.credentialChangeBetween(recordBefore.timestamp, e.at);
          const kind: DivergenceKind = change ? 'after-restart' : 'while-gated';
          const t = track(key);
          // The record was there at its Set and at the controller's last write for the key after
          // it (the same sync's calls); when it went, the input does not show.
          const since = Math.max(recordBefore.timestamp, lastWriteAt.get(key) ?? -Infinity);
          if (since < e.at) {
            t.viewUnknown.push({
              from: since, until: e.at, sources: [e.source],
              reason: change ? 'kube-controller-manager restarted at a time the input does not show exactly (a new credential by this write): its record was gone' : 'the controller\'s record was gone by this write (a restart, or an observation the input lacks); when it went, the input does not show',
            });
          }
          if (change) controller.expectations.reset(e.at);
          else controller.expectations.reset(e.at, key);
          drainExpectations();
          t.divergences.push({ at: e.at, kind, record: recordBefore, writes: ws, ...(change ? { credentialChange: change } : {}) });
          forceSync(key, e.at, change
            ? 'kube-controller-manager restarted (new credential): expectations reset, kexp synced at the write'
            : 'the controller wrote while kexp\'s record said gated: kexp dropped its record and synced at the write');
          for (const w of unexplained()) ledger.explain(w, kind, `after dropping its record kexp's model still would not make this ${w.kind}`);
          continue;
        }
        for (const w of unexplained()) {
          if (s1.outcome !== 'synced' && s1.outcome !== 'withheld') {
            ledger.explain(w, 'outside-round', `kexp's sync at the write ended ${s1.outcome}${sat ? ` (expectations ${sat})` : ''}`);
          } else if (w.outcome !== 'ok' && (w.kind === 'create' || w.kind === 'delete')) {
            ledger.explain(w, 'outside-round', `a failed ${w.kind} that kexp's count does not call for (${s1.active ?? '?'} active pod(s) for ${s1.desired ?? '?'} desired)`);
          } else if (w.kind === 'create') {
            const lastSet = [...track(key).changes].reverse().find((c) => c.op === 'set' && c.at < e.at);
            if (lastSet && (lastSet.add ?? 0) > 0 && w.at - lastSet.at > EXPECTATIONS_TIMEOUT_MS) {
              ledger.explain(w, 'expired-over-create', `the controller's record from ${new Date(lastSet.at).toISOString()} (add=${lastSet.add}) was ${Math.round((w.at - lastSet.at) / 1000)} s old, past the 5-minute ExpectationsTimeout; kexp's cache had ${s1.active ?? '?'} active pod(s) for ${s1.desired ?? '?'} desired`);
            } else {
              ledger.explain(w, 'surplus-create', `kexp's cache had ${s1.active ?? '?'} active pod(s) for ${s1.desired ?? '?'} desired`);
            }
          } else if (w.kind === 'delete') {
            ledger.explain(w, 'extra-delete', `kexp's cache had ${s1.active ?? '?'} active pod(s) for ${s1.desired ?? '?'} desired`);
          } else {
            ledger.explain(w, 'unexpected-claim', `kexp's ClaimObject would not ${w.kind} this pod at that moment`);
          }
        }
      } finally {
        oracle.setForcedEvent(undefined);
      }
    }
  };


  let start: number | undefined;
  let end: number | undefined;
  let count = 0;
  while (true) {
    if (buf.length === 0 && !(await pull())) break;
    if (buf.length === 0) continue;
    const e = buf.peek()!;
    while (!done && (buf.last()!.at <= e.at + matchWindowMs)) {
      if (!(await pull())) break;
    }
    oracle.beforeSyncs(e);
    silence.bridge(e.at, e.source);
    restarts.logStartsBefore(e.at);
    controller.runDue(e.at);
    drainExpectations();
    restarts.noteCredential(e);
    reconcile(e);
    buf.shift();
    count++;
    start ??= e.at;
    end = e.at;
    provenance.delivering(e);
    oracle.observe(e);
    try {
      deliver(e);
    } catch (err) {
      // A shape the validator did not anticipate: report it, keep replaying.
      opts.onInvalidEvent?.(e.source, `event could not be processed (${(err as Error)?.message ?? String(err)})`);
    }
    drainExpectations();
    provenance.delivered();
  }
  const declaredEnd = opts.coverageEnd?.();
  if (declaredEnd !== undefined && (end === undefined || declaredEnd > end)) end = declaredEnd;
  if (end !== undefined) silence.finish(end);


  function deliver(e: TimelineEvent): void {
    if (e.type === 'write' && e.actor.replicaSetController && e.resource === 'pods' && e.owner?.state === 'owned' && e.owner.kind === 'ReplicaSet') {
      lastWriteAt.set(`${e.namespace}/${e.owner.name}`, e.at);
    }
    if (e.type === 'observed' && e.kind === 'Pod' && e.watchType === 'ADDED') {
      const ref = e.object.metadata ? controllerRefOf(e.object.metadata) : undefined;
      if (ref?.kind === 'ReplicaSet' && !sightings.has(objectKey(e.object.metadata))) lastWriteAt.set(`${e.object.metadata.namespace}/${ref.name}`, e.at);
    }
    if (e.type === 'gap') {
      gaps.push(e);
      for (const t of tracks.values()) if (t.open) t.open.gapInside = true;
      return;
    }
    if (e.type !== 'observed') return;
    if (e.kind === 'Pod') {
      const pod = e.object;
      if (!pod.metadata?.name || !pod.metadata.namespace) return;
      const ref = controllerRefOf(pod.metadata);
      if (ref?.kind === 'ReplicaSet') {
        const rsKey = `${pod.metadata.namespace}/${ref.name}`;
        provenance.noteTrigger(rsKey, e.source);
        // An expected-delete pod that lost its controllerRef before its deletion was observed (case 8).
      }
      const old = controller.pods.get(objectKey(pod.metadata));
      const oldRef = old ? controllerRefOf(old.metadata) : undefined;
      if (old && oldRef?.kind === 'ReplicaSet' && (!ref || ref.uid !== oldRef.uid)) {
        const rsKey = `${pod.metadata.namespace}/${oldRef.name}`;
        const t = tracks.get(rsKey);
        const pk = objectKey(pod.metadata);
        if (t && controller.expectations.getDeleteKeys(rsKey).includes(pk)) {
          t.orphanedExpected.push({ at: e.at, podKey: pk, source: e.source });
        }
        provenance.noteTrigger(rsKey, e.source);
      }
      // Name reuse: a deletion observation of a chosen key by a pod with another UID (case 14).
      if (ref?.kind === 'ReplicaSet' && (e.watchType === 'DELETED' || pod.metadata.deletionTimestamp)) {
        const rsKey = `${pod.metadata.namespace}/${ref.name}`;
        const t = tracks.get(rsKey);
        const pk = objectKey(pod.metadata);
        const chosenUid = t?.chosen.get(pk);
        if (t && chosenUid && pod.metadata.uid && chosenUid !== pod.metadata.uid && controller.expectations.getDeleteKeys(rsKey).includes(pk)) {
          t.nameReuse.push({ at: e.at, podKey: pk, chosenUid, observedUid: pod.metadata.uid, source: e.source });
        }
      }
      if (ref?.kind === 'ReplicaSet' && pod.status?.phase === 'Failed' && (!old || old.status?.phase !== 'Failed')) {
        const created = pod.metadata.creationTimestamp ? Date.parse(pod.metadata.creationTimestamp) : NaN;
        track(`${pod.metadata.namespace}/${ref.name}`).podFailures.push({
          pod: objectKey(pod.metadata), failedAt: e.at, reason: typeof pod.status.reason === 'string' && pod.status.reason ? pod.status.reason : 'Failed', source: e.source, ...(Number.isNaN(created) ? {} : { createdAt: created }),
        });
      }
      const pk = objectKey(pod.metadata);
      sightings.note(e.watchType === 'DELETED', pod, pk, ref, e.at, e.source);
      if (!view.deliverPod(e, pk, ref, old)) return;
      // Counts change with every pod event, not only at syncs: sample them here too.
      for (const r of [ref, oldRef]) {
        if (r?.kind !== 'ReplicaSet') continue;
        const key = `${pod.metadata.namespace}/${r.name}`;
        const t = tracks.get(key);
        const c = controller.podCounts(key);
        if (t?.rs && c && t.deletedAt === undefined) series.push(t, { at: e.at, desired: desiredReplicas(t.rs), ...c });
      }
      return;
    }
    if (e.kind === 'ReplicaSet') {
      const rs = e.object;
      if (!rs.metadata?.name || !rs.metadata.namespace) return;
      const key = objectKey(rs.metadata);
      const t = track(key);
      provenance.noteTrigger(key, e.source);
      if (t.firstSeenAt === undefined) {
        t.firstSeenAt = e.at;
        // Created after the input started (not part of the initial list): the controller cannot
        // hold expectations for this key yet (a deleted namesake's were cleared by deleteRS).
        const created = rs.metadata.creationTimestamp ? Date.parse(rs.metadata.creationTimestamp) : NaN;
        const from = Math.min(start ?? e.at, opts.coverageStart?.() ?? Infinity);
        // An audit log has no initial list: its ADDED is the create request itself.
        t.createdInCoverage = e.watchType === 'ADDED' && (e.at - from > 200 || e.atBasis === 'audit-stage') &&
          !Number.isNaN(created) && created >= Math.floor(from / 1000) * 1000;
      }
      const uid = rs.metadata.uid;
      const prevUid = t.rs?.metadata.uid ?? t.uids[t.uids.length - 1];
      if (uid && !t.uids.includes(uid)) {
        if (t.uids.length > 0) t.uidChanges.push({ at: e.at, oldUid: prevUid, newUid: uid, source: e.source });
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
      if (e.watchType !== 'DELETED') view.noteStatusWrite(t, rs, e);
      controller.deliverReplicaSet(e.watchType, rs, e.at);
      return;
    }
  }


  // The simulation is over: the report counts every pod the input shows, observed by the controller or not.
  view.restoreAll();
  series.finish();
  windows.finish();
  const untrackedWrites = settleWrites(tracks, ledger, opts.rsFilter);
  return {
    tracks: tracks.byKey, pods: controller.pods, replicaSets: controller.replicaSets, gaps, start, end, events: count,
    controller, writeEvidence, untrackedWrites, restarts: restarts.restarts, silences: silence.silences,
  };
}
