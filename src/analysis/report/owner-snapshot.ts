/**
 * The snapshot report of a pod owner other than a ReplicaSet (a DaemonSet, a Job: `kexp explain
 * ds/NAME|job/NAME` without --watch), in the shape snapshot-report.ts gives a ReplicaSet's: one
 * report entry marked with its kind, counts as single points, no sync simulated, the
 * controller's expectations `unknown`, rounds from the controller's own Events. What is
 * kind-specific (the verdict, the findings, the facts line) comes from the kind's analysis
 * (analysis/daemonset-snapshot.ts, analysis/job-snapshot.ts); this module holds what they share:
 *
 * - `specWrites`: when the spec was last written and by whom (managedFields entries with `f:spec`,
 *   whole seconds; earlier writes by the same manager are not visible);
 * - `ownerEventRounds`: the SuccessfulCreate/FailedCreate/SuccessfulDelete/FailedDelete Events
 *   about the owner as observed rounds — the DaemonSet and Job controllers create and delete
 *   through the same RealPodControl (pkg/controller/controller_utils.go) as the ReplicaSet
 *   controller, which records exactly these Events, so event-rounds.ts reads them unchanged;
 * - `ownerSnapshotReport`: the report entry;
 * - `liveRef`: the `live:RESOURCE/NAME#field` citation of a live read.
 *
 * Pure: no I/O, no clock. O(Events + managedFields entries).
 */
import { objectKey, parseTime, type CoreEvent, type ObjectMeta, type ReplicaSet } from '../../model/objects.js';
import { sortFindings } from '../findings/finding-rule.js';
import { iso } from '../iso.js';
import type { Finding, GatedWindow, OwnerReportKind, ReplicaSetReport, RoundReport, WriteAccounting } from '../report-types.js';
import { eventRounds } from './event-rounds.js';

/** `live:daemonsets/agent#status.observedGeneration`. */
export function liveRef(resource: string, name: string, field?: string): string {
  return `live:${resource}/${name}${field ? `#${field}` : ''}`;
}

/** managedFields entries that wrote the spec: when (epoch ms, whole seconds) and by whom, oldest first. */
export function specWrites(meta: ObjectMeta): Array<{ at: number; manager: string }> {
  const raw = (meta as { managedFields?: unknown }).managedFields;
  if (!Array.isArray(raw)) return [];
  const out: Array<{ at: number; manager: string }> = [];
  for (const m of raw as Array<Record<string, unknown>>) {
    if (!m || typeof m !== 'object' || typeof m.subresource === 'string') continue;
    const fields = m.fieldsV1;
    const at = parseTime(typeof m.time === 'string' ? m.time : undefined);
    if (at === undefined || !fields || typeof fields !== 'object' || !('f:spec' in fields)) continue;
    out.push({ at, manager: typeof m.manager === 'string' ? m.manager : 'unknown' });
  }
  return out.sort((a, b) => a.at - b.at);
}

/** The Event source component of each kind's controller (its recorder's name in kube-controller-manager). */
const OWNER_COMPONENTS: Readonly<Record<OwnerReportKind, string>> = {
  ReplicaSet: 'replicaset-controller',
  ReplicationController: 'replication-controller',
  DaemonSet: 'daemonset-controller',
  Job: 'job-controller',
};

/**
 * The Events about `kind` `name` recorded by that kind's own controller, in the ReplicaSet
 * controller's form (about a ReplicaSet, no source component): event-rounds.ts and the snapshot
 * state match the ReplicaSet controller's Events about a ReplicaSet, and the Events' reasons,
 * counts, times and messages are the same for every RealPodControl user, so this controller's are
 * read as its. Other Events are left out.
 */
export function eventsAsReplicaSets(kind: OwnerReportKind, name: string | undefined, events: CoreEvent[]): CoreEvent[] {
  const component = OWNER_COMPONENTS[kind];
  return events
    .filter((e) => e.involvedObject?.kind === kind && e.involvedObject.name === name && [undefined, component].includes(e.source?.component ?? e.reportingComponent))
    .map(({ source: _s, reportingComponent: _r, ...e }) => ({ ...e, involvedObject: { ...e.involvedObject, kind: 'ReplicaSet', namespace: e.involvedObject?.namespace ?? e.metadata.namespace } }));
}

/** The owner's create/delete rounds its controller's Events show (observed, one write per occurrence). */
export function ownerEventRounds(kind: OwnerReportKind, meta: ObjectMeta, events: CoreEvent[], at: number): { rounds: RoundReport[]; accounting: WriteAccounting } {
  const pseudo = { metadata: { name: meta.name, namespace: meta.namespace, ...(meta.uid ? { uid: meta.uid } : {}) } } as ReplicaSet;
  return eventRounds(pseudo, eventsAsReplicaSets(kind, meta.name, events), undefined, at);
}

export interface OwnerSnapshotParts {
  kind: Exclude<OwnerReportKind, 'ReplicaSet'>;
  meta: ObjectMeta;
  at: number;
  verdict: ReplicaSetReport['verdict'];
  counts: { desired: number; active: number; terminating: number; ready: number };
  findings: Finding[];
  windows: GatedWindow[];
  events: CoreEvent[];
  /** Why the expectations are unknown, in the kind's words. */
  initialReason: string;
}

/** The report entry of a DaemonSet or Job in a snapshot. */
export function ownerSnapshotReport(p: OwnerSnapshotParts): ReplicaSetReport {
  const one = (n: number) => ({ first: n, last: n, min: n, max: n });
  const { rounds, accounting } = ownerEventRounds(p.kind, p.meta, p.events, p.at);
  const ref = (p.meta.ownerReferences ?? []).find((r) => r.controller === true);
  return {
    kind: p.kind,
    key: objectKey(p.meta),
    namespace: p.meta.namespace ?? '',
    name: p.meta.name ?? '',
    ...(p.meta.uid ? { uid: p.meta.uid } : {}),
    uids: p.meta.uid ? [p.meta.uid] : [],
    ...(ref ? { owner: { kind: ref.kind, name: ref.name, uid: ref.uid } } : {}),
    verdict: p.verdict,
    counts: { desired: one(p.counts.desired), active: one(p.counts.active), terminating: one(p.counts.terminating), ready: one(p.counts.ready) },
    series: [{ at: iso(p.at)!, ...p.counts }],
    initialState: { basis: 'unknown', reason: p.initialReason },
    syncs: { total: 0, byOutcome: {} },
    accounting,
    rounds,
    gatedWindows: p.windows,
    expectations: [],
    expectationsTruncated: false,
    findings: sortFindings([...p.findings]),
    adoption: { at: iso(p.at), rows: [] },
  };
}
