/**
 * Turns a ReplayResult into the Report: per ReplicaSet (sorted by key) its counts and series,
 * rounds (report/rounds.ts), gated windows with how they ended (report/gated-windows.ts),
 * expectation changes, the replay's findings (the `replay` rules of findings/catalogue.ts, most
 * severe first), the write accounting, the adoption table (report/adoption-table.ts) and a
 * verdict (report/verdict.ts); and the coverage: inputs, time bases, assumptions, gaps and
 * problems. A kube-controller-manager log is fused afterwards (controller-log.ts).
 *
 * Pure: no I/O, no clock (the end of input is "now"). O(size of the tracks) plus the pods each
 * ReplicaSet controls at the end (finalCounts, the adoption table).
 */
import type { VersionInfo } from '../model/version.js';
import type { FileCoverage, InputProblem } from '../sources/source.js';
import { findingsFor } from './findings/catalogue.js';
import { sortFindings } from './findings/finding-rule.js';
import { firstLostObject, unprovenAfterLoss } from './report/lost-objects.js';
import { iso } from './iso.js';
import { finalCounts } from './engine/final-counts.js';
import { type ReplayResult } from './engine/replay-result.js';
import { adoptionTable } from './report/adoption-table.js';
import { inputSummary, timeBasisLine } from './report/coverage.js';
import { ref, refs } from './report/evidence-refs.js';
import { ownerResource } from './report/owner-kind.js';
import { ownerWords, syncAssumption } from './report/owner-words.js';
import { windowReport } from './report/gated-windows.js';
import { CLAIM_KINDS, trimTrack, type ReplayedTrack } from './report/replayed-track.js';
import { roundReport } from './report/rounds.js';
import { replayVerdict } from './report/verdict.js';
import { fmtDuration, plural } from './report/wording.js';
import { REPORT_SCHEMA_VERSION, type CountRange, type Finding, type Report, type ReplicaSetReport } from './report-types.js';
import { writeCount } from './engine/write-ledger.js';

export interface BuildOptions {
  command: string;
  kexpVersion: string;
  k8sVersion: VersionInfo;
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
  /** The match window the replay used (for the coverage notes). */
  matchWindowMs?: number;
  /** The owner kind replayed, when not the ReplicaSet (the commands next steps print name its resource). */
  ownerKind?: ReplicaSetReport['kind'];
}

function range(values: number[]): CountRange {
  if (values.length === 0) return { first: 0, last: 0, min: 0, max: 0 };
  return { first: values[0]!, last: values[values.length - 1]!, min: Math.min(...values), max: Math.max(...values) };
}

/** Where each of the ReplicaSet's controller writes went (see WriteAccounting). */
function accountingFor({ t, res }: ReplayedTrack, findings: Finding[]): ReplicaSetReport['accounting'] {
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
  return { evidence: res.writeEvidence, writes, inRounds, inFindings, byKind, failed };
}

/** What the controller's expectations were when the input starts, as far as kexp can know. */
function initialState({ t, resource }: ReplayedTrack): ReplicaSetReport['initialState'] {
  return t.createdInCoverage ? {
    basis: 'inferred',
    until: iso(t.firstSeenAt),
    reason: `the ${ownerWords(resource).noun} was created after the input started, so the controller held no expectations for it`,
  } : {
    basis: 'unknown',
    until: iso(t.firstSetAt),
    reason: t.firstSetAt !== undefined
      ? 'the controller may already have held expectations when the input starts; kexp knows its state from the first round it saw'
      : 'no round of creates or deletes in the input, so the controller\'s expectations are never known for certain',
  };
}

