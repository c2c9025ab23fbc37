/**
 * Scores a kexp reconstruction (a Report from a recording or an audit log) against the
 * kube-controller-manager's own account of the same time (the ground truth built from its
 * -v=4 log by src/sources/kcm-log/ground-truth.ts).
 *
 * - sync decisions: for every SatisfiedExpectations line in the log (gated = "still
 *   waiting"; ungated = fulfilled / expired / never recorded), what kexp's reconstructed
 *   record says at that instant: gated, ungated, or unknown (before kexp knew the state);
 * - raises: every SetExpectations, matched in order to kexp's `set` changes within
 *   `raiseWindowMs`, exact when add and del are equal;
 * - leaks: ground-truth windows that ended by expiry (or by ReplicaSet deletion with
 *   counters left) vs kexp's windows ended the same way or open with a leak finding.
 *
 * An `unknown` answer is a miss for the score but not a false claim; both are reported.
 * Pure: no I/O, no clock.
 */
import { EXPECTATIONS_TIMEOUT_MS } from '../model/expectations.js';
import type { ReplicaSetReport } from './report-types.js';
import { isLeakWindow as isReportedLeak } from './report/gated-windows.js';

/** Ground truth per ReplicaSet, structurally what buildGroundTruth returns. */
export interface TruthLike {
  rsKey: string;
  /** Controller restarts ("Starting controller") in the log. */
  restarts?: number[];
  clobbers?: Array<{ at: number }>;
  syncs: Array<{ at: number; decision: 'gated' | 'fulfilled' | 'expired' | 'never-recorded'; source?: { file: string; line: number } }>;
  raises: Array<{ at: number; add: number | null; del: number | null; op: 'set' | 'raise' }>;
  gatedWindows: Array<{ start: number; end?: number; ended: string; leaked?: { add: number; del: number }; expected?: { add: number; del: number }; satisfiedAt?: number }>;
}

export interface FidelityScore {
  rsKey: string;
  syncs: { total: number; matched: number; mismatched: number; unknown: number };
  raises: { total: number; exact: number; countMismatch: number; missing: number; extra: number };
  leaks: { truth: number; found: number; truePositive: number };
  mismatches: string[];
  /** FILE:LINE of the log's line behind each sync mismatch (when the truth cites its lines). */
  mismatchRefs: string[];
}

export interface FidelityOptions {
  /** Receive-time skew tolerated between kexp's recorder and KCM's informer (ms). Default 50. */
  skewMs?: number;
  /** How far apart a logged Set and kexp's may be to count as the same raise (ms). Default 2000. */
  raiseWindowMs?: number;
}

type Decision = 'gated' | 'ungated' | 'unknown';

interface Change {
  at: number;
  op: string;
  add?: number;
  del?: number;
}

/** kexp's decision at `t` from its expectation changes (Set / Lower / Delete). */
export function decisionAt(rs: ReplicaSetReport, t: number): Decision {
  const knownFrom = rs.initialState.basis === 'unknown'
    ? (rs.initialState.until ? Date.parse(rs.initialState.until) : Infinity)
    : -Infinity;
  if (t < knownFrom) return 'unknown';
  for (const u of rs.viewUnknown ?? []) {
    if (t >= Date.parse(u.from) && (u.until === undefined || t <= Date.parse(u.until))) return 'unknown';
  }
  const changes: Change[] = rs.expectations.map((c) => ({ at: Date.parse(c.at), op: c.op, add: c.add, del: c.del }));
  if (rs.expectationsTruncated && changes.length && t < changes[0]!.at) return 'unknown';
  let rec: { add: number; del: number; setAt: number } | undefined;
  for (const c of changes) {
    if (c.at > t) break;
    if (c.op === 'set') rec = { add: c.add ?? 0, del: c.del ?? 0, setAt: c.at };
    else if ((c.op === 'lower' || c.op === 'raise') && rec) {
      rec.add = c.add ?? rec.add;
      rec.del = c.del ?? rec.del;
    } else if (c.op === 'delete') rec = undefined;
  }
  if (!rec || (rec.add <= 0 && rec.del <= 0)) return 'ungated';
  return t - rec.setAt > EXPECTATIONS_TIMEOUT_MS ? 'ungated' : 'gated';
}

/**
 * Whether kexp's record says `want` at the controller's decision at `at`: `matched` when it does at
 * any instant within ±skew — the ends, and either side of every expectation change in between (a
 * window shorter than the skew would otherwise fall between the samples; the skew is receive-time
 * uncertainty) — else `unknown` when kexp did not know its state at `at`, else `mismatched`.
 */
