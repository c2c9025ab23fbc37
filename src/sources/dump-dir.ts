/**
 * A directory given as an input: `kubectl cluster-info dump --output-directory DIR`, an
 * OpenShift must-gather (or `oc adm inspect`) tree, or any directory of List files. The walk
 * finds what kexp can use and counts the rest, by path first (the layouts below) and, for a
 * JSON/YAML file whose name says nothing, by the kinds in its first 64 KiB.
 *
 * cluster-info dump (kubectl pkg/cmd/clusterinfo/clusterinfo_dump.go): `DIR/nodes.json`,
 * `DIR/<ns>/{events,replication-controllers,services,daemonsets,deployments,replicasets,pods}.json`
 * (`.yaml` with `-o yaml`), each one List, and `DIR/<ns>/<pod>/logs.txt` with every container's
 * log between "==== START logs for container C of pod NS/POD ====" and "==== END logs …" lines.
 *
 * must-gather (openshift/oc pkg/cli/admin/inspect): `namespaces/<ns>/<ns>.yaml` (the Namespace),
 * `namespaces/<ns>/<group>/<resource>.yaml` as YAML Lists (`core/pods.yaml`, `core/events.yaml`,
 * `apps/replicasets.yaml`, `apps/daemonsets.yaml`, `batch/jobs.yaml`), `namespaces/<ns>/pods/<pod>/<pod>.yaml`
 * (a copy of each running pod; `apps/daemonsets/<name>.yaml`, `batch/jobs/<name>.yaml` the same of one object),
 * `namespaces/<ns>/pods/<pod>/<container>/<container>/logs/{current,previous}.log` (`kubectl
 * logs --timestamps`), and, from the default gather image's audit script, the apiservers' audit
 * logs under `audit_logs/kube-apiserver/*.log(.gz)` (`audit_logs/openshift-apiserver`,
 * `oauth-apiserver`: other apiservers, not the ReplicaSet controller's writes). The tree may sit
 * one or two levels down (`must-gather.local.N/<image-digest>/…`).
 *
 * The kube-controller-manager log is the container `kube-controller-manager` of a pod named
 * `kube-controller-manager-*` (kube-system with kubeadm/minikube, openshift-kube-controller-manager
 * on OpenShift), a loose `kube-controller-manager*.log`, or any other loose `*.log`/`*.txt` whose
 * first records are kube-controller-manager's (src/sources/kcm-log-recognition.ts: a trimmed
 * must-gather's `kube-controller-manager/current.log`). Symbolic links are not followed (a tree from someone else must not lead the walk
 * elsewhere); the walk stops at MAX_FILES.
 */
