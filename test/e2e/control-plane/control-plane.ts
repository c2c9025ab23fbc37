// A real local Kubernetes control plane (etcd + kube-apiserver + kube-controller-manager) for kexp's
// e2e tests. Recipe: /work/shared/docs/control-plane.md §5 (PKI, kubeconfig, flags, audit policy,
// orchestration). Binaries come from ./build.sh (cache: ${KEXP_K8S_CACHE:-~/.cache/kexp-k8s}).
//
// Node 20 built-ins only (no npm dependencies); runs under tsx.
//
//   const cp = await startControlPlane();
//   ... use cp.kubeconfigPath / cp.apiURL + cp.caPath/adminCertPath/adminKeyPath ...
//   await cp.stop();            // keeps <runDir>/logs, deletes <runDir>/etcd
//
// Every start-up failure throws an Error whose message's FIRST line names the step, e.g.
//   control plane: apiserver readiness failed: timeout waiting for https://127.0.0.1:40123/readyz after 120s
// followed by the last 50 lines of each component log.

import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export const DEFAULT_K8S_VERSION = '1.37.2';

/** KCM controllers (aliases, §5.5). No nodelifecycle / taint-eviction-controller: they would evict pods from fake nodes. */
export const DEFAULT_CONTROLLERS = [
  'replicaset',
  'deployment',
  'resourcequota',
  'namespace',
  'garbagecollector',
  'serviceaccount',
  'serviceaccount-token',
  'root-ca-cert-publisher',
];

export interface ControlPlaneOptions {
  /** Kubernetes version of the binaries, default $KEXP_K8S_VERSION or 1.37.2. */
  k8sVersion?: string;
  /** Run directory (created; its pki/, etcd/ and logs/ are wiped first). Default: a fresh mkdtemp dir. */
  runDir?: string;
  /** etcd version, default 3.7.3 for k8s >= 1.37, 3.6.16 otherwise (same rule as build.sh). */
  etcdVersion?: string;
  /** Cache root of build.sh, default $KEXP_K8S_CACHE or ~/.cache/kexp-k8s. */
  cacheRoot?: string;
  /** Override binary directories (default <cache>/v<ver>/bin and <cache>/etcd-v<ver>/bin; env KEXP_K8S_BIN / KEXP_ETCD_BIN). */
  k8sBinDir?: string;
  etcdBinDir?: string;
  /** KCM --controllers list, default DEFAULT_CONTROLLERS. */
  controllers?: string[];
  /**
   * More resources the audit log records with request and response bodies (e.g. `apps`
   * daemonsets, `batch` jobs); default none, so the policy is AUDIT_POLICY byte for byte.
   */
  extraAuditResources?: AuditResources[];
  /** Extra flags appended to the component command lines (later flags win). */
  extraApiserverArgs?: string[];
  extraKcmArgs?: string[];
  /** KCM log verbosity, default 4. */
  kcmVerbosity?: number;
  /** --logging-format for KCM (default 'text'). */
  kcmLoggingFormat?: 'text' | 'json';
  /**
   * Where kube-controller-manager talks to the apiserver: called after the apiserver is ready,
   * returns the server URL to put in the KCM's kubeconfig (a fault-injecting proxy); the
   * apiserver itself when absent. Its authentication/authorization kubeconfigs stay direct.
   */
  kcmServer?: (info: { apiURL: string; caPath: string; pkiDir: string; runDir: string }) => Promise<string>;
  /** Run the KCM with leader election (Lease kube-system/kube-controller-manager, short timings) instead of --leader-elect=false. */
  leaderElect?: boolean;
  /** Readiness timeouts in ms (defaults from §5.7: 60 s / 120 s / 120 s / 60 s). */
  timeouts?: Partial<Record<'etcd' | 'apiserver' | 'kcm' | 'serviceAccount', number>>;
}

