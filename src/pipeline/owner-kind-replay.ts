/**
 * One replay per owner kind over one stream: the ReplicaSet engine and the ReplicationController
 * engine (model/replicationcontroller/replication-manager.ts) run concurrently over the views of
 * owner-kind-views.ts, the stream read once (stream-tee.ts). Each engine has its own controller,
 * expectations, queue and keys, as upstream's two controllers do.
 *
 * Contract: `replicaSets` is what replay() alone gave before RCs were modelled (the ReplicaSet view
 * is the stream less RC objects); `replicationControllers` is undefined unless the input showed an
 * RC object. A problem with an event both views got is reported once (by the ReplicaSet engine).
 *
 * `withReplicationControllers` adds the RC engine's reports to the Report built from the
 * ReplicaSets' (fused with the RC manager's log lines when a controller log is given).
 *
 * Cost: that of the ReplicaSet replay, plus the routing and the RC engine over its view (in an
 * input without RCs: orphan pods, Namespaces, gaps and the RC controller's writes and Events).
 */
import { replay } from '../analysis/engine/replay.js';
import type { ReplayOptions } from '../analysis/engine/replay-options.js';
import type { ReplayResult } from '../analysis/engine/replay-result.js';
import { replicaSetControllerFactory } from '../model/replicaset/replicaset-controller.js';
import { REPLICATION_CONTROLLER_KIND, replicationControllerFactory } from '../model/replicationcontroller/replication-manager.js';
import type { TimelineEvent } from '../timeline/event.js';
import { buildReport, type BuildOptions } from '../analysis/report-builder.js';
import { fuseControllerLog, type ControllerLogInput } from '../analysis/controller-log.js';
import { withOwnerKind } from '../analysis/report/owner-kind.js';
import type { Report } from '../analysis/report-types.js';
import { daemonSetEngineFactory, daemonSetStatusCount } from '../model/daemonset/engine-owner.js';
import { DS_COMPONENT, DS_EVENT_COMPONENT, JOB_COMPONENT, OwnerKindViews, TO_DAEMON_SETS, TO_JOBS, TO_REPLICA_SETS, TO_REPLICATION_CONTROLLERS } from './owner-kind-views.js';
import { jobEngineFactory, jobStatusCount } from '../model/job/engine-owner.js';
import { TO_FIRST, TO_SECOND, teeStream } from './stream-tee.js';
import { FinalizerRemovals } from '../analysis/finalizer-removals.js';
import type { Job } from '../model/objects.js';

export interface OwnerKindResults {
  replicaSets: ReplayResult;
  replicationControllers?: ReplayResult;
  daemonSets?: ReplayResult;
  jobs?: ReplayResult;
  /** The Jobs' pods' job-tracking finalizer removals, read from the Job view (analysis/finalizer-removals.ts). */
  jobFinalizers?: FinalizerRemovals;
}

/** The DaemonSet controller as the engine sees its writes and Events (owner-kind-views.ts). */
const DAEMON_SET_OWNER = { kind: 'DaemonSet', component: DS_COMPONENT, eventComponent: DS_EVENT_COMPONENT, statusCount: daemonSetStatusCount, statusConsistencyStore: true, syncEndsAtStatusWrite: true } as const;
/** The Job controller: writes and Events both as `job-controller`; its status counts active pods. */
const JOB_OWNER = { kind: 'Job', component: JOB_COMPONENT, statusCount: jobStatusCount, statusConsistencyStore: true } as const;

/** `source` with each event handed to `see` on its way, lazily. */
async function* tapStream<T>(source: AsyncIterable<T>, see: (e: T) => void): AsyncGenerator<T> {
  for await (const e of source) {
    see(e);
    yield e;
  }
}

/** `source` mapped through `f`, lazily. */
async function* mapStream<T>(source: AsyncIterable<T>, f: (e: T) => T): AsyncGenerator<T> {
  for await (const e of source) yield f(e);
}

/**
 * Replays `events` once per owner kind; `opts` as replay()'s, less the controller and owner. The
 * stream is read once: a first tee splits the ReplicaSet view from what the other kinds need, a
 * second splits that between the ReplicationController and the DaemonSet views.
 */
