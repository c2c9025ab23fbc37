/**
 * The ReplicaSet controller's own Events as evidence of its rounds. A snapshot shows no round,
 * but each SuccessfulCreate / FailedCreate / SuccessfulDelete / FailedDelete Event the
 * controller recorded about a ReplicaSet (manageReplicas in
 * pkg/controller/replicaset/replica_set.go, through the pod control of
 * pkg/controller/controller_utils.go) becomes an observed round entry at its last occurrence,
 * with one write per occurrence (`count`). The rounds themselves (their batches, their times)
 * are not visible. replicaSetsInEvents names the ReplicaSets such Events (and the Deployment
 * controller's ScalingReplicaSet messages) are about.
 *
 * Pure; O(Events).
 */
import type { CoreEvent, ReplicaSet } from '../../model/objects.js';
import { iso } from '../iso.js';
import type { RoundReport, WriteAccounting } from '../report-types.js';
import { eventTimes } from './event-times.js';
import { parseScalingMessage } from './scaling-events.js';
import { LIVE_REFS, type SnapshotRefs } from './snapshot-refs.js';

const ROUND_REASONS = new Set(['SuccessfulCreate', 'FailedCreate', 'SuccessfulDelete', 'FailedDelete']);

/**
 * The rounds the controller's Events about `rs` (this UID, when both sides have one) show, oldest
 * first, and their writes. An Event without a usable time is placed at `fallbackAt`.
 */
export function eventRounds(rs: ReplicaSet, events: CoreEvent[], refs: SnapshotRefs = LIVE_REFS, fallbackAt?: number): { rounds: RoundReport[]; accounting: WriteAccounting } {
  const rounds: RoundReport[] = [];
  const byKind = { create: 0, delete: 0, adopt: 0, release: 0 };
  let failed = 0;
  for (const e of events) {
    const io = e.involvedObject;
    if (!e.reason || !ROUND_REASONS.has(e.reason) || io?.kind !== 'ReplicaSet' || io.name !== rs.metadata.name || io.namespace !== rs.metadata.namespace) continue;
    if (io.uid && rs.metadata.uid && io.uid !== rs.metadata.uid) continue;
    const c = e.source?.component ?? e.reportingComponent;
    if (c !== undefined && c !== 'replicaset-controller') continue;
    const t = eventTimes(e);
    // An Event without a usable time still counts: it is placed at the snapshot time.
    const at = iso(t.last) ?? iso(fallbackAt);
    if (at === undefined) continue;
    const create = e.reason.endsWith('Create');
    const ok = e.reason.startsWith('Successful');
    const n = Math.max(1, t.count);
    byKind[create ? 'create' : 'delete'] += n;
    if (!ok) failed += n;
    const span = t.first !== undefined && t.first !== t.last && iso(t.first) && iso(t.last) ? ` between ${iso(t.first)} and ${iso(t.last)}` : '';
    rounds.push({
      at, kind: create ? 'create' : 'delete', n, basis: 'observed', writes: n,
      // A failed create is walked back at once (CreationObserved), like a failed delete.
      ...(create ? { calls: n, successes: ok ? n : 0, skipped: ok ? 0 : n } : { ...(ok ? {} : { failed: [] }) }),
      errors: ok ? [] : [t.message.replace(/^Error (creating|deleting): /, '')],
      evidence: refs.event(e),
      note: `${e.reason} Event${n > 1 ? ` ×${n}${span}` : ''}: ${t.message} (a snapshot shows the controller's Events, not its rounds: one write per occurrence)`,
    });
  }
  rounds.sort((a, b) => a.at.localeCompare(b.at));
  const writes = byKind.create + byKind.delete;
  return { rounds, accounting: { evidence: 'watch', writes, inRounds: writes, inFindings: 0, byKind, failed } };
}

/** Keys (namespace/name) of the ReplicaSets the controllers' Events are about: round Events and ScalingReplicaSet messages. */
export function replicaSetsInEvents(events: Iterable<CoreEvent>): Map<string, { namespace: string; name: string }> {
  const out = new Map<string, { namespace: string; name: string }>();
  for (const e of events) {
    const io = e.involvedObject;
    const ns = io?.namespace ?? e.metadata.namespace ?? '';
    if (io?.kind === 'ReplicaSet' && io.name && e.reason && ROUND_REASONS.has(e.reason)) {
      const c = e.source?.component ?? e.reportingComponent;
      if (c === undefined || c === '' || c === 'replicaset-controller') out.set(`${ns}/${io.name}`, { namespace: ns, name: io.name });
    } else if (io?.kind === 'Deployment' && e.reason === 'ScalingReplicaSet') {
      const p = typeof e.message === 'string' ? parseScalingMessage(e.message) : undefined;
      if (p) out.set(`${ns}/${p.rs}`, { namespace: ns, name: p.rs });
    }
  }
  return out;
}
