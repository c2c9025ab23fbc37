/**
 * `kexp kcm-log`: parse kube-controller-manager logs into the ground-truth timeline per
 * ReplicaSet, optionally scoring a kexp Report (`--compare`) against it.
 */
import fs from 'node:fs';
import { openKcmLogSource, type KcmLogStats } from '../sources/kcm-log/kcm-log-source.js';
import { buildGroundTruth, type GroundTruth } from '../sources/kcm-log/ground-truth.js';
import type { InputProblem } from '../sources/source.js';
import { collectDiagnostics } from '../sources/diagnostics.js';
import { InputError } from '../sources/source.js';
import type { ControllerLogEvent } from '../timeline/event.js';
import { compareTimeline } from '../timeline/event.js';
import type { Report } from '../analysis/report-types.js';
import { REPORT_SCHEMA_VERSION } from '../analysis/report-types.js';
import { scoreReplicaSet, sumScores, type FidelityScore } from '../analysis/fidelity.js';
import { iso } from '../analysis/report-builder.js';
import { KEXP_VERSION } from '../version.js';

export const KCM_LOG_SCHEMA_VERSION = 'kexp.kcm-log/v1';

export interface KcmLogReplicaSet {
  key: string;
  syncs: { total: number; gated: number; fulfilled: number; expired: number; neverRecorded: number };
  raises: Array<{ at: string; add: number; del: number; keys?: string[]; evidence: string }>;
  gatedWindows: Array<{ start: string; end?: string; ended: string; expected?: { add: number; del: number }; leaked?: { add: number; del: number }; gatedSyncs: number; evidence: string }>;
  clobbers: Array<{ at: string; keys: string[]; evidence: string }>;
  slowStartFailures: Array<{ at: string; podsSkipped?: number; evidence: string }>;
  compare?: FidelityScore;
}

export interface KcmLogResult {
  schemaVersion: typeof KCM_LOG_SCHEMA_VERSION;
  generator: { name: 'kexp'; version: string; command: 'kcm-log' };
  inputs: Array<{ file: string; format: string; start?: string; end?: string; stats: KcmLogStats }>;
  restarts: string[];
  replicaSets: KcmLogReplicaSet[];
  compare?: { report: string; overall: FidelityScore };
}

function ref(s: { file: string; line: number }): string {
  return `${s.file}:${s.line}`;
}

function toRS(g: GroundTruth): KcmLogReplicaSet {
  const count = (d: string) => g.syncs.filter((s) => s.decision === d).length;
  return {
    key: g.rsKey,
    syncs: { total: g.syncs.length, gated: count('gated'), fulfilled: count('fulfilled'), expired: count('expired'), neverRecorded: count('never-recorded') },
    raises: g.raises.map((r) => ({ at: iso(r.at)!, add: r.add, del: r.del, ...(r.keys ? { keys: r.keys } : {}), evidence: ref(r.source) })),
    gatedWindows: g.gatedWindows.map((w) => ({
      start: iso(w.start)!, ...(w.end !== undefined ? { end: iso(w.end) } : {}), ended: w.ended,
      ...(w.expected ? { expected: w.expected } : {}), ...(w.leaked ? { leaked: w.leaked } : {}), gatedSyncs: w.gatedSyncs, evidence: ref(w.startSource),
    })),
    clobbers: g.clobbers.map((c) => ({ at: iso(c.at)!, keys: c.keys, evidence: ref(c.source) })),
    slowStartFailures: g.slowStartFailures.map((c) => ({ at: iso(c.at)!, podsSkipped: c.podsSkipped, evidence: ref(c.source) })),
  };
}

export interface KcmLogOptions {
  files: string[];
  rs?: string;
  compare?: string;
  year?: number;
  stdin?: NodeJS.ReadableStream;
  onProblem?: (p: InputProblem) => void;
  onWarning?: (m: string) => void;
}

/** Throws InputError for unreadable inputs or a --compare file that is not a kexp report. */
export async function kcmLogFiles(o: KcmLogOptions): Promise<{ result: KcmLogResult; problems: InputProblem[] }> {
  const diagnostics = collectDiagnostics(o.onProblem, o.onWarning);
  const problems = diagnostics.problems;
  let report: Report | undefined;
  if (o.compare) {
    let text: string;
    try {
      text = fs.readFileSync(o.compare, 'utf8');
    } catch (err) {
      throw new InputError(o.compare, 0, `cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    try {
      report = JSON.parse(text) as Report;
    } catch {
      throw new InputError(o.compare, 0, 'not JSON; --compare expects the output of `kexp replay|audit -o json`');
    }
    if (report.schemaVersion !== REPORT_SCHEMA_VERSION) {
      throw new InputError(o.compare, 0, `not a kexp report (schemaVersion ${JSON.stringify(report.schemaVersion)}, expected ${REPORT_SCHEMA_VERSION})`);
    }
  }
  const events: ControllerLogEvent[] = [];
  const inputs: KcmLogResult['inputs'] = [];
  for (const f of o.files) {
    const src = await openKcmLogSource(f, { diagnostics, year: o.year, stdin: o.stdin });
    for await (const e of src.events) if (e.type === 'controller-log') events.push(e);
    const cov = src.coverage();
    inputs.push({ file: f, format: src.format, start: iso(cov.start), end: iso(cov.end), stats: src.stats() });
  }
  events.sort(compareTimeline);
  const truth = buildGroundTruth(events);
  let rss = [...truth.values()].sort((a, b) => a.rsKey.localeCompare(b.rsKey));
  if (o.rs) rss = rss.filter((g) => g.rsKey === o.rs);
  const restarts = [...new Set(rss.flatMap((g) => g.restarts))].sort((a, b) => a - b).map((t) => iso(t)!);
  const out: KcmLogResult = {
    schemaVersion: KCM_LOG_SCHEMA_VERSION,
    generator: { name: 'kexp', version: KEXP_VERSION, command: 'kcm-log' },
    inputs,
    restarts,
    replicaSets: rss.map(toRS),
  };
  if (report) {
    const scores: FidelityScore[] = [];
    for (const [i, g] of rss.entries()) {
      const s = scoreReplicaSet(g, report.replicaSets.find((r) => r.key === g.rsKey));
      out.replicaSets[i]!.compare = s;
      scores.push(s);
    }
    out.compare = { report: o.compare!, overall: sumScores(scores) };
  }
  return { result: out, problems };
}
