/**
 * ReplicationController ⇄ ReplicaSet conversion, so the ReplicaSet controller's code runs
 * unchanged for ReplicationControllers. Mirrors convertRCtoRS / convertRStoRC in
 * pkg/controller/replication/conversion.go, through Convert_v1_ReplicationController_To_apps_ReplicaSet
 * and Convert_apps_ReplicaSet_To_v1_ReplicationController (pkg/apis/core/v1/conversion.go):
 * the metadata is kept as is, spec.selector (a label map) becomes matchLabels
 * (metav1.Convert_Map_string_To_string_To_v1_LabelSelector: a nil map a nil selector, an empty
 * one the empty selector), replicas/minReadySeconds/template are copied, and the status
 * fields the two share are copied (a ReplicaSet's terminatingReplicas has no RC counterpart).
 *
 * Contract: pure; the input is not modified; the result shares the input's metadata, template and
 * conditions objects (the model never writes into what it caches). Like upstream's output, the
 * converted object has no apiVersion/kind: the controller knows its kind (owner-kind.ts).
 * Back to an RC, a matchExpressions selector (which an RC cannot hold) is dropped, as the
 * upstream conversion records it in a non-convertible annotation instead of failing.
 *
 * Cost: O(labels in the selector). No I/O.
 */
import type { ReplicaSet, ReplicationController } from '../objects.js';

/** convertRCtoRS: the ReplicaSet the RC manager's code sees for `rc`. */
export function replicaSetFromReplicationController(rc: ReplicationController): ReplicaSet {
  const rs: ReplicaSet = { metadata: rc.metadata };
  const spec = rc.spec;
  if (spec) {
    const out: NonNullable<ReplicaSet['spec']> = {};
    if (spec.replicas !== undefined) out.replicas = spec.replicas;
    if (spec.minReadySeconds !== undefined) out.minReadySeconds = spec.minReadySeconds;
    if (spec.selector !== undefined && spec.selector !== null) out.selector = { matchLabels: { ...spec.selector } };
    else if (spec.selector === null) out.selector = null;
    if (spec.template !== undefined) out.template = spec.template;
    rs.spec = out;
  } else if (spec === null) rs.spec = null;
  const st = rc.status;
  if (st) {
    const out: NonNullable<ReplicaSet['status']> = {};
    if (st.replicas !== undefined) out.replicas = st.replicas;
    if (st.fullyLabeledReplicas !== undefined) out.fullyLabeledReplicas = st.fullyLabeledReplicas;
    if (st.readyReplicas !== undefined) out.readyReplicas = st.readyReplicas;
    if (st.availableReplicas !== undefined) out.availableReplicas = st.availableReplicas;
    if (st.observedGeneration !== undefined) out.observedGeneration = st.observedGeneration;
    if (st.conditions !== undefined) out.conditions = st.conditions;
    rs.status = out;
  } else if (st === null) rs.status = null;
  return rs;
}

/** convertRStoRC: the ReplicationController a converted ReplicaSet stands for (what the RC manager's clients send). */
export function replicationControllerFromReplicaSet(rs: ReplicaSet): ReplicationController {
  const rc: ReplicationController = { apiVersion: 'v1', kind: 'ReplicationController', metadata: rs.metadata };
  const spec = rs.spec;
  if (spec) {
    const out: NonNullable<ReplicationController['spec']> = {};
    if (spec.replicas !== undefined) out.replicas = spec.replicas;
    if (spec.minReadySeconds !== undefined) out.minReadySeconds = spec.minReadySeconds;
    if (spec.selector) out.selector = { ...(spec.selector.matchLabels ?? {}) };
    else if (spec.selector === null) out.selector = null;
    if (spec.template !== undefined) out.template = spec.template;
    rc.spec = out;
  } else if (spec === null) rc.spec = null;
  const st = rs.status;
  if (st) {
    const { terminatingReplicas: _t, ...shared } = st;
    rc.status = shared;
  } else if (st === null) rc.status = null;
  return rc;
}
