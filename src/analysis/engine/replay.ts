/**
 * The replay engine's driver: drives a controller model (built by ReplayOptions.controller) with a time-ordered stream
 * of TimelineEvents (design.md "Reconstructing the controller") and hands the report, per
 * ReplicaSet, what it learned (replay-result.ts). The real controller syncs within milliseconds
 * of an enqueue, and events with the same timestamp collapse into one sync like the workqueue's
 * de-duplication does, so every sync the workqueue has due strictly before an event runs before
 * that event is delivered — and one due at the very instant of the controller's own status write
 * (an audit log's write event) runs before it too: a sync writes its status after its reads, so
 * the write is that sync's, never a change it read.
 *
 * For each input event `e`, the driver calls the stages in this fixed order:
 *
 *  1. feed        event-feed.ts        the look-ahead holds every event up to matchWindowMs past `e`
 *  2. evidence    evidence-oracle.ts   `beforeSyncs`: an ADD continuing a running creation round, or
 *                                      the status write ending one, extends its sync
 *  3. silence     silence-bridge.ts    after a silence longer than the horizon, what would come
 *                                      due in it is dropped
 *  4. restarts    restart-detector.ts  the controller's logged start-ups due by `e`; while no
 *                                      process leads (leadership.ts) the due syncs are dropped; then
 *     view        view-alignment.ts    ghosts its 404 DELETEs ahead pin, its logged pod-informer
 *                                      relists due by `e` (held deletions delivered)
 *  5. due syncs   the model's runDue   every sync due before `e` (sync-recorder.ts records each,
 *                                      window-tracker.ts the expectation changes)
 *  6. restarts    restart-detector.ts  a new credential after a pause in the controller's writes
 *  7. reconcile   write-reconciler.ts  writes `e` shows that no round explains: kexp syncs at them
 *  8. delivery    delivery.ts          `e` reaches the oracle (`observe`), then the informer
 *                                      handlers through the view alignment (view-alignment.ts)
 *
 * At the end of input the syncs due up to the end of coverage run (never past the silence
 * horizon), withheld pods are restored, series copied, windows fulfilled by the last
 * observations closed and the writes settled. The stages share no state but what their
 * constructors are given; the model is reached only through the seam (engine-controller.ts).
 *
 * Cost: O(events × (look-ahead reads of the syncs they trigger)); memory bounded by the match
 * window of look-ahead plus one track per ReplicaSet. Pure: no I/O beyond the given iterator,
 * no clock.
 */
import { featuresOf } from '../../model/version.js';
import type { ControllerComponent, TimelineEvent } from '../../timeline/event.js';
import { CountSeries } from './count-series.js';
import { Delivery } from './delivery.js';
import { REPLICA_SET_OWNER, type EngineController } from './engine-controller.js';
import { EventFeed } from './event-feed.js';
import { EvidenceOracle } from './evidence-oracle.js';
import { DEFAULT_MATCH_WINDOW_MS } from './evidence-window.js';
import { leadershipGaps, leaseGaps, mergeGaps } from './leadership.js';
import { PodSightings } from './pod-sightings.js';
import { Provenance } from './provenance.js';
import type { ReplayOptions } from './replay-options.js';
import { settleWrites, type ReplayResult } from './replay-result.js';
import { RestartDetector } from './restart-detector.js';
import { RsTracks } from './rs-track.js';
import { SilenceBridge } from './silence-bridge.js';
import { SyncRecorder } from './sync-recorder.js';
import { ViewAlignment } from './view-alignment.js';
import { WindowTracker } from './window-tracker.js';
import { WriteLedger } from './write-ledger.js';
import { WriteReconciler } from './write-reconciler.js';

/** The controller's own write of its owner's status (updateReplicaSetStatus, updateDaemonSetStatus, the Job's status update). */
function ownStatusWrite(e: TimelineEvent, component: ControllerComponent): boolean {
  return e.type === 'write' && e.subresource === 'status' && e.actor.controller === component && (e.verb === 'update' || e.verb === 'patch');
}

/**
 * Replays `events` (time-ordered) through the model. Never throws for odd input: events the
 * model cannot use are skipped (sources report malformed input themselves).
 */
