/**
 * The judge of the bug-cases bench: written criteria, one list per public incident of
 * ../shared/docs/bug-cases.md, checked against the report kexp produced for the rebuilt input.
 * A criterion is a named predicate over one run (the report, the ReplicaSet the case is about,
 * the exit code by src/cli/report-exit.ts, the input's problems); it returns true, or the reason
 * it failed (what kexp said instead). Criteria marked `key` carry the case's diagnosis: a run
 * is `fully right` when every criterion holds, `partly right` when a key criterion holds but
 * another fails, `wrong` when every key criterion fails. A case with several inputs (variants,
 * or a capture read as a recording and as an audit log) is fully right only when each is.
 *
 * Contract: pure over a Report (no I/O, no clock); the criteria are built by the exported
 * functions below, each naming the report field it reads. Cost: linear in the report.
 */
import type { Finding, Report, ReplicaSetReport } from '../../src/analysis/report-types.js';
import { causeOf } from '../../src/render/next-steps.js';
import { countedLeakWindows } from '../../src/cli/report-exit.js';

/** One input kexp ran on, with what it said. */
export interface CaseRun {
  report: Report;
  /** The ReplicaSet the case is about (by key), undefined when the report lacks it. */
  rs?: ReplicaSetReport;
  exit: number;
  problems: number;
}

export interface Criterion {
  name: string;
  /** Carries the case's diagnosis (see the header). */
  key?: boolean;
  check: (r: CaseRun) => true | string;
}

export type Grade = 'fully right' | 'partly right' | 'wrong';

export interface Judgement {
  met: number;
  total: number;
  failed: Array<{ name: string; why: string }>;
  grade: Grade;
}

/** Applies the criteria to one run. A criterion that throws fails with its message. */
export function judge(run: CaseRun, criteria: Criterion[]): Judgement {
  const failed: Judgement['failed'] = [];
  const keyResults: boolean[] = [];
  for (const c of criteria) {
    let res: true | string;
    try {
      res = c.check(run);
    } catch (e) {
      res = `threw: ${(e as Error).message}`;
    }
    if (res !== true) failed.push({ name: c.name, why: res });
    if (c.key) keyResults.push(res === true);
  }
  const grade: Grade = failed.length === 0 ? 'fully right' : keyResults.length > 0 && keyResults.every((k) => !k) ? 'wrong' : 'partly right';
  return { met: criteria.length - failed.length, total: criteria.length, failed, grade };
}

/** A case's grade from its runs' grades: fully right only when every run is; wrong when every run is. */
export function caseGrade(grades: Grade[]): Grade {
  if (grades.every((g) => g === 'fully right')) return 'fully right';
  if (grades.every((g) => g === 'wrong')) return 'wrong';
  return 'partly right';
}

// ---- criteria over the report -------------------------------------------------------------

const rsOf = (r: CaseRun): ReplicaSetReport => {
  if (!r.rs) throw new Error('the ReplicaSet is not in the report');
  return r.rs;
};
/** What a finding says: its title, explanation and next step. */
export const findingText = (f: Finding) => `${f.title} ${f.explanation} ${f.nextStep}`;
const short = (f: Finding) => `${f.id}(${f.severity},${f.basis})`;
const listFindings = (rs: ReplicaSetReport) => rs.findings.map(short).join(', ') || 'no findings';

/** The input was read without problems and the ReplicaSet is reported. */
export function readCleanly(): Criterion {
  return { name: 'input read without problems, ReplicaSet reported', check: (r) => (r.problems === 0 ? (r.rs ? true : 'ReplicaSet missing from the report') : `${r.problems} input problem(s)`) };
}

/** The exit code the README's exit-code table calls for (src/cli/report-exit.ts). */
export function exitCode(expected: number, why: string): Criterion {
  return { name: `exit ${expected} (${why})`, check: (r) => (r.exit === expected ? true : `exit ${r.exit}`) };
}

/** The verdict's state is one of `states`; with `basis`, its basis is one of those. */
export function verdict(states: string[], basis?: string[]): Criterion {
  return {
    name: `verdict ${states.join('|')}${basis ? ` [${basis.join('|')}]` : ''}`,
    check: (r) => {
      const v = rsOf(r).verdict;
      return states.includes(v.state) && (!basis || basis.includes(v.basis)) ? true : `verdict ${v.state} [${v.basis}]`;
    },
  };
}

