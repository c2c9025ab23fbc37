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
import { replayFiles } from '../pipeline/replay-files.js';
import { UsageError } from '../pipeline/usage-error.js';
import { renderHtml } from '../render/html.js';
import { renderTable } from '../render/table.js';
import { objectName, rankReplicaSets, reportSummary } from '../render/next-steps.js';
import { terminalSafeDeep } from '../render/terminal-safe.js';
import { WATCH_FORMATS } from '../sources/watch/index.js';

/** replay's --html: before the report; `-` is stdout instead of it; a failed write exits 2 after the other lines. */
const HTML: HtmlOptions = { before: true, dashIsStdout: true, failureAsValue: true };

export default class Replay extends KexpCommand {
  static override summary = 'Replay recorded watch streams through the ReplicaSet controller model.';
  static override description =
    'Reads kexp recordings and other watch dumps (raw API watch lines, kubectl get -w -o json/yaml, ' +
    '--output-watch-events, List snapshots; gzip or plain; "-" for stdin), merges them in time order and ' +
    'explains, per ReplicaSet, when the controller was gated on its own expectations, which expectations ' +
    'leaked, what failed, and what adoption would decide.';
  static override examples = [
    '<%= config.bin %> <%= command.id %> examples/scale-up-gated.kexp.jsonl',
    '<%= config.bin %> <%= command.id %> -n shop web-7d9c6b8f5d recording.jsonl.gz --output json',
    '<%= config.bin %> <%= command.id %> recording.jsonl.gz -n shop -l app=web',
    'kubectl get pods -n shop -w --output-watch-events -o json | <%= config.bin %> <%= command.id %> -',
  ];
  static override strict = false;
  static override args = {
    file: Args.string({ description: 'Input file(s); "-" reads stdin. With -n, a first argument that is no file is the ReplicaSet NAME.', required: true }),
  };
  static override flags = {
    ...fileSelectionFlags,
    output: outputFlag,
    'k8s-version': k8sVersionFlag,
    format: Flags.string({ summary: 'Force the input format instead of sniffing it.', options: [...WATCH_FORMATS] }),
    'match-window': matchWindowFlag,
    'kcm-log': kcmLogFlag,
    html: Flags.string({ summary: 'Also write the report as one self-contained interactive HTML file (no network needed to view it).', helpValue: 'FILE' }),
    color: colorFlag,
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Replay);
    let files: string[];
    let sel: Selection;
    try {
      ({ selection: sel, files } = resolveSelection(argv as string[], flags));
      checkInputs(files, flags['kcm-log']);
      checkK8sVersion(flags['k8s-version']);
    } catch (err) {
      return this.fail(UsageError.of(err));
    }
    const ac = this.abortOnSignals();
    try {
      const res = await withProgress(replayFiles({
        files,
        format: flags.format,
        rs: sel.rs,
        k8sVersion: flags['k8s-version'],
        matchWindowMs: flags['match-window'],
        kcmLogs: flags['kcm-log'],
        stdin: process.stdin,
        signal: ac.signal,
        onWarning: (m) => this.logToStderr(`warning: ${m}`),
        onProblem: (p) => this.logToStderr(`${p.file}:${p.line}: ${p.message}`),
      }));
      applySelection(res.report, sel, res.labels);
      if ((sel.namespace !== undefined || sel.selector) && res.report.replicaSets.length === 0) this.logToStderr(`kexp: no ReplicaSets found ${describeSelection(sel)}`);
      const partial = ac.signal.aborted ? res.interrupted : undefined;
      const { htmlFailure } = await printOutput({
        document: res.report,
        text: (v) => renderTable(res.report, v.width, { wide: v.wide, color: v.color, partial }),
        html: () => renderHtml(res.report),
        summary: (v) => reportSummary(terminalSafeDeep(res.report.replicaSets), { width: v.width, partial }),
        names: () => rankReplicaSets(res.report.replicaSets).map(objectName),
      }, flags, HTML);
      if (res.problems.length) this.logToStderr(`kexp: ${res.problems.length} input problem(s); exit code ${EXIT.INPUT}`);
      process.exitCode = exitCodeFor(res.report, res.problems.length, sel.rs !== undefined && res.report.replicaSets.length === 0);
      if (htmlFailure) this.fail(htmlFailure);
      await this.endInterrupted(ac.signal, res.interrupted);
    } catch (err) {
      this.fail(ac.signal.aborted ? new InterruptedError(oneLine(err)) : err);
    } finally {
      ac.dispose();
    }
  }
}
