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
 * Ports default to any free one.
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
