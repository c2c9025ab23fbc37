/**
 * Shape checks for the objects the controller model reads, applied to every observed event
 * before the engine delivers it. A source hands over whatever JSON the input held; a field of
 * the wrong type (ownerReferences as a string, a selector given as text, replicas "3" or -5)
 * would otherwise crash the model or produce nonsense. An event that fails is reported as an
 * input problem at its FILE:LINE and not delivered.
 *
 * Checks mirror the API's own validation where the model depends on it (apps/v1 ReplicaSet
 * spec.replicas ≥ 0 int32, metav1 LabelSelector structure); they do not re-implement all of
 * API validation.
 */
import { isRecord } from '../model/objects.js';
import type { ObservedEvent, WriteEvent } from './event.js';

const MAX_INT32 = 2 ** 31 - 1;

function stringMap(v: unknown, what: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isRecord(v)) return `${what} is not an object`;
  // Keys, not entries: no pair array per label on the per-event path.
  for (const k of Object.keys(v)) if (typeof v[k] !== 'string') return `${what}.${k} is not a string`;
  return undefined;
}

const META_STRINGS = ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp'] as const;
const REF_STRINGS = ['kind', 'name', 'uid'] as const;
const POD_STATUS_LISTS = ['conditions', 'containerStatuses', 'initContainerStatuses'] as const;

function checkMeta(m: unknown): string | undefined {
  if (!isRecord(m)) return 'metadata is not an object';
  for (const f of META_STRINGS) {
    const v = m[f];
    if (v !== undefined && v !== null && typeof v !== 'string') return `metadata.${f} is not a string`;
  }
  const l = stringMap(m.labels, 'metadata.labels') ?? stringMap(m.annotations, 'metadata.annotations');
  if (l) return l;
  const refs = m.ownerReferences;
  if (refs !== undefined && refs !== null) {
    if (!Array.isArray(refs)) return 'metadata.ownerReferences is not a list';
    for (let i = 0; i < refs.length; i++) {
      const r: unknown = refs[i];
      if (!isRecord(r)) return `metadata.ownerReferences[${i}] is not an object`;
      for (const f of REF_STRINGS) if (typeof r[f] !== 'string') return `metadata.ownerReferences[${i}].${f} is missing or not a string`;
    }
  }
  return undefined;
}

function checkSelector(sel: unknown): string | undefined {
  if (sel === undefined || sel === null) return undefined;
  if (!isRecord(sel)) return 'spec.selector is not an object (a LabelSelector with matchLabels/matchExpressions)';
  const ml = stringMap(sel.matchLabels, 'spec.selector.matchLabels');
  if (ml) return ml;
  const me = sel.matchExpressions;
  if (me !== undefined && me !== null) {
    if (!Array.isArray(me)) return 'spec.selector.matchExpressions is not a list';
    for (const [i, r] of me.entries()) {
      if (!isRecord(r) || typeof r.key !== 'string' || typeof r.operator !== 'string') return `spec.selector.matchExpressions[${i}] needs string key and operator`;
      if (r.values !== undefined && r.values !== null && (!Array.isArray(r.values) || r.values.some((x) => typeof x !== 'string'))) {
        return `spec.selector.matchExpressions[${i}].values is not a list of strings`;
      }
    }
  }
  return undefined;
}

function checkPod(o: Record<string, unknown>): string | undefined {
  if (o.spec !== undefined && o.spec !== null && !isRecord(o.spec)) return 'spec is not an object';
  if (isRecord(o.spec) && o.spec.nodeName !== undefined && o.spec.nodeName !== null && typeof o.spec.nodeName !== 'string') return 'spec.nodeName is not a string';
  const st = o.status;
  if (st === undefined || st === null) return undefined;
  if (!isRecord(st)) return 'status is not an object';
  if (st.phase !== undefined && st.phase !== null && typeof st.phase !== 'string') return 'status.phase is not a string';
  for (const f of POD_STATUS_LISTS) {
    const v = st[f];
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v)) return `status.${f} is not a list of objects`;
    for (let i = 0; i < v.length; i++) if (!isRecord(v[i])) return `status.${f} is not a list of objects`;
  }
  return undefined;
}

