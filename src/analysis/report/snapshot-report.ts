/**
 * The report entries of ReplicaSets a snapshot shows: one in the snapshot (its analysis,
 * snapshot-analysis.ts, with its rounds from the ReplicaSet controller's Events and its
 * desired-count history from the Deployment controller's), and one the input knows only from
 * Events (`kubectl get events -o json` alone, or a dump whose ReplicaSet object is gone): its
 * rounds and desired-count changes from the Events, the `events-only` findings, and a verdict
 * `unknown` — desired, active and ready pods at the end, and the controller's expectations, are
 * not in the input. Counts of a snapshot are one point, and no sync is simulated.
 *
 * Pure: no I/O, no clock. O(Events of the namespace).
 */
import { controllerRefOf, objectKey, type CoreEvent, type ReplicaSet } from '../../model/objects.js';
import { findingsFor } from '../findings/catalogue.js';
import { sortFindings } from '../findings/finding-rule.js';
import { iso } from '../iso.js';
import type { ReplicaSetReport } from '../report-types.js';
import type { SnapshotAnalysis } from '../snapshot-analysis.js';
import { eventRounds } from './event-rounds.js';
import { desiredRange, scalingChanges } from './scaling-events.js';
import { LIVE_REFS, type SnapshotRefs } from './snapshot-refs.js';
import { plural } from './wording.js';

/** The Report entry for one ReplicaSet of a snapshot (a live read or a snapshot file). */
export function snapshotReplicaSetReport(rs: ReplicaSet, a: SnapshotAnalysis, at: number, events: CoreEvent[], refs: SnapshotRefs = LIVE_REFS): ReplicaSetReport {
  const ref = controllerRefOf(rs.metadata);
  const one = (n: number) => ({ first: n, last: n, min: n, max: n });
  const { rounds, accounting } = eventRounds(rs, events, refs, at);
  // The Deployment controller's ScalingReplicaSet Events: the desired count's earlier values.
  const rsRef = { namespace: rs.metadata.namespace ?? '', name: rs.metadata.name ?? '' };
  const changes = scalingChanges(rsRef.namespace, rsRef.name, events);
  const desired = desiredRange(changes, a.counts.desired) ?? one(a.counts.desired);
  return {
    key: objectKey(rs.metadata),
    namespace: rs.metadata.namespace ?? '',
    name: rs.metadata.name ?? '',
    ...(rs.metadata.uid ? { uid: rs.metadata.uid } : {}),
    uids: rs.metadata.uid ? [rs.metadata.uid] : [],
    ...(ref ? { owner: { kind: ref.kind, name: ref.name, uid: ref.uid } } : {}),
    verdict: a.verdict,
    counts: { desired, active: one(a.counts.active), terminating: one(a.counts.terminating), ready: one(a.counts.ready) },
    series: [{ at: iso(at)!, ...a.counts }],
    initialState: { basis: 'unknown', reason: 'point-in-time snapshot: the controller\'s expectations are not visible through the API; a watch (kexp record, explain --watch) follows its rounds' },
    syncs: { total: 0, byOutcome: {} },
    accounting,
    rounds,
    gatedWindows: a.windows,
    expectations: [],
    expectationsTruncated: false,
    findings: sortFindings([...a.findings, ...findingsFor('events', { rsRef, changes, rounds, at, refs })]),
    adoption: { at: iso(at), rows: a.adoption },
  };
}

/**
 * The Report entry for a ReplicaSet the input knows only from Events: its rounds from the
 * ReplicaSet controller's Events (observed, one write per occurrence), its desired-count changes
 * from the Deployment controller's, and a verdict `unknown`.
 */
export function eventsOnlyReplicaSetReport(rsRef: { namespace: string; name: string }, events: CoreEvent[], at: number | undefined, refs: SnapshotRefs): ReplicaSetReport {
  const mine = events.filter((e) => e.involvedObject?.kind === 'ReplicaSet' && e.involvedObject.name === rsRef.name && (e.involvedObject.namespace ?? e.metadata.namespace) === rsRef.namespace);
  const uids = [...new Set(mine.map((e) => e.involvedObject?.uid).filter((u): u is string => typeof u === 'string' && u !== ''))];
  // No uid to tell incarnations apart: every Event under this name counts (eventRounds checks a uid only when both sides have one).
  const pseudo: ReplicaSet = { metadata: { namespace: rsRef.namespace, name: rsRef.name, ...(uids.length === 1 ? { uid: uids[0] } : {}) } } as ReplicaSet;
  const { rounds, accounting } = eventRounds(pseudo, events, refs, at);
  const changes = scalingChanges(rsRef.namespace, rsRef.name, events);
  const desired = desiredRange(changes);
  const zero = { first: 0, last: 0, min: 0, max: 0 };
  const facts = { rsRef, changes, rounds, ...(desired ? { desired } : {}), ...(at !== undefined ? { at } : {}), refs };
  const findings = [...findingsFor('events', facts), ...findingsFor('events-only', facts)];
  const dep = changes.length ? changes[changes.length - 1]!.deployment : undefined;
  const creates = accounting.byKind.create;
  const deletes = accounting.byKind.delete;
  return {
    key: `${rsRef.namespace}/${rsRef.name}`,
    namespace: rsRef.namespace,
    name: rsRef.name,
    ...(uids.length === 1 ? { uid: uids[0] } : {}),
    uids,
    ...(dep ? { owner: { kind: 'Deployment', name: dep.name, uid: dep.uid ?? '' } } : {}),
    verdict: {
      state: 'unknown', basis: 'unknown',
      summary: `known only from Events: ${plural(creates, 'create')}, ${plural(deletes, 'delete')}${accounting.failed ? ` (${accounting.failed} failed)` : ''}${changes.length ? `, desired ${desired!.first}→${desired!.last}` : ''}; its state (active and ready pods, expectations) is not in the input`,
    },
    counts: { desired: desired ?? zero, active: zero, terminating: zero, ready: zero },
    series: [],
    initialState: { basis: 'unknown', reason: 'only Events are in the input: the controller\'s expectations are not visible' },
    syncs: { total: 0, byOutcome: {} },
    accounting,
    rounds,
    gatedWindows: [],
    expectations: [],
    expectationsTruncated: false,
    findings: sortFindings(findings),
    adoption: { rows: [] },
  };
}
