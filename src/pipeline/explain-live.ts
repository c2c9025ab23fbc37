/**
 * `kexp explain`'s engine room. Two halves:
 *
 * 1. Pure analysis of a point-in-time snapshot (src/sources/live/snapshot.ts) of one
 *    ReplicaSet: counts, conditions, Events (aggregated ones too), quotas, namespace phase,
 *    owner → a verdict with its basis, findings with next steps, the reconstructed recent
 *    timeline (from Events' first/lastTimestamp and count, pod creation/deletion timestamps,
 *    managedFields times) and the adoption table. A snapshot cannot see the controller's
 *    expectations; it says so (`unknown`) and infers only what the API state forces:
 *    - RS deletionTimestamp → deleting;
 *    - namespace Terminating, RS not deleted, fewer active pods than desired → the
 *      NamespaceTerminating expectation leak;
 *    - ReplicaFailure condition or FailedCreate/FailedDelete newer than the last progress → failing;
 *    - pods missing (or surplus), the controller has synced the spec, nothing failed and
 *      nothing moved for 30 s → gated on an expectation that is not being fulfilled
 *      (a leak once that has lasted longer than the 5-minute ExpectationsTimeout);
 *    - active == desired and observedGeneration == generation → healthy.
 * 2. Orchestration: snapshot, then optionally `--watch DURATION` — the same Reflectors and
 *    recording format as `kexp record` (a temporary recording, or the user's `--record FILE`),
 *    replayed through the controller model — and a merge of both into one Report
 *    (`generator.command: "explain"`, schema/report.schema.json).
 *
 * Renderers for the terminal and a self-contained HTML page are at the end; they only read
 * the result.
 */
import { wrap } from '../render/text.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { controllerRefOf, objectKey, type Pod, type ReplicaSet } from '../model/objects.js';
import { DEFAULT_K8S_VERSION, parseK8sVersion } from '../model/version.js';
import { iso } from '../analysis/report-builder.js';
import {
  REPORT_SCHEMA_VERSION,
  type Basis,
  type Finding,
  type InputSummary,
  type Report,
  type ReplicaSetReport,
  type VerdictState,
} from '../analysis/report-types.js';
import { ClusterError } from '../sources/live/api-client.js';
import type { ClusterAccess } from '../sources/live/kubeconfig.js';
import { takeSnapshot, type Deployment, type LiveSnapshot, type SnapshotTarget } from '../sources/live/snapshot.js';
import { KEXP_VERSION } from '../version.js';
import { recordLive } from './record-live.js';
import { checkRecordingTarget } from '../sources/live/recording-writer.js';
import { analyseSnapshot, eventTimes, snapshotReplicaSetReport, STALL_MS, type RsFacts, type SnapshotAnalysis, type TimelineEntry } from '../analysis/snapshot-analysis.js';

export {
  adoptionRows,
  analyseSnapshot,
  eventTimes,
  exhaustedQuotas,
  RECENT_FAILURE_MS,
  STALL_MS,
  type RsFacts,
  type SnapshotAnalysis,
  type TimelineEntry,
} from '../analysis/snapshot-analysis.js';
import { replayFiles } from './replay-files.js';
import { terminalSafeDeep } from '../render/terminal-safe.js';

const TIMELINE_MAX = 40;

// ------------------------------------------------------------------------------------------ types

export interface RsExplanation {
  /** The schema'd part (also in Report.replicaSets). */
  report: ReplicaSetReport;
  facts: RsFacts;
  timeline: TimelineEntry[];
  timelineOmitted: number;
  nextSteps: string[];
}

export interface ExplainResult {
  report: Report;
  explanations: RsExplanation[];
  snapshot: { takenAt: number; server: string; context: string; namespace: string; unavailable: LiveSnapshot['unavailable'] };
  watch?: { file: string; kept: boolean; durationMs: number; endReason: string; events: number; gaps: number; problems: number };
  warnings: string[];
}

// ------------------------------------------------------------------------------------------ merge with a watch

const SEV = { critical: 0, warning: 1, info: 2 } as const;

function sortFindings(f: Finding[]): Finding[] {
  return f.sort((a, b) => SEV[a.severity] - SEV[b.severity] || (a.at ?? '').localeCompare(b.at ?? ''));
}

/**
 * The final verdict of `explain`: the watch sees the controller act (or not) and is newer than
 * the snapshot, so its gated/leaked/failing/deleted verdicts win; the snapshot's
 * deleting and NamespaceTerminating leak are facts the watch cannot contradict; a watch that
 * ends healthy overrides a snapshot that was converging.
 */
