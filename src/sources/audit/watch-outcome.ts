/**
 * What a watcher would have seen after an audited write, from the write's response: the watch
 * event type an informer receives, which decides whether the object lives on (MODIFIED) or is
 * gone (DELETED). Mirrors the apiserver's deletion semantics — Store.Delete and
 * updateForGracefulDeletionAndFinalizers in
 * staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go, BeforeDelete in
 * staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go: a delete that leaves a
 * deletionTimestamp with a grace period, a finalizer or a namespace's spec.finalizers is an
 * update; 202 Accepted is one too.
 *
 * Contract: pure functions of the response body, its HTTP code and the resource kind; a body
 * of another kind (or without metadata) yields no outcome. No state, no cost beyond a few
 * property reads.
 */
import { isRecord } from '../../model/objects.js';

type Obj = Record<string, unknown>;

/** The response is a metav1.Status (a delete that does not return the object). */
export function isStatus(o: unknown): o is Obj {
  return isRecord(o) && o.kind === 'Status';
}

/** The response is an object of `kind` (or of no stated kind) with metadata: an object state. */
export function kindMatches(o: unknown, kind: string): boolean {
  if (!isRecord(o) || !isRecord(o.metadata)) return false;
  return o.kind === undefined || o.kind === kind;
}

/**
 * What a watcher sees after a delete that returned the object: MODIFIED while it lives on
 * (graceful deletion pending, finalizers, namespace finalizers, 202 Accepted), DELETED
 * when the response is the object's final state (grace 0 / no graceful strategy).
 */
export function deleteOutcome(o: unknown, code: number, kind: string): 'MODIFIED' | 'DELETED' | undefined {
  if (!isRecord(o) || !isRecord(o.metadata)) return undefined;
  if (o.kind !== undefined && o.kind !== kind) return undefined;
  if (code === 202) return 'MODIFIED';
  const m = o.metadata;
  if (Array.isArray(m.finalizers) && m.finalizers.length > 0) return 'MODIFIED';
  if (kind === 'Namespace') {
    const spec = isRecord(o.spec) ? o.spec : {};
    if (Array.isArray(spec.finalizers) && spec.finalizers.length > 0) return 'MODIFIED';
  }
  const grace = m.deletionGracePeriodSeconds;
  if (m.deletionTimestamp && typeof grace === 'number' && grace > 0) return 'MODIFIED';
  return 'DELETED';
}

/** True when a write's result is an object that no longer exists (deletion finished by it). */
export function finishedDeletion(obj: unknown, kind: string): boolean {
  const meta = isRecord(obj) && isRecord(obj.metadata) ? obj.metadata : undefined;
  if (!meta || !meta.deletionTimestamp) return false;
  if (Array.isArray(meta.finalizers) && meta.finalizers.length > 0) return false;
  if (kind === 'Pod') return meta.deletionGracePeriodSeconds === 0;
  // Owners and nodes have no graceful deletion: with the last finalizer gone the object is.
  return kind === 'ReplicaSet' || kind === 'ReplicationController' || kind === 'DaemonSet' || kind === 'Job' || kind === 'Node';
}
