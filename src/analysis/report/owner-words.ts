/**
 * How a per-controller report names its owner: one row per owner kind kexp replays, so that
 * every verdict, finding, next step, window note, heading and kubectl command says "DaemonSet"
 * (or "ReplicationController") where the owner is one, and the ReplicaSet's words stay as they
 * were. A row holds the kind's noun, its kubectl resource, the upstream functions the report
 * cites (the sync, the status write, the pass that creates and deletes pods), what its status
 * counts, what its desired count means, and the object that owns its template, if any.
 *
 * Upstream sources of each row (k8s.io/kubernetes v1.37.2):
 * - ReplicaSet: pkg/controller/replicaset/replica_set.go (syncReplicaSet, manageReplicas,
 *   updateReplicaSetStatus / calculateStatus: status.replicas = the active pods listed); owned by
 *   a Deployment when a rollout made it (pkg/controller/deployment).
 * - ReplicationController: pkg/controller/replication/replication_controller.go runs the same
 *   code (NewReplicationManager builds the ReplicaSet controller over an informerAdapter), so its
 *   functions are syncReplicaSet, manageReplicas, updateReplicaSetStatus, and its status counts
 *   status.replicas; nothing in Kubernetes owns an RC's template.
 * - DaemonSet: pkg/controller/daemon/daemon_controller.go (syncDaemonSet, manage → syncNodes,
 *   updateDaemonSetStatus: status.currentNumberScheduled = the nodes that should run the daemon
 *   and have a daemon pod; desiredNumberScheduled = the nodes that should run it); a gated sync
 *   writes status without raising observedGeneration; nothing owns its template.
 * - Job: pkg/controller/job/job_controller.go (syncJob, manageJob, trackJobStatusAndRemoveFinalizers:
 *   status.active = the active pods); its desired count is the parallelism it runs at.
 *
 * Contract: `ownerWords(resource)` returns the row of a kubectl short name; `ownerWordsOf(report)`
 * the row of a report's `kind` (absent: the ReplicaSet). The ReplicaSet row reproduces the words
 * the report always used, so a ReplicaSet report does not change by a byte.
 *
 * Pure; O(1) per call.
 */
import type { OwnerReportKind } from '../report-types.js';

/** kubectl's short name of an owner kind: `kubectl get rs|rc|ds|job`. */
export type OwnerResource = 'rs' | 'rc' | 'ds' | 'job';

export interface OwnerWords {
  /** The kind, as the API and the report's `kind` name it. */
  kind: OwnerReportKind | 'Job';
  /** kubectl's short name of the resource (`kubectl describe ds NAME`). */
  resource: OwnerResource;
  /** The noun in prose: "ReplicaSet", "DaemonSet". */
  noun: string;
  /** Its plural: "ReplicaSets". */
  nouns: string;
  /** The controller as the report names it: "ReplicaSet controller", "DaemonSet controller". */
  controller: string;
  /** The upstream sync function (the workqueue's handler). */
  sync: string;
  /** The upstream pass of a sync that creates and deletes pods. */
  manage: string;
  /** The upstream function that writes the status at the end of every sync, gated or not. */
  statusUpdate: string;
  /** The status field the controller writes from its informer cache, and what it counts. */
  statusCount: { field: string; counts: string };
  /** The unit of the desired and active counts in a verdict: "replicas", "daemon pods". */
  unit: string;
  /** What the desired count is, said after it where it is not the spec's replicas ("nodes that should run it"); empty for a ReplicaSet. */
  desiredMeans: string;
  /** The owner of the template when a controller makes this kind (a Deployment makes ReplicaSets); undefined: none. */
  templateOwner?: 'Deployment' | 'CronJob';
  /** The place to create pods so the controller counts them. */
  podsThrough: string;
  /** Whether its status counts pods (status.replicas): the reasoning about a status write counting more or fewer pods than the input holds. */
  statusCountsPods: boolean;
  /** Whether a gated sync writes status without raising status.observedGeneration (a DaemonSet's: updateDaemonSetStatus(…, false)), so a spec change waits for the record. */
  gatedHoldsObservedGeneration: boolean;
  /** Whether the owner has a replica count to scale (a DaemonSet runs one pod per node). */
  scales: boolean;
  /** What enqueues a sync of it (its informers' handlers). */
  triggers: string;
  /** What the controller does with a create the apiserver rejects because the namespace is terminating. */
  namespaceTerminatingCreates: string;
  /** The 1.36+ consistency gate's feature and the metric counting its skips (pkg/features/kube_features.go, the kind's metrics.go). */
  consistencyGate: { feature: string; metric: string };
  /** The public report of its create-timeout-as-success leak (the IsTimeout branch #86140 removed). */
  timeoutReport: string;
}

