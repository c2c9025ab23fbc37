/**
 * The scale-down victims as the input shows them. manageReplicas
 * (pkg/controller/replicaset/replica_set.go) ranks the active pods with getPodsToDelete and
 * deletes the first `diff`; Go's sort is not stable, so pods the ranking cannot tell apart may
 * be chosen differently from kexp's prediction. When the input shows a different set of this
 * ReplicaSet's pods being deleted right after the sync, those are what the controller chose.
 *
 * Contract: `chooseDeletions` answers PodControl.chooseDeletions. It reads, in this order of
 * preference, the controller's delete writes (audit) within MAX_WATCH_CALL_MS of the sync, its
 * SuccessfulDelete Events naming pods, or the first deletion observations of active pods; keeps
 * the input's choice first and fills from the prediction; and says whether the difference is a
 * tie of the ranking (comparePodsForDeletion in pkg/controller/controller_utils.go) or a
 * disagreement. It changes no state.
 *
 * The ranking reads the controller's clock (ActivePodsWithRanks.Now: ages in log2 buckets), and
 * kexp's sync time is when the input *received* the trigger — late after a watch resumed from a
 * cut, by its reconnect backoff. Where the victims' own deletion shows when the controller
 * deleted them (an audit write's time; a watched deletionTimestamp minus its grace period, to
 * the second), the choice is a tie when some time in that span ranks the victim no later than
 * kexp's choice: the ages' buckets are compared at the span's ends and at every bucket boundary
 * inside it.
 *
 * Cost: one scan (or indexed read) of the match window, and a ranking of the active pods only
 * when the input's choice differs from the prediction (then an indexed read — the controller's
 * deletes and the victims' pod events; a scan of the window when the index cannot answer — for
 * the victims' deletion times, and O(pods × boundaries in one second) comparisons). Pure: no
 * I/O, no clock.
 */
import { comparePodsForDeletion, podReadySince, rankPodsByRelatedPodsOnSameNode } from '../../model/pod-ranking.js';
import { objectKey, parseTime, type Pod, type ReplicaSet } from '../../model/objects.js';
import { MAX_WATCH_CALL_MS } from './create-evidence.js';
import { isRSControllerPodWrite, type EvidenceWindow } from './evidence-window.js';
import { messageOf } from './write-ledger.js';
import type { TimelineEvent } from '../../timeline/event.js';

/** The pods of `active` the input shows deleted right after the sync at `at`, in time order (at most `n`). */
function deletedInInput(window: EvidenceWindow, rs: ReplicaSet, active: Pod[], n: number, at: number): Pod[] {
  const byKey = new Map(active.map((p) => [objectKey(p.metadata), p]));
  const observed: Pod[] = [];
  const seen = new Set<string>();
  // The controller issues all its DELETEs at once: take the ReplicaSet controller's delete
  // writes (audit) or else the first deletion observations of its active pods right after
  // the sync, in time order.
  let sawWrites = false;
  for (const e of window.indexed('rscw:delete', at, 50, { after: at + MAX_WATCH_CALL_MS, by: 'at' }) ?? window.scan(at, 50)) {
    if (e.at > at + MAX_WATCH_CALL_MS || observed.length >= n) break;
    if (!isRSControllerPodWrite(e, 'delete', window.owner.component)) continue;
    sawWrites = true;
    const p = byKey.get(`${e.namespace}/${e.name}`);
    if (p && !seen.has(objectKey(p.metadata))) {
      seen.add(objectKey(p.metadata));
      observed.push(p);
    }
  }
  if (!sawWrites) {
    // The controller's SuccessfulDelete Events name its victims, whatever the lag of the
    // deletions' watch events (and a deletion by another actor is not one of them).
    for (const e of window.indexed(`ev:${rs.metadata.namespace}/${rs.metadata.name}`, at, 1000) ?? window.scan(at, 1000)) {
      if (observed.length >= n) break;
      if (e.type !== 'observed' || e.kind !== 'Event' || e.watchType === 'DELETED' || e.object.reason !== 'SuccessfulDelete') continue;
      const io = e.object.involvedObject;
      if (!io || io.kind !== window.owner.kind || io.name !== rs.metadata.name || io.namespace !== rs.metadata.namespace) continue;
      const m = /Deleted pod: (\S+)/.exec(messageOf(e.object, ''));
      const p = m ? byKey.get(`${rs.metadata.namespace}/${m[1]}`) : undefined;
      if (p && !seen.has(objectKey(p.metadata))) {
        seen.add(objectKey(p.metadata));
        observed.push(p);
      }
    }
  }
  if (!sawWrites && observed.length < n) {
    for (const e of window.scan(at, 0)) {
      if (e.at > at + MAX_WATCH_CALL_MS || observed.length >= n) break;
      if (e.type !== 'observed' || e.kind !== 'Pod') continue;
      if (!(e.watchType === 'DELETED' || e.object.metadata.deletionTimestamp)) continue;
      const p = byKey.get(objectKey(e.object.metadata));
      if (p && !seen.has(objectKey(p.metadata))) {
        seen.add(objectKey(p.metadata));
        observed.push(p);
      }
    }
  }
  return observed;
}

/**
 * When the controller's ranking may have run, as the victims' deletions show it: [from, to] in
 * epoch ms, or undefined when the input does not say. An audit DELETE of the controller is
 * exact; a watched deletionTimestamp (whole seconds) minus deletionGracePeriodSeconds is the
 * DELETE's second (metav1.Time drops the fraction).
 */
