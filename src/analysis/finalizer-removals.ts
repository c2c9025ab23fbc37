/**
 * Finalizer removals: the Job controller's removals of the `batch.kubernetes.io/job-tracking`
 * finalizer from its pods as the input shows them (trackJobStatusAndRemoveFinalizers →
 * removeTrackingFinalizerFromPods, one PATCH `{"metadata":{"$deleteFromPrimitiveList/finalizers":
 * ["batch.kubernetes.io/job-tracking"]}}` per pod: removeTrackingFinalizerPatch in
 * pkg/controller/job/job_controller.go), and the pods that still hold it at the end of the input.
 *
 * Evidence, per input:
 * - an audit log: the `job-controller` client's pod PATCH with that body (observed, actor the
 *   controller), with its outcome (a failure other than 404 leaves the finalizer on; a 404 is a
 *   pod already gone);
 * - a recording or watch dump: a pod of the Job whose finalizer is gone from one of its states to
 *   the next (MODIFIED, or DELETED carrying its last state) — the removal is observed, who made it
 *   is not (the Job controller is the finalizer's owner, but a person can remove it too);
 * - the same change seen both ways (an audit PATCH and its response as the pod's next state, one
 *   audit line) is one removal.
 * A pod still holding the finalizer at the end is `held` only when the controller owes its removal
 * — the pod finished (Succeeded or Failed) or is terminating; a running pod holds it by design.
 * The Job cannot finish while such pods are uncounted (enactJobFinished waits for
 * status.uncountedTerminatedPods to empty, and the controller removes each finalizer only after it
 * counted the pod: a rejected status update stops both, kubernetes#139428).
 *
 * Contract: `see` every event of the Job view in input order; `report(jobKey, job)` afterwards.
 * Pure: no I/O, no clock. Cost O(1) per event, O(the Jobs' pods) memory (each pod's last state
 * as two booleans and its cited line; removals as a list per Job).
 */
import { isJobFinished, JOB_TRACKING_FINALIZER } from '../model/job/job-pods.js';
import { controllerRefOf, type Job, type Pod } from '../model/objects.js';
import type { SourceRef, TimelineEvent } from '../timeline/event.js';
import { iso } from './iso.js';
import type { FinalizerRemovalsReport } from './report-types.js';
import { ref } from './report/evidence-refs.js';

interface PodState {
  job: string;
  uid?: string;
  holds: boolean;
  /** Finished (Succeeded/Failed) or terminating: the controller owes the finalizer's removal. */
  owed: boolean;
  /** When the input first showed it owed with the finalizer on. */
  owedSince?: number;
  source: SourceRef;
}

interface Removal {
  at: number;
  pod: string;
  uid?: string;
  source: SourceRef;
  /** The controller's PATCH (audit), a removal seen without its writer, or a PATCH that failed. */
  by: 'controller' | 'unknown';
  outcome: 'ok' | 'not-found' | 'failed';
}

/** Evidence cited per line kind. */
const EVIDENCE_SHOWN = 4;

/** Whether a PATCH body removes the tracking finalizer (the strategic merge directive upstream sends). */
function removesTracking(body: unknown): boolean {
  const meta = (body as { metadata?: Record<string, unknown> } | undefined)?.metadata;
  const list = meta?.['$deleteFromPrimitiveList/finalizers'];
  return Array.isArray(list) && list.includes(JOB_TRACKING_FINALIZER);
}

function owedOf(p: Pod): boolean {
  const phase = (p.status as { phase?: string } | undefined)?.phase;
  return phase === 'Succeeded' || phase === 'Failed' || Boolean(p.metadata.deletionTimestamp);
}

export class FinalizerRemovals {
  private readonly pods = new Map<string, PodState>();
  private readonly removals = new Map<string, Removal[]>();
  /** Removals by the FILE:LINE that showed them: an audit PATCH and its response are one. */
  private readonly byLine = new Map<string, Removal>();

