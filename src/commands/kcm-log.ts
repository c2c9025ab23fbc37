import { Args, Flags } from '@oclif/core';
import { withProgress } from '../cli/progress.js';
import { KexpCommand } from '../cli/base-command.js';
import { checkInputs, outputFlag } from '../cli/flags.js';
import { checkRsFlag, resolveSelection, type Selection } from '../cli/selection.js';
import { EXIT } from '../cli/exit-codes.js';
import { exitCodeForKcmLog } from '../cli/report-exit.js';
import { InterruptedError } from '../cli/interrupted-error.js';
import { oneLine } from '../cli/messages.js';
import { printOutput } from '../cli/output.js';
import { kcmLogFiles } from '../pipeline/kcm-log-files.js';
import { UsageError } from '../pipeline/usage-error.js';
import { kcmLogSummary, renderKcmLog } from '../render/kcm-log-table.js';
import { objectName } from '../render/next-steps.js';
import { terminalSafeDeep } from '../render/terminal-safe.js';

/** Throws Error (the usage line) for a --rs or --year kcm-log cannot use. */
function checkFlags(flags: { rs?: string; year?: number }): void {
  checkRsFlag(flags.rs);
  if (flags.year !== undefined && (flags.year < 1970 || flags.year > 9999)) throw new Error(`--year must be between 1970 and 9999, got ${flags.year}`);
}

export default class KcmLog extends KexpCommand {
  static override summary = 'Read kube-controller-manager logs (-v=4) as the ground-truth timeline of the ReplicaSet, ReplicationController, DaemonSet and Job controllers.';
  static override description =
    'Parses klog text or --logging-format=json logs (also CRI/docker-wrapped, gzip, stdin), tells the ReplicaSet controller\'s lines ' +
    'from the ReplicationController manager\'s, the DaemonSet controller\'s and the Job controller\'s (they share the expectations code), ' +
    'and rebuilds per owner, each with its kind, every SatisfiedExpectations decision, SetExpectations, gated window, expiry, clobbered ' +
    'delete keys and slow-start failure — a DaemonSet\'s rolling-update checks apart, a Job\'s finalizer tracking (the pods whose ' +
    'job-tracking finalizer removal it waits to observe) beside. Since 1.27 the expectations lines print ' +
    '`expectations={}`; kexp attributes them from the neighbouring lines. Below -v=4 (v=2 is common) it reports what is there — the ' +
    'rounds ("Too few / Too many replicas"), slow-start failures, deletes and the "Finished syncing" lines (V0 in 1.28–1.32) — and says ' +
    'once that gate decisions need -v=4. --compare scores a kexp report against the log.';
  static override examples = [
    '<%= config.bin %> <%= command.id %> examples/captures/quota-rejected/kcm.log',
    '<%= config.bin %> <%= command.id %> kcm.log --compare report.json --rs shop/web-7d9c6b8f5d',
    '<%= config.bin %> <%= command.id %> kcm.log --rs kube-system/node-exporter -o json',
    '<%= config.bin %> <%= command.id %> -n kube-system node-exporter kcm.log',
  ];
  static override strict = false;
  static override args = { file: Args.string({ description: 'Log file(s); "-" reads stdin.', required: true }) };
  static override flags = {
    // kcm-log reads every kind's lines from one log: the key picks the owner whatever its kind (no TYPE/NAME form here).
    rs: Flags.string({
      summary: 'Only report the owner with this key, as namespace/name: a ReplicaSet, ReplicationController, DaemonSet or Job (whichever the log names).',
      helpValue: 'NAMESPACE/NAME',
    }),
    namespace: Flags.string({
      char: 'n',
      summary: 'Only owners in this namespace; with a NAME as the first argument (before the files), only that owner (the same as --rs NAMESPACE/NAME).',
      helpValue: 'NAMESPACE',
    }),
    output: outputFlag,
    compare: Flags.string({ summary: 'Score this kexp report (kexp replay|audit -o json) against the log.', helpValue: 'REPORT.json' }),
    year: Flags.integer({ summary: 'Year of the first klog line (klog prints none; default: another input of the run that carries dates, else the file mtime, with a note).' }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(KcmLog);
    let files: string[];
    let sel: Selection;
    try {
      checkFlags(flags);
      // kubectl's `-n NAMESPACE [NAME]`, as replay and audit take it (src/cli/selection.ts).
      ({ selection: sel, files } = resolveSelection(argv as string[], { rs: flags.rs, namespace: flags.namespace }));
      checkInputs(files);
    } catch (err) {
      return this.fail(UsageError.of(err));
    }
    const ac = this.abortOnSignals();
    try {
      const { result, problems, interrupted } = await withProgress(kcmLogFiles({
        files, rs: sel.rs, compare: flags.compare, year: flags.year, stdin: process.stdin, signal: ac.signal,
        onProblem: (p) => this.logToStderr(p.line > 0 ? `${p.file}:${p.line}: ${p.message}` : `${p.file}: ${p.message}`),
        onWarning: (m) => this.logToStderr(`warning: ${m}`),
      }));
      if (sel.namespace !== undefined) {
        result.replicaSets = result.replicaSets.filter((r) => r.key.startsWith(`${sel.namespace}/`));
        if (result.replicaSets.length === 0) this.logToStderr(`kexp: no ReplicaSet, ReplicationController, DaemonSet or Job found in namespace ${sel.namespace}`);
      }
      const partial = ac.signal.aborted ? interrupted : undefined;
      await printOutput({
        document: result,
        text: (v) => renderKcmLog(result, { width: v.width, wide: v.wide, partial }),
        summary: (v) => kcmLogSummary(terminalSafeDeep(result), { width: v.width, partial }),
        names: () => result.replicaSets.map((r) => objectName({ kind: r.kind, name: r.key.slice(r.key.indexOf('/') + 1) })),
      }, flags);
      if (problems.length) this.logToStderr(`kexp: ${problems.length} input problem(s); exit code ${EXIT.INPUT}`);
      // --rs naming an owner the log never mentions: said, and exit 8 like replay and audit.
      const absent = sel.rs !== undefined && result.replicaSets.length === 0;
      if (absent) this.logToStderr(`warning: no ReplicaSet, ReplicationController, DaemonSet or Job ${sel.rs} appears in the log`);
      process.exitCode = exitCodeForKcmLog(result.replicaSets, problems.length, absent);
      await this.endInterrupted(ac.signal, interrupted);
    } catch (err) {
      this.fail(ac.signal.aborted ? new InterruptedError(oneLine(err)) : err);
    } finally {
      ac.dispose();
    }
  }
}