export function mergeVerdict(snap: ReplicaSetReport['verdict'], watch: ReplicaSetReport['verdict'] | undefined, watchSawProgress: boolean): ReplicaSetReport['verdict'] {
  if (!watch) return snap;
  const strong: VerdictState[] = ['deleted', 'deleting', 'leaked', 'gated', 'failing'];
  if (watch.state === 'deleted' || watch.state === 'deleting') return watch;
  if (snap.state === 'deleting' || (snap.state === 'leaked' && /NamespaceTerminating/.test(snap.summary))) return snap;
  if (strong.includes(watch.state)) return watch;
  if (watch.state === 'healthy') return watch;
  if ((snap.state === 'failing' || snap.state === 'gated' || snap.state === 'leaked') && !watchSawProgress) return snap;
  return watch.state === 'unknown' ? snap : watch;
}

function timelineFromWatch(r: ReplicaSetReport, watchStart: number, watchEnd: number): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  out.push({ at: watchStart, basis: 'observed', from: 'watch', coarse: false, text: 'watch started (initial list); expectations unknown until the first round kexp sees' });
  for (const x of r.rounds) {
    const at = Date.parse(x.at);
    if (x.kind === 'create') {
      out.push({ at, basis: x.basis, from: 'watch', coarse: false, text: `sync: create round of ${x.n} (batches ${x.batches?.join(',') ?? '?'}; ${x.successes ?? '?'} succeeded${x.namespaceTerminating ? `, ${x.namespaceTerminating} rejected NamespaceTerminating` : ''}${x.errors.length ? `; ${x.errors[0]}` : ''})` });
    } else {
      out.push({ at, basis: x.basis, from: 'watch', coarse: false, text: `sync: delete round of ${x.n} (${(x.keys ?? []).slice(0, 4).join(', ')}${(x.keys ?? []).length > 4 ? ', …' : ''})` });
    }
  }
  for (const w of r.gatedWindows) {
    out.push({ at: Date.parse(w.start), basis: w.basis, from: 'watch', coarse: false, text: `gated: expectations raised add=${w.raised.add} del=${w.raised.del}` });
    if (w.end) out.push({ at: Date.parse(w.end), basis: w.basis, from: 'watch', coarse: false, text: `gate ${w.endedBy === 'fulfilled' ? 'lifted: expectations fulfilled' : `ended: ${w.endedBy}`}` });
  }
  out.push({ at: watchEnd, basis: 'observed', from: 'watch', coarse: false, text: `watch ended: ${r.verdict.state}` });
  return out;
}

function nextStepsOf(findings: Finding[], verdict: ReplicaSetReport['verdict'], watched: boolean, name: string, ns: string): string[] {
  const steps: string[] = [];
  for (const f of sortFindings([...findings])) {
    if (f.nextStep && !/^None\b/.test(f.nextStep) && !steps.includes(f.nextStep)) steps.push(f.nextStep);
  }
  if (!watched && (verdict.state === 'converging' || verdict.state === 'gated')) {
    steps.push(`See whether the controller is gated on its own writes: \`kexp explain ${name} -n ${ns} --watch 30s\`.`);
  }
  if (steps.length === 0) steps.push('Nothing to do.');
  return steps;
}

// ------------------------------------------------------------------------------------------ orchestration

export interface ExplainOptions {
  access: ClusterAccess;
  target: SnapshotTarget;
  /** Watch for this long after the snapshot (0/undefined: snapshot only). */
  watchMs?: number;
  /** Keep the watch recording here (otherwise a temporary file, deleted afterwards). */
  recordFile?: string;
  /** Replace an existing regular file at recordFile (never a symlink). Default false. */
  overwrite?: boolean;
  signal: AbortSignal;
  now: () => number;
  requestTimeoutMs?: number;
  onWarning?: (m: string) => void;
  onProgress?: (m: string) => void;
}

function snapshotInput(s: LiveSnapshot): InputSummary {
  const objects = Object.values(s.counts).reduce((a, b) => a + b, 0);
  return { file: `live:${s.context}/${s.namespace}`, format: 'live-snapshot', timeBasis: 'object-timestamp', start: iso(s.startedAt), end: iso(s.takenAt), events: objects, problems: 0, endMarker: true };
}

