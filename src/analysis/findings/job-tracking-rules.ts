/**
 * Finding rules of a Job replay about the job-tracking finalizer: which pods still hold
 * `batch.kubernetes.io/job-tracking` at the end of the input (the Job cannot finish while any
 * finished pod is uncounted), and which of the Job controller's tracking writes the apiserver
 * refused — its finalizer-removal PATCHes (removeTrackingFinalizerPatch) and its jobs/status
 * updates (trackJobStatusAndRemoveFinalizers writes the status first and removes the finalizers
 * only when it went through: pkg/controller/job/job_controller.go, v1.37.2).
 *
 * Contract: `FindingRule<ReplayedTrack>`s; they fire only for Jobs (a held finalizer only for a Job
 * not finished yet, on a pod whose removal was refused or that has waited STALL_MS since it
 * finished or was deleted — a sync normally removes it within a second), and say only what the input
 * shows: the pods' final state (observed), the refused writes of an audit log with the
 * apiserver's own message (observed); a cause is named only where the message states it (an
 * invalid pod update: something changed an immutable field on UPDATE — kubernetes#127917; a
 * status with more ready pods than active: manageJob during the pod-failure backoff —
 * kubernetes#139428). Pure: no I/O, no clock. Cost: O(pods of the Job + its tracking writes).
 */
import { controllerRefOf, objectKey, type Pod } from '../../model/objects.js';
import { PodStore } from '../../model/pod-store.js';
import { hasTrackingFinalizer, isJobFinished, JOB_TRACKING_FINALIZER } from '../../model/job/job-pods.js';
import type { Job } from '../../model/objects.js';
import type { JobTrackingWrite } from '../engine/write-ledger.js';
import { iso } from '../iso.js';
import { refs } from '../report/evidence-refs.js';
import type { ReplayedTrack } from '../report/replayed-track.js';
import { STALL_MS } from '../report/snapshot-state.js';
import { fmtDuration, plural } from '../report/wording.js';
import type { FindingRule } from './finding-rule.js';

/** The apiserver's ValidateJobStatusUpdate message for ready > active (pkg/apis/batch/validation). */
const MORE_READY_THAN_ACTIVE = /cannot set more ready pods than active/;
/** A pod update the apiserver refused as invalid (an immutable field changed). */
const INVALID_POD_UPDATE = /is invalid|immutable|Forbidden: pod updates may not change/;

function refusedSpan(ws: JobTrackingWrite[]): string {
  const first = ws[0]!;
  const last = ws[ws.length - 1]!;
  return ws.length === 1 ? `at ${iso(first.at)}` : `from ${iso(first.at)} to ${iso(last.at)}`;
}

/**
 * Since when the pod has been waiting for the removal, as far as its own state tells: the end of
 * its last container (a finished pod), else its deletion (deletionTimestamp minus the grace
 * period); undefined when neither is in the input.
 */
function heldSince(p: Pod): number | undefined {
  const ends = ((p.status as { containerStatuses?: Array<{ state?: { terminated?: { finishedAt?: string } } }> } | undefined)?.containerStatuses ?? [])
    .map((c) => Date.parse(c.state?.terminated?.finishedAt ?? ''))
    .filter((x) => !Number.isNaN(x));
  if (ends.length) return Math.max(...ends);
  const del = Date.parse(p.metadata.deletionTimestamp ?? '');
  const grace = (p.metadata as { deletionGracePeriodSeconds?: unknown }).deletionGracePeriodSeconds;
  return Number.isNaN(del) ? undefined : del - (typeof grace === 'number' ? grace * 1000 : 0);
}

