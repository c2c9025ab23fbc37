/**
 * Loads cluster access the way kubectl does: `--kubeconfig FILE` (that file only), else
 * `$KUBECONFIG` (files joined with the path delimiter, merged as kubectl merges them:
 * current-context from the first file that sets one — client-node would take the last, #579),
 * else `~/.kube/config`, else in-cluster service-account config. Then `--context` and
 * `-n/--namespace` (default: the context's namespace, else "default"). Never falls back
 * silently to http://localhost:8080 (client-node's last resort): a missing or broken kubeconfig
 * is a ClusterError with one clear line (exit 7).
 *
 * Every check below runs on kexp's own reading of the files (kubeconfig-file.ts) before
 * @kubernetes/client-node is imported: "no kubeconfig found", a YAML error or a missing
 * certificate file is printed without paying the few hundred ms that import costs. A usable
 * configuration with certificates, tokens, basic auth or an exec plugin never imports it
 * (light-kubeconfig.ts does what client-node would); one with an auth-provider or a proxy-url
 * gets its client-node KubeConfig (`await import()` of kubeconfig-client.ts, a chunk of its own
 * in the bundle).
 *
 * Hostile or broken kubeconfigs are refused before any request:
 * - each file is read up to MAX_KUBECONFIG_BYTES and parsed by the `yaml` package with an
 *   alias limit (kubeconfig-file.ts);
 * - the namespace must be a DNS-1123 label (else InvalidNameError: exit 2 for `-n`, 7 for the
 *   kubeconfig's), checked before the kubeconfig is even read when given by `-n`; the server
 *   must be an http(s) URL;
 * - the certificate-authority, client-certificate, client-key and token-file of the current
 *   context must be readable (else one line naming the path, instead of an error mid-request);
 * - credentials are never sent over plain http: a context whose server is `http://` (kubectl
 *   proxy) works only with a user without credentials;
 * - exec credential plugins run bounded (exec-credential.ts; a malformed exec section of the
 *   current user is refused here); the legacy gcp/azure auth-providers, which client-node runs
 *   synchronously and unbounded, are refused.
 *
 * `server` in the result is for display: the URL without userinfo (credentials.ts); the
 * KubeConfig keeps the real one for requests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Cluster, User } from '@kubernetes/client-node';
import { LightKubeConfig, needsClientNode, type KubeAccess } from './light-kubeconfig.js';
import { ClusterError } from './cluster-error.js';
import { displayServer } from './credentials.js';
import { parseExec, routeExecUsers } from './exec-credential.js';
import { checkNamespace, quoteValue } from './names.js';
import { proxyAgentFor } from './proxy.js';
import { setRequestSettings } from './request-settings.js';
import { inClusterEntries, mergeKubeconfigs, readKubeconfigFile, SERVICEACCOUNT_TOKEN_PATH, type KubeconfigEntries } from './kubeconfig-file.js';

export { MAX_KUBECONFIG_BYTES, parseKubeconfigText } from './kubeconfig-file.js';

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
  /** client-node's KubeConfig, or kexp's LightKubeConfig when the configuration needs nothing more. */
  kc: KubeAccess;
  namespace: string;
  context: string;
  /** The cluster server URL for display: without userinfo. */
  server: string;
  /** Where the config came from, for messages. */
  origin: string;
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

/** The `exp` claim (epoch s) of a JWT, or 0 when `token` is none (client-node OpenIDConnectAuth.expirationFromToken). */
function jwtExpiry(token: string): number {
  const parts = token.split('.');
  if (parts.length !== 3) return 0;
  try {
    const payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' && Number.isFinite(payload.exp) ? payload.exp : 0;
  } catch {
    return 0;
  }
}

/**
 * An auth-provider that would send no credential, said in one line instead of requests made
 * anonymously (client-node applies an auth-provider only when one of its authenticators claims
 * it, and its OpenIDConnectAuth.getToken/refresh, dist/oidc_auth.js, returns no token — so no
 * Authorization header — for an oidc user without an id-token, or whose id-token expired with no
 * client-id, refresh-token and idp-issuer-url to renew it). A user with another credential (a
 * token, a certificate, basic auth, an exec plugin) still sends that one.
 */
