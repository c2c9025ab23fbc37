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
import { ReplicaSetController } from '../../model/replicaset-controller.js';
import { controllerRefOf, desiredReplicas, objectKey } from '../../model/objects.js';
import { featuresOf } from '../../model/version.js';
import type { GapEvent, TimelineEvent } from '../../timeline/event.js';
import { EvidenceOracle } from './evidence-oracle.js';
import { DEFAULT_MATCH_WINDOW_MS } from './evidence-window.js';
import { invalidObservedObject, invalidWriteBody } from '../../timeline/validate.js';
import { LookaheadBuffer } from './lookahead-buffer.js';
import { WriteLedger } from './write-ledger.js';
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
import { WriteReconciler } from './write-reconciler.js';

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
  const reconciler = new WriteReconciler(tracks, controller, ledger, oracle, syncs, view, sightings, windows, matchWindowMs);

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
    reconciler.reconcile(e);
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
    reconciler.noteWrite(e);
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
