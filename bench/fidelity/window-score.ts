/**
 * Window score: kexp's gated windows of one ReplicaSet against the controller's own, read from its
 * -v=4 log (src/sources/kcm-log/ground-truth.ts buildGroundTruth) — the unit issue #21 is judged
 * by. A decision score (src/analysis/fidelity.ts) counts syncs; this counts what an operator reads:
 * was the window there, how many syncs it gated, how and when it ended, was a leak that only the
 * ExpectationsTimeout freed found, how many rounds kexp saw per `Setting expectations`, and does
 * kexp's exit code say what the log's truth calls for (README "Exit codes").
 *
 * Contract: pure (no I/O, no clock). A log window is *matched* by at most one kexp window whose
 * basis is observed or inferred and whose start lies within `toleranceMs` of the log's start (the
 * nearest wins); a kexp window with basis `unknown` is never a match (unknown is not matched), it
 * is counted as such. Gated syncs agree when kexp's count is within 10% of the log's (exact
 * below 10). An end agrees when its kind maps to the log's and its time is within `toleranceMs`
 * (open windows: both open). A leak is a log window that ended `expired`: found when a matched
 * kexp window ended `expired`; an invented leak is a kexp window ended `expired` that matches no
 * expired log window. A record kexp Set and saw fulfilled before any sync (every create of the
 * round failed at once, e.g. quota) opens no window in its report: a log window with no kexp
 * window near it is matched by such a Set within `toleranceMs` (`instantWindows`: 0 gated syncs,
 * ended fulfilled when it reached zero), since kexp says the same — never gated. Cost:
 * O(windows²) per ReplicaSet — a handful.
 */
import type { GroundTruth, WindowEnd as LogEnd } from '../../src/sources/kcm-log/ground-truth.js';
import type { GatedWindow as KexpWindow, ReplicaSetReport, WindowEnd as KexpEnd } from '../../src/analysis/report-types.js';

/** The ExpectationsTimeout (pkg/controller/controller_utils.go ExpectationsTimeout = 5 * time.Minute). */
export const EXPECTATIONS_TIMEOUT_MS = 300_000;

/** What became of one window of the controller's log. */
export interface WindowVerdict {
  /** The log window's start (ms) and how it ended. */
  start: number;
  logEnded: LogEnd;
  logGatedSyncs: number;
  /** `matched`, `unknown` (kexp's window there says unknown), `missed` (no kexp window there). */
  outcome: 'matched' | 'unknown' | 'missed';
  kexpGatedSyncs?: number;
  kexpEnded?: KexpEnd;
  /** kexp's gated syncs within 10% of the log's. */
  syncsAgree?: boolean;
  /** kexp's end: same kind, within the tolerance. */
  endAgrees?: boolean;
  /** kexp's end minus the log's (ms), when both ended. */
  endDeltaMs?: number;
}

export interface WindowScore {
  /** Windows in the controller's log. */
  windows: number;
  matched: number;
  unknown: number;
  missed: number;
  /** kexp windows (basis observed/inferred) matching no log window. */
  invented: number;
  /** Of the matched: gated syncs within 10%, end that agrees. */
  syncsAgree: number;
  endsAgree: number;
  gatedSyncs: { log: number; kexp: number };
  /** Leaks only the timeout freed (log windows ended `expired`). */
  leaks: { log: number; found: number; missed: number; invented: number };
  /** `Setting expectations` in the log and kexp's rounds. */
  sets: number;
  rounds: number;
  verdicts: WindowVerdict[];
}

export interface WindowScoreOptions {
  /** How far apart a kexp window's start or end may be from the log's (receive times, clocks). Default 2 s. */
  toleranceMs?: number;
}

/** kexp's end kinds against the log's: a reset (a restart of the controller) is the log's `restart`. */
const END_OF: Record<KexpEnd, LogEnd[]> = {
  fulfilled: ['fulfilled'],
  expired: ['expired'],
  'rs-deleted': ['deleted'],
  reset: ['restart', 'superseded'],
  open: ['open'],
};

/** Gated syncs agree: within 10% of the log's count (so exact below 10). */
export function syncsWithin(kexp: number, log: number): boolean {
  return Math.abs(kexp - log) <= Math.floor(log * 0.1);
}

