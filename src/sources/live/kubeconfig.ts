/**
 * Loads cluster access the way kubectl does, on @kubernetes/client-node's KubeConfig:
 * `--kubeconfig FILE` (that file only), else `$KUBECONFIG` (files joined with the path
 * delimiter; current-context from the first file, as kubectl does — client-node would take
 * the last, #579), else `~/.kube/config`, else in-cluster service-account config.
 * Then `--context` and `-n/--namespace` (default: the context's namespace, else "default").
 * Never falls back silently to http://localhost:8080 (client-node's last resort): a missing
 * or broken kubeconfig is a ClusterError with one clear line (exit 7).
 *
 * Hostile or broken kubeconfigs are refused before any request:
 * - each file is read up to MAX_KUBECONFIG_BYTES and parsed by the `yaml` package with an
 *   alias limit (client-node's js-yaml has none: a "billion laughs" file of nested aliases
 *   expands without bound once walked); client-node then loads the plain JSON of the result;
 * - the namespace must be a DNS-1123 label (else InvalidNameError: exit 2 for `-n`, 7 for the
 *   kubeconfig's), checked before the kubeconfig is even read when given by `-n`; the server
 *   must be an http(s) URL;
 * - the certificate-authority, client-certificate and client-key files of the current context
 *   must be readable (else one line naming the path, instead of an error mid-request);
 * - credentials are never sent over plain http: a context whose server is `http://` (kubectl
 *   proxy) works only with a user without credentials;
 * - exec credential plugins run bounded (exec-credential.ts); the legacy gcp/azure
 *   auth-providers, which client-node runs synchronously and unbounded, are refused.
 *
 * `server` in the result is for display: the URL without userinfo (credentials.ts); the
 * KubeConfig keeps the real one for requests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig, type Cluster, type User } from '@kubernetes/client-node';
import YAML from 'yaml';
import { ClusterError } from './api-client.js';
import { displayServer } from './credentials.js';
import { routeExecUsers } from './exec-credential.js';
import { checkNamespace, quoteValue } from './names.js';
import { proxyAgentFor } from './proxy.js';
import { setRequestSettings } from './request-settings.js';

export interface AccessOptions {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  /** `--as USER`, `--as-group GROUP` (repeatable): impersonation headers on every request. */
  as?: string;
  asGroups?: string[];
  /** Environment and home directory (injected for tests). */
  env?: NodeJS.ProcessEnv;
  home?: string;
}

export interface ClusterAccess {
  kc: KubeConfig;
  namespace: string;
  context: string;
  /** The cluster server URL for display: without userinfo. */
  server: string;
  /** Where the config came from, for messages. */
  origin: string;
}

/** Real kubeconfigs are KiBs (a few hundred contexts with embedded certificates: a few MiB). */
export const MAX_KUBECONFIG_BYTES = 16 * 1024 * 1024;
/** Aliases a kubeconfig may resolve (the `yaml` default); kubeconfigs written by tools use none. */
const MAX_ALIASES = 100;

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

/** `token-file` relative to the kubeconfig's directory, as kubectl resolves it (client-node would use the working directory). */
function absoluteTokenFiles(obj: Record<string, unknown>, dir: string): void {
  if (!Array.isArray(obj.users)) return;
  for (const u of obj.users) {
    const user = (u as { user?: Record<string, unknown> } | null)?.user;
    if (user && typeof user['token-file'] === 'string' && !path.isAbsolute(user['token-file'])) user['token-file'] = path.join(dir, user['token-file']);
  }
}

/** One kubeconfig file into a fresh KubeConfig. Throws ClusterError. */
function loadOne(file: string): KubeConfig {
  const obj = parseKubeconfigText(readBounded(file), file);
  absoluteTokenFiles(obj, path.dirname(file));
  const kc = new KubeConfig();
  try {
    // JSON is YAML: client-node's js-yaml reads back exactly the (alias-free) object parsed above.
    kc.loadFromString(JSON.stringify(obj));
    kc.makePathsAbsolute(path.dirname(file));
  } catch (err) {
    throw new ClusterError('config', `kubeconfig ${file} cannot be read: ${(err as Error).message.split('\n')[0]}`);
  }
  return kc;
}

