/**
 * What kexp needs of a kubeconfig for its requests — the current cluster and user, and
 * `applyToHTTPSOptions` — without importing @kubernetes/client-node, for the configurations that
 * need none of its machinery: a client certificate and key, a bearer token (or a token-file,
 * read by kubeconfig.ts), basic auth, an exec credential plugin (run by kexp's own
 * BoundedExecAuth either way), a CA, insecure-skip-tls-verify and tls-server-name. Anything
 * else — an auth-provider (oidc; the in-cluster token file), a proxy-url (client-node's socks
 * and https proxy agents) — still gets client-node's KubeConfig (kubeconfig.ts).
 *
 * Own code rather than the library on this path because importing client-node costs 100–170 ms
 * of `kexp explain`'s start-up (a 1.8 MB chunk; bench/README.md, "kexp explain"), and what is
 * used of it here is ~40 lines. `applyToHTTPSOptions` does exactly what client-node 1.4's
 * KubeConfig.applyToHTTPSOptions does for these users, in the same order (TLS options only when
 * there is a current user, the exec credential before the kubeconfig's token, which wins, basic
 * auth last, a fresh agent built from the same options); test/sources/light-kubeconfig.test.ts
 * compares the two option by option.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Cluster, Context, User } from '@kubernetes/client-node';
import { BoundedExecAuth, parseExec } from './exec-credential.js';

/** The part of client-node's KubeConfig that kexp's requests use; both implementations have it. */
export interface KubeAccess {
  getCurrentCluster(): Cluster | null;
  getCurrentUser(): User | null;
  applyToHTTPSOptions(opts: https.RequestOptions): Promise<void>;
}

export interface KubeconfigOptions {
  clusters: Cluster[];
  users: User[];
  contexts: Context[];
  currentContext: string;
}

/** Whether the current cluster and user need client-node (an auth-provider, a proxy-url). */
export function needsClientNode(cluster: Cluster | null, user: User | null): boolean {
  return Boolean(cluster?.proxyUrl) || (user != null && user.authProvider != null);
}

/** client-node's bufferFromFileOrString. */
function fileOrData(file: string | undefined, data: string | undefined): Buffer | null {
  if (file) return fs.readFileSync(file);
  if (data) return Buffer.from(data, 'base64');
  return null;
}

export class LightKubeConfig implements KubeAccess {
  private readonly execAuth = new BoundedExecAuth(this);

  constructor(private readonly o: KubeconfigOptions) {}

  private context(): Context | null {
    return this.o.contexts.find((c) => c.name === this.o.currentContext) ?? null;
  }

  getCurrentCluster(): Cluster | null {
    const ctx = this.context();
    return ctx ? (this.o.clusters.find((c) => c.name === ctx.cluster) ?? null) : null;
  }

  getCurrentUser(): User | null {
    const ctx = this.context();
    return ctx ? (this.o.users.find((u) => u.name === ctx.user) ?? null) : null;
  }

  async applyToHTTPSOptions(opts: https.RequestOptions): Promise<void> {
    const user = this.getCurrentUser();
    const cluster = this.getCurrentCluster();
    if (needsClientNode(cluster, user)) throw new Error('LightKubeConfig: this configuration needs client-node');
    if (user) {
      if (cluster?.skipTLSVerify) opts.rejectUnauthorized = false;
      if (cluster?.tlsServerName) opts.servername = cluster.tlsServerName;
      const ca = cluster ? fileOrData(cluster.caFile, cluster.caData) : null;
      if (ca) opts.ca = ca;
      const cert = fileOrData(user.certFile, user.certData);
      if (cert) opts.cert = cert;
      const key = fileOrData(user.keyFile, user.keyData);
      if (key) opts.key = key;
      const headers = (opts.headers ??= {}) as Record<string, string | string[] | number>;
      if (user.impersonateUser != null) headers['Impersonate-User'] = user.impersonateUser;
      if (user.exec != null) await this.execAuth.applyExec(user.name, parseExec(user.exec, user.name), opts);
      if (user.token) (opts.headers as Record<string, string>).Authorization = `Bearer ${user.token}`;
      if (user.username) opts.auth = `${user.username}:${user.password}`;
    }
    const agentOptions: https.AgentOptions = {
      ca: opts.ca,
      cert: opts.cert,
      key: opts.key,
      pfx: opts.pfx,
      passphrase: opts.passphrase,
      ...(opts.rejectUnauthorized !== undefined ? { rejectUnauthorized: opts.rejectUnauthorized } : {}),
      timeout: opts.timeout,
      servername: opts.servername,
      ciphers: opts.ciphers,
      honorCipherOrder: opts.honorCipherOrder,
      ecdhCurve: opts.ecdhCurve,
      clientCertEngine: opts.clientCertEngine,
      crl: opts.crl,
      dhparam: opts.dhparam,
      secureOptions: opts.secureOptions,
      secureProtocol: opts.secureProtocol,
      sessionIdContext: opts.sessionIdContext,
    };
    // client-node: plain http only with insecure-skip-tls-verify (kubeconfig.ts sets it for http servers).
    if (cluster?.server?.startsWith('http:')) {
      if (!cluster.skipTLSVerify) throw new Error('HTTP protocol is not allowed when skipTLSVerify is not set or false');
      opts.agent = new http.Agent(agentOptions);
    } else {
      opts.agent = new https.Agent(agentOptions);
    }
  }
}