/** The report of one replayed ReplicaSet. */
function replicaSetReport(c: ReplayedTrack): ReplicaSetReport {
  const { t, end, final } = c;
  const [namespace, name] = t.key.split('/');
  // Windows first: an open window's outstanding counters are what its findings read.
  const windows = [...t.windows, ...(t.open ? [t.open] : [])].map((w) => windowReport(t, w, end, ownerWords(c.resource)));
  const findings = sortFindings(unprovenAfterLoss(findingsFor('replay', c), firstLostObject(c.res.gaps, CLAIM_KINDS[c.resource].kind, t.key)));
  const series = t.series.map((p) => ({ at: iso(p.at)!, desired: p.desired, active: p.active, terminating: p.terminating, ready: p.ready }));
  const pick = (k: 'desired' | 'active' | 'terminating' | 'ready') => {
    const v = t.series.map((p) => p[k]);
    if (final) v.push(final[k]);
    return range(v);
  };
  return {
    key: t.key,
    namespace,
    name,
    uid: t.rs?.metadata.uid,
    uids: t.uids,
    owner: t.owner,
    verdict: replayVerdict(c, findings),
    counts: { desired: pick('desired'), active: pick('active'), terminating: pick('terminating'), ready: pick('ready') },
    series,
    initialState: initialState(c),
    syncs: { total: t.syncs, byOutcome: Object.fromEntries(Object.entries(t.syncsByOutcome).sort()) },
    accounting: accountingFor(c, findings),
    rounds: t.rounds.map((r) => roundReport(r, t)),
    gatedWindows: windows,
    expectations: t.changes.map((x) => {
      const o: ReplicaSetReport['expectations'][number] = { at: iso(x.at)!, op: x.op, evidence: ref(x.source) ?? '' };
      if (x.add !== undefined) o.add = x.add;
      if (x.del !== undefined) o.del = x.del;
      if (x.keys) o.keys = x.keys;
      if (x.learnedAt !== undefined) o.learnedAt = iso(x.learnedAt)!;
      return o;
    }),
    expectationsTruncated: t.changesDropped > 0,
    ...(t.viewUnknown.length ? {
      viewUnknown: t.viewUnknown.map((u) => ({
        from: iso(u.from)!, ...(u.until !== undefined ? { until: iso(u.until) } : {}), reason: u.reason, evidence: refs(u.sources, 4),
      })),
    } : {}),
    findings,
    adoption: { at: iso(end), rows: t.deletedAt === undefined && t.rs ? adoptionTable(t.rs, c.res.pods, 'as-decided', CLAIM_KINDS[c.resource]) : [] },
  };
}

/** The assumptions every replayed report states, then the source's. */
function assumptionsOf(res: ReplayResult, opts: BuildOptions): string[] {
  const o = ownerWords(ownerResource({ kind: opts.ownerKind }));
  return [
    syncAssumption([o.noun]),
    `Writes made by a sync are matched to their consequences in the input within the match window (${Math.round((opts.matchWindowMs ?? 5000) / 1000)} s).`,
    ...(res.silences.length
      ? [`kexp simulates the controller at most 60 min past an input event: across ${plural(res.silences.length, 'silence')} of the input (the first from ${iso(res.silences[0]!.from)} to ${iso(res.silences[0]!.until)}, ${ref(res.silences[0]!.source)}) ${plural(res.silences.reduce((n, x) => n + x.dropped, 0), 'pending sync')} (requeues, backoff retries) were not simulated.`]
      : []),
    ...res.restarts.map((r) => r.via === 'log'
      ? `kube-controller-manager started its ${o.controller} at ${iso(r.at)} (${ref(r.source)}): every expectation record was dropped there.`
      : `kube-controller-manager restarted at ${iso(r.at)}: the ${o.controller} wrote with a new credential after ${fmtDuration(r.pauseMs)} without writes (${ref(r.source)}); every expectation record was dropped there.`),
    ...(opts.k8sVersion.differences ?? []).map((d) => `Kubernetes version: ${d}`),
    ...(opts.assumptions ?? []),
  ];
}

/** Builds the Report for every tracked ReplicaSet (sorted by key). */
export function buildReport(res: ReplayResult, opts: BuildOptions): Report {
  const end = res.end;
  const rsReports: ReplicaSetReport[] = [];
  for (const full of [...res.tracks.values()].sort((a, b) => a.key.localeCompare(b.key))) {
    const t = opts.since !== undefined ? trimTrack(full, opts.since) : full;
    if (!t.rs && t.rounds.length === 0) continue;
    const final = t.rs && t.deletedAt === undefined ? finalCounts(t.rs, res.pods) : undefined;
    rsReports.push(replicaSetReport({ t, res, end, final, resource: ownerResource({ kind: opts.ownerKind }) }));
  }
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generator: { name: 'kexp', version: opts.kexpVersion, command: opts.command },
    k8sVersion: opts.k8sVersion,
    inputs: opts.inputs.map(inputSummary),
    coverage: {
      start: iso(opts.since !== undefined && res.start !== undefined ? Math.max(res.start, opts.since) : res.start),
      end: iso(res.end),
      timeBasis: [...new Set(opts.inputs.map((i) => i.timeBasis))].map(timeBasisLine),
      assumptions: assumptionsOf(res, opts),
      gaps: res.gaps.map((g) => ({ at: iso(g.at)!, until: iso(g.until), reason: g.reason, detail: g.detail, evidence: `${g.source.file}:${g.source.line}` })),
      problems: { count: opts.problemCount ?? opts.problems.length, examples: opts.problems.slice(0, 5).map((p) => `${p.file}:${p.line}: ${p.message}`) },
    },
    replicaSets: rsReports,
  };
}
