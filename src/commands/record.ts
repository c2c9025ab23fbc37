import { Args, Flags } from '@oclif/core';
import { KexpCommand } from '../cli/base-command.js';
import ora from 'ora';
import { spinnerEnabled } from '../cli/spinner.js';
import { clusterFlags, parseDuration } from '../cli/flags.js';
import { EXIT } from '../cli/exit-codes.js';
import { exitCodeForError } from '../cli/cluster-errors.js';
import { oneLine } from '../cli/messages.js';
import { loadClusterAccess } from '../sources/live/kubeconfig.js';
import { parseTarget, recordLive } from '../pipeline/record-live.js';

export default class Record extends KexpCommand {
  static override summary = 'Record the watch stream of a ReplicaSet (or a Deployment\'s ReplicaSets) into a kexp recording.';
  static override description =
    'Watches the ReplicaSets, pods and Events of the namespace and the namespace itself, stamping every event with its ' +
    'receive time, and appends one complete line per event to FILE (mode 0600). The file stays replayable after Ctrl-C ' +
    'or a crash. Secret values, container env values, tokens and credential-like annotations are redacted unless --no-redact.';
  static override examples = [
    '<%= config.bin %> <%= command.id %> web-7d9c6b8f5d -n shop -f web.kexp.jsonl --duration 10m',
    '<%= config.bin %> <%= command.id %> deployment/web -n shop -f web.kexp.jsonl',
  ];
  static override args = { target: Args.string({ description: 'ReplicaSet name, or deployment/NAME.', required: true }) };
  static override flags = {
    ...clusterFlags,
    file: Flags.string({ char: 'f', summary: 'Recording file to write.', required: true, helpValue: 'FILE' }),
    duration: Flags.string({ summary: 'Stop after this long (default: until Ctrl-C).', helpValue: 'DURATION' }),
    redact: Flags.boolean({ summary: 'Redact credentials and env values (on by default).', default: true, allowNo: true }),
    quiet: Flags.boolean({ char: 'q', summary: 'No spinner.' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Record);
    let target;
    let durationMs: number | undefined;
    let requestTimeoutMs: number;
    try {
      target = parseTarget(args.target);
      durationMs = flags.duration ? parseDuration(flags.duration) : undefined;
      requestTimeoutMs = parseDuration(flags['request-timeout']);
    } catch (err) {
      this.usageError(err);
      return;
    }
    const ac = this.abortOnSignals();
    const started = Date.now();
    const spinner = ora({ text: 'connecting', stream: process.stderr, isEnabled: spinnerEnabled(flags.quiet), discardStdin: false });
    if (spinner.isEnabled) spinner.start();
    try {
      const access = loadClusterAccess({ kubeconfig: flags.kubeconfig, context: flags.context, namespace: flags.namespace });
      const res = await recordLive({
        access,
        target,
        file: flags.file,
        redact: flags.redact,
        signal: ac.signal,
        durationMs,
        requestTimeoutMs,
        now: () => performance.timeOrigin + performance.now(),
        onProgress: (c) => {
          spinner.text = `recording ${access.namespace}/${target.name}: ${c.events} events (${Object.entries(c.byResource).map(([k, v]) => `${k} ${v}`).join(', ')}), ${Math.round((Date.now() - started) / 1000)}s`;
        },
        onWarning: (m) => {
          if (spinner.isSpinning) spinner.clear();
          this.logToStderr(`warning: ${m}`);
        },
      });
      if (res.error) {
        if (spinner.isEnabled) spinner.fail(`kexp: ${res.error.message}`);
        else this.logToStderr(`kexp: ${res.error.message}`);
        process.exitCode = exitCodeForError(res.error);
        return;
      }
      if (spinner.isEnabled) spinner.succeed(`wrote ${flags.file}: ${res.counts.events} events, ${res.counts.gaps} gaps (${res.endReason})`);
      if (!spinner.isEnabled && !flags.quiet) this.logToStderr(`wrote ${flags.file}: ${res.counts.events} events, ${res.counts.gaps} gaps (${res.endReason})`);
      process.exitCode = res.endReason === 'interrupted' ? EXIT.INTERRUPTED : EXIT.OK;
    } catch (err) {
      spinner.stop();
      this.logToStderr(`kexp: ${oneLine(err)}`);
      process.exitCode = exitCodeForError(err);
    } finally {
      ac.dispose();
    }
  }
}
