/**
 * `kubectl kexp <TAB>`: the completion kubectl (≥ 1.26) asks a plugin for. kubectl runs the
 * executable `kubectl_complete-kexp` on the PATH with the words after `kubectl kexp`, the last
 * one the word being completed (empty for a new word), and reads Cobra's `__complete` answer:
 * one candidate a line, then `:DIRECTIVE` (k8s.io/kubectl pkg/cmd/plugin/plugin_completion.go,
 * pluginCompletion and getPluginCompletions; github.com/spf13/cobra completions.go,
 * ShellCompDirective). bin/kubectl_complete-kexp.js (installed as `kubectl_complete-kexp`)
 * calls `completeWords` and prints that.
 *
 * What it completes:
 * - the command (`replay`, `explain`, …) and each command's flags, from oclif.manifest.json
 *   (read as a file: no oclif start-up on every TAB);
 * - flag values with fixed choices (`-o table|wide|json|yaml|name`, `--format`, …);
 * - `-n NAMESPACE` and owner names: for the live commands (`explain rs <TAB>`, `explain
 *   ds/<TAB>`, `adopt <TAB>`, `-n <TAB>`) from the cluster (`kubectl get` with the command
 *   line's --kubeconfig/--context, 3 s at most; nothing when it does not answer); for the file
 *   commands (`replay FILE -n <TAB>`, `--rs <TAB>`) from the input files already on the command
 *   line (their first 8 MiB: the namespaces and owner names their objects and owner references
 *   carry);
 * - file arguments: left to the shell (directive 0, file completion).
 *
 * Why not @oclif/plugin-autocomplete (which `kexp autocomplete` is): it writes bash/zsh/fish
 * scripts for the `kexp` binary and completes commands and flags only; kubectl's plugin
 * completion calls an executable with Cobra's protocol, and value completion needs the
 * cluster or the input.
 *
 * Cost: one manifest read; per namespace/name completion at most one `kubectl get` (3 s timeout)
 * or 8 MiB read per input file given. Never writes anything but the answer.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import zlib from 'node:zlib';

/** Cobra's ShellCompDirective values used here. */
export const DIRECTIVE = { DEFAULT: 0, NO_SPACE: 2, NO_FILE: 4 } as const;

interface ManifestFlag {
  char?: string;
  type: 'option' | 'boolean';
  options?: string[];
  hidden?: boolean;
  summary?: string;
}

export interface Manifest {
  commands: Record<string, { flags: Record<string, ManifestFlag>; args?: Record<string, unknown>; hidden?: boolean; summary?: string }>;
}

/** Where the values come from; the real one asks kubectl and reads files, tests pass their own. */
export interface CompletionSources {
  /** `kubectl get RESOURCE` names (namespaced when `namespace`); undefined when the cluster does not answer. */
  cluster(resource: string, namespace: string | undefined, access: string[]): string[] | undefined;
  /** The first bytes of an input file (gunzipped), or undefined when it cannot be read. */
  readHead(file: string): string | undefined;
}

export interface Completion {
  candidates: string[];
  directive: number;
}

/** kubectl resource names by the type words kexp takes (src/pipeline/live-target.ts). */
const TYPES: Record<string, string> = { rs: 'replicasets', replicaset: 'replicasets', replicasets: 'replicasets', rc: 'replicationcontrollers', replicationcontroller: 'replicationcontrollers', ds: 'daemonsets', daemonset: 'daemonsets', daemonsets: 'daemonsets', job: 'jobs', jobs: 'jobs', deploy: 'deployments', deployment: 'deployments', deployments: 'deployments' };
/** The type words offered for a live target (`rs/` …), by command. */
const LIVE_TYPES: Record<string, string[]> = { explain: ['rs', 'deployment', 'ds', 'job'], record: ['rs', 'rc', 'ds', 'job', 'deployment'], adopt: [] };
/** Commands whose arguments are input files. */
const FILE_COMMANDS = new Set(['replay', 'audit', 'kcm-log']);

const HEAD_BYTES = 8 * 1024 * 1024;

