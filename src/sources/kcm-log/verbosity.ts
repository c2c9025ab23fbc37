/**
 * At which klog verbosity (`-v`) kube-controller-manager prints each catalogued line, and what a
 * log's lines say about the verbosity it was written at.
 *
 * Levels, read in the upstream code (pkg/controller/replicaset/replica_set.go,
 * pkg/controller/controller_utils.go, replica_set_utils.go):
 * - V(0) (always printed): "Starting controller", "Shutting down controller", errors ("Unhandled
 *   Error" / `sync … failed`, "Clobbering existing delete keys" is `logger.Error`);
 * - V(3): the controller's Events ("Event occurred", v1.37.2 StartStructuredLogging(3); V(0) in
 *   v1.21's NewBaseController);
 * - V(2): "Too few replicas", "Too many replicas", "Slow-start failure…", "Failed to delete pod,
 *   decremented expectations", "Deleting pod";
 * - V(4): every expectations line (SatisfiedExpectations' four decisions, Setting / Lowered /
 *   Raised, waiting on deletions, received delete), "Controller created pod", "Pod created",
 *   "Pod deleted", "Adding", "Deleting", "replicaSet updated…", "deleted", "Updating status for";
 * - "Finished syncing" is `logger.Info` (V(0)) in v1.28.0 … v1.32.0 (replica_set.go:676 at
 *   v1.28.0, :679 at v1.32.0) and `logger.V(4)` from v1.33.0 (:681) through v1.37.2 (:759).
 *
 * Distributions commonly run the KCM at -v=2: the rounds ("Too few / Too many replicas") and
 * their deletes are there, the gate (SatisfiedExpectations) and the expectations record are not.
 */
import type { ControllerLogKind } from '../../timeline/event.js';
import type { AuxKind } from './catalogue.js';

/** The lowest -v at which the line is printed (for "Finished syncing": the v1.33+ level). */
const LEVEL: Record<ControllerLogKind, number> = {
  'setting-expectations': 4,
  'lowered-expectations': 4,
  'raised-expectations': 4,
  'expectations-fulfilled': 4,
  'expectations-expired': 4,
  'still-waiting': 4,
  'never-recorded': 4,
  'waiting-on-deletions': 4,
  'clobbering-delete-keys': 0,
  'received-delete': 4,
  'too-few-replicas': 2,
  'too-many-replicas': 2,
  'slow-start-failure': 2,
  // DaemonSet syncNodes / Job manageJob "Failed creation, decrementing expectations…" (V(2), v1.21.14 and v1.37.2).
  'failed-create': 2,
  'failed-delete': 2,
  'finished-syncing': 4,
  'sync-failed': 0,
  'rs-deleted-sync': 4,
  'controller-started': 0,
  // client-go tools/leaderelection: logger.Info / klog.Infof (V0); "leaderelection lost" is an Error/Fatal.
  'lease-attempt': 0,
  'lease-acquired': 0,
  'lease-lost': 0,
  'controller-created-pod': 4,
  'deleting-pod': 2,
  'status-update': 4,
  // The event broadcaster's line at the modelled releases' level: V(3) (v1.37.2 replica_set.go
  // Run: StartStructuredLogging(3)); v1.21 printed it at V(0) (NewBaseController:
  // StartStructuredLogging(0)), so a -v=2 log of those releases has it too.
  'controller-event': 3,
  // The Job controller's finalizer UID-tracking store (pkg/controller/job/tracking_utils.go): V(4)
  // from v1.23 (InfoS `job=`) through v1.37.2 (`key=`).
  'finalizers-expected': 4,
  'finalizer-removal-observed': 4,
  other: 4,
};

const AUX_LEVEL: Record<AuxKind, number> = {
  'rs-added': 4,
  'rs-updated': 4,
  'rs-deleting': 4,
  'pod-added': 4,
  'pod-deleted': 4,
  'controller-stopped': 0,
  'consistency-skip': 0,
};

export interface VerbosityOptions {
  /** The KCM is v1.28–v1.32, where "Finished syncing" is printed at V(0). */
  finishedSyncingV0?: boolean;
}

/** The lowest -v at which a catalogued line (kind, and aux for `other`) is printed. */
export function lineVerbosity(kind: ControllerLogKind, aux?: AuxKind, o: VerbosityOptions = {}): number {
  if (kind === 'finished-syncing' && o.finishedSyncingV0) return 0;
  if (kind === 'other' && aux) return AUX_LEVEL[aux];
  return LEVEL[kind];
}

/**
 * Kinds printed only at -v≥4 in every version: seeing one proves the log was written at -v≥4.
 * ("Finished syncing" is not one of them: it is V(0) in 1.28–1.32.)
 */
const PROVES_V4 = new Set<ControllerLogKind>(
  (Object.keys(LEVEL) as ControllerLogKind[]).filter((k) => LEVEL[k] >= 4 && k !== 'finished-syncing' && k !== 'other'),
);

/** Whether a line of this kind (of any controller: the flag is the process's) proves -v≥4. */
export function provesV4(kind: ControllerLogKind): boolean {
  return PROVES_V4.has(kind);
}

export interface VerbosityAssessment {
  /** True when at least one line printed only at -v≥4 is in the log. */
  atLeastV4: boolean;
  /** The ReplicaSet lines seen per kind (what a below -v=4 report is built from). */
  linesByKind: Partial<Record<ControllerLogKind, number>>;
}

/** What the ReplicaSet lines of a log say about its verbosity. */
export function assessVerbosity(kinds: Iterable<ControllerLogKind>): VerbosityAssessment {
  const linesByKind: Partial<Record<ControllerLogKind, number>> = {};
  let atLeastV4 = false;
  for (const k of kinds) {
    linesByKind[k] = (linesByKind[k] ?? 0) + 1;
    if (PROVES_V4.has(k)) atLeastV4 = true;
  }
  return { atLeastV4, linesByKind };
}
