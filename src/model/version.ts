/**
 * Kubernetes versions where the ReplicaSet controller's behaviour changed
 * (controller-semantics.md §9). kexp defaults to the newest release it models, and takes the
 * version from the input when it names one. v1.25 … v1.37 are modelled exactly; an older 1.x
 * release is replayed as v1.25 plus the switches public incidents depend on (featuresOf:
 * createTimeoutAsSuccess, deleteKeepsExpectations), a newer one as v1.37.2, and
 * `versionDifferences` states what is and is not modelled for it. Pure; O(1).
 */

export interface K8sVersion {
  major: number;
  minor: number;
  /** Patch release when given (`v1.34.1` → 1); undefined means the newest patch of the minor. */
  patch?: number;
  /** As given by the user or the input, e.g. `v1.37.2`. */
  text: string;
}

/** The newest release modelled; the control-plane tests run this version. */
export const DEFAULT_K8S_VERSION = 'v1.37.2';
/** The oldest release whose behaviour is described in controller-semantics.md. */
export const OLDEST_K8S_MINOR = 25;

/**
 * Parses `1.34`, `v1.34.2`, `v1.37.2-gke.100`, `v1.21.1+38b3ecc`… Throws Error with a one-line
 * message for anything that is not a Kubernetes 1.x version. A 1.x release outside 1.25 … 1.37
 * is accepted: kexp models it as the nearest release it models, plus the version switches it
 * knows for that release (`featuresOf`), and `versionDifferences` lists what it does not model.
 */
export function parseK8sVersion(text: string): K8sVersion {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?$/.exec(text.trim());
  if (!m) throw new Error(`unrecognised Kubernetes version "${text}" (expected e.g. v1.34.2)`);
  const major = Number(m[1]);
  const minor = Number(m[2]);
  if (major !== 1) {
    throw new Error(`Kubernetes version "${text}" is outside what kexp models (1.x releases: v1.${OLDEST_K8S_MINOR} … v1.${NEWEST_K8S_MINOR} exactly, the others as the nearest of those with their known differences)`);
  }
  return { major, minor, text, ...(m[3] !== undefined ? { patch: Number(m[3]) } : {}) };
}

/** The newest minor release modelled. */
export const NEWEST_K8S_MINOR = 37;

function isModelled(major: number, minor: number): boolean {
  return major === 1 && minor >= OLDEST_K8S_MINOR && minor <= NEWEST_K8S_MINOR;
}

/** True when `text` is a release kexp models exactly (1.25 … 1.37), for hints and notes. */
export function isModelledVersion(text: string): boolean {
  try {
    const v = parseK8sVersion(text);
    return isModelled(v.major, v.minor);
  } catch {
    return false;
  }
}

/** The release whose behaviour kexp replays for `v`: itself when modelled, else the nearest modelled minor. */
export function modelledAs(v: K8sVersion): string {
  if (isModelled(v.major, v.minor)) return v.text;
  return v.minor < OLDEST_K8S_MINOR ? `v1.${OLDEST_K8S_MINOR}` : DEFAULT_K8S_VERSION;
}

/**
 * What kexp knows of a release it does not model exactly, one line each: the switches it does
 * model for it (`featuresOf`: createTimeoutAsSuccess, deleteKeepsExpectations, slowStartBatch) and the known
 * differences it does not. Empty for a modelled release. Facts from the upstream code read
 * through the Go module proxy (v1.16.4/v1.16.5, v1.17.0/v1.17.1, v1.25 … v1.37) and bug-cases.md.
 */
export function versionDifferences(v: K8sVersion): string[] {
  if (isModelled(v.major, v.minor)) return [];
  const out: string[] = [];
  if (v.minor > NEWEST_K8S_MINOR) {
    out.push(`${v.text} is newer than kexp models: replayed as ${DEFAULT_K8S_VERSION}; changes to the ReplicaSet controller after v1.${NEWEST_K8S_MINOR} are not modelled.`);
    return out;
  }
  const f = featuresOf(v);
  out.push(`${v.text} is older than kexp models: replayed as v1.${OLDEST_K8S_MINOR} plus the switches below; other changes between them (log wording, the pod-deletion-cost and LogarithmicScaleDown victim ranking of 1.21–1.22) are not modelled, and kexp takes the victims of a scale-down from the evidence.`);
  if (f.createTimeoutAsSuccess) {
    out.push('Modelled: a pod create that timed out (504 Timeout) counts as a success — manageReplicas (and the DaemonSet\'s and Job\'s creates) swallowed IsTimeout until v1.15.8, v1.16.5, v1.17.1 and v1.18.0 (kubernetes#67662, #72155, #78796; fixed by #86140): the add expectation stays until it expires and nothing retries.');
  }
  if (f.deleteKeepsExpectations) {
    out.push('Modelled: deleting a ReplicaSet does not delete its expectations, and a UID change is not a recreate — before v1.17.0 only a sync that finds the ReplicaSet gone deletes them (kubernetes#69376, fixed by #82572): a ReplicaSet recreated under the same name inherits the old record.');
  }
  if (!f.slowStartBatch) {
    out.push('Modelled: manageReplicas makes all its creates at once, each failure lowering the record — slow-start batches came in v1.8 (kubernetes#49142, after #49145): under a quota every sync sends hundreds of creates that are rejected.');
  }
  if (v.minor < 7) {
    out.push('Not modelled: before v1.7 ClaimObject adopted pods that were already terminating (kubernetes#44144): an adoption PATCH of a terminating pod is that bug.');
  }
  return out;
}