import { lstat, open, readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { constants as zlibConstants, createGunzip } from 'node:zlib';
import { isKcmLogByContent } from './kcm-log-recognition.js';

export const MAX_FILES = 200_000;
const PEEK_BYTES = 64 * 1024;

/**
 * The kinds of objects kexp reads: what the snapshot analysis reads, and DaemonSets, Jobs and Nodes
 * (replayed from histories; a snapshot counts them, pipeline/snapshot-files.ts). Nodes are found by
 * their path only (nodes.json, a must-gather's cluster-scoped-resources/core/nodes/): a peek would
 * take every object that refers to a node (`nodeRef`, a CSINode's ownerReference) for one.
 */
const USABLE_RESOURCES = new Set(['replicasets', 'pods', 'events', 'namespaces', 'daemonsets', 'jobs', 'nodes']);
// `^\s*(?:-\s*)?kind:`, not `^\s*-?\s*kind:`: two \s* around an optional dash split a run of
// blanks every way (quadratic in a file head of blanks). Bounded: test/fuzz/input-patterns.test.ts.
const USABLE_KIND_RE = /(?:"kind"\s*:\s*"|^\s*(?:-\s*)?kind:\s*["']?)(ReplicaSet|Pod|Event|Namespace|DaemonSet)(?:List)?["']?\s*(?:,|$)/m;
/**
 * A Job object (its kind right before its metadata, or before the apiVersion before its metadata —
 * the apiserver writes kind, apiVersion, metadata; kubectl apiVersion, kind, metadata) in a file whose
 * name says nothing (jobs.json and a must-gather's batch/jobs.yaml are found by path). Not any
 * `kind: Job`: a CronJob's status.active and a pod's ownerReferences name Jobs too, followed by the
 * Job's name or namespace, never by metadata. One blank class each side of a newline: linear.
 */
const JOB_KIND_RE = /(?:"kind"[ \t]*:[ \t]*"Job"[ \t]*,[ \t\r\n]*(?:"apiVersion"[ \t]*:[ \t]*"[^"\r\n]*"[ \t]*,[ \t\r\n]*)?"metadata"|^[ \t]*(?:-[ \t]*)?kind:[ \t]*["']?Job["']?[ \t]*\r?\n(?:[ \t]*apiVersion:[^\r\n]*\r?\n)?[ \t]*metadata:)/m;
const ANY_KIND_RE = /(?:"kind"\s*:\s*"|^\s*(?:-\s*)?kind:\s*["']?)[A-Za-z]+/m;
const KCM_POD_RE = /^kube-controller-manager-/;

export type DumpLayout = 'cluster-info-dump' | 'must-gather' | 'directory';

export interface DumpDir {
  dir: string;
  layout: DumpLayout;
  /** List files (and Namespace objects) to read as one snapshot. */
  lists: string[];
  /** kube-controller-manager container logs. */
  kcmLogs: string[];
  /** kube-apiserver audit logs. */
  auditLogs: string[];
  /** Files not used, by reason. */
  skipped: { otherKinds: number; otherLogs: number; copies: number; daemonSetCopies: number; jobCopies: number; empty: number; other: number; unreadable: number; links: number; special: number };
  /** The walk stopped at MAX_FILES. */
  truncated: boolean;
}

type Use = 'list' | 'kcm' | 'audit' | 'pod-copy' | 'ds-copy' | 'job-copy' | 'otherKinds' | 'otherLogs' | 'other' | 'peek' | 'peek-log';

const DATA_EXT_RE = /\.(json|ya?ml)(\.gz)?$/;

/** Classifies one file by its path relative to the tree's root (segments). */
export function classifyPath(parts: string[]): Use {
  const name = parts[parts.length - 1]!;
  const lower = name.toLowerCase();
  const ai = parts.indexOf('audit_logs');
  if (ai !== -1) {
    if (parts[ai + 1] === 'kube-apiserver' && /\.log(\.gz)?$/.test(lower)) return 'audit';
    return /\.log(\.gz)?$/.test(lower) ? 'otherLogs' : 'other';
  }
  // must-gather container logs: …/pods/<pod>/<container>/<container>/logs/<current|previous>.log
  const li = parts.lastIndexOf('logs');
  if (li >= 4 && li === parts.length - 2 && /\.log(\.gz)?$/.test(lower) && parts[li - 4] === 'pods') {
    const pod = parts[li - 3]!;
    const container = parts[li - 1]!;
    return KCM_POD_RE.test(pod) && container === 'kube-controller-manager' && parts[li - 2] === container ? 'kcm' : 'otherLogs';
  }
  // cluster-info dump container logs: <ns>/<pod>/logs.txt (every container of the pod, framed).
  if (name === 'logs.txt' && parts.length >= 3) return KCM_POD_RE.test(parts[parts.length - 2]!) ? 'kcm' : 'otherLogs';
  if (/\.(log|txt)(\.gz)?$/.test(lower)) {
    // A loose log in a directory of files: by its name, else by its content (kcm-log-recognition.ts:
    // klog/JSON records of kube-controller-manager, or a `kube-controller-manager` folder above it).
    return /^(kube-controller-manager|kcm)[^/]*\.log(\.gz)?$/.test(lower) ? 'kcm' : /audit[^/]*\.log(\.gz)?$/.test(lower) ? 'audit' : 'peek-log';
  }
  if (!DATA_EXT_RE.test(lower)) return 'other';
  // must-gather: cluster-scoped-resources/<group>/<resource>/<name>.yaml, one object each; of them
  // kexp reads the Nodes (core/nodes). The others are decided by their folder, not a peek, which
  // would take a CSINode's ownerReference (`kind: Node`) for a Node.
  const ci = parts.indexOf('cluster-scoped-resources');
  if (ci !== -1 && parts.length === ci + 4) return parts[ci + 1] === 'core' && parts[ci + 2] === 'nodes' ? 'list' : 'otherKinds';
  const stem = lower.replace(DATA_EXT_RE, '');
  // must-gather: namespaces/<ns>/pods/<pod>/<pod>.yaml is a copy of an item of core/pods.yaml.
  if (parts.length >= 4 && parts[parts.length - 3] === 'pods' && parts[parts.length - 2] === stem) return 'pod-copy';
  // must-gather: namespaces/<ns>/apps/daemonsets/<name>.yaml is a copy of an item of apps/daemonsets.yaml.
  if (parts.length >= 5 && parts[parts.length - 2] === 'daemonsets' && parts[parts.length - 3] === 'apps' && parts[parts.length - 5] === 'namespaces') return 'ds-copy';
  // must-gather: namespaces/<ns>/batch/jobs/<name>.yaml (`oc adm inspect job/NAME`) is a copy of an item of batch/jobs.yaml.
  if (parts.length >= 5 && parts[parts.length - 2] === 'jobs' && parts[parts.length - 3] === 'batch' && parts[parts.length - 5] === 'namespaces') return 'job-copy';
  // must-gather: namespaces/<ns>/<ns>.yaml is the Namespace object.
  if (parts.length >= 3 && parts[parts.length - 3] === 'namespaces' && parts[parts.length - 2] === stem) return 'list';
  if (USABLE_RESOURCES.has(stem)) return 'list';
  return 'peek';
}

/**
 * The first `max` bytes `gz` (the start of a gzip file) inflates to, or undefined when it does
 * not inflate. Inflates at most one chunk of `max` bytes past what it keeps, then stops.
 */
function gunzipPrefix(gz: Buffer, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const z = createGunzip({ chunkSize: max, finishFlush: zlibConstants.Z_SYNC_FLUSH });
    const out: Buffer[] = [];
    let n = 0;
    let done = false;
    const finish = (ok: boolean) => {
      if (done) return;
      done = true;
      z.destroy();
      resolve(ok || n > 0 ? Buffer.concat(out).subarray(0, max) : undefined);
    };
    z.on('data', (c: Buffer) => {
      out.push(c);
      n += c.length;
      if (n >= max) finish(true);
    });
    z.on('end', () => finish(true));
    z.on('error', () => finish(false));
    z.end(gz);
  });
}

