import { Args, Flags } from '@oclif/core';
import { KexpCommand } from '../cli/base-command.js';
import { createSpinner } from '../cli/spinner.js';
import { clusterFlags, colorFlag, outputFlag, parseDuration } from '../cli/flags.js';
import { exitCodeFor } from '../cli/report-exit.js';
import { endedBySignal, InterruptedError } from '../cli/interrupted-error.js';
import { printOutput, type HtmlOptions } from '../cli/output.js';
import { terminalSafeLine } from '../render/terminal-safe.js';
import { loadClusterAccess } from '../sources/live/kubeconfig.js';
import { abandonExplainPrefetch, takeExplainPrefetch } from '../cli/explain-prefetch.js';
import { parseLiveTarget, requireKinds } from '../pipeline/live-target.js';
import { explainLive } from '../pipeline/explain-live.js';
import { explainSummary, renderExplainHtml, renderExplainText } from '../render/explain.js';
import { objectName, rankReplicaSets } from '../render/next-steps.js';

/** The value `-w`/`--watch` without a DURATION stands for: watch until Ctrl-C or SIGTERM. */
const UNTIL_INTERRUPTED = 'until-interrupted';

/**
 * kubectl's `-w`/`--watch` takes no value; kexp's takes an optional DURATION. oclif has no
 * optional flag values, so a `-w`/`--watch` not followed by a duration — the end of the line, a
 * flag, or a word that does not start with a digit (the target, as in `kexp explain -w web`) —
 * becomes `--watch=until-interrupted` before parsing. A word starting with a digit is taken as
 * the DURATION and checked as one (`--watch 1x` is an invalid duration, not a target). Everything
 * after `--` is left alone.
 */
export function watchWithoutDuration(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return [...out, ...argv.slice(i)];
    if (a === '-w' || a === '--watch') {
      const next = argv[i + 1];
      out.push(next !== undefined && /^\d/.test(next) ? a : `--watch=${UNTIL_INTERRUPTED}`);
      continue;
    }
    out.push(a);
  }
  return out;
}

/** explain's --html: after the report, always a file (`-` too); a failed write ends the command. */
const HTML: HtmlOptions = { before: false, dashIsStdout: false, failureAsValue: false };

export default class Explain extends KexpCommand {
  static override summary = 'Explain, from the live cluster, whether the controller of a ReplicaSet, ReplicationController, DaemonSet or Job is healthy, converging, gated on its own writes, leaking, failing, or blocked because its object is being deleted.';
  static override description =
    'Reads the ReplicaSet (or the Deployment\'s ReplicaSets), its pods and the orphans in the namespace, its Events (aggregated ones too), ' +
    'the ResourceQuotas, the namespace phase and the owner — for rc/NAME the ReplicationController, read as the ReplicaSet its manager runs the same code for; for ds/NAME the DaemonSet, its pods, Events and every Node (placement; optional), ' +
    'for job/NAME the Job, its pods (the job-tracking finalizer) and Events; with --watch it then follows the controller for DURATION through the same ' +
    'watch and model as `kexp record` + `kexp replay`. Prints the verdict with its basis (observed / inferred / unknown), the evidence, the ' +
    'reconstructed recent timeline, gated windows and leaks, the adoption table and the next steps. The exit code follows the verdict ' +
    '(0 healthy/converging/deleting, 3 gated, 4 leak, 5 failing; 6 the --record FILE cannot be created or written; 7 cluster access, ' +
    '8 not found, 130 Ctrl-C/SIGTERM: with --watch the explanation of what was seen until then is still printed).';
  static override examples = [
    '<%= config.bin %> <%= command.id %> web-7d9f5c --namespace shop',
    '<%= config.bin %> <%= command.id %> deployment/web --namespace shop --watch 30s',
    '<%= config.bin %> <%= command.id %> ds/node-agent --namespace kube-system --watch 30s',
    '<%= config.bin %> <%= command.id %> rs web -n shop -w',
    '<%= config.bin %> <%= command.id %> job backup --namespace shop',
    '<%= config.bin %> <%= command.id %> rc/legacy-web --namespace shop',
    '<%= config.bin %> <%= command.id %> web-7d9f5c --namespace shop --output json',
    '<%= config.bin %> <%= command.id %> web-7d9f5c --namespace shop --watch 1m --html web.html --record web.kexp.jsonl',
  ];
  static override args = {
    target: Args.string({ description: 'TYPE/NAME (rs, rc, deployment, ds, job; kubectl\'s type names) or a ReplicaSet name; or TYPE when NAME follows.', required: true }),
    name: Args.string({ description: 'NAME, when the first argument is a TYPE (kubectl\'s `TYPE NAME`).', required: false }),
  };
  static override flags = {
    ...clusterFlags,
    watch: Flags.string({ char: 'w', summary: 'After the snapshot, watch the controller for this long (e.g. 30s, 2m); without a DURATION (`-w`, as kubectl), until Ctrl-C.', helpValue: 'DURATION' }),
    output: outputFlag,
    html: Flags.string({ summary: 'Also write a self-contained HTML report to FILE.', helpValue: 'FILE' }),
    record: Flags.string({ summary: 'With --watch: keep the watch recording in FILE (replayable with `kexp replay`; must not exist, unless --overwrite).', helpValue: 'FILE' }),
    overwrite: Flags.boolean({ summary: 'With --record: replace FILE if it exists (a regular file, or a device such as /dev/null; a symbolic link is never followed).', default: false }),
    quiet: Flags.boolean({ char: 'q', summary: 'No spinner or progress on stderr.' }),
    color: colorFlag,
  };