function fileProblem(p: string): string | undefined {
  try {
    const st = fs.statSync(p);
    if (st.isDirectory()) return 'is a directory';
    fs.accessSync(p, fs.constants.R_OK);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? 'error'})`;
  }
}

/** The current context's CA, client certificate and key files must be readable. */
function checkFiles(cluster: Cluster, user: User | null, ctxName: string, origin: string): void {
  const files: Array<[string, string | undefined]> = [
    [`certificate-authority of cluster "${cluster.name}"`, cluster.caFile],
    ...(user ? [[`client-certificate of user "${user.name}"`, user.certFile], [`client-key of user "${user.name}"`, user.keyFile]] as Array<[string, string | undefined]> : []),
  ];
  for (const [what, p] of files) {
    if (typeof p !== 'string' || p === '') continue;
    const problem = fileProblem(p);
    if (problem) throw new ClusterError('config', `the ${what} (context "${ctxName}" in ${origin}): file ${p} ${problem}`);
  }
}

/** Whether `user` would send any credential (so it must never be used over plain http). */
function hasCredentials(user: User | null): boolean {
  if (!user) return false;
  return Boolean(user.token || user.username || user.password || user.exec || user.authProvider || user.certFile || user.certData || user.keyFile || user.keyData);
}

/** Legacy auth-providers that client-node runs with a synchronous, unbounded execSync. */
function refuseLegacyCommandProviders(user: User | null, ctxName: string): void {
  const ap = user?.authProvider as { name?: string; config?: Record<string, unknown> } | undefined | null;
  if (ap && (ap.name === 'gcp' || ap.name === 'azure') && ap.config?.['cmd-path']) {
    throw new ClusterError('config', `user "${user?.name}" of context "${ctxName}" uses the legacy ${ap.name} auth-provider with a cmd-path, which kexp does not run (removed from kubectl in 1.26); use its exec credential plugin instead`);
  }
}

export function loadClusterAccess(o: AccessOptions): ClusterAccess {
  const env = o.env ?? process.env;
  const home = o.home ?? os.homedir();
  // The -n flag is checked first: a usage error needs no kubeconfig.
  if (o.namespace !== undefined) checkNamespace(o.namespace, 'given by -n/--namespace', 'argument');
  let kc: KubeConfig;
  let origin: string;
  if (o.kubeconfig) {
    kc = loadOne(o.kubeconfig);
    origin = o.kubeconfig;
  } else if (env.KUBECONFIG) {
    const files = env.KUBECONFIG.split(path.delimiter).filter(Boolean);
    const existing = files.filter((f) => fs.existsSync(f));
    if (existing.length === 0) throw new ClusterError('config', `none of the files in KUBECONFIG exist (${files.join(', ')})`);
    kc = loadOne(existing[0]);
    for (const f of existing.slice(1)) {
      try {
        kc.mergeConfig(loadOne(f), true);
      } catch (err) {
        if (err instanceof ClusterError) throw err;
        throw new ClusterError('config', `KUBECONFIG cannot be read: ${f}: ${(err as Error).message.split('\n')[0]}`);
      }
    }
    origin = `KUBECONFIG=${env.KUBECONFIG}`;
  } else if (fs.existsSync(path.join(home, '.kube', 'config'))) {
    origin = path.join(home, '.kube', 'config');
    kc = loadOne(origin);
  } else if (env.KUBERNETES_SERVICE_HOST && fs.existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token')) {
    kc = new KubeConfig();
    kc.loadFromCluster();
    origin = 'in-cluster service account';
  } else {
    throw new ClusterError('config', 'no kubeconfig found: pass --kubeconfig, set KUBECONFIG, or create ~/.kube/config');
  }
  if (o.context) {
    if (!kc.getContextObject(o.context)) throw new ClusterError('config', `context ${quoteValue(o.context)} not found in ${origin}`);
    kc.setCurrentContext(o.context);
  }
  const ctxName = kc.getCurrentContext();
  const ctx = typeof ctxName === 'string' && ctxName ? kc.getContextObject(ctxName) : null;
  if (!ctxName || !ctx) throw new ClusterError('config', `${origin} has no current context; pass --context`);
  const cluster = kc.getCurrentCluster();
  if (!cluster || typeof cluster.server !== 'string' || !cluster.server) throw new ClusterError('config', `context "${ctxName}" in ${origin} names no cluster server`);
  const shown = displayServer(cluster.server);
  let url: URL;
  try {
    url = new URL(cluster.server);
  } catch {
    throw new ClusterError('config', `the server ${quoteValue(shown)} of context "${ctxName}" in ${origin} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ClusterError('config', `the server ${quoteValue(shown)} of context "${ctxName}" in ${origin} is not an http(s) URL`);
  const user = kc.getCurrentUser();
  if (url.protocol === 'http:') {
    if (hasCredentials(user) || url.username || url.password) {
      throw new ClusterError('config', `context "${ctxName}" in ${origin} would send credentials over plain http to ${shown}; use https, or a user without credentials for a local \`kubectl proxy\``);
    }
    // client-node refuses http unless TLS verification is "skipped"; over http there is no TLS
    // to skip, and no credential is sent (checked above), so let it build its plain http agent.
    kc.clusters = kc.clusters.map((c) => (c.name === cluster.name ? { ...c, skipTLSVerify: true } : c));
  }
  checkFiles(cluster, user, ctxName, origin);
  refuseLegacyCommandProviders(user, ctxName);
  routeExecUsers(kc);
  let namespace: string;
  if (o.namespace !== undefined) {
    namespace = o.namespace;
  } else {
    const raw: unknown = origin === 'in-cluster service account' && typeof ctx.namespace === 'string' ? ctx.namespace.trim() : ctx.namespace;
    namespace = raw === undefined || raw === null || raw === '' ? 'default' : checkNamespace(raw, `of context "${ctxName}" in ${origin}`, 'kubeconfig');
  }
  // An empty --as is no impersonation, as in kubectl; --as-group without --as is refused by the flag parser.
  // HTTPS_PROXY/HTTP_PROXY/NO_PROXY; a proxy-url in the kubeconfig wins (client-node's own agent).
  const agent = cluster.proxyUrl ? undefined : proxyAgentFor(url, env);
  setRequestSettings(kc, { ...(agent ? { agent } : {}), ...(o.as ? { impersonateUser: o.as } : {}), ...(o.asGroups?.length ? { impersonateGroups: o.asGroups } : {}) });
  return { kc, namespace, context: ctxName, server: shown, origin };
}

