/**
 * Exec credential plugins (kubeconfig `users[].user.exec`: aws eks get-token, kubelogin,
 * gke-gcloud-auth-plugin, …) run by kexp itself, bounded:
 *
 * - the plugin gets at most the request's deadline (`--request-timeout`, passed as the request
 *   options' AbortSignal by api-client; DEFAULT_CREDENTIAL_TIMEOUT_MS when that is 0 or the
 *   caller passes no signal, as client-node's Watch does); then it is killed with its process
 *   group and the request fails with one line;
 * - its stdout is read up to MAX_PLUGIN_OUTPUT, its stderr is drained and dropped, stdin is
 *   closed (kexp is not interactive; `KUBERNETES_EXEC_INFO` says so, as client-go does);
 * - its output is never echoed: a failure is one line naming the plugin command and what went
 *   wrong (not found, exit code, timeout, not an ExecCredential), exit 7;
 * - a credential is cached per user until its `expirationTimestamp` (for ever without one, as
 *   client-go does), so a long recording re-runs the plugin only when the token expires.
 *
 * Own code rather than client-node's ExecAuth: that one has no timeout and never kills a
 * hanging plugin, reads unbounded output, and puts the plugin's stderr (or a JSON parse error
 * quoting its stdout) into the error message. Client-node's built-in authenticators are
 * consulted before added ones, so `routeExecUsers` moves each exec user's configuration under
 * an auth-provider name only this authenticator claims.
 */
import { spawn } from 'node:child_process';
import type https from 'node:https';
import type { Cluster, KubeConfig, User } from '@kubernetes/client-node';
import { ClusterError } from './cluster-error.js';

/** Credential acquisition (an exec plugin) when the request has no deadline (--request-timeout 0, client-node's Watch). */
export const DEFAULT_CREDENTIAL_TIMEOUT_MS = 60_000;

/** An ExecCredential is a token or a certificate and key: a few KiB. More is not a credential. */
export const MAX_PLUGIN_OUTPUT = 1024 * 1024;

const PROVIDER = 'kexp-bounded-exec';

interface ExecConfig {
  command: string;
  args: string[];
  env: Array<{ name: string; value: string }>;
  apiVersion?: string;
  provideClusterInfo?: boolean;
}

interface ExecCredentialStatus {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  expirationTimestamp?: string;
}

/** The exec configuration of `user`, wherever client-node's ExecAuth would look for it. */
function execOf(user: User): unknown {
  const ap = user.authProvider as { config?: Record<string, unknown> } | undefined | null;
  return user.exec ?? ap?.config?.exec;
}

/** The exec configuration, type-checked; throws ClusterError('config') naming the user. */
export function parseExec(raw: unknown, userName: string): ExecConfig {
  const bad = (what: string) => new ClusterError('config', `user "${userName}": the exec credential plugin ${what}`);
  if (!raw || typeof raw !== 'object') throw bad('configuration is not a mapping');
  const e = raw as Record<string, unknown>;
  if (typeof e.command !== 'string' || e.command === '') throw bad('has no command');
  const args = e.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw bad(`"${e.command}" has args that are not a list of strings`);
  const env = e.env ?? [];
  if (!Array.isArray(env) || !env.every((v) => v && typeof v === 'object' && typeof (v as { name?: unknown }).name === 'string' && typeof (v as { value?: unknown }).value === 'string')) {
    throw bad(`"${e.command}" has env that is not a list of {name, value} strings`);
  }
  return {
    command: e.command,
    args: args as string[],
    env: env as ExecConfig['env'],
    apiVersion: typeof e.apiVersion === 'string' ? e.apiVersion : undefined,
    provideClusterInfo: e.provideClusterInfo === true,
  };
}

/**
 * Replaces the exec configuration of every kubeconfig user with one the BoundedExecAuth claims,
 * and registers that authenticator on `kc`. A malformed exec configuration of the current user
 * throws ClusterError('config').
 */
export function routeExecUsers(kc: KubeConfig): void {
  const current = kc.getCurrentUser()?.name;
  kc.users = kc.users.map((u) => {
    const raw = execOf(u);
    if (raw === undefined || raw === null) return u;
    let exec: ExecConfig;
    try {
      exec = parseExec(raw, u.name);
    } catch (err) {
      if (u.name === current) throw err;
      return { ...u, exec: undefined, authProvider: undefined }; // never used: dropped rather than run unchecked
    }
    return { ...u, exec: undefined, authProvider: { name: PROVIDER, config: { kexpExec: exec } } } as User;
  });
  kc.addAuthenticator(new BoundedExecAuth(kc));
}

/** A name for the plugin in messages: its command (not its arguments, which may hold secrets). */
function pluginName(exec: ExecConfig): string {
  return JSON.stringify(exec.command);
}

export class BoundedExecAuth {
  private readonly cache = new Map<string, { status: ExecCredentialStatus; expires: number }>();

  constructor(private readonly kc: { getCurrentCluster(): Cluster | null }) {}

  isAuthProvider(user: User): boolean {
    return (user?.authProvider as { name?: string } | undefined)?.name === PROVIDER;
  }

  async applyAuthentication(user: User, opts: https.RequestOptions): Promise<void> {
    await this.applyExec(user.name, (user.authProvider as { config: { kexpExec: ExecConfig } }).config.kexpExec, opts);
  }