function deletionSpan(window: EvidenceWindow, victims: Set<string>, at: number): { from: number; to: number } | undefined {
  let from = Infinity;
  let to = -Infinity;
  // The span is a minimum and a maximum, so the order of the events does not matter: read the
  // controller's deletes and each victim's pod events from the index (their union is every event
  // the filters below can take) instead of walking the whole window — when the index can answer.
  // A victim key with a single '/' is matched only by a write whose `${namespace}` is the part
  // before it, which the index posts under `rscw:delete:${namespace}`; otherwise every namespace's.
  let writeKeys = new Set<string>();
  for (const v of victims) {
    const slash = v.indexOf('/');
    writeKeys.add(slash >= 0 && v.indexOf('/', slash + 1) < 0 ? `rscw:delete:${v.slice(0, slash)}` : 'rscw:delete');
  }
  if (writeKeys.has('rscw:delete')) writeKeys = new Set(['rscw:delete']);
  let reads: Iterable<TimelineEvent>[] = [];
  for (const k of writeKeys) {
    const writes = window.indexed(k, at, MAX_WATCH_CALL_MS);
    if (writes) reads.push(writes);
  }
  if (reads.length < writeKeys.size) reads = [window.scan(at, MAX_WATCH_CALL_MS)];
  else for (const v of victims) reads.push(window.indexed(`pod:${v}`, at, MAX_WATCH_CALL_MS)!);
  for (const read of reads) for (const e of read) {
    if (e.type === 'write' && isRSControllerPodWrite(e, 'delete', window.owner.component) && victims.has(`${e.namespace}/${e.name}`)) {
      from = Math.min(from, e.at);
      to = Math.max(to, e.at);
      continue;
    }
    if (e.type !== 'observed' || e.kind !== 'Pod' || !victims.has(objectKey(e.object.metadata))) continue;
    const ts = parseTime(e.object.metadata.deletionTimestamp ?? undefined);
    if (ts === undefined) continue;
    const grace = e.object.metadata.deletionGracePeriodSeconds;
    const d = ts - (typeof grace === 'number' && Number.isFinite(grace) && grace > 0 ? grace * 1000 : 0);
    from = Math.min(from, d);
    to = Math.max(to, d + 999);
  }
  return from <= to ? { from, to } : undefined;
}

/** The times in [from, to] at which some pod's age crosses a log2 bucket (ns), plus both ends. */
function rankingTimes(pods: Pod[], span: { from: number; to: number }): number[] {
  const out = [span.from, span.to];
  for (const p of pods) {
    for (const t of [parseTime(p.metadata.creationTimestamp), podReadySince(p)]) {
      if (t === undefined) continue;
      // age (ns) = 2^k exactly at t + 2^k / 1e6 ms; only the k whose crossing falls inside the span.
      const lo = Math.max(1, (span.from - t) * 1e6);
      const hi = (span.to - t) * 1e6;
      if (hi < 1) continue;
      for (let k = Math.ceil(Math.log2(lo)); k <= Math.floor(Math.log2(hi)) && out.length < 256; k++) {
        const b = t + 2 ** k / 1e6;
        out.push(b - 1e-6, b);
      }
    }
  }
  return out.filter((x) => x >= span.from && x <= span.to);
}

export function chooseDeletions(
  window: EvidenceWindow,
  rs: ReplicaSet,
  predicted: Pod[],
  active: Pod[],
  at: number,
  sidecarRestartTiebreak: boolean,
): { pods: Pod[]; note?: string } {
  const n = predicted.length;
  const observed = deletedInInput(window, rs, active, n, at);
  const predictedKeys = new Set(predicted.map((p) => objectKey(p.metadata)));
  if (observed.length === 0 || observed.every((p) => predictedKeys.has(objectKey(p.metadata)))) return { pods: predicted };
  // Keep the input's choice first, then fill from the prediction.
  const chosen = observed.slice(0, n);
  const chosenKeys = new Set(chosen.map((p) => objectKey(p.metadata)));
  for (const p of predicted) {
    if (chosen.length >= n) break;
    if (!chosenKeys.has(objectKey(p.metadata))) chosen.push(p);
  }
  const differ = chosen.filter((p) => !predictedKeys.has(objectKey(p.metadata)));
  const chosenSet = new Set(chosen.map((p) => objectKey(p.metadata)));
  const dropped = predicted.filter((p) => !chosenSet.has(objectKey(p.metadata)));
  // Pods the ranking cannot tell apart are ordered by Go's unstable sort: not a disagreement.
  const rankList = rankPodsByRelatedPodsOnSameNode(active, active);
  const ranks = new Map(active.map((p, i) => [p, rankList[i] ?? 0]));
  const cmp = (d: Pod, x: Pod, now: number) => comparePodsForDeletion(d, x, { rankA: ranks.get(d) ?? 0, rankB: ranks.get(x) ?? 0, now, sidecarRestartTiebreak });
  let tied = differ.every((d) => dropped.some((x) => cmp(d, x, at) === 0));
  let late = false;
  if (!tied) {
    // kexp's sync time may be later than the controller's: rank at the time its deletions show.
    const span = deletionSpan(window, new Set(differ.map((p) => objectKey(p.metadata))), at);
    const times = span && span.from < at ? rankingTimes(active, { from: span.from, to: Math.min(span.to, at) }) : [];
    tied = late = times.length > 0 && differ.every((d) => dropped.some((x) => times.some((now) => cmp(d, x, now) <= 0)));
  }
  const names = differ.map((p) => objectKey(p.metadata)).join(', ');
  return {
    pods: chosen,
    note: late
      ? `tie: ${names} ranked first or equal to kexp's choice at the time its deletion shows (kexp received the trigger later; the ranking buckets pods by age); the controller picked it (taken from the input)`
      : tied
      ? `tie: ${names} ranked equal to kexp's choice; the controller's unstable sort picked it (taken from the input)`
      : `the input shows ${names} deleted, which kexp's ranking did not predict (another actor deleting pods, or state kexp did not see)`,
  };
}