export interface FindingSpec {
  /** Any of these ids carries the diagnosis. */
  ids: string[];
  /** Each must match the finding's title + explanation. */
  says?: RegExp[];
  /** Allowed bases (default: observed or inferred — a diagnosis of basis unknown sets no code and claims nothing). */
  basis?: string[];
  /** Severity at least warning. */
  attention?: boolean;
}

function matchingFinding(rs: ReplicaSetReport, spec: FindingSpec): { f?: Finding; why: string } {
  const bases = spec.basis ?? ['observed', 'inferred'];
  const cands = rs.findings.filter((f) => spec.ids.includes(f.id));
  if (cands.length === 0) return { why: `none of ${spec.ids.join('/')}; kexp had ${listFindings(rs)}` };
  for (const f of cands) {
    const text = findingText(f);
    const missing = (spec.says ?? []).filter((re) => !re.test(text));
    if (!bases.includes(f.basis)) continue;
    if (spec.attention && f.severity === 'info') continue;
    if (missing.length === 0) return { f, why: '' };
  }
  const f = cands[0]!;
  const missing = (spec.says ?? []).filter((re) => !re.test(findingText(f))).map(String);
  return { why: `${short(f)}${missing.length ? ` does not say ${missing.join(', ')}` : ''}${!bases.includes(f.basis) ? ` (basis ${f.basis}, wanted ${bases.join('|')})` : ''}${spec.attention && f.severity === 'info' ? ' (severity info)' : ''}` };
}

/** A finding carrying the diagnosis: one of `ids`, of known basis, saying each of `says`. */
export function finding(name: string, spec: FindingSpec, key = true): Criterion {
  return { name, key, check: (r) => matchingFinding(rsOf(r), spec).f ? true : matchingFinding(rsOf(r), spec).why };
}

/** The Cause line (src/render/next-steps.ts causeOf: the worst finding) names the diagnosis. */
export function causeNames(spec: FindingSpec): Criterion {
  return {
    name: `Cause line is the ${spec.ids.join('/')} finding`,
    check: (r) => {
      const rs = rsOf(r);
      const cause = causeOf(rs);
      if (!cause) return 'no Cause line (nothing needs attention)';
      const f = matchingFinding(rs, spec).f;
      if (!f) return `Cause: "${cause.slice(0, 120)}" (the diagnosis finding is missing)`;
      const title = f.title.trim().replace(/[.!?]$/, '');
      return cause.startsWith(title) || cause.includes(title) || f.explanation.includes(cause.replace(/[.!?]$/, '')) ? true : `Cause: "${cause.slice(0, 140)}"`;
    },
  };
}

/** No leak claimed: no leak finding of known basis, no window that sets exit 4. */
export function noLeak(): Criterion {
  return {
    name: 'no leak claimed',
    check: (r) => {
      const rs = rsOf(r);
      const leaks = rs.findings.filter((f) => f.basis !== 'unknown' && /^expectation-leak-(expired|open|suspected)$/.test(f.id));
      const windows = countedLeakWindows(rs);
      return leaks.length === 0 && windows.length === 0 ? true : `${leaks.map(short).join(', ')}${windows.length ? ` ${windows.length} leak window(s)` : ''}`;
    },
  };
}

/** None of these finding ids (a false claim the diagnosis rules out). */
export function noFinding(ids: string[], why: string): Criterion {
  return {
    name: `no ${ids.join('/')} (${why})`,
    check: (r) => {
      const hit = rsOf(r).findings.filter((f) => ids.includes(f.id) && f.basis !== 'unknown');
      const counts = new Map<string, number>();
      for (const f of hit) counts.set(short(f), (counts.get(short(f)) ?? 0) + 1);
      return hit.length === 0 ? true : [...counts].map(([k, n]) => (n > 1 ? `${n}× ${k}` : k)).join(', ');
    },
  };
}

/**
 * The writes as the input shows them: kexp accounts for every one (accounting.writes, all in a
 * round or a finding) and claims no more — `expected` controller pod writes, by kind.
 */