/** The kinds in the first bytes of a JSON/YAML file: usable, another kind, or not an object file. */
async function peekKinds(file: string): Promise<'list' | 'otherKinds' | 'other' | 'unreadable'> {
  let head: Buffer;
  try {
    const fh = await open(file, 'r');
    try {
      const buf = Buffer.alloc(PEEK_BYTES);
      const { bytesRead } = await fh.read(buf, 0, PEEK_BYTES, 0);
      head = buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
    if (head[0] === 0x1f && head[1] === 0x8b) {
      // Only a peek: the first PEEK_BYTES the compressed head inflates to, no more (64 KiB of
      // gzip can inflate to 66 MB: a directory of them took minutes); one that does not inflate
      // on its own is read from its start.
      const out = await gunzipPrefix(head, PEEK_BYTES);
      if (!out) return 'other';
      head = out;
    }
  } catch {
    return 'unreadable';
  }
  const text = head.toString('utf8');
  if (USABLE_KIND_RE.test(text) || JOB_KIND_RE.test(text)) return 'list';
  return ANY_KIND_RE.test(text) ? 'otherKinds' : 'other';
}

function layoutOf(rels: string[]): DumpLayout {
  if (rels.some((r) => r.split(sep).includes('namespaces') && /(^|[/\\])(core|apps)[/\\](pods|replicasets|events)\.yaml$/.test(r))) return 'must-gather';
  if (rels.some((r) => /^nodes\.(json|ya?ml|txt)$/.test(r)) || rels.some((r) => /^[^/\\]+[/\\](pods|replicasets|events)\.(json|ya?ml)$/.test(r))) return 'cluster-info-dump';
  return 'directory';
}

/** Walks `dir` (no symbolic links followed) and sorts its files into what kexp can use and the rest. */
export async function walkDumpDir(dir: string): Promise<DumpDir> {
  const files: string[] = [];
  let truncated = false;
  let unreadable = 0;
  // Inside the tree, symbolic links are not followed (a link can lead out of the tree or round
  // in a loop) and FIFOs, sockets and devices are not read (a FIFO blocks, a device never ends):
  // each is counted, so the summary says what was left out.
  let links = 0;
  let special = 0;
  const stack = [dir];
  while (stack.length && !truncated) {
    const d = stack.pop()!;
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      unreadable++;
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.isFile()) {
        files.push(p);
        if (files.length >= MAX_FILES) {
          truncated = true;
          break;
        }
      } else if (e.isSymbolicLink()) links++;
      else special++;
    }
  }
  files.sort();
  const rels = files.map((f) => relative(dir, f));
  const out: DumpDir = {
    dir, layout: layoutOf(rels), lists: [], kcmLogs: [], auditLogs: [],
    skipped: { otherKinds: 0, otherLogs: 0, copies: 0, daemonSetCopies: 0, jobCopies: 0, empty: 0, other: 0, unreadable, links, special }, truncated,
  };
  const podCopies: string[] = [];
  const dsCopies: string[] = [];
  const jobCopies: string[] = [];
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    // An empty file (a must-gather's previous.log of a container that never restarted) holds nothing.
    const size = await lstat(f).then((st) => st.size, () => -1);
    if (size === 0) {
      out.skipped.empty++;
      continue;
    }
    let use: Use | 'unreadable' = size < 0 ? 'unreadable' : classifyPath(rels[i]!.split(sep));
    if (use === 'peek') use = await peekKinds(f);
    else if (use === 'peek-log') use = (await isKcmLogByContent(f, rels[i]!)) ? 'kcm' : 'otherLogs';
    switch (use) {
      case 'list': out.lists.push(f); break;
      case 'kcm': out.kcmLogs.push(f); break;
      case 'audit': out.auditLogs.push(f); break;
      case 'pod-copy': podCopies.push(f); break;
      case 'ds-copy': dsCopies.push(f); break;
      case 'job-copy': jobCopies.push(f); break;
      case 'otherKinds': out.skipped.otherKinds++; break;
      case 'otherLogs': out.skipped.otherLogs++; break;
      case 'unreadable': out.skipped.unreadable++; break;
      default: out.skipped.other++; break;
    }
  }
  // A pod's own file is a copy of its item in the namespace's pods List; used only without that List.
  const podLists = new Set(out.lists.filter((f) => /(^|[/\\])pods\.(json|ya?ml)$/.test(f)).map((f) => f.split(sep).slice(0, -2).join(sep)));
  for (const f of podCopies) {
    const nsDir = f.split(sep).slice(0, -3).join(sep);
    if (podLists.has(nsDir)) out.skipped.copies++;
    else out.lists.push(f);
  }
  // The same for a DaemonSet's own file beside its namespace's apps/daemonsets.yaml, and a Job's beside batch/jobs.yaml.
  const dsLists = new Set(out.lists.filter((f) => /(^|[/\\])apps[/\\]daemonsets\.ya?ml$/.test(f)).map((f) => f.split(sep).slice(0, -1).join(sep)));
  for (const f of dsCopies) {
    const appsDir = f.split(sep).slice(0, -2).join(sep);
    if (dsLists.has(appsDir)) out.skipped.daemonSetCopies++;
    else out.lists.push(f);
  }
  const jobLists = new Set(out.lists.filter((f) => /(^|[/\\])batch[/\\]jobs\.ya?ml$/.test(f)).map((f) => f.split(sep).slice(0, -1).join(sep)));
  for (const f of jobCopies) {
    const batchDir = f.split(sep).slice(0, -2).join(sep);
    if (jobLists.has(batchDir)) out.skipped.jobCopies++;
    else out.lists.push(f);
  }
  return out;
}