/** The real sources: kubectl (3 s at most) and the files. */
export const SYSTEM_SOURCES: CompletionSources = {
  cluster(resource, namespace, access) {
    const args = ['get', resource, ...access, ...(namespace ? ['-n', namespace] : []), '-o', 'jsonpath={.items[*].metadata.name}', '--request-timeout=3s'];
    const r = spawnSync('kubectl', args, { encoding: 'utf8', timeout: 3500, stdio: ['ignore', 'pipe', 'ignore'] });
    if (r.status !== 0 || typeof r.stdout !== 'string') return undefined;
    return r.stdout.split(/\s+/).filter(Boolean);
  },
  readHead(file) {
    let fd: number | undefined;
    try {
      fd = fs.openSync(file, 'r');
      if (!fs.fstatSync(fd).isFile()) return undefined;
      const buf = Buffer.alloc(HEAD_BYTES);
      const n = fs.readSync(fd, buf, 0, HEAD_BYTES, 0);
      const head = buf.subarray(0, n);
      if (head[0] === 0x1f && head[1] === 0x8b) {
        // A cut gzip stream: take what inflates.
        try {
          return zlib.gunzipSync(head, { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: HEAD_BYTES }).toString('utf8');
        } catch {
          return undefined;
        }
      }
      return head.toString('utf8');
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  },
};

/** Owner kinds whose names completion offers, and the audit resource of each. */
const OWNER_KINDS = new Set(['ReplicaSet', 'ReplicationController', 'DaemonSet', 'Job']);
const OWNER_RESOURCES = new Set(['replicasets', 'replicationcontrollers', 'daemonsets', 'jobs']);
/** Lines longer than this are not parsed (an object kexp reads is far smaller). */
const MAX_LINE = 1024 * 1024;
const MAX_LINES = 200_000;

/**
 * The namespaces and owner names an input carries: each JSON line (a recording's, a watch
 * event's, an audit event's) walked a few levels deep for objects of an owner kind
 * (`kind` + `metadata.name/namespace`), pods' owner references, and audit `objectRef`s of
 * owner resources. `namespace` narrows the names to it, `kind` to one owner kind. Lines that
 * are not JSON (klog) are skipped. Linear in the text: one JSON.parse per line, no pattern.
 */
export function namesInInput(text: string, namespace: string | undefined, kind: string | undefined): { namespaces: Set<string>; names: Set<string>; keys: Set<string> } {
  const namespaces = new Set<string>();
  const names = new Set<string>();
  const keys = new Set<string>();
  const add = (ns: unknown, name: unknown, k: string) => {
    if (typeof ns === 'string' && ns) namespaces.add(ns);
    if (typeof name !== 'string' || !name || (kind !== undefined && k !== kind) || (namespace !== undefined && ns !== namespace)) return;
    names.add(name);
    if (typeof ns === 'string' && ns) keys.add(`${ns}/${name}`);
  };
  const visit = (node: unknown, depth: number): void => {
    if (depth > 6 || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const x of node.slice(0, 10_000)) visit(x, depth + 1);
      return;
    }
    const o = node as Record<string, unknown>;
    const meta = o.metadata as Record<string, unknown> | undefined;
    if (meta && typeof meta === 'object') {
      if (typeof meta.namespace === 'string' && meta.namespace) namespaces.add(meta.namespace);
      if (typeof o.kind === 'string' && OWNER_KINDS.has(o.kind)) add(meta.namespace, meta.name, o.kind);
      if (Array.isArray(meta.ownerReferences)) for (const r of meta.ownerReferences as Array<Record<string, unknown>>) if (r && typeof r.kind === 'string' && OWNER_KINDS.has(r.kind)) add(meta.namespace, r.name, r.kind);
    }
    const ref = o.objectRef as Record<string, unknown> | undefined;
    if (ref && typeof ref === 'object') {
      if (typeof ref.namespace === 'string' && ref.namespace) namespaces.add(ref.namespace);
      if (typeof ref.resource === 'string' && OWNER_RESOURCES.has(ref.resource) && !ref.subresource) {
        const k = { replicasets: 'ReplicaSet', replicationcontrollers: 'ReplicationController', daemonsets: 'DaemonSet', jobs: 'Job' }[ref.resource as 'jobs'];
        add(ref.namespace, ref.name, k);
      }
    }
    for (const [key, v] of Object.entries(o)) if (key !== 'metadata' && v && typeof v === 'object') visit(v, depth + 1);
  };
  let lines = 0;
  for (let start = 0; start < text.length && lines < MAX_LINES; lines++) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end - start <= MAX_LINE && text[start] === '{') {
      try {
        visit(JSON.parse(text.slice(start, end)), 0);
      } catch {
        // not JSON, or cut by the 8 MiB head: nothing to learn from this line
      }
    }
    start = end + 1;
  }
  return { namespaces, names, keys };
}

function flagOf(cmd: Manifest['commands'][string], word: string): [string, ManifestFlag] | undefined {
  if (word.startsWith('--')) {
    const name = word.slice(2).split('=')[0]!;
    const f = cmd.flags[name];
    return f ? [name, f] : undefined;
  }
  if (/^-[A-Za-z]$/.test(word)) return Object.entries(cmd.flags).find(([, f]) => f.char === word[1]);
  return undefined;
}

