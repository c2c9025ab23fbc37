import { withProgress } from '../cli/progress.js';
import { Args, Flags } from '@oclif/core';
import { KexpCommand } from '../cli/base-command.js';
import { checkInputs, checkK8sVersion, colorFlag, fileSelectionFlags, k8sVersionFlag, kcmLogFlag, matchWindowFlag, outputFlag } from '../cli/flags.js';
import { applySelection, describeSelection, resolveSelection, type Selection } from '../cli/selection.js';
import { EXIT } from '../cli/exit-codes.js';
import { exitCodeFor } from '../cli/report-exit.js';
import { InterruptedError } from '../cli/interrupted-error.js';
import { oneLine } from '../cli/messages.js';
import { printOutput, type HtmlOptions } from '../cli/output.js';
import { resolveTimeWindow, windowMiss, type TimeWindow } from '../cli/time-window.js';
import { auditFiles } from '../pipeline/audit-files.js';
import { UsageError } from '../pipeline/usage-error.js';
import { auditRankingSummary, renderAuditRanking } from '../render/audit-table.js';
import { renderHtml } from '../render/html.js';
import { renderTable } from '../render/table.js';
import { objectName, rankReplicaSets, reportSummary } from '../render/next-steps.js';
import { terminalSafeDeep } from '../render/terminal-safe.js';

/** Most problem lines printed on stderr; the rest are counted. */
const MAX_PROBLEMS_PRINTED = 100;

/** audit's --html: before the report, always a file (`-` too); a failed write ends the command. */
const HTML: HtmlOptions = { before: true, dashIsStdout: false, failureAsValue: false };