/** "skipped 812 files: 790 other kinds, 22 other logs" (undefined when nothing was skipped). */
export function skippedSummary(d: DumpDir): string | undefined {
  const s = d.skipped;
  const parts: string[] = [];
  const add = (n: number, what: string) => {
    if (n > 0) parts.push(`${n} ${what}`);
  };
  add(s.otherKinds, 'other kinds');
  add(s.otherLogs, 'other logs');
  add(s.copies, 'per-pod copies of listed pods');
  add(s.daemonSetCopies, 'per-DaemonSet copies of listed DaemonSets');
  add(s.jobCopies, 'per-Job copies of listed Jobs');
  add(s.empty, 'empty');
  add(s.other, 'other files');
  add(s.unreadable, 'unreadable');
  add(s.links, 'symbolic links (not followed)');
  add(s.special, 'FIFOs, sockets or devices (not read)');
  const total = s.otherKinds + s.otherLogs + s.copies + s.daemonSetCopies + s.jobCopies + s.empty + s.other + s.unreadable + s.links + s.special;
  if (total === 0) return d.truncated ? `stopped after ${MAX_FILES} files` : undefined;
  return `skipped ${total} file${total === 1 ? '' : 's'}: ${parts.join(', ')}${d.truncated ? `; stopped after ${MAX_FILES} files` : ''}`;
}