export async function replayOwnerKinds(events: AsyncIterable<TimelineEvent>, opts: Omit<ReplayOptions, 'controller' | 'owner'>): Promise<OwnerKindResults> {
  const views = new OwnerKindViews();
  const masks = new WeakMap<TimelineEvent, number>();
  const has = (e: TimelineEvent, bits: number) => ((masks.get(e) ?? 0) & bits) !== 0;
  // One tee per split, each reading the one before: ReplicaSets | the rest; RCs | the rest; DaemonSets | Jobs.
  const [rsView, others] = teeStream(events[Symbol.asyncIterator](), (e) => {
    const m = views.route(e);
    if (m !== TO_REPLICA_SETS) masks.set(e, m);
    return ((m & TO_REPLICA_SETS) !== 0 ? TO_FIRST : 0) | ((m & (TO_REPLICATION_CONTROLLERS | TO_DAEMON_SETS | TO_JOBS)) !== 0 ? TO_SECOND : 0);
  });
  const [rcPre, workloads] = teeStream(others, (e) => (has(e, TO_REPLICATION_CONTROLLERS) ? TO_FIRST : 0) | (has(e, TO_DAEMON_SETS | TO_JOBS) ? TO_SECOND : 0));
  const [dsPre, jobView] = teeStream(workloads, (e) => (has(e, TO_DAEMON_SETS) ? TO_FIRST : 0) | (has(e, TO_JOBS) ? TO_SECOND : 0), views.convertJob);
  const rcView = mapStream(rcPre, views.convert);
  const dsView = mapStream(dsPre, views.convertDaemonSet);
  const onInvalid = opts.onInvalidEvent;
  const jobFinalizers = new FinalizerRemovals();
  const notShared = onInvalid ? { onInvalidEvent: (source: Parameters<typeof onInvalid>[0], message: string) => { if (!views.shared(source)) onInvalid(source, message); } } : {};
  const [replicaSets, replicationControllers, daemonSets, jobs] = await Promise.all([
    replay(rsView, { ...opts, controller: replicaSetControllerFactory(opts.version) }),
    replay(rcView, {
      ...opts,
      controller: replicationControllerFactory(opts.version),
      owner: { kind: REPLICATION_CONTROLLER_KIND.kind, component: 'replication-controller' },
      ...notShared,
    }),
    replay(dsView, { ...opts, controller: daemonSetEngineFactory(opts.version), owner: DAEMON_SET_OWNER, ...notShared }),
    replay(tapStream(jobView, (e) => jobFinalizers.see(e)), { ...opts, controller: jobEngineFactory(opts.version), owner: JOB_OWNER, ...notShared }),
  ]);
  return {
    replicaSets,
    ...(views.sawOwner ? { replicationControllers } : {}),
    ...(views.sawDaemonSet ? { daemonSets } : {}),
    ...(views.sawJob ? { jobs, jobFinalizers } : {}),
  };
}

/**
 * The Report with the ReplicationControllers' reports added (none unless the input showed an RC):
 * built as the ReplicaSets' are, fused with the RC manager's lines of the controller log when
 * there are some, each marked with its kind (report/owner-kind.ts).
 */
export function withReplicationControllers(report: Report, results: OwnerKindResults, build: BuildOptions, log?: { replicationControllers?: ControllerLogInput }, since?: number): Report {
  const result = results.replicationControllers;
  if (!result) return report;
  let rc = buildReport(result, { ...build, ownerKind: 'ReplicationController' });
  if (log?.replicationControllers) {
    const fused = fuseControllerLog(rc, log.replicationControllers, { kind: 'replay', result, ...(since !== undefined ? { since } : {}) });
    rc = fused.report;
  }
  return withOwnerKind(report, 'ReplicationController', rc.replicaSets);
}

/**
 * The Report with the DaemonSets' and the Jobs' reports added (none unless the input showed one),
 * each marked with its kind and, when the controller log has that controller's lines, fused with
 * them (analysis/controller-log.ts: the log's windows, verdict and leaks win where it covers the
 * time; the DaemonSet's rolling-update checks and the Job's finalizer tracking beside).
 */
export function withDaemonSets(report: Report, results: OwnerKindResults, build: BuildOptions, log?: { daemonSets?: ControllerLogInput; jobs?: ControllerLogInput }, since?: number): Report {
  let out = report;
  const kindReports = (kind: 'DaemonSet' | 'Job', result: ReplayResult, kindLog: ControllerLogInput | undefined) => {
    const built = buildReport(result, { ...build, ownerKind: kind });
    // Marked before the fusion: its words (findings, notes) are the kind's. A Job's finalizer
    // removals beside (the log's finalizer tracking is compared with them).
    const removals = (key: string) => (kind === 'Job' ? results.jobFinalizers?.report(key, result.replicaSets.get(key) as unknown as Job | undefined, result.end) : undefined);
    const marked = {
      ...built,
      replicaSets: built.replicaSets.map((r): typeof r => {
        const f = removals(r.key);
        return { kind, ...r, ...(f ? { finalizerRemovals: f } : {}) };
      }),
    };
    return kindLog ? fuseControllerLog(marked, kindLog, { kind: 'replay', result, ...(since !== undefined ? { since } : {}) }).report.replicaSets : marked.replicaSets;
  };
  if (results.daemonSets) out = withOwnerKind(out, 'DaemonSet', kindReports('DaemonSet', results.daemonSets, log?.daemonSets));
  if (results.jobs) out = withOwnerKind(out, 'Job', kindReports('Job', results.jobs, log?.jobs));
  return out;
}