const REPLICA_SET: OwnerWords = {
  kind: 'ReplicaSet', resource: 'rs', noun: 'ReplicaSet', nouns: 'ReplicaSets',
  controller: 'ReplicaSet controller', sync: 'syncReplicaSet', manage: 'manageReplicas', statusUpdate: 'updateReplicaSetStatus',
  statusCount: { field: 'status.replicas', counts: 'the active pods it listed from its informer cache' },
  unit: 'replicas', desiredMeans: '', templateOwner: 'Deployment', podsThrough: 'the Deployment or ReplicaSet template',
  statusCountsPods: true, gatedHoldsObservedGeneration: false, scales: true, triggers: 'a pod or ReplicaSet change',
  namespaceTerminatingCreates: 'counted as successes',
  consistencyGate: { feature: 'StaleControllerConsistencyReplicaSet', metric: 'replicaset_controller_stale_sync_skips_total' },
  timeoutReport: 'kubernetes#67662',
};

const WORDS: Readonly<Record<OwnerResource, OwnerWords>> = {
  rs: REPLICA_SET,
  rc: {
    ...REPLICA_SET,
    kind: 'ReplicationController', resource: 'rc', noun: 'ReplicationController', nouns: 'ReplicationControllers',
    controller: 'ReplicationController manager', templateOwner: undefined, podsThrough: 'the ReplicationController\'s template',
    triggers: 'a pod or ReplicationController change',
  },
  ds: {
    kind: 'DaemonSet', resource: 'ds', noun: 'DaemonSet', nouns: 'DaemonSets',
    controller: 'DaemonSet controller', sync: 'syncDaemonSet', manage: 'manage (syncNodes)', statusUpdate: 'updateDaemonSetStatus',
    statusCount: { field: 'status.currentNumberScheduled', counts: 'the nodes that should run the daemon and have a daemon pod in its informer cache' },
    unit: 'daemon pods', desiredMeans: 'nodes that should run it', podsThrough: 'the DaemonSet\'s template',
    statusCountsPods: false, gatedHoldsObservedGeneration: true, scales: false, triggers: 'a pod, node or DaemonSet change',
    namespaceTerminatingCreates: 'returned from without lowering the record (syncNodes ignores that error)',
    consistencyGate: { feature: 'StaleControllerConsistencyDaemonSet', metric: 'daemonset_controller_stale_sync_skips_total' },
    timeoutReport: 'kubernetes#72155',
  },
  job: {
    kind: 'Job', resource: 'job', noun: 'Job', nouns: 'Jobs',
    controller: 'Job controller', sync: 'syncJob', manage: 'manageJob', statusUpdate: 'trackJobStatusAndRemoveFinalizers',
    statusCount: { field: 'status.active', counts: 'the active pods it listed from its informer cache' },
    unit: 'pods', desiredMeans: 'parallelism', templateOwner: 'CronJob', podsThrough: 'the Job\'s template',
    statusCountsPods: true, gatedHoldsObservedGeneration: false, scales: true, triggers: 'a pod or Job change',
    namespaceTerminatingCreates: 'returned from without lowering the record (manageJob ignores that error)',
    consistencyGate: { feature: 'StaleControllerConsistencyJob', metric: 'job_controller_stale_sync_skips_total' },
    timeoutReport: 'kubernetes#78796',
  },
};

const BY_KIND: Readonly<Record<string, OwnerWords>> = Object.fromEntries(Object.values(WORDS).map((w) => [w.kind, w]));

/** The words of an owner kind by kubectl short name. */
export function ownerWords(resource: OwnerResource): OwnerWords {
  return WORDS[resource];
}

/** The words of a report's owner kind (`kind` absent: a ReplicaSet). */
export function ownerWordsOf(r: { kind?: string }): OwnerWords {
  return (r.kind !== undefined ? BY_KIND[r.kind] : undefined) ?? REPLICA_SET;
}

/** A desired count as the report says it: "3" for a ReplicaSet, "3 (nodes that should run it)" for a DaemonSet. */
export function desiredCount(w: OwnerWords, n: number): string {
  return w.desiredMeans ? `${n} (${w.desiredMeans})` : `${n}`;
}

/** What a report's desired count means, said after it: "" for a ReplicaSet, " (nodes that should run it)" for a DaemonSet. */
export function desiredMeaning(r: { kind?: string }): string {
  const w = ownerWordsOf(r);
  return w.desiredMeans ? ` (${w.desiredMeans})` : '';
}

/** The plural that names a list of reports: their kind's ("ReplicaSets", "DaemonSets"), or "owners" when kinds mix. */
export function ownerNouns(reports: ReadonlyArray<{ kind?: string }>): string {
  const kinds = new Set(reports.map((r) => ownerWordsOf(r).nouns));
  return kinds.size > 1 ? 'owners' : [...kinds][0] ?? REPLICA_SET.nouns;
}

/** How a window's end is shown: "rs-deleted" (the schema's value) as the owner's own, "ds-deleted" for a DaemonSet. */
export function endedByLabel(r: { kind?: string }, endedBy: string): string {
  return endedBy === 'rs-deleted' ? `${ownerWordsOf(r).resource}-deleted` : endedBy;
}

/** The assumption every replayed report states about when the controller syncs, for the owner kinds it reports. */
export function syncAssumption(nouns: readonly string[]): string {
  return nouns.length > 1
    ? `The controllers sync a ${nouns.join(' or ')} within milliseconds of an enqueue; events with the same timestamp collapse into one sync.`
    : `The controller syncs a ${nouns[0] ?? REPLICA_SET.noun} within milliseconds of an enqueue; events with the same timestamp collapse into one sync.`;
}
