/**
 * Turns a ReplayResult into the Report: gated windows with how they ended, expectation
 * changes, rounds, the findings catalogue (each with severity, basis, explanation, next
 * step and evidence), the adoption table and a verdict per ReplicaSet.
 * Pure: no I/O, no clock (the end of input is "now").
 */
import { controllerRefOf, objectKey, type Pod, type ReplicaSet } from '../model/objects.js';
import { claimDecider } from '../model/adoption.js';
import { iso } from './iso.js';
import { compileLabelSelector } from '../model/selector.js';
import { PodStore } from '../model/pod-store.js';
import { EXPECTATIONS_TIMEOUT_MS } from '../model/expectations.js';
import type { FileCoverage, InputProblem } from '../sources/source.js';
import type { SourceRef } from '../timeline/event.js';
import { finalCounts } from './engine/final-counts.js';
import type { ReplayResult } from './engine/replay-result.js';
import type { RsTrack, WindowTrack, WithheldTrack } from './engine/rs-track.js';
import { writeCount, type ControllerWrite } from './engine/write-ledger.js';
import { fuseControllerLog, type ControllerLogInput } from './controller-log.js';
import {
  REPORT_SCHEMA_VERSION,
  type AdoptionRow,
  type Basis,
  type CountRange,
  type Finding,
  type GatedWindow,
  type Report,
  type ReplicaSetReport,
  type RoundReport,
  type VerdictState,
} from './report-types.js';

export interface BuildOptions {
  command: string;
  kexpVersion: string;
  k8sVersion: { version: string; basis: 'flag' | 'input' | 'default' };
  inputs: FileCoverage[];
  problems: InputProblem[];
  /** Every problem the inputs had, when more than `problems` lists (sources cap what they keep). */
  problemCount?: number;
  /** Extra assumptions the source wants stated (e.g. watch latency for audit logs). */
  assumptions?: string[];
  /**
   * Report only this part of the replayed time (epoch ms). The engine still replays what came
   * before `since`, so the controller's state at `since` is known; only what happens inside is reported.
   */
  since?: number;
  /** A kube-controller-manager log given beside the inputs: its decisions check the reconstruction. */
  controllerLog?: ControllerLogInput;
  /** The match window the replay used (for the coverage notes). */
  matchWindowMs?: number;
}

/** A copy of the track with everything before `since` left out (state stays as replayed). */
function trimTrack(t: RsTrack, since: number): RsTrack {
  const after = <T extends { at: number }>(xs: T[]) => xs.filter((x) => x.at >= since);
  const lastBefore = [...t.series].reverse().find((p) => p.at < since);
  const roundsSince = new Set(t.rounds.filter((r) => r.at >= since).map((r) => r.modelRound));
  return {
    ...t,
    rounds: after(t.rounds),
    windows: t.windows.filter((w) => (w.end ?? Infinity) >= since),
    changes: after(t.changes),
    clobbers: after(t.clobbers),
    nameReuse: after(t.nameReuse),
    uidChanges: after(t.uidChanges),
    expiredSyncs: after(t.expiredSyncs),
    syncErrors: after(t.syncErrors),
    orphanedExpected: after(t.orphanedExpected),
    withheld: after(t.withheld),
    divergences: after(t.divergences),
    restarts: after(t.restarts),
    podFailures: t.podFailures.filter((p) => p.failedAt >= since),
    writes: t.writes.filter((w) => (w.round !== undefined ? roundsSince.has(w.round) : w.at >= since)),
    series: [...(lastBefore ? [{ ...lastBefore, at: since }] : []), ...after(t.series)],
  };
}

function ref(s: SourceRef | undefined): string | undefined {
  return s ? `${s.file}:${s.line}` : undefined;
}

function refs(list: Array<SourceRef | undefined>, max = 10): string[] {
  const out: string[] = [];
  for (const s of list) {
    const r = ref(s);
    if (r && !out.includes(r)) out.push(r);
    if (out.length >= max) break;
  }
  return out;
}

function range(values: number[]): CountRange {
  if (values.length === 0) return { first: 0, last: 0, min: 0, max: 0 };
  return { first: values[0], last: values[values.length - 1], min: Math.min(...values), max: Math.max(...values) };
}

function fmtDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m${s % 60 ? `${s % 60}s` : ''}`;
  return `${Math.floor(m / 60)}h${m % 60 ? `${m % 60}m` : ''}`;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

const LEAK_NOTE = 'leak: ';

/**
 * Whether a reported window is an expectation leak: ended by expiry, ended by the
 * ReplicaSet's deletion with counters left, or still open with a leak cause (see leakCause).
 */
export function isLeakWindow(w: GatedWindow): boolean {
  if (w.endedBy === 'expired') return true;
  if (w.endedBy === 'rs-deleted') return Boolean(w.remaining && (w.remaining.add > 0 || w.remaining.del > 0));
  return w.endedBy === 'open' && (w.note ?? '').includes(LEAK_NOTE);
}

/**
 * True when what a window still waits for may never have been made: the round's calls whose
 * outcome the input never showed cover the outstanding counters. Nothing is built on such a window.
 */
function restsOnUndecided(t: RsTrack, w: WindowTrack): boolean {
  const rnd = w.round !== undefined ? t.rounds[w.round] : undefined;
  const undecided = rnd?.unresolved ?? 0;
  const rem = w.remaining ?? t.record ?? { add: w.raised.add, del: w.raised.del };
  return undecided > 0 && undecided >= Math.max(0, rem.add) + Math.max(0, rem.del);
}

/** Is an open window a leak that only the timeout (or RS deletion) can clear? */
function leakCause(t: RsTrack, w: WindowTrack, end: number): string | undefined {
  if ((w.namespaceTerminating ?? 0) > 0 && (w.remaining?.add ?? 0) > 0) {
    return `${plural(w.namespaceTerminating!, 'create')} rejected with NamespaceTerminating were counted as successes, so no pod will ever be observed for them`;
  }
  const orphaned = t.orphanedExpected.filter((o) => o.at >= w.start);
  if (orphaned.length > 0 && (w.remaining?.del ?? 0) > 0) {
    return `expected-delete pod ${orphaned.map((o) => o.podKey).join(', ')} lost its controllerRef before its deletion was observed, so the deletion can no longer be credited`;
  }
  if (end - w.setAt > EXPECTATIONS_TIMEOUT_MS) {
    return `the record has been unfulfilled for ${fmtDuration(end - w.setAt)}, longer than the 5-minute ExpectationsTimeout`;
  }
  return undefined;
}

function windowReport(t: RsTrack, w: WindowTrack, end: number | undefined): GatedWindow {
  const open = w.endedBy === undefined;
  // The round's evidence may have firmed up after the window opened (a long round observed to the end).
  const roundBasis = w.round !== undefined ? t.rounds[w.round]?.evidence?.basis : undefined;
  const basis: Basis = w.gapInside ? 'unknown' : (roundBasis ?? w.basis);
  if (open && t.record) w.remaining = { add: t.record.add, del: t.record.del, ...(w.remaining?.keys ? { keys: w.remaining.keys } : {}) };
  const out: GatedWindow = {
    start: iso(w.start)!,
    end: open ? undefined : iso(w.end),
    endedBy: open ? 'open' : w.endedBy!,
    basis,
    raised: w.raised.keys ? { add: w.raised.add, del: w.raised.del, keys: w.raised.keys } : { add: w.raised.add, del: w.raised.del },
    gatedSyncs: w.gatedSyncs,
    evidence: refs(w.evidence),
  };
  if (w.fulfilledAt !== undefined) out.fulfilledAt = iso(w.fulfilledAt);
  if (w.remaining && (w.endedBy !== 'fulfilled')) out.remaining = w.remaining;
  if (open) out.expiresAt = iso(w.setAt + EXPECTATIONS_TIMEOUT_MS);
  const stop = open ? end : w.end;
  if (stop !== undefined) out.durationMs = Math.round(stop - w.start);
  const notes: string[] = [];
  const rnd = w.round !== undefined ? t.rounds[w.round] : undefined;
  const note = rnd ? (rnd.evidence?.note ?? rnd.sync.delete?.note) : w.note;
  if (note) notes.push(note);
  if (w.gapInside) notes.push('the input has a gap inside this window');
  if (open && end !== undefined) {
    const cause = leakCause(t, w, end);
    if (cause) notes.push(`${LEAK_NOTE}${cause}`);
  }
  if (notes.length) out.note = notes.join('; ');
  return out;
}

/**
 * The writes a round claimed, indexed once per track: a per-round `t.writes.filter` is
 * O(rounds × writes), which is quadratic on long churn captures.
 */
const writesByRoundCache = new WeakMap<RsTrack, Map<number, ControllerWrite[]>>();
function writesOfRound(t: RsTrack, round: number | undefined): ControllerWrite[] {
  if (round === undefined) return [];
  let m = writesByRoundCache.get(t);
  if (!m) {
    m = new Map();
    for (const w of t.writes) {
      if (w.round === undefined) continue;
      const list = m.get(w.round);
      if (list) list.push(w);
      else m.set(w.round, [w]);
    }
    writesByRoundCache.set(t, m);
  }
  return m.get(round) ?? [];
}

function roundReport(r: RsTrack['rounds'][number], t: RsTrack): RoundReport {
  const s = r.sync;
  const claimed = writesOfRound(t, r.modelRound);
  const late = claimed.filter((w) => w.lateMs !== undefined);
  const lateOut = late.length ? { late: { count: late.length, maxMs: Math.round(Math.max(...late.map((w) => w.lateMs!))) } } : {};
  const forced = r.forced ? { forced: r.forced } : {};
  if (r.kind === 'claim') {
    const claims = s.claims ?? [];
    const adopted = claims.filter((c) => c.action === 'adopt' && c.claimed).map((c) => c.pod);
    const released = claims.filter((c) => c.action === 'release').map((c) => c.pod);
    const basis: Basis = claimed.length > 0 && t.writes.some((w) => w.round === r.modelRound && w.forms.includes('audit')) ? 'observed' : 'inferred';
    const evidence = ref(claimed[0]?.sources[0]) ?? ref(r.trigger) ?? '';
    return {
      at: iso(r.at)!, kind: 'claim', n: claims.filter((c) => c.action === 'adopt' || c.action === 'release').length, basis, writes: claimed.length, ...lateOut,
      ...(adopted.length ? { adopted } : {}), ...(released.length ? { released } : {}), errors: s.claimErrors ?? [], evidence, ...forced,
    };
  }
  let basis: Basis = r.evidence?.basis ?? 'inferred';
  const notes: string[] = [];
  // Calls the oracle could not decide, less those whose writes the input showed later.
  const undecided = s.create ? s.create.unknown : (s.delete?.unknown.length ?? 0);
  const unknown = Math.min(undecided, r.unresolved ?? undecided);
  const n = s.create?.n ?? s.delete?.n ?? 0;
  if (undecided > 0 && unknown === 0 && basis === 'unknown') basis = 'inferred';
  // Unknown only when no call of the round is evidenced; otherwise the round (its Set) is real
  // and only the undecided calls are reported as unknown.
  if (unknown > 0 && unknown >= n) basis = 'unknown';
  if (late.length) notes.push(`${plural(late.length, 'write')} observed only ${fmtDuration(lateOut.late!.maxMs)} or less after the sync (informer or recorder lag)`);
  // Observed rounds cite the controller's first write; inferred ones the event that triggered the sync.
  const evidence = (basis === 'observed' ? ref(r.evidence?.sources[0]) : undefined) ?? ref(r.trigger) ?? '';
  if (s.create) {
    const c = s.create;
    const out: RoundReport = {
      at: iso(r.at)!, kind: 'create', n: c.n, basis, writes: claimed.length, ...lateOut, batches: c.batches, calls: c.calls, successes: c.successes - unknown,
      skipped: c.skipped, namespaceTerminating: c.namespaceTerminating, errors: [...new Set(c.errors)], evidence,
    };
    if (unknown) out.unknown = unknown;
    if (c.unmade) out.unmade = c.unmade;
    const note = [...(unknown || !late.length ? [r.evidence?.note] : []), ...notes].filter(Boolean).join('; ');
    if (note) out.note = note;
    return { ...out, ...forced };
  }
  const d = s.delete!;
  // Every delete shown by the controller's own requests: the round itself is observed.
  if (basis === 'inferred' && claimed.length >= d.n && claimed.every((w) => w.forms.includes('audit'))) basis = 'observed';
  const out: RoundReport = { at: iso(r.at)!, kind: 'delete', n: d.n, basis, writes: claimed.length, ...lateOut, keys: d.keys, failed: d.failed, errors: d.errors, evidence };
  if (unknown) out.unknown = unknown;
  if (d.unmade.length) out.unmade = d.unmade.length;
  const note = [d.note, ...notes].filter(Boolean).join('; ');
  if (note) out.note = note;
  return { ...out, ...forced };
}

/** Where each of the ReplicaSet's controller writes went (see WriteAccounting). */
function accountingFor(t: RsTrack, evidence: 'audit' | 'watch', findings: Finding[]): ReplicaSetReport['accounting'] {
  const byKind = { create: 0, delete: 0, adopt: 0, release: 0 };
  let inRounds = 0;
  let failed = 0;
  let writes = 0;
  for (const w of t.writes) {
    const c = writeCount(w);
    writes += c;
    byKind[w.kind] += c;
    if (w.round !== undefined) inRounds += c;
    if (w.outcome === 'failed') failed += c;
  }
  const inFindings = findings.reduce((n, f) => n + (f.writes ?? 0), 0);
  return { evidence, writes, inRounds, inFindings, byKind, failed };
}

function adoptionTable(rs: ReplicaSet | undefined, pods: Map<string, Pod>): AdoptionRow[] {
  if (!rs) return [];
  const rows: AdoptionRow[] = [];
  // compileLabelSelector answers like labelSelectorMatches without validating the selector per pod.
  const matches = compileLabelSelector(rs.spec?.selector);
  const decide = claimDecider(rs);
  for (const p of pods instanceof PodStore ? pods.inNamespace(rs.metadata.namespace) : pods.values()) {
    if (p.metadata.namespace !== rs.metadata.namespace) continue;
    const ref = controllerRefOf(p.metadata);
    const owned = ref?.uid === rs.metadata.uid;
    if (!owned && !matches(p.metadata.labels)) continue;
    const d = decide(p);
    rows.push({ pod: d.pod, uid: d.uid, action: d.action, claimed: d.claimed, reason: d.reason });
  }
  rows.sort((a, b) => a.pod.localeCompare(b.pod));
  return rows;
}

function findingsFor(t: RsTrack, res: ReplayResult, end: number | undefined): Finding[] {
  const f: Finding[] = [];
  const rs = t.rs;
  const name = t.key;
  // 1. Expectation leaks.
  for (const w of t.windows) {
    if (w.endedBy === 'expired' && w.remaining && (w.remaining.add > 0 || w.remaining.del > 0)) {
      const waited = fmtDuration((w.end ?? w.start) - w.setAt);
      // The round's own writes: which the input showed only after the expiry (informer lag), which never.
      const rnd = w.round !== undefined ? t.rounds[w.round] : undefined;
      const own = rnd ? writesOfRound(t, rnd.modelRound).filter((x) => x.kind === 'create' && x.outcome === 'ok') : [];
      const late = own.filter((x) => x.observedAt !== undefined && x.observedAt > (w.end ?? w.start));
      const never = own.filter((x) => x.observedAt === undefined && x.pod);
      const lag = late.length ? Math.max(...late.map((x) => x.observedAt! - w.setAt)) : undefined;
      const lagOnly = late.length > 0 && never.length === 0 && !(w.remaining.keys?.length);
      // What was never observed may never have been made: calls whose outcome the input never showed.
      const undecided = rnd ? (rnd.unresolved ?? 0) : 0;
      const restsOnUnknown = undecided > 0 && undecided >= w.remaining.add + w.remaining.del;
      f.push({
        id: lagOnly ? 'expectations-expired-informer-lag' : 'expectation-leak-expired',
        severity: lagOnly ? 'warning' : w.basis === 'unknown' || w.gapInside || restsOnUnknown ? 'info' : 'warning',
        title: lagOnly
          ? `The controller's own creates reached the informer only after the 5-minute timeout (${fmtDuration(lag!)} later): the record expired`
          : `Expectations leaked and were only cleared by the 5-minute timeout (after ${waited})`,
        basis: w.gapInside || restsOnUnknown ? 'unknown' : w.basis,
        at: iso(w.start),
        explanation:
          `At ${iso(w.setAt)} the controller expected ${w.raised.add} creation(s) and ${w.raised.del} deletion(s) for ${name}. ` +
          (restsOnUnknown ? `The input does not show whether ${plural(undecided, 'call')} of that round ${undecided === 1 ? 'was' : 'were'} made at all, so this leak is not established. ` : '') +
          (lagOnly
            ? `${plural(late.length, 'pod')} it created (${late.slice(0, 5).map((x) => x.pod).join(', ')}) showed up only ${fmtDuration(lag!)} after that, so the record expired at ${iso(w.end)} ` +
              `while they were still unobserved: the informer lagged longer than the 5-minute ExpectationsTimeout, and the next sync counted from a cache without them (kubernetes#129795).`
            : `${w.remaining.add} creation(s) and ${w.remaining.del} deletion(s) were never observed, so every sync was refused ` +
              `(${plural(w.gatedSyncs, 'gated sync')}) until the first sync after the record expired, at ${iso(w.end)}. Expiry is passive: ` +
              `recovery needs a sync trigger after timestamp + 5 min, not just the passage of time.` +
              (never.length ? ` Created but never observed: ${never.slice(0, 10).map((x) => x.pod).join(', ')}.` : '') +
              (w.remaining.keys?.length ? ` Deletions never observed: ${w.remaining.keys.join(', ')}.` : '')),
        nextStep: lagOnly
          ? 'Check kube-controller-manager\'s watch health at that time (apiserver load, watch relists, a slow network); expect surplus pods that a later sync deletes.'
          : 'Find out why the writes were not observed: a watch gap or relist in kube-controller-manager, pods orphaned before their deletion was seen, ' +
            'or creates rejected because the namespace was terminating. Check the kube-controller-manager log for "Controller expectations expired".',
        evidence: refs([...w.evidence, ...never.flatMap((x) => x.sources), ...late.flatMap((x) => x.sources)]),
      });
    }
    if (w.endedBy === 'rs-deleted' && (w.namespaceTerminating ?? 0) > 0) {
      f.push({
        id: 'expectation-leak-namespace-terminating',
        severity: 'info',
        title: 'Creates rejected because the namespace was terminating leaked expectations until the ReplicaSet was deleted',
        basis: w.basis,
        at: iso(w.start),
        explanation:
          `The controller counts a create rejected with cause NamespaceTerminating as a success (no FailedCreate Event, no walk-back), ` +
          `so ${plural(w.namespaceTerminating!, 'expected creation')} could never be observed. ${name} stayed gated from ${iso(w.start)} until ` +
          `its deletion at ${iso(w.end)} cleared the record. This is benign during namespace deletion.`,
        nextStep: 'Nothing to do if the namespace is being deleted on purpose; if it is stuck Terminating, look at its finalizers and remaining content.',
        evidence: refs(w.evidence),
      });
    }
  }
  if (t.open && end !== undefined) {
    const w = t.open;
    const cause = leakCause(t, w, end);
    const rem = w.remaining ?? { add: w.raised.add, del: w.raised.del };
    const expires = w.setAt + EXPECTATIONS_TIMEOUT_MS;
    const undecidedOnly = restsOnUndecided(t, w);
    if (cause) {
      f.push({
        id: 'expectation-leak-open',
        severity: undecidedOnly ? 'info' : 'critical',
        title: `Controller gated by a leaked expectation: only the timeout (or deleting the ReplicaSet) will clear it${undecidedOnly ? ' — if the calls it waits for were made at all' : ''}`,
        basis: w.gapInside || undecidedOnly ? 'unknown' : w.basis,
        at: iso(w.start),
        explanation:
          `Since ${iso(w.start)} the controller has been waiting for ${rem.add} creation(s) and ${rem.del} deletion(s) for ${name}; ${cause}. ` +
          `It refuses to create or delete pods (${plural(w.gatedSyncs, 'gated sync')} so far). The record expires at ${iso(expires)}, ` +
          `but expiry is passive: the controller recovers only at the first sync after that, which needs a trigger — a pod or ReplicaSet change, ` +
          `an error requeue, or the informer resync every 12–24 h.`,
        nextStep:
          end > expires
            ? `The record is already expired: trigger a sync now, e.g. \`kubectl annotate rs ${t.key.split('/')[1]} -n ${t.key.split('/')[0]} kexp.io/poke="$(date +%s)" --overwrite\`.`
            : `Wait until ${iso(expires)} and then trigger a sync (any change to the ReplicaSet, e.g. an annotation), or delete and recreate the ReplicaSet if it cannot wait.`,
        evidence: refs(w.evidence),
      });
    } else {
      f.push({
        id: 'gated-at-end',
        severity: 'info',
        title: `Controller gated on its own writes at the end of the input (${rem.add} creation(s), ${rem.del} deletion(s) outstanding)`,
        // The gate itself is certain once the round is (its Set raised the record before any call).
        basis: w.gapInside ? 'unknown' : w.basis,
        at: iso(w.start),
        explanation:
          `Since ${iso(w.start)} the controller is waiting to observe its own writes for ${name}. This is normal while a round is in flight; ` +
          `it becomes a leak if the outstanding writes are never observed (the record expires at ${iso(expires)}).`,
        nextStep: 'Re-run with a longer recording (or `kexp explain --watch`) to see whether the outstanding writes arrive.',
        evidence: refs(w.evidence),
      });
    }
  }
  // 2. Create failures.
  const failedRounds = t.rounds.filter((r) => r.sync.create && r.sync.create.errors.length > 0);
  if (failedRounds.length > 0) {
    const first = failedRounds[0].sync.create!;
    const calls = failedRounds.reduce((n, r) => n + r.sync.create!.calls, 0);
    const created = failedRounds.reduce((n, r) => n + r.sync.create!.successes, 0);
    const errText = first.errors[0];
    const quota = failedRounds.some((r) => r.sync.create!.errors.some((e) => /exceeded quota/i.test(e)));
    f.push({
      id: 'create-failures',
      severity: 'warning',
      title: `${plural(failedRounds.length, 'creation round')} hit failed creates${quota ? ' (ResourceQuota)' : ''}`,
      basis: failedRounds.every((r) => r.evidence?.basis === 'observed') ? 'observed' : 'inferred',
      at: iso(failedRounds[0].at),
      explanation:
        `Slow start stops after the first batch with a failure and walks back the failed and skipped creates at once, so failures do not gate ` +
        `the controller: it retries with exponential backoff (5 ms doubling, up to 1000 s). ${plural(calls, 'create call')} in these rounds, ` +
        `${created} succeeded. First error: ${errText}.`,
      nextStep: quota
        ? `Raise the ResourceQuota, lower replicas, or free quota (\`kubectl describe resourcequota -n ${t.key.split('/')[0]}\`).`
        : 'Read the FailedCreate Events (`kubectl describe rs`) and the admission webhooks/quotas they name.',
      evidence: refs(failedRounds.map((r) => r.trigger).concat(failedRounds.flatMap((r) => r.evidence?.sources ?? []))),
    });
  }
  // 3. Surplus pods / expiry-driven over-create.
  if (rs && end !== undefined && t.deletedAt === undefined) {
    const c = finalCounts(rs, res.pods);
    if (c.active > c.desired) {
      f.push({
        id: 'surplus-pods',
        severity: 'warning',
        title: `${c.active - c.desired} more active pod(s) than desired at the end of the input`,
        basis: 'inferred',
        at: iso(end),
        explanation: `${name} wants ${c.desired} replicas but ${c.active} active pods are controlled by it. The controller deletes the surplus at its next ungated sync.`,
        nextStep: 'If this persists, look for a gated window or a stale informer cache (pods created but not yet observed).',
        evidence: [],
      });
    }
  }
  for (const e of t.expiredSyncs) {
    if ((e.created ?? 0) > 0 && e.add > 0) {
      const round = t.rounds.find((r) => r.at === e.at && r.kind === 'create');
      const made = round ? writesOfRound(t, round.modelRound) : [];
      // The earlier creates this record still awaited: when (if ever) the input showed them.
      const earlier = t.rounds.filter((r) => r.kind === 'create' && r.at < e.at && e.at - r.at <= EXPECTATIONS_TIMEOUT_MS + 60_000);
      const seenAt = (w: ControllerWrite) => w.observedAt ?? w.at;
      const lateWrites = t.writes.filter((w) => earlier.some((r) => r.modelRound === w.round) && seenAt(w) > e.at);
      const lag = lateWrites.length ? Math.max(...lateWrites.map((w) => seenAt(w) - (earlier.find((r) => r.modelRound === w.round)?.at ?? seenAt(w)))) : undefined;
      // Resting on the expired window: unknown when that window's creates were never shown made.
      const expired = t.windows.find((w) => w.endedBy === 'expired' && w.end === e.at);
      const expiredRound = expired?.round !== undefined ? t.rounds[expired.round] : undefined;
      const undecided = expiredRound?.unresolved ?? 0;
      const basis: Basis = expired && (expired.gapInside || expiredRound?.evidence?.basis === 'unknown' || (undecided > 0 && undecided >= e.add)) ? 'unknown' : 'inferred';
      const held = t.lagOverCreates.find((x) => x.at === e.at);
      f.push({
        id: 'expiry-over-create',
        severity: basis === 'unknown' ? 'info' : 'warning',
        title: 'A sync after expiry created pods while earlier creations were still unobserved',
        basis,
        at: iso(e.at),
        explanation:
          `At ${iso(e.at)} the record still expected ${e.add} creation(s) but had expired, so the sync passed the gate and created ${e.created} pod(s) ` +
          `from a cache that may lack the earlier pods. If those arrive late the ReplicaSet over-creates and then deletes the surplus (kubernetes#129795).` +
          (lag !== undefined ? ` ${plural(lateWrites.length, 'earlier create')} showed up only after this sync, ${fmtDuration(lag)} after their round: the informer lagged at least that long.` : '') +
          (held ? ` The input showed ${plural(held.pods.length, 'pod')} of the round of ${iso(held.setAt)} (${held.pods.join(', ')}) before this sync, but the controller's creates here prove its cache lacked ${held.pods.length === 1 ? 'it' : 'them'}: kexp held ${held.pods.length === 1 ? 'it' : 'them'} back as unobserved from then on, and its record — which kexp's replay had seen fulfilled — expired unfulfilled.` : ''),
        nextStep: 'Check kube-controller-manager informer health (watch gaps, relists) around this time.',
        evidence: refs([round?.trigger, ...made.flatMap((w) => w.sources), ...lateWrites.flatMap((w) => w.sources)]),
      });
    }
  }
  // 4. Name reuse credited (deletions are keyed by namespace/name).
  for (const n of t.nameReuse) {
    f.push({
      id: 'delete-satisfied-by-name-reuse',
      severity: 'warning',
      title: `Delete expectation for ${n.podKey} satisfied by a different pod with the same name`,
      basis: 'inferred',
      at: iso(n.at),
      explanation:
        `The controller chose ${n.podKey} (uid ${n.chosenUid}) for deletion. It keys expected deletions by namespace/name, not UID, so the deletion ` +
        `of a new pod with the same name (uid ${n.observedUid}) was credited to that expectation. (The article that motivated kexp says UIDs; the code uses names.)`,
      nextStep: 'Avoid recreating pods by name while the ReplicaSet scales down; look for tooling that recreates pods with fixed names.',
      evidence: refs([n.source]),
    });
  }
  // 5. ReplicaSet recreated under the same name.
  for (const u of t.uidChanges) {
    f.push({
      id: 'rs-recreated',
      severity: 'info',
      title: 'ReplicaSet recreated under the same name',
      basis: 'observed',
      at: iso(u.at),
      explanation: `${name} changed UID from ${u.oldUid} to ${u.newUid}. Deleting the old ReplicaSet cleared its expectations; the new one starts with none. Pods still pointing at the old UID are not counted by the new ReplicaSet.`,
      nextStep: 'Check for orphaned pods of the old ReplicaSet (the adoption table shows them).',
      evidence: refs([u.source]),
    });
  }
  // 6. Clobbered delete keys.
  for (const c of t.clobbers) {
    f.push({
      id: 'clobbered-delete-keys',
      severity: 'warning',
      title: `An earlier deletion round never completed (${c.keys.length} key(s) clobbered)`,
      basis: 'inferred',
      at: iso(c.at),
      explanation: `A new ExpectDeletions replaced delete keys that were never observed: ${c.keys.join(', ')}. kube-controller-manager logs this at ERROR as "Clobbering existing delete keys"; it means the previous round only ended by expiry.`,
      nextStep: 'Look for those pods: were they orphaned, or was their deletion missed by a watch gap?',
      evidence: refs([c.source]),
    });
  }
  // 7. Terminating pods.
  if (rs && end !== undefined) {
    const stuck: string[] = [];
    let terminating = 0;
    // Same pods in the same (cache) order as a scan, from the controller index (pod-store.ts).
    const mine = res.pods instanceof PodStore ? res.pods.controlledBy(rs.metadata.namespace, rs.metadata.uid) : res.pods.values();
    for (const p of mine) {
      if (p.metadata.namespace !== rs.metadata.namespace || controllerRefOf(p.metadata)?.uid !== rs.metadata.uid) continue;
      if (!p.metadata.deletionTimestamp || p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') continue;
      terminating++;
      const dl = Date.parse(p.metadata.deletionTimestamp);
      if (!Number.isNaN(dl) && dl < end) stuck.push(objectKey(p.metadata));
    }
    if (terminating > 0) {
      f.push({
        id: 'terminating-pods',
        severity: stuck.length > 0 ? 'warning' : 'info',
        title: `${plural(terminating, 'terminating pod')} at the end of the input${stuck.length ? `, ${stuck.length} past the grace period` : ''}`,
        basis: 'observed',
        at: iso(end),
        explanation:
          `Terminating pods are not active: the controller does not count them (it replaces them, unless a scale-down removed them on purpose); they show only in status.terminatingReplicas. ` +
          (stuck.length ? `Past their grace period: ${stuck.slice(0, 10).join(', ')} — a kubelet that is gone or a finalizer is holding them.` : ''),
        nextStep: stuck.length ? 'Check the nodes of those pods and their finalizers; force-delete only if the node is gone.' : 'Nothing to do unless they stay.',
        evidence: [],
      });
    }
  }
  // 8. Being deleted.
  if (t.deletingSince !== undefined && t.deletedAt === undefined) {
    f.push({
      id: 'rs-being-deleted',
      severity: 'info',
      title: 'ReplicaSet is being deleted: the controller no longer creates or deletes pods for it',
      basis: 'observed',
      at: iso(t.deletingSince),
      explanation: 'A ReplicaSet with a deletionTimestamp is still synced (status, claiming of owned pods) but manageReplicas never runs.',
      nextStep: 'Check the ReplicaSet\'s finalizers and the garbage collector if deletion does not finish.',
      evidence: [],
    });
  }
  // 9. Sync errors other than create failures (claim/adoption).
  const claimErrors = t.syncErrors.filter((e) => /can't adopt|recheck|is gone|has just been deleted/.test(e.error));
  if (claimErrors.length) {
    f.push({
      id: 'adoption-blocked',
      severity: 'warning',
      title: `${plural(claimErrors.length, 'sync')} aborted by an adoption error`,
      basis: 'inferred',
      at: iso(claimErrors[0].at),
      explanation: `A claim error aborts the sync before manageReplicas and before the status update. First: ${claimErrors[0].error}.`,
      nextStep: 'See the adoption table; remove the conflicting labels or owner references.',
      evidence: [],
    });
  }
  // 9b. The controller cannot sync the ReplicaSet at all (invalid selector).
  if ((t.syncsByOutcome['selector-error'] ?? 0) > 0) {
    f.push({
      id: 'invalid-selector',
      severity: 'critical',
      title: 'The controller cannot sync this ReplicaSet: its selector does not convert',
      basis: 'inferred',
      explanation: `syncReplicaSet fails with "${t.syncErrors.find((e) => /selector/.test(e.error))?.error ?? 'error converting pod selector'}" (logged through HandleError, no requeue): it never claims, creates or deletes pods and never updates status (${plural(t.syncsByOutcome['selector-error']!, 'sync')}).`,
      nextStep: 'Fix spec.selector (the API server normally rejects such selectors; this ReplicaSet was written around validation or the input is damaged).',
      evidence: [],
    });
  }
  // 10. Prediction differences.
  const notes = t.rounds.filter((r) => (r.sync.delete?.note && !r.sync.delete.note.startsWith('tie:')) || r.evidence?.basis === 'unknown');
  if (notes.length) {
    f.push({
      id: 'input-disagrees-with-model',
      severity: 'info',
      title: `The input disagrees with kexp's prediction in ${plural(notes.length, 'round')}`,
      basis: 'unknown',
      at: iso(notes[0].at),
      explanation: notes.slice(0, 5).map((r) => `${iso(r.at)}: ${r.sync.delete?.note ?? r.evidence?.note ?? ''}`).join(' '),
      nextStep: 'Compare with the kube-controller-manager log (`kexp kcm-log --compare`) or an audit log for the same period.',
      evidence: refs(notes.map((r) => r.trigger)),
    });
  }
  // 12. Where the controller's writes contradicted kexp's record (kexp realigned and followed them).
  for (const d of t.divergences) {
    const rec = d.record;
    const what = describeWrites(d.writes);
    const recText = rec ? `add=${rec.add}, del=${rec.del}, set at ${iso(rec.timestamp)}` : 'a record';
    const restart = d.kind === 'after-restart';
    f.push({
      id: restart ? 'controller-restarted' : 'record-contradicted',
      severity: 'warning',
      title: restart
        ? 'kube-controller-manager restarted: the controller wrote while kexp\'s record still gated it'
        : 'The controller wrote while kexp\'s record said it was gated',
      basis: 'inferred',
      at: iso(d.at),
      explanation:
        `At ${iso(d.at)} the ReplicaSet controller ${what} for ${name}, although kexp's replayed record (${recText}) still gated it — ` +
        `so SatisfiedExpectations passed in the real controller: its record was gone. ` +
        (restart
          ? `Its service-account credential changed at ${iso(d.credentialChange!.at)} (a restarted kube-controller-manager requests a new token) and expectations live only in memory, so the new process started with none; writes in flight before the restart are never awaited again. `
          : `Either kube-controller-manager restarted or lost leadership (expectations live in memory; this input does not show it), or the controller observed something kexp's input lacks. `) +
        `kexp dropped its record${restart ? 's' : ''} at that point (window ended "reset") and followed the controller from its writes.`,
      nextStep: restart
        ? 'Check kube-controller-manager restarts and leader election at that time (`kubectl -n kube-system get lease kube-controller-manager -o yaml`, the pod\'s restartCount and previous log).'
        : 'Give kexp the kube-controller-manager log of that time (`kexp kcm-log`; "Starting controller" marks a restart) or an audit log whose user.extra carries credential ids, to tell a restart from a missed observation.',
      evidence: refs([...d.writes.flatMap((w) => w.sources), d.credentialChange?.source]),
    });
  }
  for (const r of t.restarts) {
    const d = r.dropped.find((x) => x.key === t.key);
    const cut = r.interrupted;
    f.push({
      id: 'controller-restarted',
      severity: 'warning',
      title: cut
        ? `kube-controller-manager restarted in the middle of a ${cut.kind} round (${cut.made} of ${cut.n} calls made)`
        : `kube-controller-manager restarted and dropped this ReplicaSet's pending expectations`,
      basis: 'inferred',
      at: iso(r.at),
      explanation:
        (r.via === 'log'
          ? `At ${iso(r.at)} kube-controller-manager logged the start of its ReplicaSet controller: a new process (a restart or a leader change). `
          : `At ${iso(r.at)} the ReplicaSet controller wrote with a new service-account credential after ${fmtDuration(r.pauseMs)} without any write: a new kube-controller-manager process ` +
            `(a restart or a leader change). `) +
        (cut ? `Its round at ${iso(cut.at)} stopped after ${cut.made} of ${cut.n} ${cut.kind} calls; nothing was written for this ReplicaSet until the new process, started with no expectations, listed the pods afresh and made the rest. `
          : `Expectations live only in memory, so the record ${d ? `(add=${d.add}, del=${d.del}, set at ${iso(d.setAt)})` : ''} was dropped: the new process ` +
            `lists the pods afresh and no longer waits for the writes in flight before the restart (window ended "reset").`),
      nextStep: 'Check why kube-controller-manager restarted (`kubectl -n kube-system get lease kube-controller-manager -o yaml`, the pod\'s restartCount and previous log).',
      evidence: refs([r.source]),
    });
  }
  // 13. Writes no round explains: each in exactly one finding, by why kexp could not explain it.
  const unexplained = t.writes.filter((w) => w.round === undefined);
  const byKind = new Map<string, ControllerWrite[]>();
  for (const w of unexplained) {
    const k = w.divergence?.kind ?? 'outside-round';
    byKind.set(k, [...(byKind.get(k) ?? []), w]);
  }
  for (const [kind, ws] of byKind) f.push(unexplainedFinding(kind, ws, name));
  // 16. Replacement churn: pods the controller created that failed within a minute, by reason.
  const quick = t.podFailures.filter((p) => p.createdAt !== undefined && p.failedAt - p.createdAt <= 60_000);
  const byReason = new Map<string, typeof quick>();
  for (const p of quick) byReason.set(p.reason, [...(byReason.get(p.reason) ?? []), p]);
  for (const [reason, ps] of byReason) {
    if (ps.length < 3) continue;
    const span = ps[ps.length - 1]!.failedAt - ps[0]!.createdAt!;
    f.push({
      id: 'replacement-churn',
      severity: 'warning',
      title: `Replacement churn: ${plural(ps.length, 'pod')} failed within seconds of creation (${reason}) and were replaced`,
      basis: 'observed',
      at: iso(ps[0]!.failedAt),
      explanation:
        `${plural(ps.length, 'pod')} of ${name} reached phase Failed with reason ${reason} less than a minute after creation, over ${fmtDuration(span)} (${ps.slice(0, 5).map((p) => p.pod).join(', ')}). ` +
        `Failed pods are not active, so every sync creates a replacement; the creates succeed, so nothing backs off and the expectations stay healthy. The cause is the node rejecting the pod, not the controller.`,
      nextStep: `Look at the failed pods' status message (\`kubectl get pods -n ${t.key.split('/')[0]} --field-selector=status.phase=Failed\`) and the node they were bound to; failed pods pile up until the pod garbage collector's threshold.`,
      evidence: refs(ps.map((p) => p.source)),
    });
  }
  // 17. Backoff inflation: failures re-triggered by events push the key's backoff far past slow start.
  const longBackoff = t.syncErrors.filter((e) => (e.backoffMs ?? 0) >= 60_000);
  if (longBackoff.length) {
    const first = longBackoff.reduce((a, b) => ((b.backoffMs ?? 0) > (a.backoffMs ?? 0) ? b : a));
    const failuresBefore = t.syncErrors.filter((e) => e.at <= first.at).length;
    const firstFailure = t.syncErrors[0]!;
    const nextWrite = t.writes.find((w) => w.at > first.at && w.outcome === 'ok');
    f.push({
      id: 'backoff-inflated',
      severity: 'warning',
      title: `Create retries backed off to ${fmtDuration(first.backoffMs!)} after ${plural(failuresBefore, 'failed sync')} in ${fmtDuration(first.at - firstFailure.at)}`,
      basis: 'inferred',
      at: iso(first.at),
      explanation:
        `Each failed sync requeues ${name} with exponential backoff (5 ms doubling, capped at 1000 s), but pod and ReplicaSet events enqueue it at once, bypassing the delay, ` +
        `so the failure count climbs with every event: after ${plural(failuresBefore, 'failure')} the next retry waits ${fmtDuration(first.backoffMs!)}. ` +
        `A cause that clears meanwhile (quota freed by a terminating pod) is noticed only then${nextWrite ? ` — the next successful write came at ${iso(nextWrite.at)}` : ''} (kubernetes#98656). Expectations were not the gate.`,
      nextStep: 'Any change to the ReplicaSet (an annotation) enqueues it at once; to avoid the stall, leave quota headroom for a rollout\'s surge or use maxSurge > 0.',
      evidence: refs([...(nextWrite ? nextWrite.sources : [])]),
    });
  }
  // 14. Claim rounds: what ClaimPods adopted and released, and why.
  const claimRounds = t.rounds.filter((r) => r.kind === 'claim');
  if (claimRounds.length) {
    const decisions = claimRounds.flatMap((r) => (r.sync.claims ?? []).filter((c) => c.action === 'adopt' || c.action === 'release').map((c) => ({ at: r.at, c })));
    const adopted = decisions.filter((d) => d.c.action === 'adopt' && d.c.claimed);
    const released = decisions.filter((d) => d.c.action === 'release');
    f.push({
      id: 'adoption',
      severity: 'info',
      title: `The controller ${[adopted.length ? `adopted ${plural(adopted.length, 'pod')}` : '', released.length ? `released ${plural(released.length, 'pod')}` : ''].filter(Boolean).join(' and ') || 'tried to adopt or release pods'}`,
      basis: claimRounds.some((r) => t.writes.some((w) => w.round === r.modelRound)) ? 'observed' : 'inferred',
      at: iso(claimRounds[0]!.at),
      explanation: decisions.slice(0, 5).map((d) => `${iso(d.at)} ${d.c.pod}: ${d.c.reason}`).join(' ') +
        (adopted.length ? ' An adopted pod counts toward replicas at once, so the controller creates fewer pods (or deletes the surplus).' : ''),
      nextStep: adopted.length
        ? 'If these pods were not meant for this ReplicaSet, give bare pods labels its selector does not match.'
        : 'A released pod keeps running as an orphan; delete it or relabel it back if that was not intended.',
      evidence: refs([...claimRounds.flatMap((r) => writesOfRound(t, r.modelRound).flatMap((w) => w.sources)), ...claimRounds.map((r) => r.trigger)]),
    });
  }
  // 15. Syncs in which the model would have written but the input shows the controller did not.
  for (const ep of reportedWithheldEpisodes(t, res)) f.push(withheldFinding(ep, t, res, name));
  // 16. Status writes showing the controller's informer behind the input.
  for (const ep of viewEpisodes(t)) f.push(viewBehindFinding(ep, name));
  // 11. Standalone RS noise.
  if (t.noControllerNoise > 0) {
    f.push({
      id: 'standalone-rs-error-line',
      severity: 'info',
      title: 'Expected noise: "ReplicaSet has no controller" ERROR lines on scale-down',
      basis: 'inferred',
      explanation: `${name} has no owner, so kube-controller-manager logs "ReplicaSet has no controller" at ERROR on each of its ${plural(t.noControllerNoise, 'scale-down sync')}. It is harmless (kubernetes#102442).`,
      nextStep: 'None.',
      evidence: [],
    });
  }
  return f;
}

/** Consecutive status writes showing the controller's cache behind the input, until one that caught up. */
export interface ViewEpisode {
  from: number;
  until?: number;
  untilSource?: SourceRef;
  writes: RsTrack['viewBehind'];
}

export function viewEpisodes(t: RsTrack): ViewEpisode[] {
  const out: ViewEpisode[] = [];
  let cur: ViewEpisode | undefined;
  const ups = [...t.viewCaughtUp];
  for (const v of t.viewBehind) {
    while (cur && ups.length && ups[0]!.at <= v.at) {
      const up = ups.shift()!;
      if (up.at >= cur.writes[cur.writes.length - 1]!.at) {
        cur.until = up.at;
        cur.untilSource = up.source;
        out.push(cur);
        cur = undefined;
      }
    }
    if (!cur) cur = { from: v.since, writes: [] };
    cur.from = Math.min(cur.from, v.since);
    cur.writes.push(v);
  }
  if (cur) {
    const up = ups.find((u) => u.at >= cur!.writes[cur!.writes.length - 1]!.at);
    if (up) {
      cur.until = up.at;
      cur.untilSource = up.source;
    }
    out.push(cur);
  }
  return out;
}

function viewBehindFinding(ep: ViewEpisode, name: string): Finding {
  const first = ep.writes[0]!;
  const worst = ep.writes.reduce((a, b) => (b.at - b.since > a.at - a.since ? b : a));
  const missing = [...new Set(ep.writes.flatMap((w) => w.missing.map((m) => m.pod)))];
  const lagS = Math.round((worst.at - worst.since) / 1000);
  const long = worst.at - worst.since >= EXPECTATIONS_TIMEOUT_MS;
  return {
    id: 'informer-behind',
    severity: long || ep.until === undefined ? 'warning' : 'info',
    title: `The controller's informer was behind the input: its status write at ${iso(first.at)} counted ${first.statusReplicas} active pod(s) where the input showed ${first.expected}`,
    basis: 'observed',
    at: iso(first.at),
    explanation:
      `syncReplicaSet writes status.replicas = the active pods it listed from its informer cache when the sync started; ${plural(first.expected, 'pod')} of ${name} existed before the controller's previous status write, ` +
      `yet it counted ${first.statusReplicas}: its cache lacked ${plural(first.expected - first.statusReplicas, 'pod')} (the newest: ${first.missing.map((m) => m.pod).join(', ')}), ` +
      `at least ${lagS} s after the input showed ${worst.missing.length === 1 ? 'it' : 'them'}${ep.writes.length > 1 ? ` (${ep.writes.length} status writes show it)` : ''}. ` +
      (ep.until !== undefined
        ? `Its status write at ${iso(ep.until)} counted every pod again: the informer had caught up. `
        : `No later status write counts ${missing.length === 1 ? 'it' : 'them'}: to the end of the input the controller's view lacks ${missing.length === 1 ? 'this pod' : 'these pods'} — a lagging informer, or a watch event it never received (a dropped event, a relist that hid it). `) +
      `kexp delivers every event to its model when the input saw it, so between ${iso(ep.from)} and ${ep.until !== undefined ? iso(ep.until) : 'the end of the input'} its gate decisions for ${name} are unknown: the controller decided on a cache the input does not show` +
      (long ? `; a record waiting for these pods expires after 5 minutes, and the next sync then counts without them (kubernetes#129795)` : '') + '.',
    nextStep: `Check kube-controller-manager's watch connections and the apiserver's load around ${iso(ep.from)}; with its -v=4 log (\`--kcm-log\`) kexp measures the lag of each pod exactly.`,
    evidence: refs([...ep.writes.map((w) => w.source), ...ep.writes.flatMap((w) => w.missing.map((m) => m.source)), ep.untilSource]),
  };
}

function describeWrites(ws: ControllerWrite[]): string {
  const parts: string[] = [];
  for (const kind of ['create', 'delete', 'adopt', 'release'] as const) {
    const of = ws.filter((w) => w.kind === kind);
    if (!of.length) continue;
    const verb = { create: 'created', delete: 'deleted', adopt: 'adopted', release: 'released' }[kind];
    const failed = of.filter((w) => w.outcome === 'failed').length;
    const pods = of.map((w) => w.pod).filter(Boolean).slice(0, 5).join(', ');
    parts.push(`${failed === of.length ? `tried to ${kind}` : verb} ${plural(of.length, 'pod')}${pods ? ` (${pods})` : ''}${failed && failed < of.length ? `, ${failed} failed` : ''}`);
  }
  return parts.join(' and ') || 'wrote';
}

/** The finding that accounts for writes no round explains, by why kexp could not explain them. */
function unexplainedFinding(kind: string, ws: ControllerWrite[], name: string): Finding {
  const at = iso(ws[0]!.at);
  const what = describeWrites(ws);
  const detail = ws[0]!.divergence?.detail ?? '';
  const evidence = refs(ws.flatMap((w) => w.sources));
  const base = { basis: 'observed' as Basis, at, evidence, writes: ws.reduce((n, w) => n + writeCount(w), 0) };
  switch (kind) {
    case 'surplus-create':
      return {
        ...base, id: 'surplus-create', severity: 'warning',
        title: `The controller created ${plural(ws.length, 'pod')} its own count did not call for: it counted fewer pods than there were (stale cache)`,
        explanation:
          `At ${at} the controller ${what} for ${name} although by kexp's cache it had enough (${detail}). Its informer had not yet delivered pods it ` +
          `had created, adopted or seen become ready, so it counted fewer and created a surplus (the shape of kubernetes#8138: a count taken before the last observation). ` +
          `The surplus is deleted at a later sync.`,
        nextStep: 'Check kube-controller-manager\'s informer lag at that time (apiserver load, watch relists in its log) and whether the surplus was deleted afterwards.',
      };
    case 'expired-over-create':
      return {
        ...base, id: 'expiry-over-create', severity: 'warning',
        title: `The controller created ${plural(ws.length, 'pod')} again after its record expired while its informer had not delivered the earlier ones`,
        explanation:
          `At ${at} the controller ${what} for ${name}; ${detail}. An expired record counts as satisfied, so the sync created from a cache that still ` +
          `lacked the pods of that earlier round: its informer lagged by at least the record's age (kubernetes#129795). The ReplicaSet over-creates and deletes the surplus once the late pods arrive.`,
        nextStep: 'Check kube-controller-manager\'s informer health (watch relists, apiserver load) at that time; the surplus pods are deleted at a later sync.',
      };
    case 'extra-delete':
      return {
        ...base, id: 'extra-delete', severity: 'warning',
        title: `The controller deleted ${plural(ws.length, 'pod')} its own count did not call for`,
        explanation:
          `At ${at} the controller ${what} for ${name} although by kexp's count there was no surplus (${detail}). This is the signature of an expectation record ` +
          `lost or clobbered while a delete was in flight — the controller acted on a count that still held pods it had already deleted (kubernetes#19299) — or of a cache that still held pods already gone.`,
        nextStep: 'Look in the kube-controller-manager log for "Clobbering existing delete keys" or expired expectations just before, and for watch relists.',
      };
    case 'unexpected-claim': {
      const terminating = ws.filter((w) => w.podTerminating);
      return {
        ...base, id: 'unexpected-claim', severity: terminating.length ? 'warning' : 'info',
        title: terminating.length
          ? `The controller adopted ${plural(terminating.length, 'pod')} that ${terminating.length === 1 ? 'was' : 'were'} already being deleted`
          : `The controller ${what} where kexp's ClaimObject would not have`,
        explanation:
          `At ${at} the controller ${what} for ${name}. ${detail}. ` +
          (terminating.length
            ? `ClaimObject never adopts a pod with a deletionTimestamp (kubernetes#44144), and the adoption needs a fresh owner check (RecheckDeletionTimestamp, kubernetes#42639): adopting a pod being deleted is the signature of a pre-1.7 controller or of a cache that had not seen the deletion.`
            : 'The controller\'s cache held a different state of the pod or of the ReplicaSet\'s selector than kexp\'s input at that moment.'),
        nextStep: 'Compare the pod\'s labels, ownerReferences and deletionTimestamp at that time with the ReplicaSet\'s selector (the adoption table).',
      };
    }
    case 'while-gated':
    case 'after-restart':
      return {
        ...base, id: 'unexplained-writes', severity: 'warning',
        title: `${plural(base.writes, 'write')} of the controller that kexp's model cannot place`,
        explanation: `At ${at} the controller ${what} for ${name} while kexp's record said it was gated; even without that record kexp's model would not have written (${detail}).`,
        nextStep: 'Compare with the kube-controller-manager log of that time (`kexp kcm-log`).',
      };
    default:
      return {
        ...base, id: 'unexplained-writes', severity: 'info',
        title: `${plural(base.writes, 'write')} of the controller outside every round kexp reconstructed`,
        explanation: `${at}: the controller ${what} for ${name}; ${detail}.`,
        nextStep: 'Compare with the kube-controller-manager log of that time (`kexp kcm-log`) or an audit log of the same period.',
      };
  }
}

interface WithheldEpisode {
  first: WithheldTrack;
  syncs: number;
  /** The controller's next write for this key after the episode began, if any. */
  next?: ControllerWrite;
}

/** Withheld syncs of one direction (creates, deletes) up to the controller's next write of that kind form one episode. */
function withheldEpisodes(t: RsTrack): WithheldEpisode[] {
  const out: WithheldEpisode[] = [];
  const writes = [...t.writes].sort((a, b) => a.at - b.at);
  const cur: Record<'create' | 'delete', WithheldEpisode | undefined> = { create: undefined, delete: undefined };
  for (const w of t.withheld) {
    const kind = w.diff < 0 ? 'create' : 'delete';
    const c = cur[kind];
    if (c && (!c.next || w.at < c.next.at)) {
      c.syncs++;
      continue;
    }
    cur[kind] = { first: w, syncs: 1, next: writes.find((x) => x.at >= w.at && x.kind === kind) };
    out.push(cur[kind]!);
  }
  return out.sort((a, b) => a.first.at - b.first.at);
}

/** The withheld episodes a finding reports (see findingsFor, 15). */
function reportedWithheldEpisodes(t: RsTrack, res: ReplayResult): WithheldEpisode[] {
  return withheldEpisodes(t).filter((ep) =>
    // The input ends before the controller could have written: nothing to say yet.
    (ep.next || (res.end ?? ep.first.at) - ep.first.at >= 5000) &&
    // A restart inside the episode is its cause (the restart finding says so).
    !t.restarts.some((r) => r.at >= ep.first.at && r.at <= (ep.next?.at ?? Infinity)));
}

/**
 * Every sync rewrites status.replicas when the count changed (gated or not): no status write
 * after the change that called for the withheld write means the controller never synced on it.
 */
function silentEpisode(ep: WithheldEpisode, t: RsTrack, res: ReplayResult): boolean {
  const until = ep.next?.at ?? res.end ?? ep.first.at;
  const statusSince = t.statusWrites.some((x) => x > ep.first.at && x <= until);
  return !statusSince && until - ep.first.at >= 5_000 && t.lastStatus !== undefined;
}

function withheldFinding(ep: WithheldEpisode, t: RsTrack, res: ReplayResult, name: string): Finding {
  const w = ep.first;
  const n = Math.abs(w.diff);
  const verb = w.diff < 0 ? 'create' : 'delete';
  const until = ep.next?.at ?? res.end ?? w.at;
  const waited = until - w.at;
  const start = res.start ?? w.at;
  const unknownStart = !t.createdInCoverage;
  const nearTimeout = ep.next !== undefined && unknownStart && ep.next.at - start <= EXPECTATIONS_TIMEOUT_MS + 60_000 && waited >= 60_000;
  const causes: string[] = [];
  if (unknownStart && w.at - start < EXPECTATIONS_TIMEOUT_MS) {
    causes.push(`a record from before the input starts (${iso(start)}) may still gate it; such a record expires by ${iso(start + EXPECTATIONS_TIMEOUT_MS)} at the latest`);
  }
  const stale = t.writes.filter((x) => x.at <= w.at && w.at - x.at <= 60_000 && (x.divergence?.kind === 'surplus-create' || x.divergence?.kind === 'expired-over-create'));
  if (stale.length && w.diff > 0) causes.push(`its informer had not yet delivered the ${plural(stale.length, 'pod')} it had just created from a stale count, so it saw no surplus`);
  const failures = t.syncErrors.filter((x) => x.at < w.at);
  if (failures.length) causes.push(`a longer workqueue backoff than kexp's after ${plural(failures.length, 'failed sync')}`);
  const silent = silentEpisode(ep, t, res);
  if (silent) {
    causes.unshift(`no sync of the real controller at all: it wrote no status for ${name} either, though a sync after a change of its pod count rewrites status.replicas — its informer had not delivered the change (a lag, a lost watch event, or a relist that still lists a deleted pod, kubernetes#115658), so it still counted the pods it had seen`);
  } else causes.push('no sync of the real controller at that time (its informer had not delivered the change, or no trigger reached it)');
  causes.push('kube-controller-manager down or not leading');
  return {
    id: nearTimeout ? 'late-first-write' : 'writes-withheld',
    severity: waited >= 30_000 || (silent && !ep.next) ? 'warning' : 'info',
    title: ep.next
      ? `The controller's first ${verb} came ${fmtDuration(waited)} after the ReplicaSet needed it`
      : `The controller made no ${verb} for ${fmtDuration(waited)} although the ReplicaSet needed ${plural(n, 'pod')} ${w.diff < 0 ? 'more' : 'fewer'}${silent ? ', and no status write either: it never synced on the change' : ''}`,
    basis: 'inferred',
    at: iso(w.at),
    explanation:
      `From ${iso(w.at)} kexp's model would have ${verb}d ${plural(n, 'pod')} for ${name} (${plural(ep.syncs, 'sync')}), but the input, which records the controller's writes, ` +
      `shows none ${ep.next ? `until ${iso(ep.next.at)}` : 'before it ends'}. kexp does not invent those writes. What held the controller: ${causes.join('; or ')}.` +
      (nearTimeout ? ` The delay ends about ${fmtDuration(ep.next!.at - start)} after the input starts, consistent with an unobserved record expiring after the 5-minute ExpectationsTimeout (kubernetes#110631).` : ''),
    nextStep: (nearTimeout
      ? 'Look for what left the record unfulfilled before the input starts: a create whose pod was never observed (a timed-out create, a lost watch event) or an earlier ReplicaSet with the same name. '
      : '') + 'The kube-controller-manager log shows "Controller still waiting on expectations" for this key when a record held it (`kexp kcm-log --rs ' + name + '`).',
    evidence: refs([w.trigger, ...(ep.next ? ep.next.sources : [])]),
  };
}

function verdictFor(t: RsTrack, res: ReplayResult, findings: Finding[], end: number | undefined): ReplicaSetReport['verdict'] {
  const has = (id: string) => findings.find((x) => x.id === id);
  let state: VerdictState;
  let summary: string;
  let basis: Basis = 'inferred';
  if (t.deletedAt !== undefined) {
    state = 'deleted';
    summary = `deleted at ${iso(t.deletedAt)}`;
    basis = 'observed';
  } else if (t.deletingSince !== undefined) {
    state = 'deleting';
    summary = 'being deleted: the controller will not create or delete pods';
    basis = 'observed';
  } else if (has('invalid-selector')) {
    state = 'failing';
    summary = has('invalid-selector')!.title;
  } else if (has('expectation-leak-open')) {
    state = 'leaked';
    summary = has('expectation-leak-open')!.title;
    basis = has('expectation-leak-open')!.basis;
  } else if (t.open) {
    state = 'gated';
    summary = 'gated on its own writes (a round is in flight)';
    basis = t.open.gapInside ? 'unknown' : t.open.basis;
  } else if (t.rs && end !== undefined) {
    const c = finalCounts(t.rs, res.pods);
    const lastErr = t.lastSync?.error;
    if (lastErr && c.active !== c.desired) {
      state = 'failing';
      summary = `failing to reach ${c.desired} replicas (${c.active} active): ${lastErr}`;
    } else if (c.active !== c.desired) {
      state = 'converging';
      summary = `converging: ${c.active} of ${c.desired} replicas active`;
      const stuck = reportedWithheldEpisodes(t, res).filter((ep) => !ep.next && silentEpisode(ep, t, res)).sort((a, b) => a.first.at - b.first.at)[0];
      if (stuck) {
        state = 'stalled';
        summary = `${c.active} of ${c.desired} replicas active, and the controller has not synced since ${iso(stuck.first.at)} (its informer has not delivered the change)`;
      }
    } else if (t.firstSetAt === undefined && t.syncs === 0) {
      state = 'unknown';
      summary = 'no sync of this ReplicaSet in the input';
      basis = 'unknown';
    } else {
      state = 'healthy';
      summary = `controller healthy: ${c.active}/${c.desired} pods active, not gated (${c.ready} ready — readiness is up to the kubelet, not this controller)`;
    }
  } else {
    state = 'unknown';
    summary = 'the ReplicaSet object itself is not in the input';
    basis = 'unknown';
  }
  return { state, basis, summary };
}

/** Builds the Report for every tracked ReplicaSet (sorted by key). */
export function buildReport(res: ReplayResult, opts: BuildOptions): Report {
  const end = res.end;
  const rsReports: ReplicaSetReport[] = [];
  for (const full of [...res.tracks.values()].sort((a, b) => a.key.localeCompare(b.key))) {
    const t = opts.since !== undefined ? trimTrack(full, opts.since) : full;
    if (!t.rs && t.rounds.length === 0) continue;
    const [namespace, name] = t.key.split('/');
    const windows = [...t.windows, ...(t.open ? [t.open] : [])].map((w) => windowReport(t, w, end));
    const findings = findingsFor(t, res, end);
    const sevOrder = { critical: 0, warning: 1, info: 2 } as const;
    findings.sort((a, b) => sevOrder[a.severity] - sevOrder[b.severity] || (a.at ?? '').localeCompare(b.at ?? ''));
    const final = t.rs && t.deletedAt === undefined ? finalCounts(t.rs, res.pods) : undefined;
    const series = t.series.map((p) => ({ at: iso(p.at)!, desired: p.desired, active: p.active, terminating: p.terminating, ready: p.ready }));
    const pick = (k: 'desired' | 'active' | 'terminating' | 'ready') => {
      const v = t.series.map((p) => p[k]);
      if (final) v.push(final[k]);
      return range(v);
    };
    const rep: ReplicaSetReport = {
      key: t.key,
      namespace,
      name,
      uid: t.rs?.metadata.uid,
      uids: t.uids,
      owner: t.owner,
      verdict: verdictFor(t, res, findings, end),
      counts: { desired: pick('desired'), active: pick('active'), terminating: pick('terminating'), ready: pick('ready') },
      series,
      initialState: t.createdInCoverage ? {
        basis: 'inferred',
        until: iso(t.firstSeenAt),
        reason: 'the ReplicaSet was created after the input started, so the controller held no expectations for it',
      } : {
        basis: 'unknown',
        until: iso(t.firstSetAt),
        reason: t.firstSetAt !== undefined
          ? 'the controller may already have held expectations when the input starts; kexp knows its state from the first round it saw'
          : 'no round of creates or deletes in the input, so the controller\'s expectations are never known for certain',
      },
      syncs: { total: t.syncs, byOutcome: Object.fromEntries(Object.entries(t.syncsByOutcome).sort()) },
      accounting: accountingFor(t, res.writeEvidence, findings),
      rounds: t.rounds.map((r) => roundReport(r, t)),
      gatedWindows: windows,
      expectations: t.changes.map((c) => {
        const o: ReplicaSetReport['expectations'][number] = { at: iso(c.at)!, op: c.op, evidence: ref(c.source) ?? '' };
        if (c.add !== undefined) o.add = c.add;
        if (c.del !== undefined) o.del = c.del;
        if (c.keys) o.keys = c.keys;
        return o;
      }),
      expectationsTruncated: t.changesDropped > 0,
      ...(t.viewUnknown.length ? {
        viewUnknown: t.viewUnknown.map((u) => ({
          from: iso(u.from)!, ...(u.until !== undefined ? { until: iso(u.until) } : {}), reason: u.reason, evidence: refs(u.sources, 4),
        })),
      } : {}),
      findings,
      adoption: { at: iso(end), rows: t.deletedAt === undefined ? adoptionTable(t.rs, res.pods) : [] },
    };
    rsReports.push(opts.controllerLog ? fuseControllerLog(rep, t.writes, opts.controllerLog) : rep);
  }
  const timeBases = [...new Set(opts.inputs.map((i) => i.timeBasis))];
  const timeBasis = timeBases.map((b) =>
    b === 'received'
      ? 'received: events are stamped with kexp\'s receive time, taken as the time kube-controller-manager\'s informers saw them'
      : b === 'object-timestamp'
        ? 'object-timestamp: the input has no receive times; times come from object metadata (whole seconds, missing for many updates), so window edges are approximate and ordering within a second follows the file'
        : b === 'audit-stage'
          ? 'audit-stage: times are the apiserver\'s stageTimestamp (µs) of each write'
          : 'log: times are kube-controller-manager log timestamps',
  );
  const assumptions = [
    'The controller syncs a ReplicaSet within milliseconds of an enqueue; events with the same timestamp collapse into one sync.',
    `Writes made by a sync are matched to their consequences in the input within the match window (${Math.round((opts.matchWindowMs ?? 5000) / 1000)} s).`,
    ...(res.silences.length
      ? [`kexp simulates the controller at most 60 min past an input event: across ${plural(res.silences.length, 'silence')} of the input (the first from ${iso(res.silences[0]!.from)} to ${iso(res.silences[0]!.until)}, ${ref(res.silences[0]!.source)}) ${plural(res.silences.reduce((n, x) => n + x.dropped, 0), 'pending sync')} (requeues, backoff retries) were not simulated.`]
      : []),
    ...res.restarts.map((r) => r.via === 'log'
      ? `kube-controller-manager started its ReplicaSet controller at ${iso(r.at)} (${ref(r.source)}): every expectation record was dropped there.`
      : `kube-controller-manager restarted at ${iso(r.at)}: the ReplicaSet controller wrote with a new credential after ${fmtDuration(r.pauseMs)} without writes (${ref(r.source)}); every expectation record was dropped there.`),
    ...(opts.assumptions ?? []),
    ...(opts.controllerLog ? [`kube-controller-manager's own log (${opts.controllerLog.files.join(', ')}) checks the reconstruction: windows it shows are observed, its decisions are compared with kexp's, and its "Pod created" handler lines measure the informer lag of each create.`] : []),
  ];
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generator: { name: 'kexp', version: opts.kexpVersion, command: opts.command },
    k8sVersion: opts.k8sVersion,
    inputs: opts.inputs.map((i) => ({
      file: i.file, format: i.format, timeBasis: i.timeBasis, start: iso(i.start), end: iso(i.end), events: i.events, problems: i.problems, endMarker: i.endMarker,
    })),
    coverage: {
      start: iso(opts.since !== undefined && res.start !== undefined ? Math.max(res.start, opts.since) : res.start),
      end: iso(res.end),
      timeBasis,
      assumptions,
      gaps: res.gaps.map((g) => ({ at: iso(g.at)!, until: iso(g.until), reason: g.reason, detail: g.detail, evidence: `${g.source.file}:${g.source.line}` })),
      problems: { count: opts.problemCount ?? opts.problems.length, examples: opts.problems.slice(0, 5).map((p) => `${p.file}:${p.line}: ${p.message}`) },
    },
    replicaSets: rsReports,
  };
}