/** The Job's pods at the end of input that are finished or terminating and still hold the finalizer. */
function heldPods({ t, res }: ReplayedTrack): Pod[] {
  const job = t.rs;
  if (!job) return [];
  const mine = res.pods instanceof PodStore ? res.pods.controlledBy(job.metadata.namespace, job.metadata.uid) : res.pods.values();
  const out: Pod[] = [];
  for (const p of mine) {
    if (p.metadata.namespace !== job.metadata.namespace || controllerRefOf(p.metadata)?.uid !== job.metadata.uid) continue;
    if (!hasTrackingFinalizer(p)) continue;
    const finished = p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';
    if (finished || p.metadata.deletionTimestamp) out.push(p);
  }
  return out;
}

export const jobFinalizerHeld: FindingRule<ReplayedTrack> = {
  name: 'job-finalizer-held',
  ids: ['job-finalizer-held'],
  reads: 'a Job\'s pods at the end of input (phase, deletionTimestamp, finalizers) and the Job controller\'s finalizer-removal PATCHes of an audit log with their outcome',
  fires: 'a finished or terminating pod of the Job still holds the job-tracking finalizer at the end of input (critical when its last removal PATCH was refused)',
  find(c) {
    const { t, end, resource } = c;
    if (resource !== 'job' || end === undefined || !t.rs) return undefined;
    // A finished Job's pods are the orphan-pod worker's to release (not modelled): it finished already.
    if (isJobFinished(t.rs as unknown as Job)) return undefined;
    const all = heldPods(c);
    const keysOf = (ps: Pod[]) => new Set(ps.map((p) => objectKey(p.metadata)));
    const allPatches = t.jobTrackingWrites.filter((w) => w.kind === 'finalizer-removal' && w.pod !== undefined && keysOf(all).has(w.pod));
    // Held: a pod whose removal the apiserver refused, or one waiting longer than a sync takes (STALL_MS).
    const refusedPods = new Set(allPatches.filter((w) => !w.ok).map((w) => w.pod));
    const held = all.filter((p) => refusedPods.has(objectKey(p.metadata)) || end - (heldSince(p) ?? end) >= STALL_MS);
    if (held.length === 0) return undefined;
    const keys = keysOf(held);
    const patches = allPatches.filter((w) => keys.has(w.pod!));
    const refused = patches.filter((w) => !w.ok);
    const lastRefused = patches.length > 0 && !patches[patches.length - 1]!.ok;
    const names = held.slice(0, 5).map((p) => {
      const k = objectKey(p.metadata);
      const since = p.metadata.deletionTimestamp ? `, terminating since ${p.metadata.deletionTimestamp}` : '';
      return `${k} (${p.status?.phase ?? 'phase unknown'}${since})`;
    });
    const n = held.length;
    const jobKey = objectKey(t.rs.metadata);
    const message = refused[refused.length - 1]?.error;
    const cause = refused.length === 0
      ? (patches.length === 0 ? 'The input shows no removal PATCH for them: the controller has not counted them yet (its status write comes first), or the input does not record its writes.' : '')
      : `The Job controller tried to remove it: ${refused.length === patches.length ? (refused.length === 1 ? 'its removal PATCH' : `all ${refused.length} removal PATCHes`) : `${refused.length} of ${patches.length} removal PATCHes`} ${refusedSpan(refused)} ${refused.length === 1 ? 'was' : 'were'} refused${lastRefused && refused.length < patches.length ? ', the last one too' : ''} — "${message}". ` +
        (message && INVALID_POD_UPDATE.test(message)
          ? 'The apiserver refused the PATCH itself as an invalid pod update: something changes an immutable field of the pod on UPDATE — typically a mutating or validating webhook for pods UPDATE (kubernetes#127917; the Job documentation\'s troubleshooting of pods stuck with this finalizer); the controller\'s retries (its API backoff) fail the same way until that changes. '
          : '');
    return {
      id: 'job-finalizer-held',
      severity: lastRefused ? 'critical' : 'warning',
      title: `${plural(n, 'pod')} ${n === 1 ? 'holds' : 'hold'} the job-tracking finalizer; the Job cannot finish until ${n === 1 ? 'it is' : 'they are'} counted and the finalizer removed`,
      basis: 'observed',
      at: iso(refused[0]?.at ?? end),
      explanation:
        `At the end of the input ${names.join(', ')}${n > names.length ? `, and ${n - names.length} more` : ''} of ${jobKey} ${n === 1 ? 'is finished or terminating and still carries' : 'are finished or terminating and still carry'} ${JOB_TRACKING_FINALIZER}. ` +
        `The Job controller removes it only after counting the pod (trackJobStatusAndRemoveFinalizers: status.uncountedTerminatedPods first, then the finalizer PATCH); until then the pod stays (Terminating once deleted) and the Job cannot finish. ` +
        cause,
      nextStep: refused.length && message && INVALID_POD_UPDATE.test(message)
        ? 'Find the webhook that mutates or rejects pod UPDATEs (kubectl get mutatingwebhookconfigurations,validatingwebhookconfigurations) and exclude pod UPDATEs it must not change; the controller removes the finalizer at its next retry.'
        : 'Check the job-controller\'s errors for this Job; remove the finalizer by hand only once the pod is counted in the Job\'s status.',
      evidence: refs(refused.map((w) => w.source)),
    };
  },
};