/** Merges the watch replay's report for one RS with the snapshot analysis. */
function mergeRs(snapRep: ReplicaSetReport, a: SnapshotAnalysis, w: ReplicaSetReport): ReplicaSetReport {
  const watchSawProgress = w.rounds.some((r) => (r.successes ?? 0) > 0 || r.kind === 'delete') || w.counts.active.first !== w.counts.active.last;
  const verdict = mergeVerdict(a.verdict, w.verdict, watchSawProgress);
  const ids = new Set(w.findings.map((f) => f.id));
  // Snapshot findings the watch superseded: a leak/gate the watch contradicts.
  const drop = new Set<string>();
  if (verdict !== a.verdict) {
    for (const id of ['gated-no-progress', 'expectation-leak-suspected', 'failing-creates', 'delete-failures']) if (w.verdict.state === 'healthy') drop.add(id);
  }
  const findings = sortFindings([...w.findings, ...a.findings.filter((f) => !ids.has(f.id) && !drop.has(f.id))]);
  const windows = w.gatedWindows.length ? w.gatedWindows : verdict === a.verdict ? a.windows : [];
  return {
    ...w,
    owner: w.owner ?? snapRep.owner,
    verdict,
    gatedWindows: windows,
    findings,
    initialState: { ...w.initialState, reason: `before the watch started the controller's expectations are unknown (a snapshot cannot see them); ${w.initialState.reason}` },
  };
}

