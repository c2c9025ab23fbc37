/**
 * The allow-list of src/sources/live/redaction.ts: per kind, the fields whose values a redacted
 * recording keeps. It is exactly what kexp reads of each kind (the watch normaliser, the
 * timeline validator, the controller model, the replay engine, the evidence oracle, the write
 * ledger, the snapshot analysis); every other value is replaced (see redaction.ts). Adding a
 * field that the analysis reads means adding it here, or a redacted recording replays
 * differently from the original (test/sources/redaction-replay.test.ts checks every example).
 *
 * A keep-set is a tree:
 * - `LEAF`: keep the value when it is a string, number, boolean or null (a list of them: each
 *   element); an object found where a scalar was expected is redacted like any unlisted value;
 * - an object: the keys listed keep their values by their own rule; the key `'*'` gives the
 *   rule for every key not listed (maps such as labels); any other key is redacted;
 * - a function: computes the kept value itself (managedFields);
 * - on a list, the rule applies to each element (`containers: { name: LEAF }` keeps every
 *   container's name).
 */
import { isRecord } from '../../model/objects.js';

export const LEAF = 'leaf' as const;
export type KeepFn = (value: unknown, redact: (v: unknown) => unknown) => unknown;
export type Keep = typeof LEAF | KeepFn | KeepMap;
export interface KeepMap {
  readonly [key: string]: Keep;
}

/** Maps of strings (labels, quota quantities): every key keeps a scalar value. */
const STRING_MAP: KeepMap = { '*': LEAF };

/**
 * Annotations whose values are kept; every other annotation keeps its name but its value is
 * replaced. `controller.kubernetes.io/pod-deletion-cost` is read by the pod ranking (scale-down
 * order). The `deployment.kubernetes.io/*` ones are integers the Deployment controller writes
 * on ReplicaSets (revision, replica bounds): no analysis reads them, but they tell an operator
 * which ReplicaSet is which revision and cannot carry a credential (the apiserver does not
 * validate them, so a human could write anything there — the risk is accepted for these four
 * names only). `k8s.io/initial-events-end` is the watch protocol's "true" marker on BOOKMARKs.
 * Free-text annotations such as `kubernetes.io/change-cause` (a whole kubectl command line)
 * and `kubectl.kubernetes.io/last-applied-configuration` (a copy of the object, env included)
 * are NOT kept.
 */
export const KEPT_ANNOTATIONS: readonly string[] = [
  'controller.kubernetes.io/pod-deletion-cost',
  'deployment.kubernetes.io/revision',
  'deployment.kubernetes.io/revision-history',
  'deployment.kubernetes.io/desired-replicas',
  'deployment.kubernetes.io/max-replicas',
  'k8s.io/initial-events-end',
  // The DaemonSet's template generation (its pods' updatedness) and an Indexed Job pod's index: integers the controllers write.
  'deprecated.daemonset.template.generation',
  'batch.kubernetes.io/job-completion-index',
];

const ANNOTATIONS: KeepMap = Object.fromEntries(KEPT_ANNOTATIONS.map((a) => [a, LEAF]));

/**
 * managedFields: who wrote what and when. The watch normaliser takes `time` as an object time
 * (formats without receive times) and the snapshot analysis finds spec changes by `manager`,
 * `operation`, `time`, `subresource` and whether `fieldsV1` has `f:spec` at its top. Below its
 * top level `fieldsV1` names every field path the manager owns, and the keys of associative
 * lists carry values: `k:{"name":"DB_PASSWORD"}` (env var names), annotation keys, `v:"…"`
 * items of set lists. So `fieldsV1` keeps only its top-level keys (`f:metadata`, `f:spec`,
 * `f:status`, …), each mapped to `{}`.
 */
const MANAGED_FIELDS_ENTRY: KeepMap = {
  manager: LEAF,
  operation: LEAF,
  apiVersion: LEAF,
  time: LEAF,
  subresource: LEAF,
  fieldsType: LEAF,
  fieldsV1: (v, redact) => (isRecord(v) ? Object.fromEntries(Object.keys(v).map((k) => [k, {}])) : redact(v)),
};

/** Object identity, ownership and lifecycle: what every kind keeps of its metadata. */
const IDENTITY: KeepMap = {
  name: LEAF,
  generateName: LEAF,
  namespace: LEAF,
  uid: LEAF,
  resourceVersion: LEAF,
  generation: LEAF,
  creationTimestamp: LEAF,
  deletionTimestamp: LEAF,
  deletionGracePeriodSeconds: LEAF,
  ownerReferences: { apiVersion: LEAF, kind: LEAF, name: LEAF, uid: LEAF, controller: LEAF, blockOwnerDeletion: LEAF },
  finalizers: LEAF,
  managedFields: MANAGED_FIELDS_ENTRY,
};

/** Metadata of the kinds kexp analyses: identity plus labels (selectors match them) and the kept annotations. */
const METADATA: KeepMap = { ...IDENTITY, labels: STRING_MAP, annotations: ANNOTATIONS };

const SELECTOR: KeepMap = {
  matchLabels: STRING_MAP,
  matchExpressions: { key: LEAF, operator: LEAF, values: LEAF },
};