export default class Audit extends KexpCommand {
  static override summary = 'Reconstruct the ReplicaSet controller from kube-apiserver audit logs.';
  static override description =
    'Reads audit.k8s.io/v1 and v1beta1 events (JSON lines, webhook EventList batches, YAML, gzip, stdin) and GKE, EKS and AKS ' +
    'exports; several files (several apiservers) are merged by time. The ReplicaSet controller\'s own writes give each round of ' +
    'creates and deletes, their failures and walk-backs (observed); RequestResponse bodies give the objects the controller saw. ' +
    'Without a ReplicaSet NAME (or --rs): a ranked table of ReplicaSets, worst first, in every namespace (-A, the default) or in -n NAMESPACE.';
  static override examples = [
    '<%= config.bin %> <%= command.id %> examples/captures/quota-rejected/audit.jsonl',
    '<%= config.bin %> <%= command.id %> -n shop web-7d9c6b8f5d /var/log/kube-apiserver/audit*.log.gz',
    '<%= config.bin %> <%= command.id %> audit.log -l app=web',
    '<%= config.bin %> <%= command.id %> audit.log --since 2026-11-30T02:00:00Z --until 2026-11-30T03:00:00Z -o json',
    '<%= config.bin %> <%= command.id %> /var/log/kube-apiserver/audit.log --since 1h',
  ];
  static override strict = false;
  static override args = { file: Args.string({ description: 'Audit log file(s); "-" reads stdin. With -n, a first argument that is no file is the ReplicaSet NAME.', required: true }) };
  static override flags = {
    ...fileSelectionFlags,
    output: outputFlag,
    since: Flags.string({ summary: 'Ignore events older than a duration (e.g. 1h, 30m: back from now, like kubectl logs) or before an RFC 3339 time.', helpValue: 'DURATION|TIME' }),
    'since-time': Flags.string({ summary: 'Ignore events before this RFC 3339 time (like kubectl logs --since-time).', helpValue: 'TIME', exclusive: ['since'] }),
    until: Flags.string({ summary: 'Ignore events newer than a duration ago (e.g. 10m) or after an RFC 3339 time.', helpValue: 'DURATION|TIME' }),
    'k8s-version': k8sVersionFlag,
    'match-window': { ...matchWindowFlag, default: 60000 },
    'kcm-log': kcmLogFlag,
    html: Flags.string({ summary: 'Also write the report as one self-contained interactive HTML file.', helpValue: 'FILE' }),
    color: colorFlag,
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Audit);
    let window: TimeWindow;
    let files: string[];
    let sel: Selection;
    try {
      ({ selection: sel, files } = resolveSelection(argv as string[], flags));
      // The one reading of the clock: relative times are fixed here, not in the analysis.
      window = resolveTimeWindow(flags, Date.now());
      checkInputs(files, flags['kcm-log']);
      checkK8sVersion(flags['k8s-version']);
    } catch (err) {
      return this.fail(UsageError.of(err));
    }
    const ac = this.abortOnSignals();
    try {
      let shown = 0;
      const res = await withProgress(auditFiles({
        files, rs: sel.rs, since: window.since, until: window.until, k8sVersion: flags['k8s-version'], matchWindowMs: flags['match-window'], kcmLogs: flags['kcm-log'], stdin: process.stdin, signal: ac.signal,
        onWarning: (m) => this.logToStderr(`warning: ${m}`),
        onProblem: (p) => {
          if (shown++ < MAX_PROBLEMS_PRINTED) this.logToStderr(p.line > 0 ? `${p.file}:${p.line}: ${p.message}` : `${p.file}: ${p.message}`);
        },
      }));
      applySelection(res.report, sel, res.labels);
      const writes = res.report.coverage.controllerWrites ?? [];
      if ((sel.namespace !== undefined || sel.selector) && res.report.replicaSets.length === 0 && !writes.length) this.logToStderr(`kexp: no ReplicaSets found ${describeSelection(sel)}`);
      // A ReplicaSet known only from the ReplicaSet controller's pod writes (its object is not in
      // the input, so there is no model of it): those writes are its report.
      const writesOnly = sel.rs && res.report.replicaSets.length === 0 ? writes.filter((w) => w.replicaSet === sel.rs) : [];
      const partial = ac.signal.aborted ? res.interrupted : undefined;
      await printOutput({
        document: res.report,
        text: (v) => (sel.rs && !writesOnly.length
          ? renderTable(res.report, v.width, { wide: v.wide, color: v.color, partial })
          : renderAuditRanking(res.report, res.summaries, { width: v.width, wide: v.wide, partial })),
        html: () => renderHtml(res.report),
        summary: (v) => (sel.rs && !writesOnly.length
          ? reportSummary(terminalSafeDeep(res.report.replicaSets), { width: v.width, partial })
          : auditRankingSummary(res.report, res.summaries, { width: v.width, partial })),
        names: () => rankReplicaSets(res.report.replicaSets).map(objectName),
      }, flags, HTML);
      // Sources pass on at most 100 problems per file and count the rest.
      const total = Math.max(res.problems.length, res.summaries.reduce((n, s) => n + s.problems, 0));
      if (total > MAX_PROBLEMS_PRINTED) this.logToStderr(`kexp: … and ${total - MAX_PROBLEMS_PRINTED} more input problem(s) not shown`);
      if (total) this.logToStderr(`kexp: ${total} input problem(s); exit code ${EXIT.INPUT}`);
      const miss = windowMiss(window, res.summaries, 'audit events');
      if (miss) this.logToStderr(`warning: ${miss}`);
      if (writesOnly.length) {
        const w = writesOnly[0]!;
        this.logToStderr(
          `note: ReplicaSet ${sel.rs}: its object is missing from the input (no create or update of it at RequestResponse level), so it cannot be modelled; ` +
            `reporting its ${w.creates + w.createFailures} create(s) and ${w.deletes + w.deleteFailures} delete(s) of pods by the ReplicaSet controller`,
        );
      } else if (sel.rs && res.report.replicaSets.length === 0) this.logToStderr(`warning: ReplicaSet ${sel.rs} does not appear in the audit log`);
      process.exitCode = exitCodeFor(res.report, res.problems.length, sel.rs !== undefined && res.report.replicaSets.length === 0 && !writes.length);
      await this.endInterrupted(ac.signal, res.interrupted);
    } catch (err) {
      this.fail(ac.signal.aborted ? new InterruptedError(oneLine(err)) : err);
    } finally {
      ac.dispose();
    }
  }
}