export interface ControlPlane {
  kubeconfigPath: string;
  auditLogPath: string;
  kcmLogPath: string;
  apiserverLogPath: string;
  etcdLogPath: string;
  runDir: string;
  apiURL: string;
  caPath: string;
  adminCertPath: string;
  adminKeyPath: string;
  k8sVersion: string;
  etcdVersion: string;
  ports: { etcd: number; etcdPeer: number; apiserver: number; kcm: number };
  pids: { etcd?: number; apiserver?: number; kcm?: number };
  /** The server URL in the KCM's kubeconfig (the apiserver, or the proxy from `kcmServer`). */
  kcmServerURL: string;
  /**
   * Kills kube-controller-manager (SIGKILL by default: a crash, no graceful release of the
   * Lease) and starts a new one with the same flags plus `extraKcmArgs`; its log is appended
   * to the same file. Resolves when the new one is healthy.
   */
  restartKcm(opts?: { signal?: 'SIGKILL' | 'SIGTERM'; extraKcmArgs?: string[] }): Promise<void>;
  /** Wall-clock ms from startControlPlane() call to ready. */
  startupMs: number;
  stop(): Promise<void>;
}

const POLL_MS = 200;
const TAIL_LINES = 50;

// ------------------------------------------------------------------------------------------ helpers

/** Error from a named step; message = "control plane: <step> failed: <detail>" + log tails. */
export class ControlPlaneError extends Error {
  constructor(
    readonly step: string,
    detail: string,
    logTails = '',
  ) {
    super(`control plane: ${step} failed: ${detail.split('\n')[0]}${logTails ? '\n' + logTails : ''}`);
    this.name = 'ControlPlaneError';
  }
}

function etcdVersionFor(k8sVersion: string): string {
  const minor = Number(k8sVersion.split('.')[1]);
  return minor >= 37 ? '3.7.3' : '3.6.16';
}

async function freePorts(n: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < n; i++) {
      const srv = net.createServer();
      servers.push(srv);
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(0, '127.0.0.1', () => resolve());
      });
      ports.push((srv.address() as net.AddressInfo).port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  }
}