export function decisionMatches(rs: ReplicaSetReport, at: number, want: 'gated' | 'ungated', skew: number): 'matched' | 'mismatched' | 'unknown' {
  const a = decisionAt(rs, at);
  if (a === want) return 'matched';
  const probes = [at + skew, at - skew];
  for (const c of rs.expectations) {
    const t = Date.parse(c.at);
    if (t >= at - skew && t <= at + skew) probes.push(t - 1, t);
  }
  if (probes.some((t) => decisionAt(rs, t) === want)) return 'matched';
  return a === 'unknown' ? 'unknown' : 'mismatched';
}

function isLeakWindow(w: TruthLike['gatedWindows'][number]): boolean {
  if (w.ended === 'expired') return true;
  if (w.ended === 'deleted' && w.leaked && (w.leaked.add > 0 || w.leaked.del > 0)) return true;
  // Deleted before the counters ever reached zero: the deletion, not an observation, ended it.
  if (w.ended === 'deleted' && w.satisfiedAt === undefined && w.expected && (w.expected.add > 0 || w.expected.del > 0)) return true;
  return false;
}

export function scoreReplicaSet(truth: TruthLike, rs: ReplicaSetReport | undefined, opts: FidelityOptions = {}): FidelityScore {
  const skew = opts.skewMs ?? 50;
  const raiseWindow = opts.raiseWindowMs ?? 2000;
  const score: FidelityScore = {
    rsKey: truth.rsKey,
    syncs: { total: 0, matched: 0, mismatched: 0, unknown: 0 },
    raises: { total: 0, exact: 0, countMismatch: 0, missing: 0, extra: 0 },
    leaks: { truth: 0, found: 0, truePositive: 0 },
    mismatches: [],
    mismatchRefs: [],
  };
  for (const s of truth.syncs) {
    score.syncs.total++;
    if (!rs) {
      score.syncs.unknown++;
      continue;
    }
    const want: Decision = s.decision === 'gated' ? 'gated' : 'ungated';
    const m = decisionMatches(rs, s.at, want, skew);
    const a = decisionAt(rs, s.at);
    if (m === 'matched') score.syncs.matched++;
    else if (m === 'unknown') score.syncs.unknown++;
    else {
      score.syncs.mismatched++;
      const at = s.source ? `${s.source.file}:${s.source.line}` : undefined;
      if (score.mismatches.length < 10) score.mismatches.push(`sync at ${new Date(s.at).toISOString()}: KCM ${s.decision}${at ? ` (${at})` : ''}, kexp ${a}`);
      if (at && score.mismatchRefs.length < 10) score.mismatchRefs.push(at);
    }
  }
  const sets = (rs?.expectations ?? []).filter((c) => c.op === 'set').map((c) => ({ at: Date.parse(c.at), add: c.add ?? 0, del: c.del ?? 0, used: false }));
  for (const r of truth.raises.filter((x) => x.op === 'set')) {
    score.raises.total++;
    const m = sets.find((x) => !x.used && Math.abs(x.at - r.at) <= raiseWindow);
    if (!m) {
      score.raises.missing++;
      if (score.mismatches.length < 10) score.mismatches.push(`Set at ${new Date(r.at).toISOString()} (add ${r.add}, del ${r.del}) not reproduced`);
      continue;
    }
    m.used = true;
    // A Set whose counts the log does not tell (null) can only be matched in time.
    if ((r.add === null || r.add === undefined || m.add === r.add) && (r.del === null || r.del === undefined || m.del === r.del)) score.raises.exact++;
    else {
      score.raises.countMismatch++;
      if (score.mismatches.length < 10) score.mismatches.push(`Set at ${new Date(r.at).toISOString()}: KCM add ${r.add} del ${r.del}, kexp add ${m.add} del ${m.del}`);
    }
  }
  score.raises.extra = sets.filter((x) => !x.used).length;
  score.leaks.truth = truth.gatedWindows.filter(isLeakWindow).length;
  const kexpLeaks = (rs?.gatedWindows ?? []).filter(isReportedLeak);
  score.leaks.found = kexpLeaks.length;
  for (const w of truth.gatedWindows.filter(isLeakWindow)) {
    if (kexpLeaks.some((k) => Math.abs(Date.parse(k.start) - w.start) <= raiseWindow)) score.leaks.truePositive++;
  }
  return score;
}

/** The controller's pod writes for one ReplicaSet, counted from an independent record of them (its audit log). */
export interface WriteTruth {
  create: number;
  delete: number;
  adopt: number;
  release: number;
}

export interface WriteScore {
  /** Writes in the truth. */
  truth: number;
  /** Writes kexp reports as made (or failed) beyond the truth, per kind. */
  invented: number;
  /** Truth writes in no round and no finding of kexp. */
  dropped: number;
  /** Calls kexp reports with an unknown outcome. */
  unknown: number;
}

