/**
 * Wire shapes of the Kubernetes objects the ReplicaSet controller model reads.
 *
 * These are the JSON shapes as they travel over a watch, sit in an audit event's
 * responseObject or in a recording — timestamps are RFC 3339 strings (whole seconds for
 * object metadata), resourceVersions are opaque decimal strings. We do not reuse
 * @kubernetes/client-node's model classes here because they deserialise timestamps into
 * `Date` objects and src/model must stay free of client-node at runtime; the field names
 * are identical to k8s.io/api core/v1 and apps/v1, so client-node objects serialised with
 * `ObjectSerializer.serialize` have exactly this shape.
 */

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  /** RFC 3339, whole seconds, apiserver clock. */
  creationTimestamp?: string | null;
  /** RFC 3339; request time + grace period (a future instant when set). */
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number | null;
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
  ownerReferences?: OwnerReference[] | null;
  finalizers?: string[] | null;
}

/** metav1.LabelSelectorRequirement. */
export interface LabelSelectorRequirement {
  key: string;
  operator: string; // In | NotIn | Exists | DoesNotExist
  values?: string[] | null;
}

/** metav1.LabelSelector. `null`/absent matches nothing; `{}` matches everything. */
export interface LabelSelector {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirement[] | null;
}

export interface PodCondition {
  type: string;
  status: string; // "True" | "False" | "Unknown"
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

export interface ContainerStatus {
  name?: string;
  restartCount?: number;
  ready?: boolean;
}

export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: {
    nodeName?: string | null;
    initContainers?: Array<{ name?: string; restartPolicy?: string }> | null;
    containers?: Array<{ name?: string; image?: string }> | null;
    [k: string]: unknown;
  } | null;
  status?: {
    phase?: string; // Pending | Running | Succeeded | Failed | Unknown
    conditions?: PodCondition[] | null;
    containerStatuses?: ContainerStatus[] | null;
    initContainerStatuses?: ContainerStatus[] | null;
    [k: string]: unknown;
  } | null;
}

export interface ReplicaSetCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string | null;
}

export interface ReplicaSet {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: {
    /** Defaults to 1 when absent (apps/v1 defaulting). */
    replicas?: number | null;
    minReadySeconds?: number | null;
    selector?: LabelSelector | null;
    template?: { metadata?: ObjectMeta | null; spec?: unknown } | null;
  } | null;
  status?: {
    replicas?: number;
    fullyLabeledReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    terminatingReplicas?: number | null;
    observedGeneration?: number;
    conditions?: ReplicaSetCondition[] | null;
  } | null;
}

/**
 * core/v1 ReplicationController: a ReplicaSet whose spec.selector is a plain label map (equality
 * only) and whose status has no terminatingReplicas. The RC manager converts it to a ReplicaSet
 * before its code reads it (replicationcontroller/conversion.ts).
 */
export interface ReplicationController {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: {
    /** Defaults to 1 when absent (core/v1 defaulting). */
    replicas?: number | null;
    minReadySeconds?: number | null;
    /** Defaulted from the template's labels when absent at create. */
    selector?: Record<string, string> | null;
    template?: { metadata?: ObjectMeta | null; spec?: unknown } | null;
  } | null;
  status?: {
    replicas?: number;
    fullyLabeledReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    observedGeneration?: number;
    conditions?: ReplicaSetCondition[] | null;
  } | null;
}

/** core/v1 Toleration. */
export interface Toleration {
  key?: string;
  operator?: string; // Exists | Equal (default Equal)
  value?: string;
  effect?: string; // NoSchedule | PreferNoSchedule | NoExecute, empty = all
  tolerationSeconds?: number | null;
}

/** core/v1 NodeSelectorRequirement (matchExpressions over labels, matchFields over metadata.name). */
export interface NodeSelectorRequirement {
  key: string;
  operator: string; // In | NotIn | Exists | DoesNotExist | Gt | Lt
  values?: string[] | null;
}

/** core/v1 NodeSelectorTerm: its requirements are ANDed; the terms of a NodeSelector are ORed. */
export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[] | null;
  matchFields?: NodeSelectorRequirement[] | null;
}

/** The part of a pod template the DaemonSet controller reads to place its pods. */
export interface DaemonPodSpec {
  nodeName?: string | null;
  nodeSelector?: Record<string, string> | null;
  affinity?: {
    nodeAffinity?: {
      requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] | null } | null;
      [k: string]: unknown;
    } | null;
    [k: string]: unknown;
  } | null;
  tolerations?: Toleration[] | null;
  hostNetwork?: boolean | null;
  [k: string]: unknown;
}

