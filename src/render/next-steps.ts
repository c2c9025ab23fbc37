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
  const top = rankFindings(rs.findings).find((f) => !/^None\b/.test(f.nextStep));
  if (!top) return undefined;
  const title = top.title.trim();
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
  /** The explain command's next steps (which add `--watch` advice); default: from the findings. */
  steps?: string[];
}

/** `Verdict:`, `Cause:`, `Next:` lines and the kubectl commands, within `width`. */
export function renderSummary(rs: ReplicaSetReport, o: SummaryOptions): string[] {
  const out: string[] = [];
  out.push(labelled('Verdict: ', `${rs.verdict.state.toUpperCase()} [${rs.verdict.basis}] — ${rs.verdict.summary}`, o.width));
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