export function writesAccounted(expected: { create?: number; delete?: number; adopt?: number; release?: number }): Criterion {
  const total = Object.values(expected).reduce((a, b) => a + (b ?? 0), 0);
  return {
    name: `every write accounted, none invented (${Object.entries(expected).map(([k, v]) => `${k} ${v}`).join(', ')})`,
    check: (r) => {
      const a = rsOf(r).accounting;
      const bad: string[] = [];
      if (a.writes !== total) bad.push(`writes ${a.writes} (input: ${total})`);
      if (a.inRounds + a.inFindings !== a.writes) bad.push(`inRounds ${a.inRounds} + inFindings ${a.inFindings} ≠ ${a.writes}`);
      for (const [k, v] of Object.entries(expected)) {
        const got = a.byKind[k as keyof typeof a.byKind];
        if (got !== v) bad.push(`${k} ${got} (input: ${v})`);
      }
      return bad.length ? bad.join('; ') : true;
    },
  };
}

/** No round claims a write as made that the input does not show (rounds of basis observed/inferred with writes beyond the input). */
export function noInventedRounds(maxRounds: number, kind?: string): Criterion {
  return {
    name: `at most ${maxRounds} ${kind ?? ''} round(s) of known basis (no invented round)`.replace('  ', ' '),
    check: (r) => {
      const n = rsOf(r).rounds.filter((x) => x.basis !== 'unknown' && (!kind || x.kind === kind)).length;
      return n <= maxRounds ? true : `${n} rounds`;
    },
  };
}

/** The rounds, in order, as [kind, n] (only rounds of known basis), e.g. [['create', 3], ['delete', 3]]. */
export function rounds(expected: Array<[string, number]>, why: string, key = false): Criterion {
  return {
    key,
    name: `rounds ${expected.map(([k, n]) => `${k} ${n}`).join(', ')} (${why})`,
    check: (r) => {
      const got = rsOf(r).rounds.filter((x) => x.basis !== 'unknown').map((x) => [x.kind, x.n] as [string, number]);
      const s = (xs: Array<[string, number]>) => xs.map(([k, n]) => `${k} ${n}`).join(', ');
      return s(got) === s(expected) ? true : `rounds ${got.length > 8 ? `${s(got.slice(0, 8))}, … (${got.length})` : s(got)}`;
    },
  };
}

/** A gated window ended the way the diagnosis says (`expired`, `fulfilled`, `rs-deleted`, …), of known basis. */
export function windowEnded(endedBy: string, why: string, o: { remainingAdd?: number; remainingDel?: number } = {}): Criterion {
  return {
    name: `a window ended ${endedBy}${o.remainingAdd !== undefined ? ` with add=${o.remainingAdd} left` : ''}${o.remainingDel !== undefined ? ` with del=${o.remainingDel} left` : ''} (${why})`,
    check: (r) => {
      const ws = rsOf(r).gatedWindows;
      const w = ws.find((x) => x.endedBy === endedBy && x.basis !== 'unknown' &&
        (o.remainingAdd === undefined || x.remaining?.add === o.remainingAdd) && (o.remainingDel === undefined || x.remaining?.del === o.remainingDel));
      return w ? true : `windows: ${ws.map((x) => `${x.endedBy}[${x.basis}]${x.remaining ? ` add=${x.remaining.add} del=${x.remaining.del}` : ''}`).join(', ') || 'none'}`;
    },
  };
}

/** No window ended this way (e.g. no `expired` where the diagnosis says the record never gated). */
export function noWindowEnded(endedBy: string, why: string): Criterion {
  return {
    name: `no window ended ${endedBy} (${why})`,
    check: (r) => {
      const ws = rsOf(r).gatedWindows.filter((x) => x.endedBy === endedBy && x.basis !== 'unknown');
      return ws.length === 0 ? true : `${ws.length} window(s) ended ${endedBy}`;
    },
  };
}

/**
 * The version the incident happened on is the one the report names (taken from the input), and
 * a release kexp does not model exactly is said to be replayed as another (never silently).
 */
export function versionSaid(version: string): Criterion {
  return {
    name: `Kubernetes ${version} taken from the input${' and its modelling said'}`,
    check: (r) => {
      const v = r.report.k8sVersion;
      if (v.version !== version) return `version ${v.version} [${v.basis}]`;
      if (v.basis !== 'input') return `basis ${v.basis}`;
      const [, minor] = /^v1\.(\d+)/.exec(version) ?? [];
      if (minor !== undefined && Number(minor) < 25 && !v.modelledAs) return 'older than modelled but no modelledAs';
      return true;
    },
  };
}

/** A free-form check over the ReplicaSet report, for what no helper above reads. */
export function custom(name: string, check: (rs: ReplicaSetReport, r: CaseRun) => true | string, key = false): Criterion {
  return { name, key, check: (r) => check(rsOf(r), r) };
}