/**
 * Behaviour switches derived from the version (controller-semantics.md §9 and its Corrections
 * table, checked against the upstream code v1.25.16 … v1.37.2).
 */
export interface VersionFeatures {
  /** status.terminatingReplicas: DeploymentReplicaSetTerminatingReplicas on by default (beta) from 1.35. */
  terminatingReplicas: boolean;
  /**
   * Candidate pods come from the owner/orphan index (pods of other controllers not listed): from
   * 1.34.0. `uid`: 1.34.0–1.34.1 index the controllerRef by UID only; `kind-name-uid` from 1.34.2.
   */
  podIndexListing: false | 'uid' | 'kind-name-uid';
  /** 1.36+: StaleControllerConsistencyReplicaSet consistency gate before the expectations check. */
  consistencyGate: boolean;
  /** 1.28+: structured expectations and handler log lines (1.27 still prints `Setting expectations %#v`). */
  structuredLogs: boolean;
  /** ≤1.33: updatePod requeues availability after minReadySeconds + 1 s. */
  availabilityExtraSecond: boolean;
  /** IsPodAvailable: strict (ready + minReadySeconds before now) up to 1.33, inclusive (`<=`) from 1.34. */
  availabilityInclusive: boolean;
  /** Pod ranking for deletion breaks restart ties by restartable init ("sidecar") containers from 1.32.0. */
  sidecarRestartTiebreak: boolean;
  /**
   * manageReplicas counts a create that timed out (apierrors.IsTimeout) as a success, like a
   * NamespaceTerminating rejection: up to v1.15.7, v1.16.4, v1.17.0 and every release before 1.15
   * (the check is gone from v1.15.8, v1.16.5, v1.17.1 and v1.18.0; kubernetes#86140 and its
   * cherry-picks, read in pkg/controller/{replicaset,daemon,job} of each). The DaemonSet's syncNodes
   * and the Job's manageJob had the same branch and lost it in the same releases.
   */
  createTimeoutAsSuccess: boolean;
  /**
   * Before v1.17.0 the ReplicaSet informer's DeleteFunc only enqueued the key (no
   * DeleteExpectations) and updateRS did not treat a UID change as a delete: only a sync that no
   * longer finds the ReplicaSet deleted its expectations (kubernetes#82572).
   */
  deleteKeepsExpectations: boolean;
  /**
   * manageReplicas creates in slow-start batches (1, 2, 4, …, stopping after a batch with a
   * failure) from v1.8 (kubernetes#49142, after #49145); before, it made all its creates at once,
   * each failure lowering the record — hundreds of rejected creates per sync under a quota.
   */
  slowStartBatch: boolean;
}

export function featuresOf(v: K8sVersion): VersionFeatures {
  return {
    terminatingReplicas: v.minor >= 35,
    podIndexListing: v.minor < 34 ? false : v.minor === 34 && v.patch !== undefined && v.patch < 2 ? 'uid' : 'kind-name-uid',
    consistencyGate: v.minor >= 36,
    structuredLogs: v.minor >= 28,
    availabilityExtraSecond: v.minor <= 33,
    availabilityInclusive: v.minor >= 34,
    sidecarRestartTiebreak: v.minor >= 32,
    createTimeoutAsSuccess: v.minor < 15 || (v.minor === 15 && v.patch !== undefined && v.patch < 8) || (v.minor === 16 && v.patch !== undefined && v.patch < 5) || (v.minor === 17 && v.patch === 0),
    deleteKeepsExpectations: v.minor < 17,
    slowStartBatch: v.minor >= 8,
  };
}

/**
 * The version a report states: the release the input runs (or the flag names) and its basis;
 * for a release kexp does not model exactly, the release replayed and `versionDifferences`.
 */
export interface VersionInfo {
  version: string;
  basis: 'flag' | 'input' | 'default';
  modelledAs?: string;
  differences?: string[];
}

export function versionInfo(text: string, basis: VersionInfo['basis']): VersionInfo {
  const v = parseK8sVersion(text);
  const differences = versionDifferences(v);
  return differences.length ? { version: v.text, basis, modelledAs: modelledAs(v), differences } : { version: v.text, basis };
}