function tailFile(file: string, lines = TAIL_LINES): string {
  try {
    const st = fs.statSync(file);
    const max = 256 * 1024;
    const fd = fs.openSync(file, 'r');
    try {
      const len = Math.min(st.size, max);
      const buf = Buffer.alloc(len);
      fs.readSync(fd, buf, 0, len, st.size - len);
      const all = buf.toString('utf8').split('\n');
      if (all.length && all[all.length - 1] === '') all.pop();
      return all.slice(-lines).join('\n');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '(no log)';
  }
}

/** Last lines of every component log in logs/ (audit.log is left out: its lines are multi-KB JSON). */
function logTails(logDir: string): string {
  let names: string[] = [];
  try {
    names = fs.readdirSync(logDir).filter((f) => f.endsWith('.log') && f !== 'audit.log').sort();
  } catch {
    return '';
  }
  return names
    .map((n) => `----- ${path.join(logDir, n)} (last ${TAIL_LINES} lines) -----\n${tailFile(path.join(logDir, n))}`)
    .join('\n');
}

interface HttpResult {
  status: number;
  body: string;
}

function httpGet(url: string, tls?: https.RequestOptions): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const mod = u.protocol === 'https:' ? https : http;
    const req = mod.request(
      u,
      { method: 'GET', timeout: 2000, ...(u.protocol === 'https:' ? tls : {}) },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timeout')));
    req.on('error', reject);
    req.end();
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

// ------------------------------------------------------------------------------------------ files

function run(step: string, cmd: string, args: string[], cwd: string): void {
  try {
    execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    const msg = err.stderr?.toString().trim().split('\n').pop() || err.message;
    throw new ControlPlaneError(step, `${cmd} ${args.join(' ')}: ${msg}`);
  }
}

/** §5.1: RSA-2048 CA, apiserver serving cert, admin client cert (O=system:masters), SA key pair. */
export function generatePKI(pki: string): void {
  fs.mkdirSync(pki, { recursive: true });
  const o = (args: string[]) => run('PKI (openssl)', 'openssl', args, pki);
  fs.writeFileSync(
    path.join(pki, 'server.ext'),
    [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth',
      'subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(pki, 'client.ext'),
    ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature,keyEncipherment', 'extendedKeyUsage=clientAuth', ''].join('\n'),
  );
  o(['genrsa', '-out', 'ca.key', '2048']);
  o(['req', '-x509', '-new', '-nodes', '-key', 'ca.key', '-sha256', '-days', '3650', '-subj', '/CN=kexp-e2e-ca', '-out', 'ca.crt']);
  const leaf = (name: string, subj: string, ext: string, createSerial: boolean) => {
    o(['genrsa', '-out', `${name}.key`, '2048']);
    o(['req', '-new', '-key', `${name}.key`, '-subj', subj, '-out', `${name}.csr`]);
    o([
      'x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key',
      ...(createSerial ? ['-CAcreateserial'] : ['-CAserial', 'ca.srl']),
      '-out', `${name}.crt`, '-days', '3650', '-sha256', '-extfile', ext,
    ]);
  };
  leaf('apiserver', '/CN=kube-apiserver', 'server.ext', true);
  leaf('admin', '/O=system:masters/CN=kexp-admin', 'client.ext', false);
  // For a fault-injecting proxy in front of the apiserver (test/e2e/fault-proxy): same SANs.
  leaf('proxy', '/CN=kexp-fault-proxy', 'server.ext', false);
  o(['genrsa', '-out', 'sa.key', '2048']);
  o(['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub']);
  for (const c of ['apiserver.crt', 'admin.crt', 'proxy.crt']) {
    let out = '';
    try {
      out = execFileSync('openssl', ['verify', '-CAfile', 'ca.crt', c], { cwd: pki, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
    } catch (e) {
      out = String((e as { stderr?: Buffer }).stderr ?? e);
    }
    if (!out.includes(': OK')) throw new ControlPlaneError('PKI (openssl verify)', `${c}: ${out.trim()}`);
  }
}

/** §5.2 kubeconfig (YAML; JSON would also do). */
export function kubeconfigYAML(apiURL: string, pki: string): string {
  const q = (s: string) => JSON.stringify(s);
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: kexp-e2e',
    `  cluster: {server: ${q(apiURL)}, certificate-authority: ${q(path.join(pki, 'ca.crt'))}}`,
    'users:',
    '- name: kexp-admin',
    `  user: {client-certificate: ${q(path.join(pki, 'admin.crt'))}, client-key: ${q(path.join(pki, 'admin.key'))}}`,
    'contexts:',
    '- name: kexp-e2e',
    '  context: {cluster: kexp-e2e, user: kexp-admin}',
    'current-context: kexp-e2e',
    '',
  ].join('\n');
}

/** An API group and the resources of it an audit policy rule names. */
export interface AuditResources {
  group: string;
  resources: string[];
}

/**
 * §5.6 audit policy, plus endpoints/endpointslices as noise; `extra` resources join the
 * RequestResponse rule (nothing else changes, so `auditPolicy()` is AUDIT_POLICY).
 */
export function auditPolicy(extraResources: AuditResources[] = []): string {
  const extra = extraResources.map((r) => `      - group: ${JSON.stringify(r.group)}\n        resources: ${JSON.stringify(r.resources)}\n`).join('');
  return `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
omitManagedFields: true
rules:
  # noise
  - level: None
    resources:
      - group: "coordination.k8s.io"
        resources: ["leases"]
      - group: ""
        resources: ["endpoints"]
      - group: "discovery.k8s.io"
        resources: ["endpointslices"]
  - level: None
    nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/version", "/metrics", "/openapi/*", "/api", "/api/*", "/apis", "/apis/*"]
  # never log token / secret bodies
  - level: Metadata
    resources:
      - group: ""
        resources: ["secrets", "serviceaccounts/token"]
  # what kexp reasons about: full request + response bodies
  - level: RequestResponse
    resources:
      - group: ""
        resources: ["pods", "pods/*", "events", "namespaces", "namespaces/*", "resourcequotas", "resourcequotas/*", "nodes", "nodes/*"]
      - group: "apps"
        resources: ["replicasets", "replicasets/*", "deployments", "deployments/*"]
      - group: "events.k8s.io"
        resources: ["events"]
${extra}  - level: Metadata
`;
}

/** The audit policy of every control plane that asks for no extra resources. */
export const AUDIT_POLICY = auditPolicy();

// ------------------------------------------------------------------------------------------ processes

interface Proc {
  name: 'etcd' | 'kube-apiserver' | 'kube-controller-manager';
  child: ChildProcess;
  exited: Promise<void>;
  exitInfo?: string;
}

const live = new Set<Proc>();
const liveDataDirs = new Set<string>();
let handlersInstalled = false;

/** Last-resort cleanup on process exit / SIGINT / SIGTERM: SIGKILL every child we started, drop etcd data. */
function killAllSync(): void {
  for (const p of live) {
    try {
      if (p.child.pid && p.exitInfo === undefined) process.kill(p.child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  live.clear();
  for (const d of liveDataDirs) {
    try {
      fs.rmSync(d, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  }
  liveDataDirs.clear();
}

function onSignal(sig: NodeJS.Signals): void {
  // Someone else (test runner, cp-cli) handles this signal: leave the children to them; the
  // 'exit' handler still kills whatever is left when the process goes away.
  if (process.listenerCount(sig) > 1) return;
  killAllSync();
  process.removeListener('SIGINT', onSignal);
  process.removeListener('SIGTERM', onSignal);
  // Re-raise so that the default behaviour (terminate) still happens.
  process.kill(process.pid, sig);
}

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', killAllSync);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

function uninstallHandlersIfIdle(): void {
  if (!handlersInstalled || live.size > 0 || liveDataDirs.size > 0) return;
  handlersInstalled = false;
  process.removeListener('exit', killAllSync);
  process.removeListener('SIGINT', onSignal);
  process.removeListener('SIGTERM', onSignal);
}

function startProc(name: Proc['name'], bin: string, args: string[], runDir: string, logFile: string, append = false): Proc {
  // The log holds nothing but the component's own output (ground truth for parsers); the command
  // line is in <runDir>/<name>.cmdline and, at -v>=1, in the component's own FLAG: lines.
  fs.writeFileSync(path.join(runDir, `${name}.cmdline`), [bin, ...args].join('\n') + '\n');
  const fd = fs.openSync(logFile, append ? 'a' : 'w');
  let child: ChildProcess;
  try {
    child = spawn(bin, args, { cwd: runDir, stdio: ['ignore', fd, fd], env: { ...process.env } });
  } finally {
    fs.closeSync(fd);
  }
  const p: Proc = { name, child, exited: Promise.resolve() };
  p.exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      p.exitInfo = signal ? `killed by ${signal}` : `exited with code ${code}`;
      live.delete(p);
      resolve();
    });
    child.once('error', (err) => {
      p.exitInfo = `failed to start: ${err.message}`;
      live.delete(p);
      resolve();
    });
  });
  live.add(p);
  installHandlers();
  if (child.pid) fs.writeFileSync(path.join(runDir, `${name}.pid`), `${child.pid}\n`);
  return p;
}

async function stopProc(p: Proc | undefined, graceMs = 10_000): Promise<void> {
  if (!p || p.exitInfo !== undefined || !p.child.pid) return;
  try {
    process.kill(p.child.pid, 'SIGTERM');
  } catch {
    /* gone */
  }
  if (!(await exitsWithin(p, graceMs))) {
    try {
      process.kill(p.child.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
    await exitsWithin(p, 5000);
  }
}

/** Resolves true if p exits within ms (without leaving a timer behind that keeps the event loop alive). */
function exitsWithin(p: Proc, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void p.exited.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Poll `check` every 200 ms until it returns true; fail early if `proc` exits. */
async function waitFor(
  step: string,
  what: string,
  timeoutMs: number,
  proc: Proc,
  logDir: string,
  check: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastErr = '';
  for (;;) {
    if (proc.exitInfo !== undefined) {
      throw new ControlPlaneError(step, `${proc.name} ${proc.exitInfo} while waiting for ${what}`, logTails(logDir));
    }
    try {
      if (await check()) return;
    } catch (e) {
      lastErr = (e as Error).message;
    }
    if (Date.now() >= deadline) {
      throw new ControlPlaneError(
        step,
        `timeout waiting for ${what} after ${Math.round(timeoutMs / 1000)}s${lastErr ? ` (last error: ${lastErr})` : ''}`,
        logTails(logDir),
      );
    }
    await sleep(POLL_MS);
  }
}

// ------------------------------------------------------------------------------------------ main

export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const t0 = Date.now();
  const k8sVersion = (opts.k8sVersion ?? process.env.KEXP_K8S_VERSION ?? DEFAULT_K8S_VERSION).replace(/^v/, '');
  const etcdVersion = (opts.etcdVersion ?? process.env.KEXP_ETCD_VERSION ?? etcdVersionFor(k8sVersion)).replace(/^v/, '');
  const cacheRoot = opts.cacheRoot ?? process.env.KEXP_K8S_CACHE ?? path.join(os.homedir(), '.cache', 'kexp-k8s');
  const k8sBin = opts.k8sBinDir ?? process.env.KEXP_K8S_BIN ?? path.join(cacheRoot, `v${k8sVersion}`, 'bin');
  const etcdBin = opts.etcdBinDir ?? process.env.KEXP_ETCD_BIN ?? path.join(cacheRoot, `etcd-v${etcdVersion}`, 'bin');
  const bins = {
    etcd: path.join(etcdBin, 'etcd'),
    apiserver: path.join(k8sBin, 'kube-apiserver'),
    kcm: path.join(k8sBin, 'kube-controller-manager'),
  };
  for (const b of Object.values(bins)) {
    try {
      fs.accessSync(b, fs.constants.X_OK);
    } catch {
      throw new ControlPlaneError(
        'binaries',
        `${b} not found or not executable; build it with: K8S_VERSION=${k8sVersion} test/e2e/control-plane/build.sh`,
      );
    }
  }

  // 1. run directory (fresh etcd data + fresh PKI, §5 / pitfall 13)
  const runDir = path.resolve(opts.runDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-cp-')));
  const pki = path.join(runDir, 'pki');
  const logDir = path.join(runDir, 'logs');
  const dataDir = path.join(runDir, 'etcd');
  try {
    for (const d of [pki, logDir, dataDir]) fs.rmSync(d, { recursive: true, force: true });
    fs.mkdirSync(logDir, { recursive: true });
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new ControlPlaneError('run directory', `${runDir}: ${(e as Error).message}`);
  }

  const [etcdPort, etcdPeerPort, apiPort, kcmPort] = await freePorts(4);
  const apiURL = `https://127.0.0.1:${apiPort}`;
  const etcdURL = `http://127.0.0.1:${etcdPort}`;
  const peerURL = `http://127.0.0.1:${etcdPeerPort}`;

  // 2. files
  generatePKI(pki);
  const caPath = path.join(pki, 'ca.crt');
  const adminCertPath = path.join(pki, 'admin.crt');
  const adminKeyPath = path.join(pki, 'admin.key');
  const kubeconfigPath = path.join(runDir, 'admin.kubeconfig');
  const auditPolicyPath = path.join(runDir, 'audit-policy.yaml');
  fs.writeFileSync(kubeconfigPath, kubeconfigYAML(apiURL, pki), { mode: 0o600 });
  fs.writeFileSync(auditPolicyPath, auditPolicy(opts.extraAuditResources));

  const etcdLogPath = path.join(logDir, 'etcd.log');
  const apiserverLogPath = path.join(logDir, 'kube-apiserver.log');
  const kcmLogPath = path.join(logDir, 'kube-controller-manager.log');
  const auditLogPath = path.join(logDir, 'audit.log');

  const ca = fs.readFileSync(caPath);
  const adminTLS: https.RequestOptions = { ca, cert: fs.readFileSync(adminCertPath), key: fs.readFileSync(adminKeyPath) };
  const timeouts = { etcd: 60_000, apiserver: 120_000, kcm: 120_000, serviceAccount: 60_000, ...opts.timeouts };

  let etcd: Proc | undefined;
  let apiserver: Proc | undefined;
  let kcm: Proc | undefined;
  let stopped = false;

  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await stopProc(kcm);
    await stopProc(apiserver);
    await stopProc(etcd);
    fs.rmSync(dataDir, { recursive: true, force: true });
    liveDataDirs.delete(dataDir);
    for (const n of ['etcd', 'kube-apiserver', 'kube-controller-manager']) fs.rmSync(path.join(runDir, `${n}.pid`), { force: true });
    uninstallHandlersIfIdle();
  };

  const kcmKubeconfigPath = path.join(runDir, 'kcm.kubeconfig');
  let kcmServerURL = apiURL;
  const kcmArgs = (extra: string[]) => [
    `--kubeconfig=${kcmKubeconfigPath}`,
    `--authentication-kubeconfig=${kubeconfigPath}`,
    `--authorization-kubeconfig=${kubeconfigPath}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${kcmPort}`,
    ...(opts.leaderElect
      ? ['--leader-elect=true', '--leader-elect-lease-duration=8s', '--leader-elect-renew-deadline=6s', '--leader-elect-retry-period=1s']
      : ['--leader-elect=false']),
    `--controllers=${(opts.controllers ?? DEFAULT_CONTROLLERS).join(',')}`,
    '--use-service-account-credentials=true',
    `--service-account-private-key-file=${path.join(pki, 'sa.key')}`,
    `--root-ca-file=${caPath}`,
    `--v=${opts.kcmVerbosity ?? 4}`,
    ...(opts.kcmLoggingFormat === 'json' ? ['--logging-format=json'] : []),
    ...(opts.extraKcmArgs ?? []),
    ...extra,
  ];
  const startKcm = async (extra: string[], append: boolean): Promise<void> => {
    kcm = startProc('kube-controller-manager', bins.kcm, kcmArgs(extra), runDir, kcmLogPath, append);
    const proc = kcm;
    await waitFor('KCM readiness', `https://127.0.0.1:${kcmPort}/healthz`, timeouts.kcm, proc, logDir, async () => {
      const r = await httpGet(`https://127.0.0.1:${kcmPort}/healthz`, { rejectUnauthorized: false });
      return r.status === 200;
    });
  };
  const restartKcm = async (o: { signal?: 'SIGKILL' | 'SIGTERM'; extraKcmArgs?: string[] } = {}): Promise<void> => {
    if (kcm?.child.pid && kcm.exitInfo === undefined) {
      try {
        process.kill(kcm.child.pid, o.signal ?? 'SIGKILL');
      } catch {
        /* gone */
      }
      if (!(await exitsWithin(kcm, 15_000))) throw new ControlPlaneError('KCM restart', `kube-controller-manager (pid ${kcm.child.pid}) did not exit after ${o.signal ?? 'SIGKILL'}`);
    }
    await startKcm(o.extraKcmArgs ?? [], true);
  };

  liveDataDirs.add(dataDir);
  try {
    // 3. etcd (§5.3)
    etcd = startProc(
      'etcd',
      bins.etcd,
      [
        '--name=node0',
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${etcdURL}`,
        `--advertise-client-urls=${etcdURL}`,
        `--listen-peer-urls=${peerURL}`,
        `--initial-advertise-peer-urls=${peerURL}`,
        `--initial-cluster=node0=${peerURL}`,
        '--unsafe-no-fsync=true',
        '--quota-backend-bytes=2147483648',
        '--auto-compaction-retention=1',
      ],
      runDir,
      etcdLogPath,
    );
    await waitFor('etcd readiness', `${etcdURL}/health`, timeouts.etcd, etcd, logDir, async () => {
      const r = await httpGet(`${etcdURL}/health`);
      return r.status === 200 && /"health":\s*"true"/.test(r.body);
    });

    // 4. kube-apiserver (§5.4)
    apiserver = startProc(
      'kube-apiserver',
      bins.apiserver,
      [
        `--etcd-servers=${etcdURL}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${apiPort}`,
        '--advertise-address=127.0.0.1',
        '--endpoint-reconciler-type=none',
        `--tls-cert-file=${path.join(pki, 'apiserver.crt')}`,
        `--tls-private-key-file=${path.join(pki, 'apiserver.key')}`,
        `--client-ca-file=${caPath}`,
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-account-key-file=${path.join(pki, 'sa.pub')}`,
        `--service-account-signing-key-file=${path.join(pki, 'sa.key')}`,
        '--service-cluster-ip-range=10.0.0.0/24',
        '--authorization-mode=RBAC',
        '--allow-privileged=true',
        `--audit-policy-file=${auditPolicyPath}`,
        `--audit-log-path=${auditLogPath}`,
        '--audit-log-format=json',
        '--audit-log-mode=blocking',
        '--audit-log-maxsize=0',
        '--v=2',
        ...(opts.extraApiserverArgs ?? []),
      ],
      runDir,
      apiserverLogPath,
    );
    await waitFor('apiserver readiness', `${apiURL}/readyz`, timeouts.apiserver, apiserver, logDir, async () => {
      const r = await httpGet(`${apiURL}/readyz`, { ca });
      return r.status === 200;
    });

    // 5. kube-controller-manager (§5.5), through the fault proxy when one is given
    kcmServerURL = opts.kcmServer ? await opts.kcmServer({ apiURL, caPath, pkiDir: pki, runDir }) : apiURL;
    fs.writeFileSync(kcmKubeconfigPath, kubeconfigYAML(kcmServerURL, pki), { mode: 0o600 });
    await startKcm([], false);

    // 6. default service account (needed by the ServiceAccount admission plugin)
    await waitFor(
      'default service account',
      `${apiURL}/api/v1/namespaces/default/serviceaccounts/default`,
      timeouts.serviceAccount,
      kcm!,
      logDir,
      async () => (await httpGet(`${apiURL}/api/v1/namespaces/default/serviceaccounts/default`, adminTLS)).status === 200,
    );
  } catch (e) {
    await stop().catch(() => undefined);
    if (e instanceof ControlPlaneError) throw e;
    throw new ControlPlaneError('start', (e as Error).message, logTails(logDir));
  }

  return {
    kubeconfigPath,
    auditLogPath,
    kcmLogPath,
    apiserverLogPath,
    etcdLogPath,
    runDir,
    apiURL,
    caPath,
    adminCertPath,
    adminKeyPath,
    k8sVersion,
    etcdVersion,
    ports: { etcd: etcdPort, etcdPeer: etcdPeerPort, apiserver: apiPort, kcm: kcmPort },
    get pids() {
      return { etcd: etcd?.child.pid, apiserver: apiserver?.child.pid, kcm: kcm?.child.pid };
    },
    get kcmServerURL() {
      return kcmServerURL;
    },
    restartKcm,
    startupMs: Date.now() - t0,
    stop,
  };
}

// ------------------------------------------------------------------------------------------ API helper

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  text: string;
}

/**
 * Minimal API client with the admin client certificate (no client-node). `body` is JSON-encoded;
 * contentType defaults to application/json (use 'application/merge-patch+json' for PATCH).
 */
export function apiRequest<T = any>(
  cp: Pick<ControlPlane, 'apiURL' | 'caPath' | 'adminCertPath' | 'adminKeyPath'>,
  method: string,
  apiPath: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<ApiResponse<T>> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(apiPath, cp.apiURL),
      {
        method,
        ca: fs.readFileSync(cp.caPath),
        cert: fs.readFileSync(cp.adminCertPath),
        key: fs.readFileSync(cp.adminKeyPath),
        timeout: 30_000,
        headers: {
          Accept: 'application/json',
          ...(payload ? { 'Content-Type': contentType, 'Content-Length': payload.length } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, body: parsed as T, text });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${apiPath}: request timeout`)));
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}
