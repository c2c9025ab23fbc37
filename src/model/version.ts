/**
 * Kubernetes versions where the ReplicaSet controller's behaviour changed
 * (controller-semantics.md §9). kexp defaults to the newest release it models.
 */

export interface K8sVersion {
  major: number;
  minor: number;
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
  const m = /^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$/.exec(text.trim());
  if (!m) throw new Error(`unrecognised Kubernetes version "${text}" (expected e.g. v1.34.2)`);
  const major = Number(m[1]);
  const minor = Number(m[2]);
  if (major !== 1 || minor < OLDEST_K8S_MINOR || minor > 37) {
    throw new Error(`Kubernetes version "${text}" is outside what kexp models (v1.${OLDEST_K8S_MINOR} … v1.37)`);
  }
  return { major, minor, text };
}

/** Behaviour switches derived from the version (controller-semantics.md §9). */
export interface VersionFeatures {
  /** status.terminatingReplicas: DeploymentReplicaSetTerminatingReplicas on by default (beta) from 1.35. */
  terminatingReplicas: boolean;
  /** 1.33+: candidate pods come from the owner/orphan index (pods of other controllers not listed). */
  podIndexListing: boolean;
  /** 1.36+: StaleControllerConsistencyReplicaSet consistency gate before the expectations check. */
  consistencyGate: boolean;
  /** 1.27+: structured log wording. */
  structuredLogs: boolean;
  /** ≤1.33: updatePod requeues availability after minReadySeconds + 1 s. */
  availabilityExtraSecond: boolean;
}

export function featuresOf(v: K8sVersion): VersionFeatures {
  return {
    terminatingReplicas: v.minor >= 35,
    podIndexListing: v.minor >= 33,
    consistencyGate: v.minor >= 36,
    structuredLogs: v.minor >= 27,
    availabilityExtraSecond: v.minor <= 33,
  };
}