/**
 * Pod spec: `nodeName` (scale-down ranks pods by how many related pods share their node), the
 * init containers' `name`/`restartPolicy` (restartable "sidecar" init containers rank by their
 * restarts), and container names. Images, args, command, env, probes, lifecycle hooks, volumes
 * and everything else are replaced.
 */
const POD_SPEC: KeepMap = {
  nodeName: LEAF,
  containers: { name: LEAF },
  initContainers: { name: LEAF, restartPolicy: LEAF },
  ephemeralContainers: { name: LEAF },
};

const CONTAINER_STATUS: KeepMap = { name: LEAF, restartCount: LEAF, ready: LEAF, started: LEAF };

/**
 * Pod status: phase, the failure `reason` (reported for failed pods), condition type/status/
 * lastTransitionTime (readiness and its time), container names/restarts/readiness. Container
 * `state`/`lastState` (termination messages hold whatever the container wrote), messages,
 * IPs, images and container IDs are replaced.
 */
const POD_STATUS: KeepMap = {
  phase: LEAF,
  reason: LEAF,
  conditions: { type: LEAF, status: LEAF, lastTransitionTime: LEAF },
  containerStatuses: CONTAINER_STATUS,
  initContainerStatuses: CONTAINER_STATUS,
  ephemeralContainerStatuses: { name: LEAF },
};

const TEMPLATE: KeepMap = { metadata: METADATA, spec: POD_SPEC };

/** A node selector term (node affinity): requirements over labels and metadata.name. */
const NODE_SELECTOR_TERM: KeepMap = {
  matchExpressions: { key: LEAF, operator: LEAF, values: LEAF },
  matchFields: { key: LEAF, operator: LEAF, values: LEAF },
};
/** The required node affinity (where a daemon pod may run; the node a daemon pod is for). */
const AFFINITY: KeepMap = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: NODE_SELECTOR_TERM } } };

/**
 * A daemon pod's spec as the DaemonSet controller reads it (model/daemonset/node-placement.ts,
 * daemon-pods.ts): its node selector, required node affinity, tolerations and hostNetwork, besides
 * what every pod keeps.
 */
const DAEMON_POD_SPEC: KeepMap = {
  ...POD_SPEC,
  nodeSelector: STRING_MAP,
  affinity: AFFINITY,
  tolerations: { key: LEAF, operator: LEAF, value: LEAF, effect: LEAF, tolerationSeconds: LEAF },
  hostNetwork: LEAF,
};

/** Conditions whose message kexp quotes (a ReplicaFailure's apiserver error, a Deployment's progress). */
const CONDITION_WITH_MESSAGE: KeepMap = { type: LEAF, status: LEAF, reason: LEAF, message: LEAF, lastTransitionTime: LEAF };

const OBJECT_REF: KeepMap = { kind: LEAF, namespace: LEAF, name: LEAF, uid: LEAF, apiVersion: LEAF, resourceVersion: LEAF, fieldPath: LEAF };

/**
 * Event (core/v1 and events.k8s.io/v1 field names), without its message: what the write ledger,
 * the evidence oracle and the watch normaliser read to count and place the controller's Events.
 */
const EVENT_BASE: KeepMap = {
  involvedObject: OBJECT_REF,
  regarding: OBJECT_REF,
  reason: LEAF,
  type: LEAF,
  count: LEAF,
  deprecatedCount: LEAF,
  firstTimestamp: LEAF,
  lastTimestamp: LEAF,
  deprecatedFirstTimestamp: LEAF,
  deprecatedLastTimestamp: LEAF,
  eventTime: LEAF,
  series: { count: LEAF, lastObservedTime: LEAF },
  source: { component: LEAF },
  deprecatedSource: { component: LEAF },
  reportingComponent: LEAF,
  reportingController: LEAF,
};

/**
 * An Event about a ReplicaSet, a Deployment, a DaemonSet or a Job also keeps its message (`note`): the write ledger
 * takes pod names from "Created pod: NAME" and quotes FailedCreate/FailedDelete errors; the
 * snapshot analysis quotes the Deployment's. Messages of other Events (kubelet, scheduler:
 * "Error: failed to start container … exec: "…"" can echo a command line) are replaced.
 */
const EVENT_WITH_MESSAGE: KeepMap = { ...EVENT_BASE, message: LEAF, note: LEAF };

const TOP: KeepMap = { apiVersion: LEAF, kind: LEAF };

