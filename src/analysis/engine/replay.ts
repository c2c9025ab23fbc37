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
import { controllerRefOf, desiredReplicas, objectKey, type Pod, type ReplicaSet } from '../../model/objects.js';
import { isPodActive } from '../../model/pod-ranking.js';
import { featuresOf } from '../../model/version.js';
import type { GapEvent, TimelineEvent } from '../../timeline/event.js';
import { EvidenceOracle, FIRST_CALL_MS } from './evidence-oracle.js';
import { DEFAULT_MATCH_WINDOW_MS } from './evidence-window.js';
import { invalidObservedObject, invalidWriteBody } from '../../timeline/validate.js';
import { LookaheadBuffer } from './lookahead-buffer.js';
import { WriteLedger, type DivergenceKind } from './write-ledger.js';
import { checkStatusWrite, existedAt, statusSignature, type PodSighting, type ViewBehind } from './controller-view.js';
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


  /** When the input first showed each pod (namespace/name), for the controller-view check. */
  const podSightings = new Map<string, PodSighting & { uid?: string }>();
  /**
   * Per ReplicaSet key: the pods the input first showed controlled by it since its last status
   * write, in time order — the ones a status write need not count, so most writes are checked
   * without walking every pod of the ReplicaSet (noteStatusWrite).
   */
  const recentSightings = new Map<string, Array<{ pk: string; at: number }>>();
  /**
   * Pods the controller's status writes show it had not observed: out of the model's cache (latest
   * state kept). `raisedFor`: the Set time of the record whose lower their ADD made was given back.
   */
  const withheldPods = new Map<string, { pod: Pod; rsKey: string; raisedFor?: number }>();
  /**
   * Withheld pods the input deleted (or gave another controller) while their record still waited
   * for them: whether the controller's informer delivered their ADD first (a lag: the record was
   * lowered) or never (a lost event: it waits until it expires), the input does not show — until
   * a write of the controller passes the gate (releaseWithheld), or the record expires.
   */
  const pendingLowers = new Map<string, { rsKey: string; setAt: number; span: RsTrack['viewUnknown'][number] }>();
  /** The controller's last pod write per ReplicaSet key the input showed (a create write, or a new pod it controls). */
  const lastWriteAt = new Map<string, number>();
  /** Pods whose ADD lowered the model's `add` (the record's Set time), to give the lower back when withheld. */
  const loweredBy = new Map<string, { rsKey: string; setAt: number }>();

  /**
   * A change of the status fields is the controller's status write: compare what it counted
   * with the pods the input showed (controller-view.ts). The first status seen has no previous
   * write to anchor the comparison.
   */
  const noteStatusWrite = (t: RsTrack, rs: ReplicaSet, e: TimelineEvent): void => {
    const signature = statusSignature(rs);
    const uid = rs.metadata.uid;
    // The first status of this ReplicaSet (of this UID) kexp sees was written at a time the input
    // does not show — perhaps by a sync still running, whose next write counts what it listed
    // before pods the input already shows: it anchors no comparison.
    const first = !t.lastStatus || t.lastStatus.uid !== uid;
    if (!first && t.lastStatus!.signature === signature) return;
    const previous = first ? undefined : t.lastStatus!.at;
    t.lastStatus = first ? { signature, uid } : { at: e.at, signature, uid };
    t.statusWrites.push(e.at);
    const ns = rs.metadata.namespace;
    const held = [...withheldPods.values()].filter((w) => w.rsKey === t.key);
    // Read lazily: a status counting at least the index's size settles the check without the walk
    // (a large ReplicaSet writes its status thousands of times).
    const mine = function* (): Generator<Pod> {
      yield* controller.pods.controlledBy(ns, uid);
      for (const w of held) yield w.pod;
    };
    const atMost = controller.pods.countControlledBy(ns, uid) + held.length;
    const recent = recentSightings.get(t.key);
    if (recent) recentSightings.set(t.key, recent.filter((r) => r.at >= e.at));
    const open = t.viewUnknown.find((u) => u.until === undefined);
    const lastBehind = t.viewBehind[t.viewBehind.length - 1];
    const lastUp = t.viewCaughtUp[t.viewCaughtUp.length - 1];
    // Whether the status counts every pod matters only while kexp holds pods back or its view is
    // unknown or behind; otherwise only a status showing the view behind does, and that needs
    // more older pods than the status counts: at most every pod of the index but those first
    // seen since the previous write (a scale-up's status lags by those). Bounded so, the check
    // walks the ReplicaSet's pods only when it could find it behind.
    const statusReplicas = (rs.status as { replicas?: number } | undefined)?.replicas;
    if (held.length === 0 && !open && (!lastBehind || (lastUp !== undefined && lastUp.at >= lastBehind.at)) && typeof statusReplicas === 'number') {
      let fresh = 0;
      if (previous !== undefined) {
        for (const r of recent ?? []) {
          const p = controller.pods.get(r.pk);
          if (p && podSightings.get(r.pk)?.at === r.at && isPodActive(p) && controllerRefOf(p.metadata)?.uid === uid && !existedAt(p, r.at, previous)) fresh++;
        }
      }
      if (previous === undefined || atMost - fresh <= statusReplicas) return;
    }
    const { behind, caughtUp } = checkStatusWrite(rs, e.at, e.source, mine(), podSightings, previous, atMost);
    if (behind) {
      t.viewUnknown.push({ from: behind.since, until: e.at, reason: `the controller's status write counted ${behind.statusReplicas} of ${behind.expected} pods the input showed`, sources: [e.source] });
    } else if (caughtUp) {
      if (open) {
        open.until = e.at;
        open.sources.push(e.source);
      }
    } else if (!open && previous !== undefined && held.length > 0) {
      // No status write since the last one means the controller's view had not changed (a pod
      // it observes triggers a sync whose status write would show it); this one may count the
      // withheld pods or newer ones instead: unknown from its sync until one counts every pod.
      // The sync that wrote it started within the match window before (its view changed then).
      t.viewUnknown.push({ from: Math.max(previous, e.at - matchWindowMs), reason: 'the controller\'s status write may count pods kexp holds back as unobserved, or newer ones instead', sources: [e.source] });
    }
    if (behind) t.viewBehind.push(behind);
    else if (caughtUp && t.viewBehind.length && (t.viewCaughtUp.length === 0 || t.viewCaughtUp[t.viewCaughtUp.length - 1]!.at < t.viewBehind[t.viewBehind.length - 1]!.at)) {
      t.viewCaughtUp.push({ at: e.at, source: e.source });
    }
    alignView(t, behind, caughtUp, e);
  };


  /**
   * Makes kexp's cache hold what the controller's held at its status write: the pods it had not
   * observed are withheld from the model (and a lower their ADD made is given back: the
   * controller's record still waits for them); once a status counts every pod, the withheld
   * ones are delivered (the informer caught up).
   */
  /**
   * The controller's creates for `key` the input shows from `e` on, one sync's worth (each
   * within FIRST_CALL_MS of the previous): create writes (audit) or new pods it controls (watch).
   */
  const createsAhead = (key: string, e: TimelineEvent): number => {
    const rs = controller.replicaSets.get(key);
    if (!rs) return 0;
    const name = key.slice(key.indexOf('/') + 1);
    const ns = rs.metadata.namespace;
    let n = 0;
    let last = e.at;
    const ahead = function* (): Generator<TimelineEvent> {
      yield e;
      yield* buf.iterate();
    };
    for (const x of ahead()) {
      if (x.at - last > FIRST_CALL_MS) break;
      const isCreate = x.type === 'write'
        ? x.actor.replicaSetController && x.resource === 'pods' && !x.subresource && x.verb === 'create' && x.namespace === ns && x.owner?.state === 'owned' && x.owner.name === name && x.status.code < 300
        : x.type === 'observed' && x.kind === 'Pod' && x.watchType === 'ADDED' && x.object.metadata?.namespace === ns && controllerRefOf(x.object.metadata)?.uid === rs.metadata.uid && !podSightings.has(objectKey(x.object.metadata));
      if (!isCreate) continue;
      if (x !== e || n === 0) n++;
      last = x.at;
    }
    return n;
  };

  /**
   * Withholds up to `n` pods of the round whose record was Set at `setAt` (pods whose ADD
   * lowered that record), newest first, and gives their lowers back. Returns what it held.
   */
  const withholdRound = (key: string, setAt: number, n: number, at: number): Array<{ pod: string; seenAt: number }> => {
    if (n <= 0) return [];
    const rec = controller.expectations.get(key);
    if (!rec || rec.timestamp !== setAt) return [];
    const cands = [...loweredBy].filter(([pk, l]) => l.rsKey === key && l.setAt === setAt && !withheldPods.has(pk) && controller.pods.get(pk))
      .map(([pk]) => ({ pod: pk, seenAt: podSightings.get(pk)?.at ?? at }))
      .sort((a, b) => b.seenAt - a.seenAt)
      .slice(0, n);
    for (const c of cands) holdBack(key, c.pod, at);
    drainExpectations();
    return cands;
  };

  /**
   * Takes one pod out of the model's cache as not yet observed by the controller; if its ADD
   * lowered the record still in force, gives that lower back (the controller's record still
   * waits for it). The caller drains the expectation log.
   */
  const holdBack = (key: string, pk: string, at: number): void => {
    const pod = controller.withholdPod(pk);
    if (!pod) return;
    const lowered = loweredBy.get(pk);
    const rec = controller.expectations.get(key);
    const raise = lowered !== undefined && lowered.rsKey === key && rec !== undefined && rec.timestamp === lowered.setAt;
    withheldPods.set(pk, { pod, rsKey: key, ...(raise ? { raisedFor: rec.timestamp } : {}) });
    if (raise) controller.expectations.raise(key, 1, 0, at);
  };

  /** Delivers the pods withheld for `key` to the model (the controller observed them); true if there were any. */
  const deliverWithheld = (key: string, at: number): boolean => {
    let any = false;
    for (const [pk, w] of [...withheldPods]) {
      if (w.rsKey !== key) continue;
      withheldPods.delete(pk);
      controller.deliverPod('ADDED', w.pod, at);
      any = true;
    }
    return any;
  };

  /**
   * Delivers the pods withheld for `key` (the controller evidently observed them), and lowers the
   * record for those the input deleted meanwhile (their ADD came first); true if there were any.
   */
  const releaseWithheld = (key: string, at: number): boolean => {
    let any = deliverWithheld(key, at);
    for (const [pk, p] of [...pendingLowers]) {
      if (p.rsKey !== key) continue;
      pendingLowers.delete(pk);
      if (p.span.until === undefined || p.span.until > at) p.span.until = at;
      if (controller.expectations.get(key)?.timestamp !== p.setAt) continue;
      controller.expectations.creationObserved(key, at);
      any = true;
    }
    if (any) drainExpectations();
    return any;
  };

  /**
   * A withheld pod leaves the view question (the input deleted it, or it now has another
   * controller): it is no longer held back. If its record still waits for it (kexp gave its lower
   * back), the controller's record stands at one of two counts until a write of the controller
   * settles it or the record expires: kexp keeps the waiting one and marks that time unknown.
   */
  const forgetWithheld = (pk: string, w: { rsKey: string; raisedFor?: number }, e: TimelineEvent, why: string): void => {
    withheldPods.delete(pk);
    const rec = controller.expectations.get(w.rsKey);
    if (w.raisedFor === undefined || !rec || rec.timestamp !== w.raisedFor || rec.add <= 0) return;
    const expires = rec.timestamp + EXPECTATIONS_TIMEOUT_MS;
    if (e.at >= expires) return;
    const span = {
      from: e.at, until: expires, sources: [e.source],
      reason: `${why} a pod the controller had not observed (${pk}): whether its informer delivered the pod's ADD first (lowering the record) or never, the input does not show until the controller writes or the record expires`,
    };
    track(w.rsKey).viewUnknown.push(span);
    pendingLowers.set(pk, { rsKey: w.rsKey, setAt: rec.timestamp, span });
  };

  const alignView = (t: RsTrack, behind: ViewBehind | undefined, caughtUp: boolean, e: TimelineEvent): void => {
    const missing = new Set(behind?.missing.map((m) => m.pod) ?? []);
    // Withheld pods are delivered only when the status proves the controller counts them all;
    // a status that may count newer pods instead of them proves nothing.
    if (caughtUp) deliverWithheld(t.key, e.at);
    for (const pk of missing) if (!withheldPods.has(pk)) holdBack(t.key, pk, e.at);
    drainExpectations();
  };

  /** Set while the engine runs a sync the input forced (see reconcile). */
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
        if ((s1.outcome === 'gated' || deletes) && releaseWithheld(key, e.at)) {
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
          const creates = lastSet && (lastSet.add ?? 0) > 0 && e.at - lastSet.at > EXPECTATIONS_TIMEOUT_MS ? Math.max(made, createsAhead(key, e)) : 0;
          if (creates > 0 && lastSet && s1.active !== undefined && s1.desired !== undefined) {
            const held = withholdRound(key, lastSet.at, s1.active - s1.desired + creates, e.at);
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
      if (ref?.kind === 'ReplicaSet' && !podSightings.has(objectKey(e.object.metadata))) lastWriteAt.set(`${e.object.metadata.namespace}/${ref.name}`, e.at);
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
      if (e.watchType === 'DELETED') podSightings.delete(pk);
      else if (!podSightings.has(pk) || podSightings.get(pk)!.uid !== pod.metadata.uid) {
        podSightings.set(pk, { at: e.at, source: e.source, uid: pod.metadata.uid });
        if (ref?.kind === 'ReplicaSet') {
          const rk = `${pod.metadata.namespace}/${ref.name}`;
          let r = recentSightings.get(rk);
          if (!r) recentSightings.set(rk, (r = []));
          r.push({ pk, at: e.at });
        }
      }
      const held = withheldPods.get(pk);
      if (held && e.watchType !== 'DELETED' && ref?.uid === controllerRefOf(held.pod.metadata)?.uid) {
        // Not observed by the controller yet: keep its latest state for when it is.
        held.pod = pod;
        return;
      }
      // Deleted, or now another controller's (or none's): no status write of the ReplicaSet it was
      // held for can tell any more whether the controller observed it; delivered as it is now.
      if (held) forgetWithheld(pk, held, e, e.watchType === 'DELETED' ? 'the input deleted' : 'the input released');
      const rsKeyOf = ref?.kind === 'ReplicaSet' ? `${pod.metadata.namespace}/${ref.name}` : undefined;
      const before = rsKeyOf && e.watchType === 'ADDED' && !old ? controller.expectations.get(rsKeyOf) : undefined;
      const addBefore = before?.add;
      controller.deliverPod(e.watchType, pod, e.at);
      if (before && addBefore !== undefined && addBefore > 0) {
        const after = controller.expectations.get(rsKeyOf!);
        if (after && after.timestamp === before.timestamp && after.add < addBefore) loweredBy.set(pk, { rsKey: rsKeyOf!, setAt: before.timestamp });
      }
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
      if (e.watchType !== 'DELETED') noteStatusWrite(t, rs, e);
      controller.deliverReplicaSet(e.watchType, rs, e.at);
      return;
    }
  }


  // The simulation is over: the report counts every pod the input shows, observed by the controller or not.
  for (const w of withheldPods.values()) controller.restorePod(w.pod);
  series.finish();
  windows.finish();
  const untrackedWrites = settleWrites(tracks, ledger, opts.rsFilter);
  return {
    tracks: tracks.byKey, pods: controller.pods, replicaSets: controller.replicaSets, gaps, start, end, events: count,
    controller, writeEvidence, untrackedWrites, restarts: restarts.restarts, silences: silence.silences,
  };
}