/** Writes kexp's rounds report as made (succeeded or failed), per kind. */
export function madeWrites(rs: ReplicaSetReport): WriteTruth {
  const out: WriteTruth = { create: 0, delete: 0, adopt: 0, release: 0 };
  for (const r of rs.rounds) {
    if (r.kind === 'create') out.create += (r.calls ?? 0) - (r.unknown ?? 0);
    else if (r.kind === 'delete') out.delete += r.n - (r.unknown ?? 0) - (r.unmade ?? 0);
    else {
      out.adopt += r.adopted?.length ?? 0;
      out.release += r.released?.length ?? 0;
    }
  }
  return out;
}

/** Scores kexp's rounds for one ReplicaSet against the writes the controller really made. */
export function scoreWrites(truth: WriteTruth, rs: ReplicaSetReport | undefined): WriteScore {
  const total = truth.create + truth.delete + truth.adopt + truth.release;
  if (!rs) return { truth: total, invented: 0, dropped: total, unknown: 0 };
  const made = madeWrites(rs);
  let invented = 0;
  let made0 = 0;
  for (const k of ['create', 'delete', 'adopt', 'release'] as const) {
    invented += Math.max(0, made[k] - truth[k]);
    made0 += Math.min(made[k], truth[k]);
  }
  const unknown = rs.rounds.reduce((n, r) => n + (r.unknown ?? 0), 0);
  const dropped = Math.max(0, total - made0 - rs.accounting.inFindings - unknown);
  return { truth: total, invented, dropped, unknown };
}

/** Anomalies the log shows (leaks, restarts, clobbered delete keys) against kexp's findings. */
export interface AnomalyScore {
  truth: number;
  found: number;
  missed: number;
  false: number;
}

export function scoreAnomalies(truth: TruthLike, rs: ReplicaSetReport | undefined, window = 2000): AnomalyScore {
  const want: Array<{ kind: string; at: number }> = [
    ...truth.gatedWindows.filter(isLeakWindow).map((w) => ({ kind: 'leak', at: w.start })),
    // A "Starting controller" before any activity of this ReplicaSet is the controller's first start.
    ...(truth.restarts ?? []).filter((at) => truth.syncs.some((x) => x.at < at) || truth.raises.some((x) => x.at < at)).map((at) => ({ kind: 'restart', at })),
    ...(truth.clobbers ?? []).map((c) => ({ kind: 'clobber', at: c.at })),
  ];
  const got: Array<{ kind: string; at: number; used?: boolean }> = [
    ...(rs?.gatedWindows ?? []).filter(isReportedLeak).map((w) => ({ kind: 'leak', at: Date.parse(w.start) })),
    ...(rs?.findings ?? []).filter((f) => f.id === 'controller-restarted' || f.id === 'record-contradicted').map((f) => ({ kind: 'restart', at: Date.parse(f.at ?? '') })),
    ...(rs?.findings ?? []).filter((f) => f.id === 'clobbered-delete-keys').map((f) => ({ kind: 'clobber', at: Date.parse(f.at ?? '') })),
  ];
  let found = 0;
  for (const w of want) {
    // A restart is found when kexp saw the controller act on it, whenever that was after it.
    const m = got.find((g) => !g.used && g.kind === w.kind && (w.kind === 'restart' ? g.at >= w.at - window : Math.abs(g.at - w.at) <= window));
    if (m) {
      m.used = true;
      found++;
    }
  }
  return { truth: want.length, found, missed: want.length - found, false: got.filter((g) => !g.used).length };
}

/** Sums scores (for the overall row). */
export function sumScores(scores: FidelityScore[], rsKey = 'overall'): FidelityScore {
  const out: FidelityScore = {
    rsKey,
    syncs: { total: 0, matched: 0, mismatched: 0, unknown: 0 },
    raises: { total: 0, exact: 0, countMismatch: 0, missing: 0, extra: 0 },
    leaks: { truth: 0, found: 0, truePositive: 0 },
    mismatches: [],
    mismatchRefs: [],
  };
  for (const s of scores) {
    for (const k of Object.keys(out.syncs) as Array<keyof FidelityScore['syncs']>) out.syncs[k] += s.syncs[k];
    for (const k of Object.keys(out.raises) as Array<keyof FidelityScore['raises']>) out.raises[k] += s.raises[k];
    for (const k of Object.keys(out.leaks) as Array<keyof FidelityScore['leaks']>) out.leaks[k] += s.leaks[k];
    out.mismatches.push(...s.mismatches);
    out.mismatchRefs.push(...s.mismatchRefs);
  }
  return out;
}

export function pct(n: number, d: number): string {
  return d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)}%`;
}