  /** Runs (or reuses the cached credential of) `exec` for `userName` and puts the credential on `opts`. */
  async applyExec(userName: string, exec: ExecConfig, opts: https.RequestOptions): Promise<void> {
    const status = await this.credential(userName, exec, opts.signal ?? undefined);
    if (status.clientCertificateData) opts.cert = status.clientCertificateData;
    if (status.clientKeyData) opts.key = status.clientKeyData;
    if (status.token) opts.headers = { ...(opts.headers ?? {}), Authorization: `Bearer ${status.token}` };
  }

  private async credential(userName: string, exec: ExecConfig, signal?: AbortSignal): Promise<ExecCredentialStatus> {
    const hit = this.cache.get(userName);
    if (hit && hit.expires > Date.now()) return hit.status;
    const status = await this.run(exec, signal);
    const exp = status.expirationTimestamp ? Date.parse(status.expirationTimestamp) : Number.POSITIVE_INFINITY;
    this.cache.set(userName, { status, expires: Number.isNaN(exp) ? 0 : exp });
    return status;
  }

  private execInfo(exec: ExecConfig): string {
    const apiVersion = exec.apiVersion ?? 'client.authentication.k8s.io/v1beta1';
    const spec: Record<string, unknown> = { interactive: false };
    if (exec.provideClusterInfo) {
      const c = this.kc.getCurrentCluster();
      if (c) {
        spec.cluster = {
          server: c.server,
          ...(c.tlsServerName ? { 'tls-server-name': c.tlsServerName } : {}),
          ...(c.skipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
          ...(c.caData ? { 'certificate-authority-data': c.caData } : {}),
          ...(c.proxyUrl ? { 'proxy-url': c.proxyUrl } : {}),
        };
      }
    }
    return JSON.stringify({ apiVersion, kind: 'ExecCredential', spec });
  }

  /** Runs the plugin once. Throws ClusterError('config') with one line that never quotes its output. */
  private run(exec: ExecConfig, signal?: AbortSignal): Promise<ExecCredentialStatus> {
    const name = pluginName(exec);
    const fail = (why: string) => new ClusterError('config', `the exec credential plugin ${name} ${why}`);
    if (signal?.aborted) return Promise.reject(fail('was not run: the request was cancelled or timed out'));
    const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: this.execInfo(exec) };
    for (const v of exec.env) env[v.name] = v.value;
    return new Promise<ExecCredentialStatus>((resolve, reject) => {
      const started = Date.now();
      let settled = false;
      const chunks: Buffer[] = [];
      let size = 0;
      // Its own process group, so a timeout also kills whatever the plugin started (which would
      // otherwise keep the output pipes, and kexp, alive).
      const child = spawn(exec.command, exec.args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
      const kill = () => {
        try {
          if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
          else child.kill('SIGKILL');
        } catch {
          /* already gone */
        }
        child.stdout?.destroy();
        child.stderr?.destroy();
      };
      const finish = (err: ClusterError | undefined, status?: ExecCredentialStatus) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (err) {
          kill();
          reject(err);
        } else {
          resolve(status as ExecCredentialStatus);
        }
      };
      // The caller's signal carries the request's deadline (api-client); without one (client-node's
      // Watch asks for credentials on its own) the default bounds the plugin.
      const timeoutMs = DEFAULT_CREDENTIAL_TIMEOUT_MS;
      const timer = signal ? undefined : setTimeout(() => finish(fail(`did not finish within ${timeoutMs} ms; it was stopped`)), timeoutMs);
      const onAbort = () => finish(fail(`did not finish within the request timeout (${Date.now() - started} ms); it was stopped`));
      signal?.addEventListener('abort', onAbort, { once: true });
      child.stdout.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_PLUGIN_OUTPUT) return finish(fail(`printed more than ${MAX_PLUGIN_OUTPUT} bytes; it was stopped`));
        chunks.push(c);
      });
      child.stderr.on('data', () => undefined); // drained and dropped: never echoed
      child.on('error', (e: NodeJS.ErrnoException) => {
        finish(fail(e.code === 'ENOENT' ? 'was not found (is it installed and on PATH?)' : `could not be started (${e.code ?? 'error'})`));
      });
      child.on('close', (code, sig) => {
        if (settled) return;
        if (sig) return finish(fail(`was killed by ${sig}`));
        if (code !== 0) return finish(fail(`exited with code ${code}`));
        const parsed = parseExecCredential(Buffer.concat(chunks).toString('utf8'));
        if (typeof parsed === 'string') finish(fail(parsed));
        else finish(undefined, parsed);
      });
    });
  }
}

/** The status of an ExecCredential printed by a plugin, or why the output is not one (never quoting it). */
export function parseExecCredential(text: string): ExecCredentialStatus | string {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    return 'printed something that is not JSON (an ExecCredential was expected)';
  }
  if (!obj || typeof obj !== 'object' || (obj as { kind?: unknown }).kind !== 'ExecCredential') return 'printed JSON that is not an ExecCredential';
  const st = (obj as { status?: unknown }).status;
  if (!st || typeof st !== 'object') return 'printed an ExecCredential without a status';
  const s = st as Record<string, unknown>;
  const str = (k: string) => (typeof s[k] === 'string' && s[k] !== '' ? (s[k] as string) : undefined);
  const status: ExecCredentialStatus = {
    token: str('token'),
    clientCertificateData: str('clientCertificateData'),
    clientKeyData: str('clientKeyData'),
    expirationTimestamp: str('expirationTimestamp'),
  };
  if (!status.token && !(status.clientCertificateData && status.clientKeyData)) return 'printed an ExecCredential with neither a token nor a client certificate and key';
  if (status.token && /[\r\n]/.test(status.token)) return 'printed a token containing a line break';
  return status;
}
