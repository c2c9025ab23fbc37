/**
 * The fault proxy on its own, in front of a control plane started with
 * `npx tsx test/e2e/control-plane/cp-cli.ts start --run-dir DIR`, for reproducing an incident
 * by hand (README.md beside this file):
 *
 *   npx tsx test/e2e/fault-proxy/cli.ts --run-dir DIR [--port N] [--control-port N] [--fault-log FILE]
 *
 * Reads DIR/control-plane.json (apiURL, caPath, adminCertPath, adminKeyPath; the proxy's own
 * certificate is proxy.crt/proxy.key beside the CA), starts the proxy holding the admin key
 * pair as the one identity it may forward, writes DIR/proxy.kubeconfig (server = the proxy,
 * the admin client certificate), prints the proxy URL, the control endpoint's URL, the
 * kubeconfig and the fault log (default DIR/faults.jsonl), and stays in the foreground until
 * SIGINT or SIGTERM, which close it (exit 0). Any error is one line `fault-proxy: …`, exit 1.
 * Ports default to any free one. One proxy per DIR: DIR/fault-proxy.pid holds its pid while it
 * runs, and a second CLI on the same DIR is refused before it touches the fault log.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { terminalSafeLine } from '../../../src/render/terminal-safe.js';
import { kubeconfigYAML } from '../control-plane/control-plane.js';
import { FaultProxy } from './fault-proxy.js';

const USAGE = 'usage: cli.ts --run-dir DIR [--port N] [--control-port N] [--fault-log FILE]';

class CliError extends Error {}

function port(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) > 65535) throw new CliError(`${flag} must be a port number 0-65535, not ${JSON.stringify(v)}`);
  return Number(v);
}

interface ControlPlaneInfo {
  apiURL: string;
  caPath: string;
  adminCertPath: string;
  adminKeyPath: string;
}

function readControlPlane(runDir: string): ControlPlaneInfo {
  const file = path.join(runDir, 'control-plane.json');
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message} (start a control plane with: npx tsx test/e2e/control-plane/cp-cli.ts start --run-dir ${runDir})`);
  }
  let info: Record<string, unknown>;
  try {
    info = JSON.parse(text);
  } catch {
    throw new CliError(`${file} is not JSON`);
  }
  for (const k of ['apiURL', 'caPath', 'adminCertPath', 'adminKeyPath']) {
    if (typeof info?.[k] !== 'string' || !info[k]) throw new CliError(`${file} has no ${k}`);
  }
  return info as unknown as ControlPlaneInfo;
}

/** Is pid a live process that looks like this CLI (so a pid reused by something else counts as stale)? */
function runningProxy(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('cli.ts');
  } catch {
    return true; // no /proc: trust kill(pid, 0)
  }
}

/**
 * One proxy per run directory: DIR/fault-proxy.pid, created exclusively. A second CLI on the same
 * directory would truncate the running proxy's fault log (FaultLog starts it empty, before the
 * ports are bound, so even a start that then fails with EADDRINUSE wiped it) and repoint
 * proxy.kubeconfig. A pid file whose process is gone is replaced. Removed again when this
 * process exits.
 */
function lockRunDir(runDir: string): void {
  const file = path.join(runDir, 'fault-proxy.pid');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o644 });
      process.on('exit', () => {
        try {
          if (fs.readFileSync(file, 'utf8').trim() === String(process.pid)) fs.rmSync(file, { force: true });
        } catch {
          /* gone */
        }
      });
      return;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw new CliError(`cannot write ${file}: ${code ?? (e as Error).message}`);
    }
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0 && runningProxy(pid)) {
      throw new CliError(`a fault proxy (pid ${pid}) is already running for ${runDir} (${file}); stop it first with: kill ${pid}`);
    }
    fs.rmSync(file, { force: true }); // stale: its process is gone
  }
  throw new CliError(`cannot create ${file}: another fault proxy is starting for ${runDir}`);
}

async function main(): Promise<void> {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      options: { 'run-dir': { type: 'string' }, port: { type: 'string' }, 'control-port': { type: 'string' }, 'fault-log': { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }) as { values: Record<string, string | undefined> });
  } catch (e) {
    throw new CliError(`${(e as Error).message.split('\n')[0]} (${USAGE})`);
  }
  const runDir = values['run-dir'];
  if (!runDir) throw new CliError(`--run-dir is required (${USAGE})`);
  const listenPort = port('--port', values.port);
  const controlPort = port('--control-port', values['control-port']) ?? 0;
  const cp = readControlPlane(runDir);
  lockRunDir(runDir);
  const pki = path.dirname(cp.caPath);
  const faultLog = path.resolve(values['fault-log'] ?? path.join(runDir, 'faults.jsonl'));
  const proxy = await FaultProxy.start({
    upstream: cp.apiURL,
    caFile: cp.caPath,
    certFile: path.join(pki, 'proxy.crt'),
    keyFile: path.join(pki, 'proxy.key'),
    identities: [{ certFile: cp.adminCertPath, keyFile: cp.adminKeyPath }],
    faultLog,
    port: listenPort,
    controlPort,
  });
  const kubeconfig = path.join(runDir, 'proxy.kubeconfig');
  try {
    fs.writeFileSync(kubeconfig, kubeconfigYAML(proxy.url, pki), { mode: 0o600 });
  } catch (e) {
    await proxy.close();
    throw new CliError(`cannot write ${kubeconfig}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const out = (l: string) => process.stdout.write(terminalSafeLine(l) + '\n');
  out(`proxy: ${proxy.url} (upstream ${cp.apiURL})`);
  out(`control: ${proxy.controlURL}`);
  out(`kubeconfig: ${kubeconfig}`);
  out(`fault log: ${faultLog}`);
  out(`Ctrl-C (or SIGTERM to pid ${process.pid}) stops it`);
  let stopping = false;
  const stop = (sig: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    out(`${sig}: closing the fault proxy`);
    proxy.close().then(
      () => process.exit(0),
      (e: unknown) => fail(e),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

function fail(e: unknown): never {
  const msg = String((e as Error)?.message ?? e).split('\n')[0].replace(/^fault proxy: /, '');
  process.stderr.write(terminalSafeLine(`fault-proxy: ${msg}`) + '\n');
  process.exit(1);
}

main().catch(fail);
