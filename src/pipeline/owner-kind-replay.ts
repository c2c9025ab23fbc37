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
import { OwnerKindViews } from './owner-kind-views.js';
import { teeStream } from './stream-tee.js';

export interface OwnerKindResults {
  replicaSets: ReplayResult;
  replicationControllers?: ReplayResult;
}

/** Replays `events` once per owner kind; `opts` as replay()'s, less the controller and owner. */
export async function replayOwnerKinds(events: AsyncIterable<TimelineEvent>, opts: Omit<ReplayOptions, 'controller' | 'owner'>): Promise<OwnerKindResults> {
  const views = new OwnerKindViews();
  const [rsView, rcView] = teeStream(events[Symbol.asyncIterator](), views.route, views.convert);
  const onInvalid = opts.onInvalidEvent;
  const [replicaSets, replicationControllers] = await Promise.all([
    replay(rsView, { ...opts, controller: replicaSetControllerFactory(opts.version) }),
    replay(rcView, {
      ...opts,
      controller: replicationControllerFactory(opts.version),
      owner: { kind: REPLICATION_CONTROLLER_KIND.kind, component: 'replication-controller' },
      ...(onInvalid ? { onInvalidEvent: (source, message) => { if (!views.shared(source)) onInvalid(source, message); } } : {}),
    }),
  ]);
  return { replicaSets, ...(views.sawOwner ? { replicationControllers } : {}) };
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