/** Runs `kexp explain`: snapshot, optional watch + replay, merge. Throws ClusterError, or RecordingFileError for --record FILE. */
export async function explainLive(o: ExplainOptions): Promise<ExplainResult> {
  // Refuse an unusable --record FILE before reading anything from the cluster.
  if (o.recordFile && o.watchMs) checkRecordingTarget(o.recordFile, o.overwrite ?? false);
  const warnings: string[] = [];
  const warn = (m: string) => {
    warnings.push(m);
    o.onWarning?.(m);
  };
  o.onProgress?.('reading');
  const snap = await takeSnapshot({ access: o.access, target: o.target, now: o.now, requestTimeoutMs: o.requestTimeoutMs, signal: o.signal });
  if (snap.replicaSets.length === 0) throw new ClusterError('not-found', `Deployment ${snap.namespace}/${o.target.name} controls no ReplicaSet yet`);
  for (const u of snap.unavailable) warn(`${u.message} (continuing without it)`);
  let version: { version: string; basis: 'flag' | 'input' | 'default' } = { version: DEFAULT_K8S_VERSION, basis: 'default' };
  if (snap.serverVersion) {
    try {
      version = { version: parseK8sVersion(snap.serverVersion).text, basis: 'input' };
    } catch {
      warn(`server version ${snap.serverVersion} is not modelled; using ${DEFAULT_K8S_VERSION}`);
    }
  }
  const analyses = snap.replicaSets.map((rs) => ({
    rs,
    a: analyseSnapshot(rs, { pods: snap.pods, events: snap.events, quotas: snap.quotas, ns: snap.ns, owner: snap.owners.get(rs.metadata.uid ?? ''), unavailable: snap.unavailable, ...(snap.kcmLease ? { kcmLease: snap.kcmLease } : {}) }, snap.takenAt),
  }));
  // Deployment-level events go to the timeline of every ReplicaSet (already in analyseSnapshot via snap.events).
  let watchInfo: ExplainResult['watch'];
  let watchReport: Report | undefined;
  let watchStart = 0;
  let watchEnd = 0;
  if (o.watchMs && o.watchMs > 0 && !o.signal.aborted) {
    let dir: string | undefined;
    const file = o.recordFile ?? path.join((dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-explain-'))), 'watch.kexp.jsonl');
    try {
      o.onProgress?.('watching');
      watchStart = o.now();
      const res = await recordLive({
        access: o.access, target: o.target, file, overwrite: Boolean(o.recordFile && o.overwrite), redact: true, signal: o.signal, durationMs: o.watchMs, now: o.now, requestTimeoutMs: o.requestTimeoutMs,
        onWarning: (m) => warn(m),
        onSynced: () => o.onProgress?.('watching-synced'),
      });
      watchEnd = o.now();
      if (res.error) throw res.error;
      o.onProgress?.('replaying');
      const rep = await replayFiles({ files: [file], onWarning: (m) => { if (!/does not appear/.test(m)) warn(m); } });
      // Evidence in a temporary recording that is deleted afterwards is cited as `live-watch:LINE`.
      watchReport = o.recordFile ? rep.report : (JSON.parse(JSON.stringify(rep.report).split(JSON.stringify(file).slice(1, -1)).join('live-watch')) as Report);
      watchInfo = { file, kept: Boolean(o.recordFile), durationMs: Math.round(watchEnd - watchStart), endReason: res.endReason, events: res.counts.events, gaps: res.counts.gaps, problems: rep.problems.length };
    } finally {
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  const explanations: RsExplanation[] = [];
  for (const { rs, a } of analyses) {
    const snapRep = snapshotReplicaSetReport(rs, a, snap.takenAt, snap.events);
    const w = watchReport?.replicaSets.find((r) => r.key === snapRep.key && (!r.uid || !rs.metadata.uid || r.uids.includes(rs.metadata.uid)));
    const report = w ? mergeRs(snapRep, a, w) : snapRep;
    let timeline = [...a.timeline];
    if (w) timeline = timeline.concat(timelineFromWatch(w, watchStart, watchEnd)).sort((x, y) => x.at - y.at);
    const omitted = Math.max(0, timeline.length - TIMELINE_MAX);
    explanations.push({
      report,
      facts: a.facts,
      timeline: timeline.slice(omitted),
      timelineOmitted: omitted,
      nextSteps: nextStepsOf(report.findings, report.verdict, Boolean(w), rs.metadata.name ?? '', rs.metadata.namespace ?? ''),
    });
  }
  const inputs: InputSummary[] = [snapshotInput(snap)];
  if (watchReport) {
    for (const i of watchReport.inputs) inputs.push({ ...i, file: watchInfo?.kept ? i.file : 'live-watch', format: `${i.format} (live watch)` });
  }
  const timeBasis = [
    'object-timestamp: the snapshot\'s timeline comes from API timestamps (Events\' firstTimestamp/lastTimestamp/count, pod creation/deletion times, managedFields): whole seconds, aggregated Events keep only their first and last time',
    ...(watchReport ? watchReport.coverage.timeBasis : []),
  ];
  const assumptions = [
    'A snapshot cannot see the controller\'s expectations; verdicts from a snapshot are inferred from counts, conditions, Events and the namespace phase.',
    `No progress for ${STALL_MS / 1000} s while pods are missing or surplus, with the spec processed and no failure, is taken as "not acting" (gated); beyond the 5-minute ExpectationsTimeout as a leak.`,
    ...(snap.leaseNote ? [snap.leaseNote.replace(/^t/, 'T') + '.'] : []),
    ...(watchReport ? watchReport.coverage.assumptions : []),
  ];
  const report: Report = {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generator: { name: 'kexp', version: KEXP_VERSION, command: 'explain' },
    k8sVersion: watchReport?.k8sVersion ?? version,
    inputs,
    coverage: {
      start: iso(snap.startedAt),
      end: iso(watchInfo ? watchEnd : snap.takenAt),
      timeBasis,
      assumptions,
      gaps: watchReport?.coverage.gaps ?? [],
      problems: watchReport?.coverage.problems ?? { count: 0, examples: [] },
    },
    replicaSets: explanations.map((e) => e.report),
  };
  return {
    report,
    explanations,
    snapshot: { takenAt: snap.takenAt, server: snap.server, context: snap.context, namespace: snap.namespace, unavailable: snap.unavailable },
    watch: watchInfo,
    warnings,
  };
}

// ------------------------------------------------------------------------------------------ renderers

function ts(ms: number, coarse: boolean): string {
  const s = new Date(Math.floor(ms)).toISOString().replace('T', ' ').replace('Z', '');
  return coarse ? s.slice(0, 19) : s.slice(0, 23);
}


function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

const ADOPTION_ROWS_SHOWN = 15;

/** The terminal rendering: verdict first, then why, timeline, gated windows, adoption, next steps. */
export function renderExplainText(r: ExplainResult, width = 100): string {
  r = terminalSafeDeep(r);
  const out: string[] = [];
  for (const e of r.explanations) {
    const rep = e.report;
    const f = e.facts;
    out.push(`ReplicaSet ${rep.key}${rep.uid ? `  (uid ${rep.uid})` : ''}${rep.owner ? `  owner ${rep.owner.kind}/${rep.owner.name}` : ''}`);
    out.push(`Verdict: ${rep.verdict.state.toUpperCase()} [${rep.verdict.basis}] — ${rep.verdict.summary}`);
    out.push(`  desired ${f.desired}, active ${f.active}, terminating ${f.terminating}, ready ${f.ready}${f.finished ? `, finished ${f.finished}` : ''}; status.replicas ${f.statusReplicas ?? 0}, observedGeneration ${f.observedGeneration ?? '—'}/${f.generation ?? '—'}; namespace ${f.nsKnown ? (f.nsTerminating ? 'Terminating' : 'Active') : 'not readable'}`);
    out.push('');
    out.push('  Why');
    if (rep.findings.length === 0) out.push('    nothing unusual');
    for (const x of rep.findings) {
      out.push(`    [${x.severity.toUpperCase()}] ${x.title}  (${x.basis}${x.at ? `, ${ts(Date.parse(x.at), true)}` : ''})`);
      out.push(wrap(x.explanation, width - 8, '        '));
      if (x.evidence.length) out.push(`        Evidence: ${x.evidence.slice(0, 5).join(', ')}${x.evidence.length > 5 ? ', …' : ''}`);
    }
    out.push('');
    out.push('  Recent timeline (UTC; API timestamps are whole seconds and Events keep only first/last time and a count; watch times are kexp\'s receive times)');
    if (e.timelineOmitted) out.push(`    … ${e.timelineOmitted} earlier entries omitted`);
    for (const t of e.timeline) out.push(`    ${pad(ts(t.at, t.coarse), 23)}  ${pad(t.basis, 8)}  ${pad(t.from, 10)}  ${t.text}`);
    out.push('');
    out.push('  Gated windows and leaks');
    if (rep.gatedWindows.length === 0) {
      out.push(r.watch ? '    none seen during the watch' : '    none inferred (a snapshot cannot see the controller\'s expectations; --watch follows its rounds)');
    }
    for (const w of rep.gatedWindows) {
      const end = w.end ? `${ts(Date.parse(w.end), false)} (${w.endedBy})` : `open, record expires ${w.expiresAt ? ts(Date.parse(w.expiresAt), true) : '?'}`;
      out.push(`    ${ts(Date.parse(w.start), w.basis !== 'observed' && !r.watch)} → ${end}  raised add=${w.raised.add} del=${w.raised.del}${w.remaining ? `, left add=${w.remaining.add} del=${w.remaining.del}` : ''}  [${w.basis}]`);
      if (w.note) out.push(wrap(w.note, width - 8, '        '));
    }
    out.push('');
    const rows = rep.adoption.rows;
    const by: Record<string, number> = {};
    for (const a of rows) by[a.action] = (by[a.action] ?? 0) + 1;
    out.push(`  Adoption (ClaimObject for each candidate pod: ${Object.entries(by).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'})`);
    const interesting = rows.filter((a) => a.action !== 'keep');
    const shown = [...interesting, ...rows.filter((a) => a.action === 'keep')].slice(0, ADOPTION_ROWS_SHOWN);
    const cut = Math.max(60, width - 10);
    for (const a of shown) {
      out.push(`    ${pad(a.pod.split('/')[1] ?? a.pod, 40)} ${pad(a.action, 7)} ${a.claimed ? 'claimed' : 'not claimed'}`);
      out.push(`      ${a.reason.length > cut ? `${a.reason.slice(0, cut - 3)}...` : a.reason}`);
    }
    if (rows.length > shown.length) out.push(`    … ${rows.length - shown.length} more (all rows in -o json; per pod with \`kexp adopt ${rep.name} -n ${rep.namespace}\`)`);
    out.push('');
    out.push('  Next steps');
    e.nextSteps.forEach((s, i) => out.push(wrap(`${i + 1}. ${s}`, width - 4, '    ')));
    out.push('');
  }
  const w = r.watch;
  out.push(`Read ${ts(r.snapshot.takenAt, false)} from ${r.snapshot.server} (context ${r.snapshot.context}, namespace ${r.snapshot.namespace}); model: Kubernetes ${r.report.k8sVersion.version} (${r.report.k8sVersion.basis})`);
  out.push(w ? `Watched ${(w.durationMs / 1000).toFixed(1)}s (${w.endReason}): ${w.events} events, ${w.gaps} gaps${w.problems ? `, ${w.problems} problems` : ''}${w.kept ? `; recording kept in ${w.file}` : ''}` : 'No watch (snapshot only); add --watch 30s to follow the controller\'s rounds.');
  return out.join('\n') + '\n';
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A self-contained HTML page (no executable script, no external resources) with the same sections and the JSON Report embedded. */
export function renderExplainHtml(r: ExplainResult): string {
  const parts: string[] = [];
  const color: Record<string, string> = { healthy: '#1a7f37', converging: '#0969da', gated: '#9a6700', leaked: '#cf222e', failing: '#cf222e', deleting: '#6e7781', deleted: '#6e7781', unknown: '#6e7781' };
  for (const e of r.explanations) {
    const rep = e.report;
    parts.push(`<section><h2>ReplicaSet ${esc(rep.key)}</h2>`);
    parts.push(`<p class="verdict" style="border-color:${color[rep.verdict.state]}"><b style="color:${color[rep.verdict.state]}">${esc(rep.verdict.state.toUpperCase())}</b> <span class="basis">[${esc(rep.verdict.basis)}]</span> ${esc(rep.verdict.summary)}</p>`);
    const f = e.facts;
    parts.push(`<p>desired ${f.desired}, active ${f.active}, terminating ${f.terminating}, ready ${f.ready}; observedGeneration ${f.observedGeneration ?? '—'}/${f.generation ?? '—'}${rep.owner ? `; owner ${esc(rep.owner.kind)}/${esc(rep.owner.name)}` : ''}</p>`);
    parts.push('<h3>Why</h3><ul>');
    for (const x of rep.findings) parts.push(`<li><b>[${esc(x.severity)}] ${esc(x.title)}</b> <span class="basis">(${esc(x.basis)})</span><br>${esc(x.explanation)}<br><i>Next:</i> ${esc(x.nextStep)}</li>`);
    parts.push('</ul><h3>Recent timeline</h3><table><tr><th>At (UTC)</th><th>Basis</th><th>From</th><th>What</th></tr>');
    for (const t of e.timeline) parts.push(`<tr><td>${esc(ts(t.at, t.coarse))}</td><td>${esc(t.basis)}</td><td>${esc(t.from)}</td><td>${esc(t.text)}</td></tr>`);
    parts.push('</table><h3>Gated windows and leaks</h3>');
    if (!rep.gatedWindows.length) parts.push('<p>none</p>');
    else {
      parts.push('<table><tr><th>Start</th><th>End</th><th>Raised</th><th>Basis</th><th>Note</th></tr>');
      for (const w of rep.gatedWindows) parts.push(`<tr><td>${esc(w.start)}</td><td>${esc(w.end ?? `open (expires ${w.expiresAt ?? '?'})`)}</td><td>add ${w.raised.add} / del ${w.raised.del}</td><td>${esc(w.basis)}</td><td>${esc(w.note ?? '')}</td></tr>`);
      parts.push('</table>');
    }
    parts.push('<h3>Adoption</h3><table><tr><th>Pod</th><th>Action</th><th>Claimed</th><th>Why</th></tr>');
    for (const a of rep.adoption.rows.slice(0, 500)) parts.push(`<tr><td>${esc(a.pod)}</td><td>${esc(a.action)}</td><td>${a.claimed ? 'yes' : 'no'}</td><td>${esc(a.reason)}</td></tr>`);
    parts.push('</table>');
    if (rep.adoption.rows.length > 500) parts.push(`<p>… ${rep.adoption.rows.length - 500} more rows in the embedded JSON.</p>`);
    parts.push('<h3>Next steps</h3><ol>');
    for (const s of e.nextSteps) parts.push(`<li>${esc(s)}</li>`);
    parts.push('</ol></section>');
  }
  const json = JSON.stringify(r.report).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>kexp explain ${esc(r.explanations.map((e) => e.report.key).join(', '))}</title>
<style>body{font:14px/1.45 system-ui,sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #d0d7de;padding:2px 6px;text-align:left;vertical-align:top}.verdict{border-left:6px solid;padding:.4em .8em;background:#f6f8fa}.basis{color:#57606a}</style>
</head><body><h1>kexp explain</h1>
<p>Read ${esc(ts(r.snapshot.takenAt, false))} UTC from ${esc(r.snapshot.server)} (context ${esc(r.snapshot.context)}, namespace ${esc(r.snapshot.namespace)})${r.watch ? `; watched ${(r.watch.durationMs / 1000).toFixed(1)} s` : '; snapshot only'}.</p>
${parts.join('\n')}
<script type="application/json" id="kexp-report">${json}</script>
</body></html>
`;
}