function startOf(w: KexpWindow): number {
  return Date.parse(w.start);
}

function endOf(w: KexpWindow): number | undefined {
  return w.end !== undefined ? Date.parse(w.end) : undefined;
}

/**
 * The records kexp Set and saw fulfilled before a sync could be gated by them (no gated window
 * starts at their Set): windows of no gated sync, ended `fulfilled` when the record reached zero.
 */
export function instantWindows(rs: ReplicaSetReport): KexpWindow[] {
  const starts = new Set(rs.gatedWindows.map((w) => Date.parse(w.start)));
  const out: KexpWindow[] = [];
  const changes = rs.expectations ?? [];
  for (let i = 0; i < changes.length; i++) {
    const set = changes[i]!;
    if (set.op !== 'set' || starts.has(Date.parse(set.at))) continue;
    let zeroAt: string | undefined = (set.add ?? 0) <= 0 && (set.del ?? 0) <= 0 ? set.at : undefined;
    for (let j = i + 1; j < changes.length && zeroAt === undefined; j++) {
      const c = changes[j]!;
      if (c.op === 'set' || c.op === 'delete' || c.op === 'raise') break;
      if (c.op === 'lower' && (c.add ?? 0) <= 0 && (c.del ?? 0) <= 0) zeroAt = c.at;
    }
    if (zeroAt === undefined) continue;
    out.push({ start: set.at, end: zeroAt, endedBy: 'fulfilled', fulfilledAt: zeroAt, basis: 'inferred', gatedSyncs: 0, raised: { add: set.add ?? 0, del: set.del ?? 0 }, evidence: [set.evidence] });
  }
  return out;
}

export function scoreWindows(truth: GroundTruth, rs: ReplicaSetReport | undefined, opts: WindowScoreOptions = {}): WindowScore {
  const tol = opts.toleranceMs ?? 2000;
  const gated = rs?.gatedWindows ?? [];
  // The report's windows first; the instant ones only where no window of the report is near.
  const kexp = [...gated, ...(rs ? instantWindows(rs) : [])];
  const used = new Set<number>();
  const verdicts: WindowVerdict[] = [];
  const score: WindowScore = {
    windows: truth.gatedWindows.length, matched: 0, unknown: 0, missed: 0, invented: 0, syncsAgree: 0, endsAgree: 0,
    gatedSyncs: { log: 0, kexp: 0 }, leaks: { log: 0, found: 0, missed: 0, invented: 0 },
    sets: truth.raises.filter((r) => r.op === 'set').length, rounds: rs?.rounds.filter((r) => r.kind !== 'claim').length ?? 0, verdicts,
  };
  const expiredMatched = new Set<number>();
  for (const lw of truth.gatedWindows) {
    score.gatedSyncs.log += lw.gatedSyncs;
    const expired = lw.ended === 'expired';
    if (expired) score.leaks.log++;
    // The nearest kexp window by start within the tolerance, not yet taken (a window of the report before an instant one).
    const nearest = (from: number, to: number): number => {
      let best = -1;
      for (let i = from; i < to; i++) {
        if (used.has(i)) continue;
        const d = Math.abs(startOf(kexp[i]!) - lw.start);
        if (d <= tol && (best < 0 || d < Math.abs(startOf(kexp[best]!) - lw.start))) best = i;
      }
      return best;
    };
    let best = nearest(0, gated.length);
    if (best < 0) best = nearest(gated.length, kexp.length);
    const v: WindowVerdict = { start: lw.start, logEnded: lw.ended, logGatedSyncs: lw.gatedSyncs, outcome: 'missed' };
    verdicts.push(v);
    if (best < 0) {
      score.missed++;
      if (expired) score.leaks.missed++;
      continue;
    }
    used.add(best);
    const kw = kexp[best]!;
    if (kw.basis === 'unknown') {
      v.outcome = 'unknown';
      score.unknown++;
      if (expired) score.leaks.missed++;
      continue;
    }
    v.outcome = 'matched';
    score.matched++;
    v.kexpGatedSyncs = kw.gatedSyncs;
    v.kexpEnded = kw.endedBy;
    score.gatedSyncs.kexp += kw.gatedSyncs;
    v.syncsAgree = syncsWithin(kw.gatedSyncs, lw.gatedSyncs);
    if (v.syncsAgree) score.syncsAgree++;
    const ke = endOf(kw);
    if (ke !== undefined && lw.end !== undefined) v.endDeltaMs = Math.round(ke - lw.end);
    const sameKind = END_OF[kw.endedBy].includes(lw.ended);
    v.endAgrees = sameKind && (lw.ended === 'open' ? kw.endedBy === 'open' : v.endDeltaMs !== undefined && Math.abs(v.endDeltaMs) <= tol);
    if (v.endAgrees) score.endsAgree++;
    if (expired) {
      if (kw.endedBy === 'expired') {
        score.leaks.found++;
        expiredMatched.add(best);
      } else score.leaks.missed++;
    }
  }
  for (let i = 0; i < gated.length; i++) {
    const kw = kexp[i]!;
    if (kw.basis === 'unknown') continue;
    if (!used.has(i)) score.invented++;
    if (kw.endedBy === 'expired' && !expiredMatched.has(i)) score.leaks.invented++;
  }
  return score;
}