/** `--kubeconfig X` / `--context X` of the command line, for kubectl. */
function accessArgs(words: string[]): string[] {
  const out: string[] = [];
  words.forEach((w, i) => {
    if ((w === '--kubeconfig' || w === '--context') && words[i + 1] !== undefined) out.push(w, words[i + 1]!);
    else if (/^--(kubeconfig|context)=/.test(w)) out.push(w);
  });
  return out;
}

/** The candidates for `words` (the last one being completed), from `manifest` and `sources`. */
export function completeWords(words: string[], manifest: Manifest, sources: CompletionSources = SYSTEM_SOURCES): Completion {
  const current = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  const commands = Object.entries(manifest.commands).filter(([, c]) => !c.hidden).map(([id]) => id).sort();
  const done = (candidates: string[], directive: number = DIRECTIVE.NO_FILE): Completion => ({ candidates: [...new Set(candidates)].filter((c) => c.startsWith(current)).sort(), directive });
  if (before.length === 0) return done(commands);
  const id = before[0]!;
  const cmd = manifest.commands[id];
  if (!cmd) return done([]);
  const rest = before.slice(1);
  // Positionals and the flag (if any) the current word is the value of.
  const positionals: string[] = [];
  let namespace: string | undefined;
  let valueOf: [string, ManifestFlag] | undefined;
  const from: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!;
    const f = w.startsWith('-') ? flagOf(cmd, w) : undefined;
    if (f && f[1].type === 'option' && !w.includes('=')) {
      if (i === rest.length - 1) valueOf = f;
      else if (f[0] === 'namespace') namespace = rest[i + 1];
      else if (f[0] === 'from') from.push(rest[i + 1]!);
      i++;
      continue;
    }
    if (f && f[0] === 'namespace' && w.includes('=')) namespace = w.slice(w.indexOf('=') + 1);
    if (!w.startsWith('-')) positionals.push(w);
  }
  // The inputs on the command line: a file command's arguments, adopt's --from files.
  const files = (FILE_COMMANDS.has(id) ? positionals : from).filter((p) => sources.readHead(p) !== undefined);
  const fromInput = () => {
    const ns = new Set<string>();
    const keys = new Set<string>();
    for (const f of files) {
      const got = namesInInput(sources.readHead(f) ?? '', namespace, undefined);
      got.namespaces.forEach((x) => ns.add(x));
      got.keys.forEach((x) => keys.add(x));
    }
    return { ns, keys };
  };
  const live = !FILE_COMMANDS.has(id);
  const access = accessArgs(rest);
  if (valueOf) {
    const [name, f] = valueOf;
    if (f.options?.length) return done(f.options);
    if (name === 'namespace') return done(live ? sources.cluster('namespaces', undefined, access) ?? [] : [...fromInput().ns]);
    if (name === 'rs' && !live) return done([...fromInput().keys]);
    // Files, durations, selectors: the shell's own completion (files) or nothing to offer.
    return { candidates: [], directive: ['html', 'kcm-log', 'kubeconfig', 'compare', 'file', 'from', 'record'].includes(name) ? DIRECTIVE.DEFAULT : DIRECTIVE.NO_FILE };
  }
  if (current.startsWith('-')) {
    const flags = Object.entries(cmd.flags).filter(([, f]) => !f.hidden).flatMap(([n, f]) => [`--${n}`, ...(f.char ? [`-${f.char}`] : [])]);
    return done(flags);
  }
  // A file command's arguments: files (`-n NS NAME` comes before them, so no input tells NAME yet).
  if (!live) return { candidates: [], directive: DIRECTIVE.DEFAULT };
  // A live target: TYPE/NAME, TYPE then NAME, or a ReplicaSet NAME.
  const types = LIVE_TYPES[id] ?? [];
  // adopt --from FILE decides from the file: its names, not the cluster's.
  const names = (resource: string) => (files.length ? [...fromInput().keys].map((k) => k.slice(k.indexOf('/') + 1)) : sources.cluster(resource, namespace, access) ?? []);
  if (positionals.length === 0) {
    const slash = current.indexOf('/');
    if (slash > 0) {
      const resource = TYPES[current.slice(0, slash).toLowerCase()];
      return resource ? done(names(resource).map((n) => `${current.slice(0, slash)}/${n}`)) : done([]);
    }
    return { ...done([...types.map((t) => `${t}/`), ...(types.length ? types : []), ...names('replicasets')]), directive: DIRECTIVE.NO_FILE | DIRECTIVE.NO_SPACE };
  }
  if (positionals.length === 1 && types.length && TYPES[positionals[0]!.toLowerCase()]) return done(names(TYPES[positionals[0]!.toLowerCase()]!));
  return done([]);
}

/** The answer as kubectl reads it: one candidate a line, then `:DIRECTIVE`. */
export function formatCompletion(c: Completion): string {
  return [...c.candidates, `:${c.directive}`].join('\n') + '\n';
}