function refuseSilentAuthProvider(user: User | null, ctxName: string, nowMs: number): void {
  const ap = user?.authProvider as { name?: unknown; config?: Record<string, unknown> | null } | undefined | null;
  if (!user || !ap) return;
  if (user.token || user.username || user.certFile || user.certData || user.exec) return;
  const cfg = ap.config ?? {};
  const name = typeof ap.name === 'string' ? ap.name : '';
  if (name === 'gcp' || name === 'azure' || name === 'exec' || cfg.exec || cfg.tokenFile) return;
  const who = `user "${user.name}" of context "${ctxName}"`;
  if (name === 'oidc') {
    const idToken = cfg['id-token'];
    if (typeof idToken !== 'string' || idToken === '') {
      throw new ClusterError('config', `${who} uses the oidc auth-provider without an id-token: kexp would send no credentials; log in again (e.g. kubectl oidc-login) or use an exec credential plugin`);
    }
    const exp = jwtExpiry(idToken);
    const renewable = Boolean(cfg['client-id'] && cfg['refresh-token'] && cfg['idp-issuer-url']);
    if (nowMs / 1000 > exp && !renewable) {
      const why = exp > 0 ? `expired at ${new Date(exp * 1000).toISOString()}` : 'is not a JWT with an expiry';
      throw new ClusterError('config', `${who} uses the oidc auth-provider whose id-token ${why}, with no client-id, refresh-token and idp-issuer-url to renew it: kexp would send no credentials; log in again (e.g. kubectl oidc-login) or use an exec credential plugin`);
    }
    return;
  }
  throw new ClusterError('config', `${who} uses the ${name ? `"${name.slice(0, 60)}" ` : ''}auth-provider, which kexp does not run (kubectl runs none but oidc since 1.26): it would send no credentials; use an exec credential plugin`);
}

/** The first entry named `name` (client-node's findObject). */
function named<T extends { name: string }>(list: T[], name: string | undefined): T | null {
  return list.find((x) => x.name === name) ?? null;
}

/** The kubeconfig entries and where they came from, or the one-line reason there are none. */
function readEntries(o: AccessOptions, env: NodeJS.ProcessEnv, home: string): { entries: KubeconfigEntries; origin: string } {
  if (o.kubeconfig) return { entries: readKubeconfigFile(o.kubeconfig), origin: o.kubeconfig };
  if (env.KUBECONFIG) {
    const files = env.KUBECONFIG.split(path.delimiter).filter(Boolean);
    const existing = files.filter((f) => fs.existsSync(f));
    if (existing.length === 0) throw new ClusterError('config', `none of the files in KUBECONFIG exist (${files.join(', ')})`);
    return { entries: mergeKubeconfigs(existing.map(readKubeconfigFile)), origin: `KUBECONFIG=${env.KUBECONFIG}` };
  }
  const own = path.join(home, '.kube', 'config');
  if (fs.existsSync(own)) return { entries: readKubeconfigFile(own), origin: own };
  if (env.KUBERNETES_SERVICE_HOST && fs.existsSync(SERVICEACCOUNT_TOKEN_PATH)) return { entries: inClusterEntries(env), origin: 'in-cluster service account' };
  throw new ClusterError('config', 'no kubeconfig found: pass --kubeconfig, set KUBECONFIG, or create ~/.kube/config');
}

/**
 * The cluster access for a command: every check on kexp's own reading of the kubeconfig, then
 * the kubeconfig for the requests: kexp's LightKubeConfig, or client-node's KubeConfig (imported
 * here, once the configuration is usable) when it needs an auth-provider or a proxy-url.
 */
