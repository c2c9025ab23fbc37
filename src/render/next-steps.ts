/**
 * The summary that opens every ReplicaSet: the verdict, its cause in one sentence, and the
 * next step — the finding's own advice and copy-pasteable `kubectl` commands with the real
 * namespace and names. Every command is derived from something the report carries (never
 * invented): a ReplicaSet that is not healthy gets `describe rs` and its Events; a quota
 * failure (a finding or a round error that names a ResourceQuota) gets `get resourcequota`;
 * creates rejected because the namespace is Terminating get the namespace's finalizers and
 * conditions; a deleted ReplicaSet gets its Events only (describe would find nothing); a
 * Deployment owner gets its rollout status. A healthy or converging ReplicaSet with nothing
 * above info has nothing to do.
 */
import type { Finding, ReplicaSetReport } from '../analysis/report-types.js';
import { displayLength } from './columns.js';
import { labelled } from './text.js';
import { ownerResource } from '../analysis/report/owner-kind.js';
import { compareFindings } from '../analysis/findings/finding-rule.js';
import { countedLeakWindows, exitCodeOfReplicaSet } from '../cli/report-exit.js';
import { EXIT } from '../cli/exit-codes.js';

const SEV = { critical: 0, warning: 1, info: 2 } as const;
const STATE_RANK: Record<string, number> = { leaked: 0, failing: 1, gated: 2, stalled: 2, converging: 3, deleting: 4, unknown: 5, healthy: 6, deleted: 7 };

/**
 * What the verdict line leads with, so that it, the Cause and the exit code tell one story:
 * the verdict's own state, except when the ReplicaSet sets exit code 4 (a leak the timeout
 * alone cleared, report-exit.ts) while its state at the end of the input is another — then
 * `leaked`, with the basis of the leak window, and `now` the state at the end.
 */
export interface Headline {
  state: string;
  basis: string;
  /** The verdict's own state, when the headline is an earlier leak. */
  now?: string;
}

export function headlineOf(rs: ReplicaSetReport): Headline {
  if (rs.verdict.state !== 'leaked' && exitCodeOfReplicaSet(rs) === EXIT.LEAK) {
    const w = countedLeakWindows(rs)[0];
    return { state: 'leaked', basis: w?.basis ?? rs.verdict.basis, now: rs.verdict.state };
  }
  return { state: rs.verdict.state, basis: rs.verdict.basis };
}

/** Worst first: the most severe finding, then the headline state, the number of findings, the key. */
export function rankReplicaSets(rss: ReplicaSetReport[]): ReplicaSetReport[] {
  const worst = (r: ReplicaSetReport) => Math.min(3, ...r.findings.map((f) => SEV[f.severity]));
  const state = (r: ReplicaSetReport) => STATE_RANK[headlineOf(r).state] ?? 9;
  return [...rss].sort((a, b) => worst(a) - worst(b) || state(a) - state(b) || b.findings.length - a.findings.length || a.key.localeCompare(b.key));
}

/** Findings in report order (most severe first, the more precise explanation first, then by time): a copy. */
export function rankFindings(f: Finding[]): Finding[] {
  return [...f].sort(compareFindings);
}

/** Whether the ReplicaSet needs a look: a verdict other than healthy/converging, or a finding above info. */
export function needsAttention(rs: ReplicaSetReport): boolean {
  return !['healthy', 'converging'].includes(rs.verdict.state) || rs.findings.some((f) => f.severity !== 'info');
}

/** The cause in one sentence: the most severe finding's title (undefined when there is nothing to explain). */
export function causeOf(rs: ReplicaSetReport): string | undefined {
  if (!needsAttention(rs)) return undefined;
  // A finding with nothing to do ("Next: None", e.g. expected log noise) explains nothing: never the cause.
  // A finding the input cannot prove (basis unknown) is the cause only when no proven one is,
  // and then says so.
  const actionable = rankFindings(rs.findings).filter((f) => !/^None\b/.test(f.nextStep));
  const top = actionable.find((f) => f.basis !== 'unknown') ?? actionable[0];
  if (!top) return undefined;
  const title = top.basis === 'unknown' ? `Not proven: ${top.title.trim()}` : top.title.trim();
  // A title that only repeats the verdict says nothing more: the explanation's first sentence does.
  if (title.replace(/[.!?]$/, '') === rs.verdict.summary.trim().replace(/[.!?]$/, '')) {
    const first = /^.*?[.!?](?=\s+[A-Z0-9]|$)/s.exec(top.explanation.trim())?.[0];
    if (first) return first;
  }
  return /[.!?]$/.test(title) ? title : `${title}.`;
}

const QUOTA_RE = /exceeded quota|ResourceQuota/;

/** Read-only kubectl commands for this ReplicaSet, derived from the report. */
export function kubectlCommands(rs: ReplicaSetReport): string[] {
  if (!needsAttention(rs)) return [];
  const ns = rs.namespace;
  const cmds: string[] = [];
  const quota = rs.findings.some((f) => f.severity !== 'info' && QUOTA_RE.test(`${f.title} ${f.explanation}`)) ||
    rs.rounds.some((r) => r.errors.some((e) => QUOTA_RE.test(e))) || QUOTA_RE.test(rs.verdict.summary);
  const nsTerminating = rs.rounds.some((r) => (r.namespaceTerminating ?? 0) > 0) || rs.findings.some((f) => /namespace-terminating/.test(f.id));
  if (quota) cmds.push(`kubectl -n ${ns} get resourcequota`);
  if (nsTerminating) cmds.push(`kubectl get namespace ${ns} -o yaml`);
  if (rs.verdict.state !== 'deleted') cmds.push(`kubectl -n ${ns} describe ${ownerResource(rs)} ${rs.name}`);
  cmds.push(`kubectl -n ${ns} get events --field-selector involvedObject.name=${rs.name}`);
  if (rs.owner?.kind === 'Deployment' && rs.verdict.state !== 'deleted') cmds.push(`kubectl -n ${ns} rollout status deployment/${rs.owner.name}`);
  return cmds;
}

