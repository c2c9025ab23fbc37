import { Args, Flags } from '@oclif/core';
import { KexpCommand } from '../cli/base-command.js';
import { createSpinner } from '../cli/spinner.js';
import { clusterFlags, parseDuration } from '../cli/flags.js';
import { exitCodeForRecording } from '../cli/report-exit.js';
import { EXIT } from '../cli/exit-codes.js';
import { endedBySignal, InterruptedError } from '../cli/interrupted-error.js';
import { terminalSafeLine } from '../render/terminal-safe.js';
import { loadClusterAccess } from '../sources/live/kubeconfig.js';
import { recordLive } from '../pipeline/record-live.js';
import { parseLiveTarget } from '../pipeline/live-target.js';

export default class Record extends KexpCommand {
  static override summary = 'Record the watch stream of a ReplicaSet (or a Deployment\'s ReplicaSets), a ReplicationController, a DaemonSet or a Job into a kexp recording.';
  static override description =
    'Watches the objects of the target\'s kind (ReplicaSets, ReplicationControllers, DaemonSets or Jobs), the pods and Events of the namespace and ' +
    'the namespace itself — for a DaemonSet also every Node and the ControllerRevisions (without list on nodes the recording goes on without them and ' +
    'says so in its header: node placement is then unknown to the replay) —, stamping every event with its ' +
    'receive time, and appends one complete line per event to FILE (created with mode 0600; an existing FILE is refused ' +
    'unless --overwrite, and a symbolic link at FILE is never followed). The file stays replayable after Ctrl-C ' +
    'or a crash. Secret values, container env values, tokens and credential-like annotations are redacted unless --no-redact. ' +
    'Exit codes: 0 recorded until --duration, 130 Ctrl-C/SIGTERM (the file gets an "interrupted" end line), 6 FILE cannot be ' +
    'created or written (exists, symlink, disk full), 7 cluster access or a server that does not speak the API, 8 not found.';
  static override examples = [
    '<%= config.bin %> <%= command.id %> web-7d9c6b8f5d -n shop -f web.kexp.jsonl --duration 10m',
    '<%= config.bin %> <%= command.id %> deployment/web -n shop -f web.kexp.jsonl',
    '<%= config.bin %> <%= command.id %> deployment/web -n shop -f web.kexp.jsonl --overwrite',
    '<%= config.bin %> <%= command.id %> ds/node-agent -n kube-system -f agent.kexp.jsonl --duration 10m',
    '<%= config.bin %> <%= command.id %> job backup -n shop -f backup.kexp.jsonl',
  ];
  static override args = {
    target: Args.string({ description: 'TYPE/NAME (rs, rc, ds, job, deployment; kubectl\'s type names) or a ReplicaSet name; or TYPE when NAME follows.', required: true }),
    name: Args.string({ description: 'NAME, when the first argument is a TYPE (kubectl\'s `TYPE NAME`).', required: false }),
  };
  static override flags = {
    ...clusterFlags,
    file: Flags.string({ char: 'f', summary: 'Recording file to write (must not exist, unless --overwrite).', required: true, helpValue: 'FILE' }),
    overwrite: Flags.boolean({ summary: 'Replace FILE if it exists (a regular file, or a device such as /dev/null; a symbolic link is never followed).', default: false }),
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
      target = parseLiveTarget(args.name === undefined ? [args.target] : [args.target, args.name]);
      durationMs = flags.duration ? parseDuration(flags.duration) : undefined;
      if (durationMs !== undefined && durationMs <= 0) throw new Error(`--duration must be longer than 0, got "${flags.duration}"`);
      requestTimeoutMs = parseDuration(flags['request-timeout']);
    } catch (err) {
      return this.usageError(err);
    }
    const ac = this.abortOnSignals();
    const started = Date.now();
    const spinner = createSpinner('connecting', flags.quiet);
    // Error lines on stderr: through the spinner when it runs (ora writes them as they are: sanitise first).
    const failLine = (line: string) => {
      if (spinner.isEnabled) spinner.fail(terminalSafeLine(line));
      else this.logToStderr(terminalSafeLine(line));
    };
    try {
      const access = await loadClusterAccess({ kubeconfig: flags.kubeconfig, context: flags.context, namespace: flags.namespace, as: flags.as, asGroups: flags['as-group'] });
      const res = await recordLive({
        access,
        target,
        file: flags.file,
        overwrite: flags.overwrite,
        redact: flags.redact,
        signal: ac.signal,
        durationMs,
        requestTimeoutMs,
        now: () => performance.timeOrigin + performance.now(),
        onProgress: (c) => {
          spinner.text = terminalSafeLine(`recording ${access.namespace}/${target.name}: ${c.events} events (${Object.entries(c.byResource).map(([k, v]) => `${k} ${v}`).join(', ')}), ${Math.round((Date.now() - started) / 1000)}s`);
        },
        onWarning: (m) => {
          if (spinner.isSpinning) spinner.clear();
          this.logToStderr(`warning: ${m}`);
        },
      });
      // The error that ended the recording, whole: failLine shows any line break in it as `\n`.
      if (res.error) return this.fail(res.error, failLine, res.error.message);
      const summary = terminalSafeLine(`wrote ${flags.file}: ${res.counts.events} events, ${res.counts.gaps} gaps (${res.endReason})`);
      if (res.unwatched) {
        // A watch that never worked recorded nothing after its initial list: not "nothing lost".
        if (spinner.isEnabled) spinner.warn(summary);
        else if (!flags.quiet) this.logToStderr(summary);
        const u = res.unwatched;
        this.logToStderr(terminalSafeLine(
          `kexp: the watch of ${u.map((x) => x.resource).join(', ')} never worked (${u.reduce((n, x) => n + x.attempts, 0)} attempts from ${u.map((x) => x.since).sort()[0]}; last answer: ${u[u.length - 1]!.detail}): ` +
            `the recording holds only the initial list${u.length === 1 ? '' : 's'}, and its end line says so; a replay reports the time after ${u.length === 1 ? 'it' : 'them'} as unknown`,
        ));
        process.exitCode = res.endReason === 'interrupted' ? exitCodeForRecording(res.endReason) : EXIT.CLUSTER;
        return;
      }
      if (spinner.isEnabled) spinner.succeed(summary);
      else if (!flags.quiet) this.logToStderr(summary);
      process.exitCode = exitCodeForRecording(res.endReason);
    } catch (err) {
      if (ac.signal.aborted && endedBySignal(err)) {
        spinner.stop();
        this.fail(new InterruptedError('interrupted before anything was recorded'));
      } else this.fail(err, failLine);
    } finally {
      spinner.stop();
      ac.dispose();
    }
  }
}
