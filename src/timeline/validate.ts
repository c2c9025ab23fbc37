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
  // for…in, not Object.keys or entries: no array per object on the per-event path (a parsed JSON
  // object inherits no enumerable key, so the keys and their order are Object.keys').
  for (const k in v) if (typeof v[k] !== 'string') return `${what}.${k} is not a string`;
  return undefined;
}

/** A field that must be a string when present (undefined and null are absent). */
const notString = (v: unknown): boolean => v !== undefined && v !== null && typeof v !== 'string';

const META_STRINGS = ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp'] as const;
const REF_STRINGS = ['kind', 'name', 'uid'] as const;

function checkMeta(m: unknown): string | undefined {
  if (!isRecord(m)) return 'metadata is not an object';
  // META_STRINGS, in its order, each field read by name (one inline cache per field instead of a keyed read).
  if (notString(m.name) || notString(m.namespace) || notString(m.uid) || notString(m.resourceVersion) || notString(m.creationTimestamp) || notString(m.deletionTimestamp)) {
    for (const f of META_STRINGS) if (notString(m[f])) return `metadata.${f} is not a string`;
  }
  const l = stringMap(m.labels, 'metadata.labels') ?? stringMap(m.annotations, 'metadata.annotations');
  if (l) return l;
  const refs = m.ownerReferences;
  if (refs !== undefined && refs !== null) {
    if (!Array.isArray(refs)) return 'metadata.ownerReferences is not a list';
    for (let i = 0; i < refs.length; i++) {
      const r: unknown = refs[i];
      if (!isRecord(r)) return `metadata.ownerReferences[${i}] is not an object`;
      if (typeof r.kind !== 'string' || typeof r.name !== 'string' || typeof r.uid !== 'string') {
        for (const f of REF_STRINGS) if (typeof r[f] !== 'string') return `metadata.ownerReferences[${i}].${f} is missing or not a string`;
      }
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
  // The status lists, each read by name.
  if (!absentOrRecords(st.conditions)) return 'status.conditions is not a list of objects';
  if (!absentOrRecords(st.containerStatuses)) return 'status.containerStatuses is not a list of objects';
  if (!absentOrRecords(st.initContainerStatuses)) return 'status.initContainerStatuses is not a list of objects';
  return undefined;
}

/** Absent (undefined, null) or an array of JSON objects. */
function absentOrRecords(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (!isRecord(v[i])) return false;
  return true;
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

/** Whether `v` is absent or a list of JSON objects. */
function listOfObjects(v: unknown): boolean {
  return v === undefined || v === null || (Array.isArray(v) && v.every(isRecord));
}

/** A DaemonSet: what its controller model reads (selector, template placement, update strategy) of the right types. */
function checkDaemonSet(o: Record<string, unknown>): string | undefined {
  const spec = o.spec;
  if (spec === undefined || spec === null) return undefined;
  if (!isRecord(spec)) return 'spec is not an object';
  const base = checkReplicaSet({ ...o, spec: { ...spec, replicas: undefined } });
  if (base) return base;
  const tpl = isRecord(spec.template) ? spec.template.spec : undefined;
  if (tpl !== undefined && tpl !== null) {
    if (!isRecord(tpl)) return 'spec.template.spec is not an object';
    const ns = tpl.nodeSelector;
    if (ns !== undefined && ns !== null && !(isRecord(ns) && Object.values(ns).every((v) => typeof v === 'string'))) return 'spec.template.spec.nodeSelector is not a map of strings';
    if (!listOfObjects(tpl.tolerations)) return 'spec.template.spec.tolerations is not a list of objects';
    if (tpl.affinity !== undefined && tpl.affinity !== null && !isRecord(tpl.affinity)) return 'spec.template.spec.affinity is not an object';
    const terms = isRecord(tpl.affinity) && isRecord(tpl.affinity.nodeAffinity) && isRecord(tpl.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution)
      ? tpl.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms : undefined;
    if (!listOfObjects(terms)) return 'the required node affinity\'s nodeSelectorTerms is not a list of objects';
    for (const t of (terms as Array<Record<string, unknown>> | undefined | null) ?? []) {
      for (const f of ['matchExpressions', 'matchFields'] as const) {
        const reqs = t[f];
        if (!listOfObjects(reqs)) return `a nodeSelectorTerm's ${f} is not a list of objects`;
        for (const r of (reqs as Array<Record<string, unknown>> | undefined | null) ?? []) {
          if (typeof r.key !== 'string' || typeof r.operator !== 'string') return `a nodeSelectorTerm's ${f} has a requirement without a string key and operator`;
          if (r.values !== undefined && r.values !== null && !(Array.isArray(r.values) && r.values.every((v) => typeof v === 'string'))) return `a nodeSelectorTerm's ${f} has values that are not strings`;
        }
      }
    }
  }
  const us = spec.updateStrategy;
  if (us !== undefined && us !== null) {
    if (!isRecord(us)) return 'spec.updateStrategy is not an object';
    const ru = us.rollingUpdate;
    if (ru !== undefined && ru !== null) {
      if (!isRecord(ru)) return 'spec.updateStrategy.rollingUpdate is not an object';
      for (const f of ['maxUnavailable', 'maxSurge'] as const) {
        const v = ru[f];
        if (v !== undefined && v !== null && !(typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v) && v >= 0))) return `spec.updateStrategy.rollingUpdate.${f} ${JSON.stringify(v)} is not a count or a percentage`;
      }
    }
  }
  return undefined;
}

/** A Job: its counts integers, its selector and template of the right types, its status lists of strings. */
function checkJob(o: Record<string, unknown>): string | undefined {
  const spec = o.spec;
  if (spec !== undefined && spec !== null) {
    if (!isRecord(spec)) return 'spec is not an object';
    for (const f of ['parallelism', 'completions', 'backoffLimit', 'activeDeadlineSeconds', 'backoffLimitPerIndex', 'maxFailedIndexes'] as const) {
      const v = spec[f];
      if (v !== undefined && v !== null && !(typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_INT32)) return `spec.${f} ${JSON.stringify(v)} is not an integer between 0 and ${MAX_INT32}`;
    }
    if (spec.suspend !== undefined && spec.suspend !== null && typeof spec.suspend !== 'boolean') return 'spec.suspend is not a boolean';
    const sel = checkSelector(spec.selector);
    if (sel) return sel;
    if (spec.template !== undefined && spec.template !== null && !isRecord(spec.template)) return 'spec.template is not an object';
  }
  const st = o.status;
  if (st !== undefined && st !== null) {
    if (!isRecord(st)) return 'status is not an object';
    const u = st.uncountedTerminatedPods;
    if (u !== undefined && u !== null) {
      if (!isRecord(u)) return 'status.uncountedTerminatedPods is not an object';
      for (const f of ['succeeded', 'failed'] as const) {
        const l = u[f];
        if (l !== undefined && l !== null && !(Array.isArray(l) && l.every((x) => typeof x === 'string'))) return `status.uncountedTerminatedPods.${f} is not a list of strings`;
      }
    }
    if (!listOfObjects(st.conditions)) return 'status.conditions is not a list of objects';
  }
  return undefined;
}

/** A Node: its taints a list of objects with a string key and effect. */
function checkNode(o: Record<string, unknown>): string | undefined {
  const spec = o.spec;
  if (spec === undefined || spec === null) return undefined;
  if (!isRecord(spec)) return 'spec is not an object';
  if (!listOfObjects(spec.taints)) return 'spec.taints is not a list of objects';
  for (const t of (spec.taints as Array<Record<string, unknown>> | undefined | null) ?? []) {
    if (typeof t.key !== 'string' || typeof t.effect !== 'string') return 'a taint without a string key and effect';
  }
  return undefined;
}

/** Returns why the event's object cannot be given to the model, or undefined when it can. */
export function invalidObservedObject(e: ObservedEvent): string | undefined {
  const o = e.object as unknown;
  if (!isRecord(o)) return `${e.kind} object is not a JSON object`;
  const meta = checkMeta(o.metadata);
  if (meta) return `${e.kind} ${meta}`;
  const m = o.metadata as Record<string, unknown>;
  if (e.kind === 'Pod' || e.kind === 'ReplicaSet' || e.kind === 'ReplicationController' || e.kind === 'DaemonSet' || e.kind === 'Job') {
    if (typeof m.name !== 'string' || typeof m.namespace !== 'string') return `${e.kind} without metadata.name and metadata.namespace`;
  }
  if (e.kind === 'Node' && typeof m.name !== 'string') return 'Node without metadata.name';
  const why = e.kind === 'Pod' ? checkPod(o) : e.kind === 'ReplicaSet' ? checkReplicaSet(o) : e.kind === 'ReplicationController' ? checkReplicationController(o) : e.kind === 'DaemonSet' ? checkDaemonSet(o) : e.kind === 'Node' ? checkNode(o) : e.kind === 'Job' ? checkJob(o) : undefined;
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
