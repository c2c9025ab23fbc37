/**
 * Kubernetes versions where the ReplicaSet controller's behaviour changed
 * (controller-semantics.md §9). kexp defaults to the newest release it models.
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
 * Parses `1.34`, `v1.34.2`, `v1.37.2-gke.100`… Throws Error with a one-line message for
 * anything else or for versions outside 1.25 … 1.37 (behaviour not modelled).
 */
export function parseK8sVersion(text: string): K8sVersion {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?$/.exec(text.trim());
  if (!m) throw new Error(`unrecognised Kubernetes version "${text}" (expected e.g. v1.34.2)`);
  const major = Number(m[1]);
  const minor = Number(m[2]);
  if (!isModelled(major, minor)) {
    throw new Error(`Kubernetes version "${text}" is outside what kexp models (v1.${OLDEST_K8S_MINOR} … v1.${NEWEST_K8S_MINOR})`);
  }
  return { major, minor, text, ...(m[3] !== undefined ? { patch: Number(m[3]) } : {}) };
}

/** The newest minor release modelled. */
export const NEWEST_K8S_MINOR = 37;

function isModelled(major: number, minor: number): boolean {
  return major === 1 && minor >= OLDEST_K8S_MINOR && minor <= NEWEST_K8S_MINOR;
}

/** True when `text` parses as a version kexp models (for hints: never suggest one it then refuses). */
export function isModelledVersion(text: string): boolean {
  try {
    parseK8sVersion(text);
    return true;
  } catch {
    return false;
  }
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
  };
}
