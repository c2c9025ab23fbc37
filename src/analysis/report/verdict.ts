/**
 * The verdict on one ReplicaSet: its state (healthy, converging, stalled, gated, leaked,
 * failing, deleting, deleted, unknown), the basis of that, and one sentence. From a replay
 * (replayVerdict: the track, its findings and the pods at the end of input) or from a snapshot
 * (snapshotVerdict: what the API state forces; a snapshot cannot see the expectations, so
 * gated and leaked are inferred from nothing moving).
 *
 * Pure: no I/O, no clock. replayVerdict is O(findings + withheld episodes), snapshotVerdict O(1).
 */
import { iso } from '../iso.js';
import type { Basis, Finding, ReplicaSetReport, VerdictState } from '../report-types.js';
import type { ReplayedTrack } from './replayed-track.js';
import { stallIsLeak, type SnapshotState } from './snapshot-state.js';
import { reportedWithheldEpisodes, silentEpisode } from './withheld-episodes.js';
import { ownerWords } from './owner-words.js';
import { unseenBeforeInput } from './gated-windows.js';
import { fmtAgo, plural } from './wording.js';

type Verdict = ReplicaSetReport['verdict'];

/** The verdict of a ReplicaSet that still exists at the end of a replay, from its counts then. */
function countsVerdict({ t, res, resource }: ReplayedTrack, c: NonNullable<ReplayedTrack['final']>): Verdict {
  const o = ownerWords(resource);
  // "3 replicas"; a DaemonSet's "3 daemon pods (nodes that should run it)".
  const of = (n: number) => `${n} ${o.unit}${o.desiredMeans ? ` (${o.desiredMeans})` : ''}`;
  const lastErr = t.lastSync?.error;
  if (lastErr && c.active !== c.desired) {
    return { state: 'failing', basis: 'inferred', summary: `failing to reach ${of(c.desired)} (${c.active} active): ${lastErr}` };
  }
  // Short of pods, and the controller's last creation round failed with no create made since: the
  // retries the input shows (or its next one) meet the same error.
  const lastCreate = [...t.rounds].reverse().find((r) => r.kind === 'create');
  const failedLast = lastCreate?.sync.create?.errors[0];
  if (failedLast && c.active < c.desired && !t.writes.some((w) => w.kind === 'create' && w.outcome === 'ok' && w.at > lastCreate!.at)) {
    return { state: 'failing', basis: 'inferred', summary: `failing to reach ${of(c.desired)} (${c.active} active): its last creation round (${iso(lastCreate!.at)}) failed: ${failedLast}` };
  }
  // Its own last status still counts pods the input saw leave (a held deletion nothing released):
  // its cache holds them, so it sees nothing to replace until a relist or a restart.
  const lastHeld = t.heldDeletions[t.heldDeletions.length - 1];
  const statusCount = t.lastStatus?.replicas;
  if (c.active < c.desired && lastHeld && !t.heldReleased.some((r) => r.at >= lastHeld.at) && statusCount !== undefined && statusCount > c.active) {
    const gone = [...new Set(t.heldDeletions.flatMap((h) => h.pods.map((p) => p.pod)))];
    return {
      state: 'stalled', basis: 'inferred',
      summary: `${c.active} of ${of(c.desired)} active, but the controller's status still counts ${statusCount}: its cache holds ${gone.length ? gone.join(', ') : 'pods'} the input saw deleted (its informer has not delivered the deletion), so it will not replace them until a relist or a restart`,
    };
  }
  if (c.active !== c.desired) {
    const stuck = reportedWithheldEpisodes(t, res).filter((ep) => !ep.next && silentEpisode(ep, t, res)).sort((a, b) => a.first.at - b.first.at)[0];
    if (stuck) {
      return { state: 'stalled', basis: 'inferred', summary: `${c.active} of ${of(c.desired)} active, and the controller has not synced since ${iso(stuck.first.at)} (its informer has not delivered the change)` };
    }
    return { state: 'converging', basis: 'inferred', summary: `converging: ${c.active} of ${of(c.desired)} active` };
  }
  if (t.firstSetAt === undefined && t.syncs === 0) return { state: 'unknown', basis: 'unknown', summary: `no sync of this ${o.noun} in the input` };
  // A finished Job wants no pods (model/job/engine-owner.ts jobAsOwner): its controller is done, and
  // whether the Job succeeded is what the operator asks first.
  const finished = resource === 'job' ? finishedCondition(res.replicaSets.get(t.key)) : undefined;
  if (finished && c.active === 0) {
    return { state: 'healthy', basis: 'observed', summary: `the Job is ${finished.type}${finished.reason ? ` (${finished.reason}${finished.message ? `: ${finished.message}` : ''})` : ''}${finished.at ? ` since ${finished.at}` : ''}: its controller has no pod left to run` };
  }
  return { state: 'healthy', basis: 'inferred', summary: `controller healthy: ${c.active}/${c.desired} pods active${o.desiredMeans ? ` (desired: the ${o.desiredMeans})` : ''}, not gated (${c.ready} ready — readiness is up to the kubelet, not this controller)` };
}

