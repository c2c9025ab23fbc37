/**
 * Flags shared by several commands, declared once (named like kubectl's where they overlap).
 */
import { Flags } from '@oclif/core';
import { DEFAULT_K8S_VERSION, parseK8sVersion } from '../model/version.js';

/**
 * `-o`: `table` fits the terminal (src/render/width.ts) and cuts long cells with `…`; `wide`
 * adds the wide-only columns and prints every row and cell in full (like `kubectl -o wide`);
 * `json` is the machine-readable result; `name` the owners as kubectl's `-o name` prints them
 * (`replicaset.apps/web`), worst first, for `xargs` and scripts.
 */
export const outputFlag = Flags.string({
  char: 'o',
  summary: 'Output format: table (fits the terminal), wide (every row and cell in full), json, yaml, name (TYPE/NAME of each owner, worst first).',
  options: ['table', 'wide', 'json', 'yaml', 'name'],
  default: 'table',
});

export const rsFlag = Flags.string({
  summary: 'Only report this ReplicaSet, as namespace/name (the same as -n NAMESPACE NAME).',
  helpValue: 'NAMESPACE/NAME',
});

/** The ReplicaSet choice of the file commands (src/cli/selection.ts). */
export const fileSelectionFlags = {
  rs: rsFlag,
  namespace: Flags.string({
    char: 'n',
    summary: 'Only this namespace; with a ReplicaSet NAME as the first argument (before the files), only that ReplicaSet.',
    helpValue: 'NAMESPACE',
  }),
  'all-namespaces': Flags.boolean({
    char: 'A',
    summary: 'Every namespace in the input (the default for files: a file has no current namespace).',
  }),
  selector: Flags.string({
    char: 'l',
    summary: 'Only ReplicaSets whose labels match this kubectl label selector (e.g. app=web,tier!=cache, env in (prod,staging), !canary).',
    helpValue: 'SELECTOR',
  }),
};

export const k8sVersionFlag = Flags.string({
  summary: `Kubernetes version whose controller behaviour to model (default: the input's server version, else ${DEFAULT_K8S_VERSION}).`,
  helpValue: 'VERSION',
});

/**
 * `--k8s-version`, checked in the validate step: a Kubernetes 1.x version (parseK8sVersion; one
 * outside 1.25 … 1.37 is replayed as the nearest with its differences stated), else its Error for
 * the usage line. Empty is no version: the input's, else the default.
 */
export function checkK8sVersion(v: string | undefined): void {
  if (v) parseK8sVersion(v);
}

export const matchWindowFlag = Flags.integer({
  summary: 'How far ahead (ms) to look for the consequences of a sync\'s writes.',
  default: 5000,
  min: 100,
  max: 600000,
});

export const kcmLogFlag = Flags.string({
  summary: 'A kube-controller-manager log (-v=4 or lower) of the same time, to check the reconstruction against the controller\'s own account (repeatable; a log given as an input is detected too).',
  helpValue: 'FILE',
  multiple: true,
});

/** `--color`/`--no-color`: per invocation, so it wins over NO_COLOR (src/render/color.ts). */
export const colorFlag = Flags.boolean({
  summary: 'Colour the output (default: when stdout is a terminal and NO_COLOR is unset; this flag wins over NO_COLOR and FORCE_COLOR).',
  allowNo: true,
});

/** kubectl-style cluster access flags. */
export const clusterFlags = {
  kubeconfig: Flags.string({ summary: 'Path to the kubeconfig file (only this file is read).', helpValue: 'FILE' }),
  context: Flags.string({ summary: 'The kubeconfig context to use.', helpValue: 'NAME' }),
  namespace: Flags.string({ char: 'n', summary: 'Namespace (default: the context\'s namespace, else "default").', helpValue: 'NAMESPACE' }),
  as: Flags.string({ summary: 'Username to impersonate for the operation (sent as Impersonate-User, like kubectl --as).', helpValue: 'USER' }),
  'as-group': Flags.string({ summary: 'Group to impersonate (repeatable; needs --as).', helpValue: 'GROUP', multiple: true, dependsOn: ['as'] }),
  'request-timeout': Flags.string({ summary: 'Timeout of a single API request, from getting credentials (an exec plugin gets 60s when 0) to the last byte of the response, e.g. 10s, 1m (0 = none).', default: '30s', helpValue: 'DURATION' }),
};

/** Parses kubectl-style durations: `90`, `90s`, `5m`, `1h30m`, `500ms`. Throws Error on others. */
export function parseDuration(s: string): number {
  if (/^\d+$/.test(s)) return Number(s) * 1000;
  // (?<![\d.]): a number starts where no digit or dot precedes it — without it a long run of
  // digits with no unit is rescanned from each of its positions (quadratic).
  const re = /(?<![\d.])(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * { ms: 1, s: 1000, m: 60000, h: 3600000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
    consumed += m[0].length;
  }
  if (consumed !== s.length || s.length === 0) throw new Error(`invalid duration "${s}" (use e.g. 30s, 5m, 1h)`);
  return total;
}

/** Standard input can be read once: `-` at most once among the inputs and --kcm-log. Throws Error for the usage line. */
export function checkInputs(files: string[], kcmLogs: string[] = []): void {
  const all = [...files, ...kcmLogs];
  if (all.filter((f) => f === '-').length > 1) throw new Error('standard input ("-") can be read only once; give the other inputs as files');
  if (all.some((f) => f.trim() === '')) throw new Error('an input file name is empty');
}
