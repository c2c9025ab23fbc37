/**
 * Analysis of a point-in-time snapshot of one Job (`kexp explain job/NAME` without --watch): its
 * status as the Job controller last wrote it (active, succeeded, failed, ready, terminating,
 * conditions, uncountedTerminatedPods), its pods (active, terminating, finished) and which of them
 * still hold the `batch.kubernetes.io/job-tracking` finalizer, and its controller's Events → a
 * verdict with its basis, findings, a facts line and the recent timeline.
 *
 * What a snapshot shows truthfully (pkg/controller/job/job_controller.go v1.37.2):
 * - a pod that is terminating or finished keeps the tracking finalizer until the controller has
 *   counted it (trackJobStatusAndRemoveFinalizers: first into status.uncountedTerminatedPods, then
 *   the finalizer PATCH, then the counts); pods that hold it long after they finished are the
 *   stuck-Terminating pods of kubernetes#127917 and #128358 (or a status update the apiserver
 *   rejects, #139428): past STALL_MS → gated (inferred: which cause, a snapshot cannot tell);
 * - `status.uncountedTerminatedPods`: pods counted on the next status write;
 * - the Job cannot be declared finished while its expectations are unsatisfied ("Can't declare
 *   the Job as finished yet"): a FailureTarget or SuccessCriteriaMet condition without
 *   Failed/Complete, or status.failed past the backoffLimit without Failed, past STALL_MS, is
 *   gated (inferred);
 * - Complete/Failed → the controller is done (healthy: the workload's outcome is not the
 *   controller's failure); suspended → healthy; deletionTimestamp → deleting;
 * - FailedCreate/FailedDelete newer than the last progress → failing;
 * - fewer active pods than it wants (parallelism, less what remains to complete), nothing moved
 *   for STALL_MS → gated (inferred); otherwise converging.
 * No gated window is inferred: its start is not in a snapshot.
 *
 * Pure: no I/O, no clock (`now` is the snapshot time). O(pods + Events).
 */
import { controllerRefOf, parseTime, type CoreEvent, type Job, type Namespace, type Pod } from '../model/objects.js';
import { hasTrackingFinalizer, JOB_TRACKING_FINALIZER } from '../model/job/job-pods.js';
import { isPodReady } from '../model/pod-ranking.js';
import { currentWriteFailure, eventTimeline, type OwnerSnapshotAnalysis } from './daemonset-snapshot.js';
import type { Finding, ReplicaSetReport } from './report-types.js';
import { liveRef, ownerSnapshotReport, specWrites } from './report/owner-snapshot.js';
import { STALL_MS, type TimelineEntry } from './report/snapshot-state.js';
import { plural } from './report/wording.js';

export interface JobSnapshotInput {
  pods: Pod[];
  events: CoreEvent[];
  ns?: Namespace;
}

const secs = (ms: number) => `${Math.round(ms / 1000)} s`;

/** When a finished pod finished: its Ready/ContainersReady condition's last transition, else its creation. */
function finishedAt(p: Pod): number | undefined {
  const times = (p.status?.conditions ?? []).map((c) => parseTime(c.lastTransitionTime)).filter((t): t is number => t !== undefined);
  return times.length ? Math.max(...times) : parseTime(p.metadata.creationTimestamp);
}