export const jobStatusRejected: FindingRule<ReplayedTrack> = {
  name: 'job-status-rejected',
  ids: ['job-status-rejected'],
  reads: 'the Job controller\'s jobs/status updates of an audit log with their outcome, and its finalizer-removal PATCHes',
  fires: 'the apiserver refused one or more status updates of the Job',
  find({ t, resource }) {
    if (resource !== 'job' || !t.rs) return undefined;
    const refused = t.jobTrackingWrites.filter((w) => w.kind === 'status' && !w.ok);
    if (refused.length === 0) return undefined;
    const writes = t.jobTrackingWrites;
    const lastRefused = refused[refused.length - 1]!;
    const recovered = writes.find((w) => w.kind === 'status' && w.ok && w.at > lastRefused.at);
    const removalAfter = writes.find((w) => w.kind === 'finalizer-removal' && w.ok && w.at > lastRefused.at);
    const message = lastRefused.error ?? '';
    const readyOverActive = MORE_READY_THAN_ACTIVE.test(message);
    const held = removalAfter?.pod;
    return {
      id: 'job-status-rejected',
      severity: recovered ? 'warning' : 'critical',
      title: `${plural(refused.length, 'status update')} of the Job refused${recovered ? `, for ${fmtDuration(recovered.at - refused[0]!.at)}` : ', the last one at the end of the input'}: no finalizer is removed meanwhile`,
      basis: 'observed',
      at: iso(refused[0]!.at),
      explanation:
        `The apiserver refused ${plural(refused.length, 'jobs/status update')} of ${objectKey(t.rs.metadata)} ${refusedSpan(refused)}: "${message}". ` +
        'trackJobStatusAndRemoveFinalizers writes the status (the finished pods into status.uncountedTerminatedPods) before it removes their job-tracking finalizer, so a refused status ends the sync before any removal: the finished pods keep the finalizer (Terminating once deleted) and the Job cannot count them. ' +
        (readyOverActive
          ? 'Ready more than active is the status manageJob wrote during the pod-failure backoff: it returned 0 active while ready pods ran, until the fix of kubernetes#139428 (#139457: v1.37.0, and v1.36.3, v1.35.8, v1.34.10); each retry fails the same way until the backoff ends and a create makes the count right. '
          : '') +
        (held ? `The finalizer of ${held} was removed only at ${iso(removalAfter!.at)}, after the status went through.` : recovered ? `The status went through at ${iso(recovered.at)}.` : 'No status update went through afterwards in the input.'),
      nextStep: readyOverActive ? 'Upgrade to a release with #139457 (v1.34.10, v1.35.8, v1.36.3 or 1.37); meanwhile the Job recovers when its pod-failure backoff ends.' : 'Read the refusal: the Job controller retries the same status until the apiserver accepts it.',
      evidence: refs(refused.map((w) => w.source)),
    };
  },
};