const KINDS: Readonly<Record<string, KeepMap>> = {
  // A pod keeps its required node affinity too: the node a daemon pod is for before it is bound.
  Pod: { ...TOP, metadata: METADATA, spec: { ...POD_SPEC, affinity: AFFINITY }, status: POD_STATUS },
  DaemonSet: {
    ...TOP,
    metadata: METADATA,
    spec: {
      selector: SELECTOR, template: { metadata: METADATA, spec: DAEMON_POD_SPEC }, minReadySeconds: LEAF, revisionHistoryLimit: LEAF,
      updateStrategy: { type: LEAF, rollingUpdate: { maxUnavailable: LEAF, maxSurge: LEAF } },
    },
    status: {
      currentNumberScheduled: LEAF, numberMisscheduled: LEAF, desiredNumberScheduled: LEAF, numberReady: LEAF, observedGeneration: LEAF,
      updatedNumberScheduled: LEAF, numberAvailable: LEAF, numberUnavailable: LEAF, collisionCount: LEAF, conditions: CONDITION_WITH_MESSAGE,
    },
  },
  /** What the DaemonSet controller reads of a node: its labels (METADATA) and taints. */
  Node: { ...TOP, metadata: METADATA, spec: { taints: { key: LEAF, value: LEAF, effect: LEAF, timeAdded: LEAF }, unschedulable: LEAF } },
  Job: {
    ...TOP,
    metadata: METADATA,
    spec: {
      parallelism: LEAF, completions: LEAF, activeDeadlineSeconds: LEAF, backoffLimit: LEAF, backoffLimitPerIndex: LEAF, maxFailedIndexes: LEAF,
      completionMode: LEAF, suspend: LEAF, podReplacementPolicy: LEAF, managedBy: LEAF, selector: SELECTOR, manualSelector: LEAF,
      template: { metadata: METADATA, spec: { ...POD_SPEC, restartPolicy: LEAF } },
    },
    status: {
      active: LEAF, succeeded: LEAF, failed: LEAF, ready: LEAF, terminating: LEAF, startTime: LEAF, completionTime: LEAF,
      completedIndexes: LEAF, failedIndexes: LEAF, uncountedTerminatedPods: { succeeded: LEAF, failed: LEAF }, conditions: CONDITION_WITH_MESSAGE,
    },
  },
  ReplicaSet: {
    ...TOP,
    metadata: METADATA,
    spec: { replicas: LEAF, minReadySeconds: LEAF, selector: SELECTOR, template: TEMPLATE },
    status: {
      replicas: LEAF, fullyLabeledReplicas: LEAF, readyReplicas: LEAF, availableReplicas: LEAF, terminatingReplicas: LEAF,
      observedGeneration: LEAF, conditions: CONDITION_WITH_MESSAGE,
    },
  },
  Deployment: {
    ...TOP,
    metadata: METADATA,
    spec: { replicas: LEAF, minReadySeconds: LEAF, selector: SELECTOR, template: TEMPLATE, paused: LEAF },
    status: { replicas: LEAF, observedGeneration: LEAF, conditions: CONDITION_WITH_MESSAGE },
  },
  /** `kexp record rc/NAME`: what the RC manager reads (the ReplicaSet's fields; its selector a plain label map). */
  ReplicationController: {
    ...TOP,
    metadata: METADATA,
    spec: { replicas: LEAF, minReadySeconds: LEAF, selector: STRING_MAP, template: TEMPLATE },
    status: { replicas: LEAF, fullyLabeledReplicas: LEAF, readyReplicas: LEAF, availableReplicas: LEAF, observedGeneration: LEAF, conditions: CONDITION_WITH_MESSAGE },
  },
  Namespace: { ...TOP, metadata: METADATA, status: { phase: LEAF, conditions: CONDITION_WITH_MESSAGE } },
  /** kube-system/kube-controller-manager leader election (read by `kexp explain`). */
  Lease: {
    ...TOP,
    metadata: METADATA,
    spec: { holderIdentity: LEAF, leaseDurationSeconds: LEAF, acquireTime: LEAF, renewTime: LEAF, leaseTransitions: LEAF },
  },
  /** Quota exhaustion (read by `kexp explain`): quantities only. */
  ResourceQuota: { ...TOP, metadata: METADATA, spec: { hard: STRING_MAP }, status: { hard: STRING_MAP, used: STRING_MAP } },
  /** The object of a watch ERROR event (the normaliser reads code, reason, message). */
  Status: { ...TOP, status: LEAF, code: LEAF, reason: LEAF, message: LEAF },
};

/** Any other kind (Secret, ConfigMap, …): identity only; labels and annotations keep their names, not their values. */
const OTHER: KeepMap = { ...TOP, metadata: IDENTITY };

const MESSAGE_KINDS = new Set(['ReplicaSet', 'Deployment', 'DaemonSet', 'Job']);

/** The keep-set for one object, chosen by its `kind` (and, for Events, the kind of object the Event is about). */
export function keepSetFor(obj: Record<string, unknown>): KeepMap {
  if (obj.kind === 'Event') {
    const about = isRecord(obj.involvedObject) ? obj.involvedObject : isRecord(obj.regarding) ? obj.regarding : undefined;
    // The RC manager's Events too ("Created pod: NAME", its FailedCreate errors), as the ReplicaSet controller's.
    const withMessage = typeof about?.kind === 'string' && (MESSAGE_KINDS.has(about.kind) || about.kind === 'ReplicationController');
    return { ...TOP, metadata: METADATA, ...(withMessage ? EVENT_WITH_MESSAGE : EVENT_BASE) };
  }
  return (typeof obj.kind === 'string' && Object.hasOwn(KINDS, obj.kind) ? KINDS[obj.kind] : undefined) ?? OTHER;
}
