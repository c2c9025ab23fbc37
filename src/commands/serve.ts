import { Flags } from '@oclif/core';
import { KexpCommand } from '../cli/base-command.js';
import { clusterFlags, parseDuration } from '../cli/flags.js';
import { EXIT } from '../cli/exit-codes.js';
import { InterruptedError } from '../cli/interrupted-error.js';
import { parseSelectorString } from '../model/selector.js';
import { dns1123LabelProblem } from '../sources/live/names.js';
import { loadClusterAccess } from '../sources/live/kubeconfig.js';
import { DEFAULT_LISTEN, parseListen } from '../serve/listen-address.js';

/** The history must outlast the 5-minute ExpectationsTimeout and the sync after it (journal.ts). */
const MIN_HISTORY_MS = 6 * 60 * 1000;

export default class Serve extends KexpCommand {
  static override summary = 'Follow every ReplicaSet, ReplicationController, DaemonSet and Job of the cluster (or a namespace) live: Prometheus metrics, health endpoints, and the current report of any object over HTTP.';
  static override description =
    'Runs the same watches and the same engine as `kexp record` and `kexp explain --watch`, for all selected objects at once: it lists, says for each object ' +
    'that what came before is unknown, and learns from there; it survives watch expiry (410: a relist), reconnects and apiserver restarts. ' +
    'Every --interval it replays what it saw within --history and exposes the result on --listen: /metrics (Prometheus; docs/metrics.md), /healthz, ' +
    '/readyz (ready once the initial lists are in) and /explain/KIND/NAMESPACE/NAME (the object\'s report as `kexp explain` gives it: JSON, or HTML with ' +
    'Accept: text/html). Read-only: it reads ReplicaSets, ReplicationControllers, DaemonSets, Jobs, Pods, Events, Namespaces, Nodes and the ' +
    'kube-controller-manager Lease, never a Secret (docs/rbac.md). In a pod it uses its service account. Exit codes: 0 stopped by SIGTERM, ' +
    '130 Ctrl-C (SIGINT), 2 bad flags, 7 cluster access (a watch refused or a server that does not speak the API), 1 the address cannot be bound.';
  static override examples = [
    '<%= config.bin %> <%= command.id %> -A',
    '<%= config.bin %> <%= command.id %> -n shop -l app=web --listen 127.0.0.1:9797',
    '<%= config.bin %> <%= command.id %> -A --listen 0.0.0.0:9797 --history 20m',
  ];
  static override flags = {
    ...clusterFlags,
    'all-namespaces': Flags.boolean({ char: 'A', summary: 'Follow every namespace (default: the context\'s namespace, as kubectl).' }),
    selector: Flags.string({ char: 'l', summary: 'Only report owners (ReplicaSets, RCs, DaemonSets, Jobs) whose labels match this kubectl label selector.', helpValue: 'SELECTOR' }),
    listen: Flags.string({ summary: `Address to serve HTTP on: HOST:PORT, [IPv6]:PORT or PORT (loopback). Default ${DEFAULT_LISTEN}; 0.0.0.0:PORT to serve the pod network.`, default: DEFAULT_LISTEN, helpValue: 'ADDRESS' }),
    history: Flags.string({ summary: 'How long each event is replayed before it is folded into the starting state (at least 6m: longer than the 5-minute ExpectationsTimeout).', default: '15m', helpValue: 'DURATION' }),
    interval: Flags.string({ summary: 'How often the report and the metrics are rebuilt.', default: '15s', helpValue: 'DURATION' }),
    quiet: Flags.boolean({ char: 'q', summary: 'No progress lines on stderr (the listening address and warnings still).' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    let listen;
    let historyMs: number;
    let intervalMs: number;
    let requestTimeoutMs: number;
    let selector;
    try {
      if (flags['all-namespaces'] && flags.namespace !== undefined) throw new Error('-A/--all-namespaces cannot be combined with -n/--namespace');
      if (flags.namespace !== undefined) {
        const bad = dns1123LabelProblem(flags.namespace);
        if (bad) throw new Error(`-n/--namespace "${flags.namespace}" ${bad}`);
      }
      listen = parseListen(flags.listen);
      historyMs = parseDuration(flags.history);
      if (historyMs < MIN_HISTORY_MS) throw new Error(`--history must be at least 6m (longer than the 5-minute ExpectationsTimeout), got "${flags.history}"`);
      intervalMs = parseDuration(flags.interval);
      if (intervalMs < 1000) throw new Error(`--interval must be at least 1s, got "${flags.interval}"`);
      requestTimeoutMs = parseDuration(flags['request-timeout']);
      if (flags.selector !== undefined) selector = parseSelectorString(flags.selector);
    } catch (err) {
      return this.usageError(err);
    }
    const ac = this.abortOnSignals();
    let term = false;
    const onTerm = () => {
      term = true;
    };
    process.on('SIGTERM', onTerm);
    const info = (m: string) => {
      if (!flags.quiet) this.logToStderr(`kexp serve: ${m}`);
    };
    try {
      const access = await loadClusterAccess({ kubeconfig: flags.kubeconfig, context: flags.context, namespace: flags.namespace, as: flags.as, asGroups: flags['as-group'] });
      const namespace = flags['all-namespaces'] ? undefined : access.namespace;
      // Loaded here: the rest of kexp does not pay for the HTTP server and prom-client at start-up.
      const { startServe } = await import('../serve/service.js');
      const handle = await startServe({
        access,
        ...(namespace !== undefined ? { namespace } : {}),
        ...(selector ? { selector } : {}),
        listen,
        historyMs,
        intervalMs,
        signal: ac.signal,
        now: () => performance.timeOrigin + performance.now(),
        requestTimeoutMs,
        onWarning: (m) => this.logToStderr(`warning: ${m}`),
        onInfo: info,
      });
      this.logToStderr(`kexp serve: listening on ${handle.address.url} (/metrics /healthz /readyz /explain/KIND/NAMESPACE/NAME); following ${namespace === undefined ? 'every namespace' : `namespace ${namespace}`} of ${access.server}`);
      await handle.done;
      if (ac.signal.aborted) {
        if (term) {
          info('stopped (SIGTERM)');
          process.exitCode = EXIT.OK;
        } else this.fail(new InterruptedError('interrupted'));
      }
    } catch (err) {
      if (ac.signal.aborted) {
        if (term) process.exitCode = EXIT.OK;
        else this.fail(new InterruptedError('interrupted'));
      } else this.fail(err);
    } finally {
      process.off('SIGTERM', onTerm);
      ac.dispose();
    }
  }
}