  async run(): Promise<void> {
    this.argv = watchWithoutDuration(this.argv);
    const { args, flags } = await this.parse(Explain);
    let target;
    let watchMs = 0;
    let requestTimeoutMs: number;
    try {
      target = parseLiveTarget(args.name === undefined ? [args.target] : [args.target, args.name]);
      requireKinds(target, ['rs', 'rc', 'deployment', 'ds', 'job'], 'explain');
      if (flags.watch === UNTIL_INTERRUPTED) watchMs = Infinity;
      else if (flags.watch) {
        watchMs = parseDuration(flags.watch);
        if (watchMs <= 0) throw new Error(`--watch must be longer than 0, got "${flags.watch}"`);
      }
      requestTimeoutMs = parseDuration(flags['request-timeout']);
      if (flags.record && !flags.watch) throw new Error('--record needs --watch DURATION');
      if (flags.overwrite && !flags.record) throw new Error('--overwrite needs --record FILE');
    } catch (err) {
      return this.usageError(err);
    }
    const ac = this.abortOnSignals();
    const spinner = createSpinner('reading', flags.quiet);
    try {
      const accessOptions = { kubeconfig: flags.kubeconfig, context: flags.context, namespace: flags.namespace, as: flags.as, asGroups: flags['as-group'] };
      // The pods and the server version may already be on their way (bin/run.js started them from argv).
      const early = watchMs === 0 ? await takeExplainPrefetch({ ...accessOptions, requestTimeoutMs }, ac.signal) : (abandonExplainPrefetch(), undefined);
      const access = early?.access ?? await loadClusterAccess(accessOptions);
      const t = target;
      const explain = t.kind === 'ds' || t.kind === 'job'
        // Loaded only for a DaemonSet or a Job: a ReplicaSet's explain does not pay for it at start-up.
        ? async (o: Omit<Parameters<typeof explainLive>[0], 'target'>) => (await import('../pipeline/workload-explain.js')).explainWorkload({ ...o, target: { kind: t.kind as 'ds' | 'job', name: t.name } })
        : (o: Omit<Parameters<typeof explainLive>[0], 'target'>) => explainLive({ ...o, target: { kind: t.kind as 'rs' | 'rc' | 'deployment', name: t.name } });
      const res = await explain({
        access,
        watchMs,
        recordFile: flags.record,
        overwrite: flags.overwrite,
        signal: ac.signal,
        now: () => performance.timeOrigin + performance.now(),
        requestTimeoutMs,
        ...(early ? { early: early.reads } : {}),
        onWarning: (m) => {
          if (spinner.isSpinning) spinner.clear();
          this.logToStderr(`warning: ${m}`);
        },
        onProgress: (p) => {
          const span = watchMs === Infinity ? 'until Ctrl-C' : `for ${flags.watch}`;
          const text = p === 'reading' ? `reading ${access.namespace}/${target.name}` : p === 'watching' ? `watching ${span}` : p === 'watching-synced' ? `watching ${span} (synced)` : 'replaying';
          spinner.text = terminalSafeLine(text);
          if (!spinner.isEnabled && !flags.quiet && p === 'watching-synced') this.logToStderr(`kexp: watching ${access.namespace}/${target.name} ${span}…`);
        },
      });
      spinner.stop();
      await printOutput({
        document: res.report,
        text: (v) => renderExplainText(res, v),
        html: () => renderExplainHtml(res),
        summary: (v) => explainSummary(res, v),
        names: () => rankReplicaSets(res.report.replicaSets).map(objectName),
      }, flags, HTML);
      if (ac.signal.aborted) this.fail(new InterruptedError('interrupted; the explanation covers what was seen until then'));
      else process.exitCode = exitCodeFor(res.report, res.watch?.problems ?? 0);
    } catch (err) {
      spinner.stop();
      this.fail(ac.signal.aborted && endedBySignal(err) ? new InterruptedError('interrupted') : err);
    } finally {
      spinner.stop();
      ac.dispose();
    }
  }
}