/** apps/v1 DaemonSet, as far as its controller reads it. */
export interface DaemonSet {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: {
    selector?: LabelSelector | null;
    template?: { metadata?: ObjectMeta | null; spec?: DaemonPodSpec | null } | null;
    updateStrategy?: {
      type?: string; // RollingUpdate (default) | OnDelete
      rollingUpdate?: { maxUnavailable?: number | string | null; maxSurge?: number | string | null } | null;
    } | null;
    minReadySeconds?: number | null;
    revisionHistoryLimit?: number | null;
  } | null;
  status?: {
    currentNumberScheduled?: number;
    numberMisscheduled?: number;
    desiredNumberScheduled?: number;
    numberReady?: number;
    observedGeneration?: number;
    updatedNumberScheduled?: number;
    numberAvailable?: number;
    numberUnavailable?: number;
    collisionCount?: number | null;
    conditions?: ReplicaSetCondition[] | null;
  } | null;
}

/** batch/v1 JobCondition (Complete, Failed, SuccessCriteriaMet, FailureTarget, Suspended). */
export interface JobCondition {
  type: string;
  status: string; // "True" | "False" | "Unknown"
  reason?: string;
  message?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string | null;
}

/** batch/v1 Job, as far as its controller reads it (the apiserver defaults the optional spec fields: SetDefaults_Job). */
export interface Job {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: {
    /** Defaults to 1. */
    parallelism?: number | null;
    /** Defaults to 1 when parallelism is also unset; otherwise nil stays nil (any success completes). */
    completions?: number | null;
    activeDeadlineSeconds?: number | null;
    /** Defaults to 6 (MaxInt32 with backoffLimitPerIndex). */
    backoffLimit?: number | null;
    backoffLimitPerIndex?: number | null;
    maxFailedIndexes?: number | null;
    completionMode?: string | null; // NonIndexed (default) | Indexed
    suspend?: boolean | null;
    /** TerminatingOrFailed (default) | Failed (the default with a podFailurePolicy). */
    podReplacementPolicy?: string | null;
    managedBy?: string | null;
    selector?: LabelSelector | null;
    manualSelector?: boolean | null;
    podFailurePolicy?: unknown;
    successPolicy?: unknown;
    template?: { metadata?: ObjectMeta | null; spec?: { restartPolicy?: string | null; [k: string]: unknown } | null } | null;
  } | null;
  status?: {
    active?: number;
    succeeded?: number;
    failed?: number;
    ready?: number | null;
    terminating?: number | null;
    startTime?: string | null;
    completionTime?: string | null;
    completedIndexes?: string;
    failedIndexes?: string | null;
    uncountedTerminatedPods?: { succeeded?: string[] | null; failed?: string[] | null } | null;
    conditions?: JobCondition[] | null;
  } | null;
}

/** core/v1 Taint. */
export interface Taint {
  key: string;
  value?: string;
  effect: string; // NoSchedule | PreferNoSchedule | NoExecute
  timeAdded?: string | null;
}

/** core/v1 Node, as far as the DaemonSet controller reads it (labels, name, taints). */
export interface Node {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: { taints?: Taint[] | null; unschedulable?: boolean; [k: string]: unknown } | null;
  status?: { [k: string]: unknown } | null;
}

/** core/v1 Event (the legacy recorder the ReplicaSet controller uses). */
export interface CoreEvent {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  involvedObject?: { kind?: string; namespace?: string; name?: string; uid?: string; apiVersion?: string; resourceVersion?: string };
  reason?: string;
  message?: string;
  type?: string; // Normal | Warning
  count?: number;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  source?: { component?: string; host?: string };
  reportingComponent?: string;
}

export interface Namespace {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  status?: { phase?: string } | null;
}

/** `namespace/name`, the key KeyFunc and controller.PodKey produce. */
export function objectKey(meta: ObjectMeta): string {
  return `${meta.namespace ?? ''}/${meta.name ?? ''}`;
}

/** metav1.GetControllerOf: the ownerReference with controller=true, or undefined. */
export function controllerRefOf(meta: ObjectMeta): OwnerReference | undefined {
  const refs = meta.ownerReferences;
  if (refs === undefined || refs === null) return undefined;
  // A loop, not `.find` with a closure: read on every pod event by several stages (a list of the
  // wrong shape goes through `.find`, which throws as before).
  if (!Array.isArray(refs)) return (refs as OwnerReference[]).find((r) => r.controller === true);
  for (let i = 0; i < refs.length; i++) {
    const r = refs[i]!;
    if (r.controller === true) return r;
  }
  return undefined;
}

const NO_LABELS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Equal label maps, the label-change check of the pod update handlers (reflect.DeepEqual of
 * the two Labels in updatePod; the model counts an absent map as empty, where Go tells nil from empty).
 */