/**
 * The exit code the controller's own log calls for (README "Exit codes", order 4, 3, 5): 4 when a
 * window ended by the timeout or is still open past it at the log's end; 3 when a window is open
 * (the controller is gated right now); 5 when its creates failed (the slow-start skip after a
 * failed create, pkg/controller/replicaset/replica_set.go slowStartBatch's caller); else 0.
 */
/**
 * The controller's log as far as an input reaching `at` covers it: the windows started by then,
 * one that ended later still open at `at`, the failed creates by then — the account kexp's input
 * could have shown (a recording stopped before the ReplicaSet's deletion saw the leak open).
 */
export function truthAt(t: GroundTruth, at: number): GroundTruth {
  const gatedWindows = t.gatedWindows.filter((w) => w.start <= at).map((w) => {
    if (w.end === undefined || w.end <= at) return w;
    const { end: _end, endSource: _src, ...rest } = w;
    // Its counters at zero by then: the next sync passes; the window gates no more (ended when they reached zero).
    if (w.satisfiedAt !== undefined && w.satisfiedAt <= at) return { ...rest, end: w.satisfiedAt, ended: 'fulfilled' as const };
    return { ...rest, ended: 'open' as const };
  });
  return { ...t, gatedWindows, slowStartFailures: t.slowStartFailures.filter((f) => f.at <= at) };
}

export function truthExitCode(truths: GroundTruth[], logEnd: number): 0 | 3 | 4 | 5 {
  const windows = truths.flatMap((t) => t.gatedWindows);
  // An open window whose counters reached zero gates no more: the log ends before the next sync (ground-truth.ts satisfiedAt).
  const gating = (w: (typeof windows)[number]) => w.ended === 'open' && w.satisfiedAt === undefined;
  if (windows.some((w) => w.ended === 'expired' || (gating(w) && logEnd - w.start >= EXPECTATIONS_TIMEOUT_MS))) return 4;
  if (windows.some(gating)) return 3;
  // A deleted ReplicaSet's past failures are history (README's table): only those still there count.
  if (truths.some((t) => t.slowStartFailures.length > 0 && !t.gatedWindows.some((w) => w.ended === 'deleted' && t.slowStartFailures.every((f) => f.at <= w.end!)))) return 5;
  return 0;
}

export function sumWindowScores(scores: WindowScore[]): WindowScore {
  const z: WindowScore = {
    windows: 0, matched: 0, unknown: 0, missed: 0, invented: 0, syncsAgree: 0, endsAgree: 0,
    gatedSyncs: { log: 0, kexp: 0 }, leaks: { log: 0, found: 0, missed: 0, invented: 0 }, sets: 0, rounds: 0, verdicts: [],
  };
  for (const s of scores) {
    for (const k of ['windows', 'matched', 'unknown', 'missed', 'invented', 'syncsAgree', 'endsAgree', 'sets', 'rounds'] as const) z[k] += s[k];
    z.gatedSyncs.log += s.gatedSyncs.log;
    z.gatedSyncs.kexp += s.gatedSyncs.kexp;
    for (const k of ['log', 'found', 'missed', 'invented'] as const) z.leaks[k] += s.leaks[k];
    z.verdicts.push(...s.verdicts);
  }
  return z;
}

