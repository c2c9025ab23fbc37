/**
 * Reads kubeconfig files into the cluster, user and context entries @kubernetes/client-node's
 * KubeConfig holds — without loading client-node. Importing it costs a few hundred ms (a third
 * of `kexp explain`'s time to its first line, bench/README.md "Start-up"), and nothing here
 * needs it: the files are YAML, which kexp parses with `yaml` anyway, and the entries are
 * plain objects. kubeconfig.ts validates the result and imports client-node only once the
 * configuration is known to be usable (`KubeConfig.loadFromOptions` takes these entries as they
 * are). Why own code for the conversion rather than client-node's `loadFromString`:
 *
 * - YAML is parsed by `yaml` with an alias limit (client-node's js-yaml has none: a "billion
 *   laughs" file of nested aliases expands without bound once walked), each file read up to
 *   MAX_KUBECONFIG_BYTES;
 * - the fields map exactly as client-node's `newClusters`/`newUsers`/`newContexts` (v1.4.0,
 *   config_types.ts) map them, with the same "clusters[i].name is missing" checks;
 * - relative paths resolve as kubectl resolves them, against the kubeconfig's directory: the
 *   certificate-authority, client-certificate and client-key (client-node's
 *   `makePathsAbsolute`) and also `token-file` (client-node would use the working directory).
 *   The token file itself is read by kubeconfig.ts, for the user actually used only;
 * - several files (`KUBECONFIG=a:b`) merge as kubectl merges them: the first file that sets
 *   current-context wins, and for clusters, users and contexts the first entry of a name wins
 *   (client-node's `mergeConfig` throws on a repeated name instead);
 * - the in-cluster configuration is client-node's `loadFromCluster`, copied.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Cluster, Context, User } from '@kubernetes/client-node';
import YAML from 'yaml';
import { ClusterError } from './cluster-error.js';

/** Real kubeconfigs are KiBs (a few hundred contexts with embedded certificates: a few MiB). */
export const MAX_KUBECONFIG_BYTES = 16 * 1024 * 1024;
/** Aliases a kubeconfig may resolve (the `yaml` default); kubeconfigs written by tools use none. */
const MAX_ALIASES = 100;

/** What client-node's KubeConfig.loadFromOptions takes, plus the token-file of each user that has one. */
export interface KubeconfigEntries {
  clusters: Cluster[];
  users: User[];
  contexts: Context[];
  currentContext: string | undefined;
  /** `token-file` by user name (absolute), for users without an inline token. */
  tokenFiles: Map<string, string>;
}