  see(e: TimelineEvent): void {
    if (e.type === 'write') {
      if (e.verb !== 'patch' || e.resource !== 'pods' || e.subresource || !e.namespace || !e.name || !removesTracking(e.requestObject)) return;
      const key = `${e.namespace}/${e.name}`;
      const owner = e.owner?.state === 'owned' && e.owner.kind === 'Job' ? `${e.namespace}/${e.owner.name}` : this.pods.get(key)?.job;
      if (!owner) return;
      const code = e.status.code;
      const outcome: Removal['outcome'] = code >= 200 && code < 300 ? 'ok' : code === 404 ? 'not-found' : 'failed';
      const by: Removal['by'] = e.actor.controller === 'job-controller' ? 'controller' : 'unknown';
      const uid = (e.responseObject as Pod | undefined)?.metadata?.uid ?? this.pods.get(key)?.uid;
      this.add(owner, { at: e.receivedAt ?? e.at, pod: key, ...(uid ? { uid } : {}), source: e.source, by, outcome });
      return;
    }
    if (e.type !== 'observed' || e.kind !== 'Pod') return;
    const pod = e.object as Pod;
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const ref0 = controllerRefOf(pod.metadata);
    const prev = this.pods.get(key);
    const job = ref0?.kind === 'Job' ? `${pod.metadata.namespace}/${ref0.name}` : prev?.job;
    if (!job) return;
    const holds = (pod.metadata.finalizers ?? []).includes(JOB_TRACKING_FINALIZER);
    if (prev?.holds && !holds) this.add(job, { at: e.at, pod: key, ...(pod.metadata.uid ? { uid: pod.metadata.uid } : {}), source: e.source, by: 'unknown', outcome: 'ok' });
    if (e.watchType === 'DELETED') {
      this.pods.delete(key);
      return;
    }
    const owed = owedOf(pod);
    const owedSince = owed && holds ? (prev?.owed && prev.holds ? prev.owedSince : e.at) : undefined;
    this.pods.set(key, { job, ...(pod.metadata.uid ? { uid: pod.metadata.uid } : {}), holds, owed, ...(owedSince !== undefined ? { owedSince } : {}), source: e.source });
  }

  private add(job: string, r: Removal): void {
    const line = `${r.source.file}:${r.source.line}`;
    const same = this.byLine.get(line);
    if (same && same.pod === r.pod) {
      // One audit line, seen as the PATCH and as the pod's next state: the writer is the PATCH's.
      if (r.by === 'controller') same.by = 'controller';
      return;
    }
    this.byLine.set(line, r);
    let l = this.removals.get(job);
    if (!l) this.removals.set(job, (l = []));
    l.push(r);
  }

  /**
   * The Job `jobKey`'s removals and the pods still holding the finalizer that the controller owes
   * (undefined when the input shows neither); `job` its last state (finished or not), `end` the
   * end of the input.
   */
  report(jobKey: string, job: Job | undefined, end: number | undefined): FinalizerRemovalsReport | undefined {
    const rs = (this.removals.get(jobKey) ?? []).slice().sort((a, b) => a.at - b.at);
    const held = [...this.pods.entries()].filter(([, p]) => p.job === jobKey && p.holds && p.owed).sort((a, b) => (a[1].owedSince ?? 0) - (b[1].owedSince ?? 0));
    if (rs.length === 0 && held.length === 0) return undefined;
    const made = rs.filter((r) => r.outcome !== 'failed');
    const out: FinalizerRemovalsReport = {
      removed: made.length,
      byController: made.filter((r) => r.by === 'controller').length,
      failed: rs.length - made.length,
      ...(rs.length ? { first: iso(rs[0]!.at)!, last: iso(rs[rs.length - 1]!.at)! } : {}),
      basis: 'observed',
      evidence: rs.slice(0, EVIDENCE_SHOWN).map((r) => ref(r.source)),
      removedUids: made.flatMap((r) => (r.uid ? [r.uid] : [])),
      held: held.map(([key, p]) => ({ pod: key, ...(p.uid ? { uid: p.uid } : {}), ...(p.owedSince !== undefined ? { since: iso(p.owedSince)! } : {}), evidence: ref(p.source) })),
    };
    if (held.length) {
      const since = held[0]![1].owedSince;
      const finished = job !== undefined && isJobFinished(job);
      const n = held.length;
      const pods = `${n} pod${n === 1 ? '' : 's'} hold${n === 1 ? 's' : ''} the job-tracking finalizer`;
      const heldFor = since !== undefined && end !== undefined ? ` (finished or terminating since ${iso(since)}, ${Math.round((end - since) / 1000)} s before the end of the input)` : '';
      out.statement = finished
        ? `${pods} at the end of the input${heldFor}; the Job has finished, and the input does not show the Job controller removing it`
        : `${pods}${heldFor}; the Job cannot finish until the Job controller counts them in its status (uncountedTerminatedPods) and removes it — a rejected status update or a controller that does not sync stops both`;
    }
    return out;
  }
}