/** A Job's Complete or Failed condition (status True), as its controller wrote it. */
function finishedCondition(owner: { status?: unknown } | undefined): { type: string; reason?: string; message?: string; at?: string } | undefined {
  const conds = (owner?.status as { conditions?: unknown } | undefined)?.conditions;
  if (!Array.isArray(conds)) return undefined;
  for (const c of conds as Array<Record<string, unknown> | null>) {
    if (!c || (c.type !== 'Complete' && c.type !== 'Failed') || c.status !== 'True') continue;
    const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
    return { type: c.type, reason: str(c.reason), message: str(c.message), at: str(c.lastTransitionTime) };
  }
  return undefined;
}

export function replayVerdict(c: ReplayedTrack, findings: Finding[]): Verdict {
  const { t, end, final } = c;
  const has = (id: string) => findings.find((x) => x.id === id);
  if (t.deletedAt !== undefined) return { state: 'deleted', basis: 'observed', summary: `deleted at ${iso(t.deletedAt)}` };
  if (t.deletingSince !== undefined) return { state: 'deleting', basis: 'observed', summary: 'being deleted: the controller will not create or delete pods' };
  if (has('invalid-selector')) return { state: 'failing', basis: 'inferred', summary: has('invalid-selector')!.title };
  // A Job whose finalizer-removal PATCH the apiserver still refuses at the end (job-tracking-rules.ts): its controller's writes fail, it cannot finish.
  const held = has('job-finalizer-held');
  if (held?.severity === 'critical') return { state: 'failing', basis: held.basis, summary: held.title };
  if (has('expectation-leak-open')) return { state: 'leaked', basis: has('expectation-leak-open')!.basis, summary: has('expectation-leak-open')!.title };
  if (t.open && unseenBeforeInput(t, t.open, end)) {
    const rem = t.open.remaining ?? t.record ?? t.open.raised;
    return { state: 'unknown', basis: 'unknown', summary: `the ${ownerWords(c.resource).noun} wants ${plural(Math.max(0, rem.add), 'pod')} more${rem.del > 0 ? ` and ${plural(rem.del, 'deletion')}` : ''}, and the input shows the controller make none; why, it cannot tell (see the findings)` };
  }
  if (t.open) return { state: 'gated', basis: t.open.gapInside ? 'unknown' : t.open.basis, summary: 'gated on its own writes (a round is in flight)' };
  if (t.rs && end !== undefined) return countsVerdict(c, final!);
  return { state: 'unknown', basis: 'unknown', summary: `the ${ownerWords(c.resource).noun} object itself is not in the input` };
}

export function snapshotVerdict(s: SnapshotState): Verdict {
  const { deletingSince, nsTerminating, diff, failing, stalled, statusStale, active, desired, ready, nsName, sinceMove, lastProgress, now } = s;
  let state: VerdictState;
  let basis: Basis;
  let summary: string;
  if (deletingSince !== undefined) {
    state = 'deleting';
    basis = 'observed';
    summary = `being deleted since ${iso(deletingSince)}: the controller will not create or delete pods (${active}/${desired} active)`;
  } else if (nsTerminating && diff < 0) {
    state = 'leaked';
    basis = 'inferred';
    summary = `namespace ${nsName} is terminating: creates are rejected with NamespaceTerminating and counted as successes, so the controller waits for ${plural(-diff, 'pod')} that will never appear (${active}/${desired} active)`;
  } else if (failing) {
    state = 'failing';
    basis = 'observed';
    summary = `${failing.reason === 'FailedDelete' ? 'deletes' : 'creates'} failing (${active}/${desired} active): ${failing.message}`;
  } else if (stalled) {
    const leak = stallIsLeak(s);
    state = leak ? 'leaked' : 'gated';
    basis = 'inferred';
    summary = `${active}/${desired} active and nothing has moved for ${fmtAgo(sinceMove)}: ${leak ? 'a leaked expectation that only a sync after the timeout clears' : 'probably gated on writes it will not observe'}`;
  } else if (diff !== 0 || statusStale) {
    state = 'converging';
    basis = 'inferred';
    summary = statusStale
      ? `the controller has not yet processed the latest spec (${active}/${desired} active)`
      : `converging: ${active}/${desired} active, last progress ${lastProgress !== undefined ? `${fmtAgo(now - lastProgress)} ago` : 'unknown'}; whether it is gated on its own writes needs a watch (kexp explain --watch, kexp record)`;
  } else {
    state = 'healthy';
    basis = 'observed';
    summary = `healthy: ${active}/${desired} active, ${ready} ready, observedGeneration up to date`;
  }
  return { state, basis, summary };
}