/** Reads `file` up to the size limit; works for pipes (`--kubeconfig <(…)`) too. Throws ClusterError. */
function readBounded(file: string): string {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ClusterError('config', `kubeconfig ${file} does not exist`);
    throw new ClusterError('config', `kubeconfig ${file} cannot be read (${code ?? 'error'})`);
  }
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    const buf = Buffer.alloc(1024 * 1024);
    for (;;) {
      let n: number;
      try {
        n = fs.readSync(fd, buf, 0, buf.length, null);
      } catch (err) {
        throw new ClusterError('config', `kubeconfig ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
      }
      if (n === 0) break;
      total += n;
      if (total > MAX_KUBECONFIG_BYTES) throw new ClusterError('config', `kubeconfig ${file} is larger than ${MAX_KUBECONFIG_BYTES / 1024 / 1024} MiB; not a kubeconfig`);
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(chunks).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** Parses kubeconfig YAML with an alias limit. Throws ClusterError naming FILE:LINE. */
export function parseKubeconfigText(text: string, file: string): Record<string, unknown> {
  // merge: `<<` keys, which client-node's js-yaml understands too.
  const doc = YAML.parseDocument(text, { uniqueKeys: true, prettyErrors: true, merge: true });
  const e = doc.errors[0];
  if (e) {
    const line = e.linePos?.[0]?.line;
    throw new ClusterError('config', `kubeconfig ${file}${line ? `:${line}` : ''} is not valid YAML: ${e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}`);
  }
  let obj: unknown;
  try {
    obj = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (err) {
    if (err instanceof ReferenceError) throw new ClusterError('config', `kubeconfig ${file} uses YAML aliases excessively (more than ${MAX_ALIASES} expansions); refusing it as a resource-exhaustion attempt`);
    throw new ClusterError('config', `kubeconfig ${file} cannot be read: ${(err as Error).message.split('\n')[0]}`);
  }
  if (obj === null || obj === undefined) return {};
  if (typeof obj !== 'object' || Array.isArray(obj)) throw new ClusterError('config', `kubeconfig ${file} is not a mapping (a kubeconfig has clusters, users and contexts)`);
  return obj as Record<string, unknown>;
}

type Entry = Record<string, unknown> & { name?: unknown };

/** A list of entries as client-node reads it: anything but an array is none. */
function entries(v: unknown): Entry[] {
  return Array.isArray(v) ? (v as Entry[]) : [];
}

/** `p` against `dir` unless absolute (client-node's makeAbsolutePath). */
function absolute(dir: string, p: unknown): string | undefined {
  if (typeof p !== 'string' || p === '') return p as undefined;
  return path.isAbsolute(p) ? p : path.join(dir, p);
}

/** One file's entries, as client-node's newClusters/newUsers/newContexts make them. Throws ClusterError naming the file. */
export function entriesOf(obj: Record<string, unknown>, file: string): KubeconfigEntries {
  const dir = path.dirname(file);
  const missing = (what: string) => new ClusterError('config', `kubeconfig ${file} cannot be read: ${what} is missing`);
  const clusters = entries(obj.clusters).map((elt, i): Cluster => {
    if (!elt?.name) throw missing(`clusters[${i}].name`);
    const c = elt.cluster as Record<string, unknown> | undefined;
    if (!c) throw missing(`clusters[${i}].cluster`);
    if (!c.server) throw missing(`clusters[${i}].cluster.server`);
    return {
      caData: c['certificate-authority-data'] as string | undefined,
      caFile: absolute(dir, c['certificate-authority']),
      name: elt.name as string,
      server: String(c.server).replace(/\/$/, ''),
      skipTLSVerify: c['insecure-skip-tls-verify'] === true,
      tlsServerName: c['tls-server-name'] as string | undefined,
      proxyUrl: c['proxy-url'] as string | undefined,
    };
  });
  const tokenFiles = new Map<string, string>();
  const users = entries(obj.users).map((elt, i): User => {
    if (!elt?.name) throw missing(`users[${i}].name`);
    const u = (elt.user ?? null) as Record<string, unknown> | null;
    const tokenFile = u && !u.token && typeof u['token-file'] === 'string' && u['token-file'] ? absolute(dir, u['token-file']) : undefined;
    if (tokenFile && !tokenFiles.has(elt.name as string)) tokenFiles.set(elt.name as string, tokenFile);
    return {
      authProvider: u ? u['auth-provider'] : null,
      certData: (u ? u['client-certificate-data'] : null) as string | undefined,
      certFile: u ? absolute(dir, u['client-certificate']) : undefined,
      exec: u ? u.exec : null,
      keyData: (u ? u['client-key-data'] : null) as string | undefined,
      keyFile: u ? absolute(dir, u['client-key']) : undefined,
      name: elt.name as string,
      token: (u?.token || undefined) as string | undefined,
      password: (u ? u.password : null) as string | undefined,
      username: (u ? u.username : null) as string | undefined,
      impersonateUser: (u ? u.as : null) as string | undefined,
    };
  });
  const contexts = entries(obj.contexts).map((elt, i): Context => {
    if (!elt?.name) throw missing(`contexts[${i}].name`);
    const c = elt.context as Record<string, unknown> | undefined;
    if (!c) throw missing(`contexts[${i}].context`);
    if (!c.cluster) throw missing(`contexts[${i}].context.cluster`);
    return {
      cluster: c.cluster as string,
      name: elt.name as string,
      user: (c.user || undefined) as string,
      namespace: (c.namespace || undefined) as string | undefined,
    };
  });
  const cc = obj['current-context'];
  return { clusters, users, contexts, currentContext: typeof cc === 'string' && cc !== '' ? cc : undefined, tokenFiles };
}

/** One kubeconfig file. Throws ClusterError. */
export function readKubeconfigFile(file: string): KubeconfigEntries {
  return entriesOf(parseKubeconfigText(readBounded(file), file), file);
}

/** Several files, merged as kubectl merges `KUBECONFIG` (see the module comment). */
export function mergeKubeconfigs(files: KubeconfigEntries[]): KubeconfigEntries {
  const out: KubeconfigEntries = { clusters: [], users: [], contexts: [], currentContext: undefined, tokenFiles: new Map() };
  const add = <T extends { name: string }>(into: T[], from: T[]) => {
    const names = new Set(into.map((x) => x.name));
    for (const x of from) {
      if (names.has(x.name)) continue;
      names.add(x.name);
      into.push(x);
    }
  };
  for (const f of files) {
    out.currentContext ??= f.currentContext;
    add(out.clusters, f.clusters);
    add(out.contexts, f.contexts);
    const before = new Set(out.users.map((u) => u.name));
    add(out.users, f.users);
    for (const [name, file] of f.tokenFiles) if (!before.has(name) && !out.tokenFiles.has(name)) out.tokenFiles.set(name, file);
  }
  return out;
}

const SERVICEACCOUNT_ROOT = '/var/run/secrets/kubernetes.io/serviceaccount';
export const SERVICEACCOUNT_TOKEN_PATH = `${SERVICEACCOUNT_ROOT}/token`;

/** The service account's configuration inside a pod: client-node's `loadFromCluster` (v1.4.0). */
export function inClusterEntries(env: NodeJS.ProcessEnv): KubeconfigEntries {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  const scheme = port === '80' || port === '8080' || port === '8001' ? 'http' : 'https';
  const serverHost = host && net.isIPv6(host) ? `[${host}]` : host;
  let namespace: string | undefined;
  try {
    namespace = fs.readFileSync(`${SERVICEACCOUNT_ROOT}/namespace`).toString('utf-8');
  } catch {
    namespace = undefined;
  }
  return {
    clusters: [{ name: 'inCluster', caFile: `${SERVICEACCOUNT_ROOT}/ca.crt`, server: `${scheme}://${serverHost}:${port}`, skipTLSVerify: false }],
    users: [{ name: 'inClusterUser', authProvider: { name: 'tokenFile', config: { tokenFile: SERVICEACCOUNT_TOKEN_PATH } } }],
    contexts: [{ cluster: 'inCluster', name: 'inClusterContext', user: 'inClusterUser', namespace } as Context],
    currentContext: 'inClusterContext',
    tokenFiles: new Map(),
  };
}
