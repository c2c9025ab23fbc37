import { Args, Flags } from '@oclif/core';
import { KexpCommand } from '../cli/base-command.js';
import { clusterFlags, outputFlag, parseDuration } from '../cli/flags.js';
import { exitCodeForAdoption } from '../cli/report-exit.js';
import { InterruptedError } from '../cli/interrupted-error.js';
import { printOutput } from '../cli/output.js';
import { loadClusterAccess } from '../sources/live/kubeconfig.js';
import { parseTarget } from '../pipeline/record-live.js';
import { adoptFromFile, adoptLive } from '../pipeline/adopt.js';
import { renderAdoptText } from '../render/adopt.js';
import { checkNamespace, checkObjectName } from '../sources/live/names.js';

export default class Adopt extends KexpCommand {
  static override summary = 'Show the ClaimObject decision (keep / adopt / release / ignore) for every candidate pod of a ReplicaSet, and why.';
  static override description =
    'Candidates are the pods the ReplicaSet controls and the pods in its namespace that match its selector. Live, kexp also ' +
    're-reads the ReplicaSet the way CanAdopt does (RecheckDeletionTimestamp: same UID, no deletionTimestamp) and says whether ' +
    'adoptions would be patched right now. With --from FILE the decisions are those at the end of a recording (or other watch dump); ' +
    'the live re-read is then not available.';
  static override examples = [
    '<%= config.bin %> <%= command.id %> web-7d9f5c --namespace shop',
    '<%= config.bin %> <%= command.id %> web-7d9f5c --from web.kexp.jsonl',
    '<%= config.bin %> <%= command.id %> web-7d9f5c --namespace shop --output json',
  ];
  static override args = { target: Args.string({ description: 'ReplicaSet name.', required: true }) };
  static override flags = {
    ...clusterFlags,
    from: Flags.string({ summary: 'Decide from a recording or watch dump instead of the live cluster (repeatable).', helpValue: 'FILE', multiple: true }),
    output: outputFlag,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Adopt);
    let name: string;
    let requestTimeoutMs: number;
    try {
      const t = parseTarget(args.target);
      if (t.kind !== 'rs') throw new Error('kexp adopt takes a ReplicaSet name (adoption is per ReplicaSet); list them with `kubectl get rs -l …`');
      name = checkObjectName(t.name, 'ReplicaSet');
      if (flags.namespace !== undefined) checkNamespace(flags.namespace, 'given by -n/--namespace', 'argument');
      requestTimeoutMs = parseDuration(flags['request-timeout']);
    } catch (err) {
      return this.usageError(err);
    }
    const ac = this.abortOnSignals();
    try {
      const res = flags.from?.length
        ? await adoptFromFile({
          files: flags.from,
          name,
          namespace: flags.namespace,
          onWarning: (m) => this.logToStderr(`warning: ${m}`),
          onProblem: (m) => this.logToStderr(m),
        })
        : await adoptLive({
          access: await loadClusterAccess({ kubeconfig: flags.kubeconfig, context: flags.context, namespace: flags.namespace, as: flags.as, asGroups: flags['as-group'] }),
          name,
          now: () => Date.now(),
          requestTimeoutMs,
          signal: ac.signal,
        });
      await printOutput({ document: res, text: (v) => renderAdoptText(res, { width: v.width, wide: v.wide }), names: () => res.rows.map((x) => `pod/${x.pod.split('/')[1] ?? x.pod}`) }, flags);
      process.exitCode = exitCodeForAdoption(res.problems);
    } catch (err) {
      this.fail(ac.signal.aborted ? new InterruptedError('interrupted') : err);
    } finally {
      ac.dispose();
    }
  }
}