export async function replay(events: AsyncIterable<TimelineEvent>, opts: ReplayOptions): Promise<ReplayResult> {
  const matchWindowMs = opts.matchWindowMs ?? DEFAULT_MATCH_WINDOW_MS;
  const writeEvidence = opts.writeEvidence ?? 'watch';
  const owner = opts.owner ?? REPLICA_SET_OWNER;
  const ledger = new WriteLedger(writeEvidence, opts.coverageStart, owner);
  const feed = new EventFeed(events, ledger, matchWindowMs, opts.onInvalidEvent, owner);
  const oracle = new EvidenceOracle({
    look: feed.lookahead(() => opts.coverageEnd?.(), opts.scanLookahead),
    matchWindowMs,
    owner,
    ledger,
    writesRecorded: opts.writesRecorded,
    sidecarRestartTiebreak: featuresOf(opts.version).sidecarRestartTiebreak,
    slowStartBatch: featuresOf(opts.version).slowStartBatch,
    createTimeoutAsSuccess: featuresOf(opts.version).createTimeoutAsSuccess,
    eventsWatched: opts.eventsWatched ?? false,
    ownerStatusConsistency: featuresOf(opts.version).consistencyGate && owner.statusConsistencyStore === true,
    onRoundProgress: (key, until) => controller.extendBusy(key, until),
    onRoundCut: (key, add, at) => controller.expectations.lower(key, add, 0, at),
    controllerStarts: (opts.controllerStarts ?? []).map((s) => s.at).sort((a, b) => a - b),
    // A recording cannot tell a round's calls resuming after a pause from a new process making them:
    // the controller's view is unknown across the pause (no decision in it is claimed).
    onPauseResumed: (key, from, until, source) => tracks.of(key).viewUnknown.push({
      from, until, sources: [source],
      reason: 'the controller\'s creates paused and resumed with no status write between: the same sync\'s calls completed late, or a new process after a restart — a recording does not tell',
    }),
  });
  // The engine reaches the model only through the seam (engine-controller.ts).
  const controller: EngineController = opts.controller({ podControl: oracle, onSync: (s) => (syncs.record(s), oracle.noteSync(s)) });
  const tracks = new RsTracks();
  const provenance = new Provenance();
  const windows = new WindowTracker(tracks, controller, provenance, opts.maxExpectationChanges ?? 2000);
  const series = new CountSeries(opts.maxSeriesPoints ?? 5000);
  const syncs = new SyncRecorder(tracks, controller, windows, provenance, oracle, series);
  const silence = new SilenceBridge(controller, windows);
  const restarts = new RestartDetector(tracks, controller, ledger, windows, opts.controllerStarts, mergeGaps(leaseGaps(opts.leaseWrites ?? [], opts.controllerStarts ?? []), leadershipGaps(opts.leaseLines ?? [], opts.controllerStarts ?? [])));
  const sightings = new PodSightings(owner.kind);
  const view = new ViewAlignment(tracks, controller, sightings, windows, () => feed.buffer.iterate(), matchWindowMs, owner, () => (feed.exhausted ? opts.coverageEnd?.() : undefined), opts.podInformerRelists,
    (from, to) => (feed.buffer.ordered() ? feed.buffer.keyed('rscw:delete', from, to) : feed.buffer.iterate()),
    // The ReplicaSet's store is a consistency store (model/replicaset/owner-kind.ts); the ReplicationController's is not.
    featuresOf(opts.version).consistencyGate && owner.kind === REPLICA_SET_OWNER.kind,
    opts.scanLookahead ? undefined : feed.buffer);
  if (!opts.scanLookahead) feed.buffer.trackPods(controller.pods);
  oracle.setHeldGone((pk) => view.heldGone(pk), (pk, at) => view.ghostGone(pk, at));
  windows.setHeldPods((pk) => view.eventsUnseen(pk));
  const reconciler = new WriteReconciler(tracks, controller, ledger, oracle, syncs, view, sightings, windows, matchWindowMs, owner);
  const delivery = new Delivery(tracks, controller, provenance, sightings, view, series, reconciler, opts.coverageStart, owner);

  const buf = feed.buffer;
  let start: number | undefined;
  let end: number | undefined;
  let count = 0;
  while (true) {
    // 1. feed
    // (`pullSync` first: no promise per event while the input's batches last.)
    if (buf.length === 0 && !(feed.pullSync() ?? (await feed.pull()))) break;
    if (buf.length === 0) continue;
    const e = buf.peek()!;
    while (feed.wantsMore(e)) if (feed.pullSync() === undefined) await feed.pull();
    // 2–6. what happens before `e`
    oracle.beforeSyncs(e);
    silence.bridge(e.at, e.source);
    restarts.logStartsBefore(e.at);
    view.beforeSyncs(e.at);
    controller.runDue(e.at, ownStatusWrite(e, owner.component));
    windows.drain();
    restarts.noteCredential(e);
    // 7. reconcile
    reconciler.reconcile(e);
    // 8. delivery
    buf.shift();
    count++;
    start ??= e.at;
    end = e.at;
    provenance.delivering(e);
    oracle.observe(e);
    try {
      delivery.deliver(e, start);
    } catch (err) {
      // A shape the validator did not anticipate: report it, keep replaying.
      opts.onInvalidEvent?.(e.source, `event could not be processed (${(err as Error)?.message ?? String(err)})`);
    }
    windows.drain();
    provenance.delivered();
    opts.onEventReplayed?.();
  }

  const declaredEnd = opts.coverageEnd?.();
  if (declaredEnd !== undefined && (end === undefined || declaredEnd > end)) end = declaredEnd;
  if (end !== undefined) silence.finish(end);
  // The simulation is over: the report counts every pod the input shows, observed by the controller or not.
  view.restoreAll();
  series.finish();
  windows.finish();
  const untrackedWrites = settleWrites(tracks, ledger, opts.rsFilter);
  return {
    tracks: tracks.byKey, pods: controller.pods, replicaSets: controller.owners, gaps: delivery.gaps, start, end, events: count,
    writeEvidence, untrackedWrites, restarts: restarts.restarts, silences: silence.silences,
    ...(controller.queue.firstDue() !== undefined ? { nextDue: controller.queue.firstDue() } : {}),
  };
}