/** `s` as one POSIX shell word: as it is when it needs no quoting, else in single quotes. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * A shell command within `width` columns: broken between words with ` \` continuations (still
 * copy-pasteable); a single word longer than a line stays whole.
 */
export function breakCommand(cmd: string, width: number, indent: string): string[] {
  if (displayLength(indent + cmd) <= width) return [indent + cmd];
  // Words are split at spaces outside single quotes (a quoted argument is never broken).
  const words = cmd.match(/(?:'[^']*'|[^\s'])+/g) ?? [cmd];
  const lines: string[] = [];
  let cur = indent + words[0];
  const cont = `${indent}    `;
  for (const w of words.slice(1)) {
    if (displayLength(`${cur} ${w} \\`) > width) {
      lines.push(`${cur} \\`);
      cur = cont + w;
    } else cur = `${cur} ${w}`;
  }
  lines.push(cur);
  return lines;
}

/** The advice to print under `Next:`: the given steps (explain), else the most severe finding's next step. */
export function adviceOf(rs: ReplicaSetReport, steps?: string[]): string[] {
  if (steps) return steps.filter((s) => s && !/^None\b/.test(s) && s !== 'Nothing to do.');
  if (!needsAttention(rs)) return [];
  const top = rankFindings(rs.findings).find((f) => !/^None\b/.test(f.nextStep));
  return top ? [top.nextStep] : [];
}

export interface SummaryOptions {
  width: number;
  /**
   * The input was cut short (Ctrl-C, SIGTERM): how far it was read, e.g. `after 210,119 of
   * audit.jsonl's lines`; the verdict line says PARTIAL and this.
   */
  partial?: string;
  /** The explain command's next steps (which add `--watch` advice); default: from the findings. */
  steps?: string[];
}

/** The `Verdict:` line (wrapped): the headline state and basis, PARTIAL when the input was cut, the summary. */
export function verdictLine(rs: ReplicaSetReport, o: SummaryOptions): string {
  const h = headlineOf(rs);
  const partial = o.partial ? ` PARTIAL (interrupted ${o.partial})` : '';
  const now = h.now ? `an expectation leak the input shows, cleared only by the 5-minute timeout (exit code 4); at the end ${h.now.toUpperCase()}: ` : '';
  return labelled('Verdict: ', `${h.state.toUpperCase()} [${h.basis}]${partial} — ${now}${rs.verdict.summary}`, o.width);
}

/** `Verdict:`, `Cause:`, `Next:` lines and the kubectl commands, within `width`. */
export function renderSummary(rs: ReplicaSetReport, o: SummaryOptions): string[] {
  const out: string[] = [];
  out.push(verdictLine(rs, o));
  const cause = causeOf(rs);
  if (cause) out.push(labelled('Cause:   ', cause, o.width));
  const advice = adviceOf(rs, o.steps);
  const cmds = kubectlCommands(rs);
  if (advice.length === 0 && cmds.length === 0) out.push('Next:    nothing to do.');
  advice.forEach((s, i) => out.push(labelled(i === 0 ? 'Next:    ' : '         ', advice.length > 1 ? `${i + 1}. ${s}` : s, o.width)));
  if (advice.length === 0 && cmds.length) out.push('Next:');
  for (const c of cmds) out.push(...breakCommand(c, o.width, '  '));
  return out.join('\n').split('\n');
}


/** kubectl's `-o name` of the owner: `replicaset.apps/web`, `replicationcontroller/web`, `daemonset.apps/agent`, `job.batch/backup`. */
export function objectName(rs: Pick<ReplicaSetReport, 'kind' | 'name'>): string {
  const resource = { rs: 'replicaset.apps', rc: 'replicationcontroller', ds: 'daemonset.apps', job: 'job.batch' }[ownerResource(rs)];
  return `${resource}/${rs.name}`;
}

/**
 * The summary of a whole report, for the end of a text taller than the terminal
 * (render/screen-summary.ts): each owner, worst first, by its heading and its summary lines —
 * those needing a look all, then `N more … healthy` for the rest in one line.
 */
export function reportSummary(rss: ReplicaSetReport[], o: SummaryOptions & { steps?: undefined; stepsOf?: (rs: ReplicaSetReport) => string[] | undefined }): string[] {
  const out: string[] = [];
  const ranked = rankReplicaSets(rss);
  const shown = ranked.filter((r, i) => i === 0 || needsAttention(r) || headlineOf(r).now !== undefined);
  for (const r of shown) {
    out.push(`${r.kind ?? 'ReplicaSet'} ${r.key}`);
    out.push(...renderSummary(r, { width: o.width, partial: o.partial, steps: o.stepsOf?.(r) }));
  }
  const rest = ranked.length - shown.length;
  if (rest > 0) out.push(labelled('', `${rest} more ${rest === 1 ? 'owner' : 'owners'} with nothing to do (healthy or converging), in the report above.`, o.width));
  return out;
}