/** Analyses one Job of a snapshot taken at `now`. */
export function analyseJobSnapshot(job: Job, input: JobSnapshotInput, now: number): OwnerSnapshotAnalysis {
  const name = job.metadata.name ?? '';
  const ns = job.metadata.namespace ?? '';
  const uid = job.metadata.uid;
  const ref = (field?: string) => liveRef('jobs', name, field);
  const own = input.pods.filter((p) => {
    const r = controllerRefOf(p.metadata);
    return r?.kind === 'Job' && (uid ? r.uid === uid : r.name === name);
  });
  const finished = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
  const terminating = own.filter((p) => p.metadata.deletionTimestamp && !finished(p));
  const active = own.filter((p) => !p.metadata.deletionTimestamp && !finished(p));
  const ready = active.filter(isPodReady).length;
  const st = job.status ?? {};
  const cond = (type: string) => (st.conditions ?? []).find((c) => c.type === type && c.status === 'True');
  const done = cond('Complete') ?? cond('Failed');
  const target = cond('SuccessCriteriaMet') ?? cond('FailureTarget');
  const spec = job.spec ?? {};
  const parallelism = spec.parallelism ?? 1;
  const completions = spec.completions ?? (spec.parallelism == null ? 1 : undefined);
  const suspended = spec.suspend === true;
  const succeeded = st.succeeded ?? 0;
  const wanted = done || suspended ? 0 : completions !== undefined && completions !== null ? Math.max(0, Math.min(parallelism, completions - succeeded)) : parallelism;
  // Past the backoff limit (a non-indexed Job without a pod-failure policy: pastBackoffLimit in
  // syncJob counts status.failed), the controller fails the Job — once its expectations allow it.
  const overLimit = !done && spec.completionMode !== 'Indexed' && spec.backoffLimitPerIndex == null && !spec.podFailurePolicy && (st.failed ?? 0) > (spec.backoffLimit ?? 6);
  const findings: Finding[] = [];
  const timeline: TimelineEntry[] = [];
  // Pods holding the tracking finalizer after they finished or while they terminate.
  const held = own.filter((p) => hasTrackingFinalizer(p) && (finished(p) || p.metadata.deletionTimestamp));
  const heldSince = held.map((p) => (p.metadata.deletionTimestamp && !finished(p) ? parseTime(p.metadata.deletionTimestamp)! - (p.metadata.deletionGracePeriodSeconds ?? 0) * 1000 : finishedAt(p))).filter((t): t is number => t !== undefined);
  const oldestHeld = heldSince.length ? Math.min(...heldSince) : undefined;
  const heldFor = oldestHeld !== undefined ? now - oldestHeld : undefined;
  if (held.length) {
    findings.push({
      id: 'job-tracking-finalizer-held', severity: heldFor !== undefined && heldFor >= STALL_MS ? 'critical' : 'info', basis: 'observed',
      title: `${plural(held.length, 'pod')} hold${held.length === 1 ? 's' : ''} the job-tracking finalizer`,
      ...(oldestHeld !== undefined ? { at: new Date(oldestHeld).toISOString() } : {}),
      explanation: `${held.map((p) => p.metadata.name ?? '?').slice(0, 5).join(', ')}${held.length > 5 ? ', …' : ''} ${held.length === 1 ? 'is' : 'are'} finished or terminating and still carry ${JOB_TRACKING_FINALIZER}${heldFor !== undefined ? ` (the oldest for ${secs(heldFor)})` : ''}. The Job controller removes it only after counting the pod (trackJobStatusAndRemoveFinalizers: status.uncountedTerminatedPods, then the finalizer PATCH); until then the pod stays (Terminating) and the Job cannot finish. Stuck for long, this is kubernetes#127917/#128358 (or a rejected status update, #139428); a snapshot cannot tell which.`,
      nextStep: `Follow the controller: \`kexp explain job/${name} -n ${ns} --watch 30s\`; check its log for "Expecting tracking finalizers removed" and status-update errors.`,
      evidence: held.slice(0, 5).map((p) => liveRef('pods', p.metadata.name ?? '?', 'metadata.finalizers')),
    });
  }
  const uncounted = (st.uncountedTerminatedPods?.succeeded?.length ?? 0) + (st.uncountedTerminatedPods?.failed?.length ?? 0);
  if (uncounted > 0) {
    findings.push({
      id: 'job-uncounted-terminated-pods', severity: 'info', basis: 'observed', title: `${plural(uncounted, 'uncounted terminated pod')}`,
      explanation: `status.uncountedTerminatedPods lists ${uncounted} pod UID${uncounted === 1 ? '' : 's'} (${st.uncountedTerminatedPods?.succeeded?.length ?? 0} succeeded, ${st.uncountedTerminatedPods?.failed?.length ?? 0} failed): the controller recorded them before removing their finalizers and counts them on its next status write.`,
      nextStep: 'None if it empties on the next sync; if it stays, the controller is not completing its status writes (--watch).',
      evidence: [ref('status.uncountedTerminatedPods')],
    });
  }
  const writes = specWrites(job.metadata);
  for (const w of writes) timeline.push({ at: w.at, basis: 'observed', from: 'snapshot', coarse: true, text: `spec last written by ${w.manager} (managedFields)` });
  const created = parseTime(job.metadata.creationTimestamp);
  if (created !== undefined) timeline.push({ at: created, basis: 'observed', from: 'snapshot', coarse: true, text: 'Job created' });
  for (const c of st.conditions ?? []) {
    const at = parseTime(c.lastTransitionTime);
    if (at !== undefined) timeline.push({ at, basis: 'observed', from: 'snapshot', coarse: true, text: `condition ${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}` });
  }
  let lastProgress: number | undefined;
  for (const p of own) {
    const c = parseTime(p.metadata.creationTimestamp);
    if (c !== undefined) {
      timeline.push({ at: c, basis: 'observed', from: 'pod', coarse: true, text: `pod ${p.metadata.name ?? '?'} created` });
      lastProgress = Math.max(lastProgress ?? 0, c);
    }
    if (finished(p)) {
      const f = finishedAt(p);
      if (f !== undefined) timeline.push({ at: f, basis: 'inferred', from: 'pod', coarse: true, text: `pod ${p.metadata.name ?? '?'} ${p.status?.phase}${hasTrackingFinalizer(p) ? ' (still holds the tracking finalizer)' : ''}` });
    }
  }
  for (const e of input.events) {
    if (e.reason === 'SuccessfulCreate' || e.reason === 'SuccessfulDelete') {
      const at = parseTime(e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp);
      if (at !== undefined) lastProgress = Math.max(lastProgress ?? 0, at);
    }
  }
  timeline.push(...eventTimeline(input.events));
  const lastSpecChange = writes.length ? writes[writes.length - 1]!.at : created;
  const quietSince = Math.max(lastProgress ?? 0, lastSpecChange ?? 0) || undefined;
  const quietFor = quietSince !== undefined ? now - quietSince : undefined;
  const failure = currentWriteFailure(input.events, lastProgress, now);
  let verdict: ReplicaSetReport['verdict'];
  if (job.metadata.deletionTimestamp) {
    verdict = { state: 'deleting', basis: 'observed', summary: `the Job is being deleted (deletionTimestamp ${job.metadata.deletionTimestamp})` };
  } else if (held.length && heldFor !== undefined && heldFor >= STALL_MS) {
    verdict = { state: 'gated', basis: 'inferred', summary: `${plural(held.length, 'pod')} finished or terminating still hold${held.length === 1 ? 's' : ''} the job-tracking finalizer after ${secs(heldFor)}: the controller has not counted them${done ? '' : ', and the Job cannot finish until it does'} (unsatisfied expectations, a rejected status update or a controller not running; the window cannot be told from a snapshot: --watch)` };
  } else if (failure) {
    verdict = { state: 'failing', basis: 'observed', summary: `${failure.reason} newer than the last progress: ${(failure.message ?? '').slice(0, 200)}` };
  } else if (done) {
    verdict = { state: 'healthy', basis: 'observed', summary: `the controller is done: the Job is ${done.type}${done.reason ? ` (${done.reason})` : ''}; ${succeeded} succeeded, ${st.failed ?? 0} failed` };
  } else if (overLimit && quietFor !== undefined && quietFor >= STALL_MS) {
    verdict = { state: 'gated', basis: 'inferred', summary: `${st.failed} failed > backoffLimit ${spec.backoffLimit ?? 6}, yet the Job is not Failed after ${secs(quietFor)} without progress: the controller does not declare a Job finished while its expectations are unsatisfied ("Can't declare the Job as finished yet", syncJob); the window cannot be told from a snapshot: --watch` };
  } else if (target && quietFor !== undefined && now - (parseTime(target.lastTransitionTime) ?? now) >= STALL_MS) {
    const since = now - (parseTime(target.lastTransitionTime) ?? now);
    verdict = { state: 'gated', basis: 'inferred', summary: `${target.type} for ${secs(since)} but not ${target.type === 'FailureTarget' ? 'Failed' : 'Complete'}: the controller does not declare the Job finished while its expectations are unsatisfied or pods still terminate ("Can't declare the Job as finished yet"); the window cannot be told from a snapshot: --watch` };
  } else if (suspended) {
    verdict = { state: 'healthy', basis: 'observed', summary: `suspended: ${active.length} active pods (the controller deletes them)` };
  } else if (active.length < wanted) {
    const stalled = quietFor !== undefined && quietFor >= STALL_MS;
    const what = `${active.length} active of the ${wanted} it wants (parallelism ${parallelism}${completions != null ? `, ${succeeded}/${completions} completed` : ''})`;
    verdict = stalled
      ? { state: 'gated', basis: 'inferred', summary: `${what}, and nothing has moved for ${secs(quietFor)}: the controller is not creating (an unfulfilled expectation would hold it, as would the pod-failure backoff; a snapshot cannot tell: --watch)` }
      : { state: 'converging', basis: 'inferred', summary: `${what}; the controller acted ${quietFor !== undefined ? `${secs(quietFor)} ago` : 'recently'}` };
  } else {
    verdict = { state: 'healthy', basis: 'observed', summary: `running: ${active.length} active (wants ${wanted}), ${succeeded} succeeded, ${st.failed ?? 0} failed` };
  }
  const facts = `active ${st.active ?? 0}, succeeded ${succeeded}, failed ${st.failed ?? 0}, ready ${st.ready ?? 0}, terminating ${st.terminating ?? 0} (status); ` +
    `pods ${active.length} active, ${terminating.length} terminating, ${own.filter(finished).length} finished, ${held.length} holding the tracking finalizer; uncounted ${uncounted}; ` +
    `parallelism ${parallelism}, completions ${completions ?? '—'}${suspended ? ', suspended' : ''}; conditions ${(st.conditions ?? []).filter((c) => c.status === 'True').map((c) => c.type).join(', ') || 'none'}`;
  const report = ownerSnapshotReport({
    kind: 'Job', meta: job.metadata, at: now, verdict, findings, windows: [], events: input.events,
    counts: { desired: wanted, active: active.length, terminating: terminating.length, ready },
    initialReason: 'point-in-time snapshot: the Job controller\'s expectations are not visible through the API; a watch (kexp record job/NAME, explain --watch) follows its syncs',
  });
  return { report, facts, timeline: timeline.sort((a, b) => a.at - b.at) };
}