function checkReplicaSet(o: Record<string, unknown>): string | undefined {
  const spec = o.spec;
  if (spec === undefined || spec === null) return undefined;
  if (!isRecord(spec)) return 'spec is not an object';
  const r = spec.replicas;
  if (r !== undefined && r !== null && !(typeof r === 'number' && Number.isInteger(r) && r >= 0 && r <= MAX_INT32)) {
    return `spec.replicas ${JSON.stringify(r)} is not an integer between 0 and ${MAX_INT32}`;
  }
  const m = spec.minReadySeconds;
  if (m !== undefined && m !== null && !(typeof m === 'number' && Number.isInteger(m) && m >= 0)) return `spec.minReadySeconds ${JSON.stringify(m)} is not a non-negative integer`;
  const sel = checkSelector(spec.selector);
  if (sel) return sel;
  if (spec.template !== undefined && spec.template !== null && !isRecord(spec.template)) return 'spec.template is not an object';
  return undefined;
}

/** A ReplicationController is checked as the ReplicaSet it converts to: its selector a map of strings. */
function checkReplicationController(o: Record<string, unknown>): string | undefined {
  const spec = o.spec;
  if (spec === undefined || spec === null) return undefined;
  if (!isRecord(spec)) return 'spec is not an object';
  const sel = spec.selector;
  if (sel !== undefined && sel !== null && !(isRecord(sel) && Object.values(sel).every((v) => typeof v === 'string'))) return 'spec.selector is not a map of strings';
  return checkReplicaSet({ ...o, spec: { ...spec, selector: sel === undefined || sel === null ? sel : { matchLabels: sel } } });
}

/** Returns why the event's object cannot be given to the model, or undefined when it can. */
export function invalidObservedObject(e: ObservedEvent): string | undefined {
  const o = e.object as unknown;
  if (!isRecord(o)) return `${e.kind} object is not a JSON object`;
  const meta = checkMeta(o.metadata);
  if (meta) return `${e.kind} ${meta}`;
  const m = o.metadata as Record<string, unknown>;
  if (e.kind === 'Pod' || e.kind === 'ReplicaSet' || e.kind === 'ReplicationController') {
    if (typeof m.name !== 'string' || typeof m.namespace !== 'string') return `${e.kind} without metadata.name and metadata.namespace`;
  }
  const why = e.kind === 'Pod' ? checkPod(o) : e.kind === 'ReplicaSet' ? checkReplicaSet(o) : e.kind === 'ReplicationController' ? checkReplicationController(o) : undefined;
  return why ? `${e.kind} ${String(m.namespace ?? '')}/${String(m.name ?? '')}: ${why}` : undefined;
}

/**
 * Returns why a write's request or response body cannot be read by the analysis (a body whose
 * metadata has the wrong shape: ownerReferences as a number, labels as a list), or undefined.
 * Bodies without metadata (a JSON patch, a status-only patch) are not checked here.
 */
export function invalidWriteBody(e: WriteEvent): string | undefined {
  for (const [f, body] of [['requestObject', e.requestObject], ['responseObject', e.responseObject]] as const) {
    if (!isRecord(body) || body.metadata === undefined || body.metadata === null) continue;
    // A patch's request body is partial (strategic-merge directives, `null` to remove a label):
    // only the container types are checked there.
    const why = f === 'requestObject' && e.verb === 'patch' ? checkPatchMeta(body.metadata) : checkMeta(body.metadata);
    if (why) return `${e.verb} of ${e.resource}${e.name ? ` ${e.namespace ?? ''}/${e.name}` : ''}: ${f}.${why}`;
  }
  return undefined;
}

function checkPatchMeta(m: unknown): string | undefined {
  if (!isRecord(m)) return 'metadata is not an object';
  for (const f of ['labels', 'annotations'] as const) if (m[f] !== undefined && m[f] !== null && !isRecord(m[f])) return `metadata.${f} is not an object`;
  const refs = m.ownerReferences;
  if (refs !== undefined && refs !== null && (!Array.isArray(refs) || refs.some((r) => !isRecord(r)))) return 'metadata.ownerReferences is not a list of objects';
  return undefined;
}
