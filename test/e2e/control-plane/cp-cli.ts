// Small CLI around control-plane.ts, for manual poking and for CI scripts.
//
//   npx tsx test/e2e/control-plane/cp-cli.ts start [--run-dir DIR] [--k8s-version 1.37.2] [--write-env FILE]
//       Starts etcd + kube-apiserver + KCM, writes <run-dir>/control-plane.json (and FILE with
//       KUBECONFIG=… / KEXP_* lines, if given), prints them, then stays in the foreground until
//       SIGINT/SIGTERM, which stops everything (children are killed, etcd data deleted, logs kept).
//       CI: start it with `&`, wait for <run-dir>/control-plane.json, later `kill <cli pid>`.
//   npx tsx test/e2e/control-plane/cp-cli.ts stop --run-dir DIR
//       Stops leftovers of a crashed run by the PIDs recorded in DIR/*.pid (KCM → apiserver → etcd,
//       SIGTERM, SIGKILL after 10 s), only if the PID still runs the expected binary.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { startControlPlane } from './control-plane.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function alive(pid: number, name: string): boolean {
  try {
    const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
    return path.basename(cmd) === name;
  } catch {
    return false;
  }
}

async function stopLeftovers(runDir: string): Promise<void> {
  for (const name of ['kube-controller-manager', 'kube-apiserver', 'etcd']) {
    const pidFile = path.join(runDir, `${name}.pid`);
    if (!fs.existsSync(pidFile)) continue;
    const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
    if (pid > 0 && alive(pid, name)) {
      process.kill(pid, 'SIGTERM');
      const deadline = Date.now() + 10_000;
      while (alive(pid, name) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      if (alive(pid, name)) process.kill(pid, 'SIGKILL');
      console.log(`stopped ${name} (pid ${pid})`);
    }
    fs.rmSync(pidFile, { force: true });
  }
  fs.rmSync(path.join(runDir, 'etcd'), { recursive: true, force: true });
  fs.rmSync(path.join(runDir, 'control-plane.json'), { force: true });
}

async function main(): Promise<void> {
  const cmd = process.argv[2];
  if (cmd === 'start') {
    const cp = await startControlPlane({ runDir: arg('--run-dir'), k8sVersion: arg('--k8s-version') });
    const { stop: _stop, ...info } = cp;
    fs.writeFileSync(path.join(cp.runDir, 'control-plane.json'), JSON.stringify(info, null, 2) + '\n');
    const env = [
      `KUBECONFIG=${cp.kubeconfigPath}`,
      `KEXP_CP_RUN_DIR=${cp.runDir}`,
      `KEXP_CP_API_URL=${cp.apiURL}`,
      `KEXP_CP_AUDIT_LOG=${cp.auditLogPath}`,
      `KEXP_CP_KCM_LOG=${cp.kcmLogPath}`,
      `KEXP_CP_APISERVER_LOG=${cp.apiserverLogPath}`,
      '',
    ].join('\n');
    const envFile = arg('--write-env');
    if (envFile) fs.writeFileSync(envFile, env);
    console.log(JSON.stringify(info, null, 2));
    console.log(`control plane ready in ${(cp.startupMs / 1000).toFixed(1)}s; Ctrl-C (or SIGTERM to pid ${process.pid}) stops it`);
    // Graceful stop on signals; control-plane.ts' own handler kills children if this one is too slow.
    let stopping = false;
    const onSig = (sig: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      console.log(`${sig}: stopping control plane`);
      void cp.stop().finally(() => {
        fs.rmSync(path.join(cp.runDir, 'control-plane.json'), { force: true });
        process.exit(0);
      });
    };
    process.prependListener('SIGINT', onSig);
    process.prependListener('SIGTERM', onSig);
    setInterval(() => undefined, 1 << 30);
  } else if (cmd === 'stop') {
    const runDir = arg('--run-dir');
    if (!runDir) throw new Error('usage: cp-cli.ts stop --run-dir DIR');
    await stopLeftovers(runDir);
  } else {
    throw new Error('usage: cp-cli.ts start [--run-dir DIR] [--k8s-version V] [--write-env FILE] | stop --run-dir DIR');
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