export function sameLabels(a: Record<string, string> | null | undefined, b: Record<string, string> | null | undefined): boolean {
  // By `for…in` (a parsed label map has only own keys): no entry or key arrays, no closure — the
  // pod update handlers ask on every pod event.
  const ea = a ?? NO_LABELS;
  const eb = b ?? NO_LABELS;
  let n = 0;
  for (const k in ea) {
    if (eb[k] !== ea[k]) return false;
    n++;
  }
  for (const _ in eb) if (--n < 0) return false;
  return n === 0;
}

/** reflect.DeepEqual of two controllerRefs (the owner-change check of the pod update handlers). */
export function sameOwnerReference(a: OwnerReference | undefined, b: OwnerReference | undefined): boolean {
  if (!a || !b) return a === b;
  return a.apiVersion === b.apiVersion && a.kind === b.kind && a.name === b.name && a.uid === b.uid &&
    a.controller === b.controller && a.blockOwnerDeletion === b.blockOwnerDeletion;
}

/** Parses an RFC 3339 timestamp to epoch milliseconds; undefined for null/absent/invalid. */
export function parseTime(t: string | null | undefined): number | undefined {
  if (!t) return undefined;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The part of a pod the informer cache keeps in kexp's model: what the ReplicaSet controller
 * reads of a cached pod — its metadata (labels, owners, timestamps, annotations such as the
 * deletion cost), spec.nodeName, the required node affinity (the node a daemon pod is for), the
 * init containers' restartPolicy (ranking), each container's name and image (an adopted pod's version against the template, for the report), and the status
 * minus the containers' image and state details. Not an upstream function: the real informer
 * keeps the whole object (a client-go transform can strip managedFields, as kube-controller-manager's
 * does); kexp replays millions of pod events, and 50,000 cached pods with their managedFields,
 * containers and volumes held most of a replay's memory. Everything the model and the report
 * read of a cached pod survives the projection (the golden reports and test/analysis/informer-transform.test.ts).
 */
export function cachedPod(pod: Pod): Pod {
  const { managedFields: _m, ...metadata } = pod.metadata as ObjectMeta & { managedFields?: unknown };
  const out: Pod = { metadata };
  if (pod.apiVersion !== undefined) out.apiVersion = pod.apiVersion;
  if (pod.kind !== undefined) out.kind = pod.kind;
  // A part of the wrong shape is kept as it came: the shape checks at delivery report it.
  const spec = pod.spec;
  if (isRecord(spec)) {
    const s: NonNullable<Pod['spec']> = {};
    if (spec.nodeName !== undefined) s.nodeName = spec.nodeName;
    const init = spec.initContainers;
    if (init !== undefined) s.initContainers = listOfRecords(init) ? init.map((c) => ({ name: c.name, ...(c.restartPolicy !== undefined ? { restartPolicy: c.restartPolicy } : {}) })) : init;
    // Each container's name and image (an adopted pod's version against the template: findings/write-rules.ts); nothing else of them.
    const cs = spec.containers;
    if (listOfRecords(cs)) s.containers = cs.map((c) => ({ name: c.name, ...(typeof c.image === 'string' ? { image: c.image } : {}) }));
    // The required node affinity: the node a DaemonSet's pod is for (util.GetTargetNodeName reads it
    // before the pod is scheduled); nothing else of the affinity.
    const required = isRecord(spec.affinity) && isRecord(spec.affinity.nodeAffinity) ? spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution : undefined;
    if (required !== undefined) s.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required } };
    out.spec = s;
  } else if (spec !== undefined) out.spec = spec;
  const status = pod.status;
  if (isRecord(status)) {
    const { containerStatuses, initContainerStatuses, ...rest } = status;
    const st: NonNullable<Pod['status']> = rest;
    if (containerStatuses !== undefined) st.containerStatuses = listOfRecords(containerStatuses) ? containerStatuses.map(slimContainerStatus) : containerStatuses;
    if (initContainerStatuses !== undefined) st.initContainerStatuses = listOfRecords(initContainerStatuses) ? initContainerStatuses.map(slimContainerStatus) : initContainerStatuses;
    out.status = st;
  } else if (status !== undefined) out.status = status;
  return out;
}

/** A JSON object (not null, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function listOfRecords<T>(v: T[] | null | unknown): v is T[] {
  return Array.isArray(v) && v.every(isRecord);
}

function slimContainerStatus(c: ContainerStatus): ContainerStatus {
  const o: ContainerStatus = {};
  if (c.name !== undefined) o.name = c.name;
  if (c.restartCount !== undefined) o.restartCount = c.restartCount;
  if (c.ready !== undefined) o.ready = c.ready;
  return o;
}

/** spec.replicas with apps/v1 defaulting (nil → 1). */
export function desiredReplicas(rs: ReplicaSet): number {
  const r = rs.spec?.replicas;
  return r === undefined || r === null ? 1 : r;
}
