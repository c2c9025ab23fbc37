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
import { isLeakWindow as isReportedLeak } from './report-builder.js';

/** Ground truth per ReplicaSet, structurally what buildGroundTruth returns. */
export interface TruthLike {
  rsKey: string;
  syncs: Array<{ at: number; decision: 'gated' | 'fulfilled' | 'expired' | 'never-recorded' }>;
  raises: Array<{ at: number; add: number | null; del: number | null; op: 'set' | 'raise' }>;
  gatedWindows: Array<{ start: number; end?: number; ended: string; leaked?: { add: number; del: number }; expected?: { add: number; del: number }; satisfiedAt?: number }>;
}

export interface FidelityScore {
  rsKey: string;
  syncs: { total: number; matched: number; mismatched: number; unknown: number };
  raises: { total: number; exact: number; countMismatch: number; missing: number; extra: number };
  leaks: { truth: number; found: number; truePositive: number };
  mismatches: string[];
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
  const changes: Change[] = rs.expectations.map((c) => ({ at: Date.parse(c.at), op: c.op, add: c.add, del: c.del }));
  if (rs.expectationsTruncated && changes.length && t < changes[0]!.at) return 'unknown';
  let rec: { add: number; del: number; setAt: number } | undefined;
  for (const c of changes) {
    if (c.at > t) break;
    if (c.op === 'set') rec = { add: c.add ?? 0, del: c.del ?? 0, setAt: c.at };
    else if (c.op === 'lower' && rec) {
      rec.add = c.add ?? rec.add;
      rec.del = c.del ?? rec.del;
    } else if (c.op === 'delete') rec = undefined;
  }
  if (!rec || (rec.add <= 0 && rec.del <= 0)) return 'ungated';
  return t - rec.setAt > EXPECTATIONS_TIMEOUT_MS ? 'ungated' : 'gated';
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
  };
  for (const s of truth.syncs) {
    score.syncs.total++;
    if (!rs) {
      score.syncs.unknown++;
      continue;
    }
    const want: Decision = s.decision === 'gated' ? 'gated' : 'ungated';
    const a = decisionAt(rs, s.at);
    const b = decisionAt(rs, s.at + skew);
    const c = decisionAt(rs, s.at - skew);
    if (a === want || b === want || c === want) score.syncs.matched++;
    else if (a === 'unknown') score.syncs.unknown++;
    else {
      score.syncs.mismatched++;
      if (score.mismatches.length < 10) score.mismatches.push(`sync at ${new Date(s.at).toISOString()}: KCM ${s.decision}, kexp ${a}`);
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

/** Sums scores (for the overall row). */
export function sumScores(scores: FidelityScore[], rsKey = 'overall'): FidelityScore {
  const out: FidelityScore = {
    rsKey,
    syncs: { total: 0, matched: 0, mismatched: 0, unknown: 0 },
    raises: { total: 0, exact: 0, countMismatch: 0, missing: 0, extra: 0 },
    leaks: { truth: 0, found: 0, truePositive: 0 },
    mismatches: [],
  };
  for (const s of scores) {
    for (const k of Object.keys(out.syncs) as Array<keyof FidelityScore['syncs']>) out.syncs[k] += s.syncs[k];
    for (const k of Object.keys(out.raises) as Array<keyof FidelityScore['raises']>) out.raises[k] += s.raises[k];
    for (const k of Object.keys(out.leaks) as Array<keyof FidelityScore['leaks']>) out.leaks[k] += s.leaks[k];
    out.mismatches.push(...s.mismatches);
  }
  return out;
}

export function pct(n: number, d: number): string {
  return d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)}%`;
}