/** What the walk looked for, for the one line that says a directory held nothing usable. */
export function lookedFor(command: 'replay' | 'audit'): string {
  return command === 'audit'
    ? 'looked for kube-apiserver audit logs (audit_logs/kube-apiserver/*.log of a must-gather, audit*.log) and kube-controller-manager logs'
    : 'looked for ReplicaSet, Pod, Event, Namespace, DaemonSet, Job and Node Lists (<ns>/replicasets.json of a cluster-info dump, namespaces/<ns>/apps/replicasets.yaml and core/{pods,events}.yaml of a must-gather, or any List of those kinds) and kube-controller-manager container logs';
}

const LAYOUT_NAME: Record<DumpLayout, string> = { 'cluster-info-dump': 'kubectl cluster-info dump', 'must-gather': 'must-gather', directory: 'directory' };

/** One line for what a directory gave: its layout, what is used, and the skipped-files summary. */
export function dirSummary(d: DumpDir, used: { lists: boolean; kcm: boolean; audit: boolean }): string {
  const parts: string[] = [];
  if (used.lists) parts.push(`${d.lists.length} List file${d.lists.length === 1 ? '' : 's'}`);
  if (used.kcm && d.kcmLogs.length) parts.push(`${d.kcmLogs.length} kube-controller-manager log${d.kcmLogs.length === 1 ? '' : 's'}`);
  if (used.audit && d.auditLogs.length) parts.push(`${d.auditLogs.length} kube-apiserver audit log${d.auditLogs.length === 1 ? '' : 's'}`);
  const skipped = skippedSummary(d);
  return `${d.dir} (${LAYOUT_NAME[d.layout]}): read ${parts.join(', ') || 'nothing'}${skipped ? `; ${skipped}` : ''}`;
}

/**
 * True when `path` names a directory, or a symbolic link to one (the path the user gave is
 * followed; links inside the tree are not: walkDumpDir). `-` and unreadable paths are not;
 * opening them reports why.
 */
export async function isDirectory(path: string): Promise<boolean> {
  if (path === '-') return false;
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Splits the inputs into files and walked directories, in the order given. */
export async function expandInputs(inputs: string[]): Promise<{ files: string[]; dirs: DumpDir[] }> {
  const files: string[] = [];
  const dirs: DumpDir[] = [];
  for (const f of inputs) {
    if (await isDirectory(f)) dirs.push(await walkDumpDir(f));
    else files.push(f);
  }
  return { files, dirs };
}