export async function loadClusterAccess(o: AccessOptions): Promise<ClusterAccess> {
  const env = o.env ?? process.env;
  const home = o.home ?? os.homedir();
  // The -n flag is checked first: a usage error needs no kubeconfig.
  if (o.namespace !== undefined) checkNamespace(o.namespace, 'given by -n/--namespace', 'argument');
  const { entries, origin } = readEntries(o, env, home);
  if (o.context) {
    if (!named(entries.contexts, o.context)) throw new ClusterError('config', `context ${quoteValue(o.context)} not found in ${origin}`);
    entries.currentContext = o.context;
  }
  const ctxName = entries.currentContext;
  const ctx = ctxName ? named(entries.contexts, ctxName) : null;
  if (!ctxName || !ctx) throw new ClusterError('config', `${origin} has no current context; pass --context`);
  let cluster = named(entries.clusters, ctx.cluster);
  if (!cluster || typeof cluster.server !== 'string' || !cluster.server) throw new ClusterError('config', `context "${ctxName}" in ${origin} names no cluster server`);
  const shown = displayServer(cluster.server);
  let url: URL;
  try {
    url = new URL(cluster.server);
  } catch {
    throw new ClusterError('config', `the server ${quoteValue(shown)} of context "${ctxName}" in ${origin} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ClusterError('config', `the server ${quoteValue(shown)} of context "${ctxName}" in ${origin} is not an http(s) URL`);
  const userName = ctx.user;
  const tokenFile = userName !== undefined ? entries.tokenFiles.get(userName) : undefined;
  let user = named(entries.users, userName);
  if (url.protocol === 'http:') {
    if (hasCredentials(user) || tokenFile !== undefined || url.username || url.password) {
      throw new ClusterError('config', `context "${ctxName}" in ${origin} would send credentials over plain http to ${shown}; use https, or a user without credentials for a local \`kubectl proxy\``);
    }
    // client-node refuses http unless TLS verification is "skipped"; over http there is no TLS
    // to skip, and no credential is sent (checked above), so let it build its plain http agent.
    const plain: Cluster = { ...cluster, skipTLSVerify: true };
    entries.clusters = entries.clusters.map((c) => (c === cluster ? plain : c));
    cluster = plain;
  }
  checkFiles(cluster, user, ctxName, origin);
  if (user && tokenFile !== undefined) {
    // Read once, as client-node reads a kubeconfig's token-file, but only the user's who is used.
    const problem = fileProblem(tokenFile);
    if (problem) throw new ClusterError('config', `the token-file of user "${user.name}" (context "${ctxName}" in ${origin}): file ${tokenFile} ${problem}`);
    const withToken: User = { ...user, token: fs.readFileSync(tokenFile, 'utf8') };
    entries.users = entries.users.map((u) => (u === user ? withToken : u));
    user = withToken;
  }
  refuseLegacyCommandProviders(user, ctxName);
  refuseSilentAuthProvider(user, ctxName, Date.now());
  const exec = user ? (user.exec ?? (user.authProvider as { config?: Record<string, unknown> } | null | undefined)?.config?.exec) : undefined;
  if (user && exec !== undefined && exec !== null) parseExec(exec, user.name); // throws the one-line reason
  let namespace: string;
  if (o.namespace !== undefined) {
    namespace = o.namespace;
  } else {
    const raw: unknown = origin === 'in-cluster service account' && typeof ctx.namespace === 'string' ? ctx.namespace.trim() : ctx.namespace;
    namespace = raw === undefined || raw === null || raw === '' ? 'default' : checkNamespace(raw, `of context "${ctxName}" in ${origin}`, 'kubeconfig');
  }
  // HTTPS_PROXY/HTTP_PROXY/NO_PROXY; a proxy-url in the kubeconfig wins (client-node's own agent).
  const agent = cluster.proxyUrl ? undefined : proxyAgentFor(url, env);

  // The configuration is usable. Certificates, tokens, basic auth and exec plugins need nothing
  // of the Kubernetes client (light-kubeconfig.ts); an auth-provider or a proxy-url gets it now.
  const options = { clusters: entries.clusters, users: entries.users, contexts: entries.contexts, currentContext: ctxName };
  let kc: KubeAccess;
  if (needsClientNode(cluster, user)) {
    const { newKubeConfig } = await import('./kubeconfig-client.js');
    const full = newKubeConfig(options);
    routeExecUsers(full);
    kc = full;
  } else {
    kc = new LightKubeConfig(options);
  }
  // An empty --as is no impersonation, as in kubectl; --as-group without --as is refused by the flag parser.
  setRequestSettings(kc, { ...(agent ? { agent } : {}), ...(o.as ? { impersonateUser: o.as } : {}), ...(o.asGroups?.length ? { impersonateGroups: o.asGroups } : {}) });
  return { kc, namespace, context: ctxName, server: shown, origin };
}
