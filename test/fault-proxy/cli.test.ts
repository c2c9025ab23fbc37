/**
 * test/e2e/fault-proxy/cli.ts spawned against the fake apiserver through a written
 * control-plane.json (the fields cp-cli.ts writes): what it prints, the kubeconfig it writes
 * and that requests through it carry the admin certificate, its control endpoint and fault
 * log, a clean exit 0 on SIGTERM and SIGINT, and one-line `fault-proxy: …` errors, exit 1.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatePKI } from '../e2e/control-plane/control-plane.js';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import { call, until } from './client.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'test/e2e/fault-proxy/cli.ts');

let dir: string;
let pki: string;
let runDir: string;
let upstream: FakeUpstream;

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(args: string[]): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
  return { child, stdout: () => out, stderr: () => err, exit };
}

async function ready(run: Run): Promise<{ proxy: string; control: string }> {
  await until('the CLI to print its URLs', () => /^control: /m.test(run.stdout()) || run.child.exitCode !== null, 20_000);
  assert.equal(run.child.exitCode, null, `the CLI exited: ${run.stderr()}`);
  return { proxy: /^proxy: (\S+)/m.exec(run.stdout())![1], control: /^control: (\S+)/m.exec(run.stdout())![1] };
}

async function failure(args: string[]): Promise<string> {
  const run = start(args);
  const { code } = await run.exit;
  assert.equal(code, 1, `exit code; stderr: ${run.stderr()}`);
  assert.equal(run.stdout(), '');
  const lines = run.stderr().trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line: ${run.stderr()}`);
  return lines[0];
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const p = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return p;
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.on('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.on('error', () => resolve(true));
  });
}

function writeControlPlane(to: string, pkiDir: string, apiURL: string): void {
  fs.mkdirSync(to, { recursive: true });
  const info = { runDir: to, apiURL, caPath: path.join(pkiDir, 'ca.crt'), adminCertPath: path.join(pkiDir, 'admin.crt'), adminKeyPath: path.join(pkiDir, 'admin.key'), kubeconfigPath: path.join(to, 'admin.kubeconfig') };
  fs.writeFileSync(path.join(to, 'control-plane.json'), JSON.stringify(info, null, 2) + '\n');
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-fault-proxy-cli-'));
  pki = path.join(dir, 'pki');
  generatePKI(pki);
  upstream = await startFakeUpstream(pki);
  runDir = path.join(dir, 'run');
  writeControlPlane(runDir, pki, upstream.url);
});

after(async () => {
  await upstream?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('fault-proxy cli', () => {
  test('serves in front of the control plane, writes proxy.kubeconfig, exits 0 on SIGTERM', async () => {
    const [port, controlPort] = [await freePort(), await freePort()];
    const run = start(['--run-dir', runDir, '--port', String(port), '--control-port', String(controlPort)]);
    try {
      const urls = await ready(run);
      assert.equal(urls.proxy, `https://127.0.0.1:${port}`);
      assert.equal(urls.control, `http://127.0.0.1:${controlPort}`);
      const faultLog = path.join(runDir, 'faults.jsonl');
      assert.match(run.stdout(), new RegExp(`^proxy: https://127\\.0\\.0\\.1:${port} \\(upstream ${upstream.url.replace(/\./g, '\\.')}\\)$`, 'm'));
      assert.match(run.stdout(), new RegExp(`^kubeconfig: ${path.join(runDir, 'proxy.kubeconfig')}$`, 'm'));
      assert.match(run.stdout(), new RegExp(`^fault log: ${faultLog}$`, 'm'));

      const kc = fs.readFileSync(path.join(runDir, 'proxy.kubeconfig'), 'utf8');
      assert.match(kc, new RegExp(`server: "https://127\\.0\\.0\\.1:${port}"`));
      assert.match(kc, new RegExp(`client-certificate: "${path.join(pki, 'admin.crt')}"`));
      assert.equal(fs.statSync(path.join(runDir, 'proxy.kubeconfig')).mode & 0o777, 0o600);

      // The kubeconfig's credentials reach the upstream as the admin certificate.
      const cert = fs.readFileSync(path.join(pki, 'admin.crt'));
      const r = await call(urls.proxy, '/api/v1/namespaces/cli/configmaps', { ca: fs.readFileSync(path.join(pki, 'ca.crt')), cert, key: fs.readFileSync(path.join(pki, 'admin.key')) });
      assert.equal(r.status, 200);
      assert.equal(upstream.requests.at(-1)!.certFingerprint, new crypto.X509Certificate(cert).fingerprint256);

      // The control endpoint takes a rule; the fault log has it.
      const added = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(new URL('/rules', urls.control), { method: 'POST' }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end(JSON.stringify({ action: 'delay', resource: 'pods', namespace: 'demo', client: 'shared-informers', delayMs: 330000 }));
      });
      assert.deepEqual([added.status, JSON.parse(added.body)], [200, { id: 1 }]);
      const log = fs.readFileSync(faultLog, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
      assert.deepEqual(log.map((e) => [e.action, e.rule, e.namespace, e.client]), [['rule-added', 1, 'demo', 'shared-informers']]);

      run.child.kill('SIGTERM');
      const { code } = await run.exit;
      assert.equal(code, 0);
      assert.match(run.stdout(), /^SIGTERM: closing the fault proxy$/m);
      assert.equal(run.stderr(), '');
      assert.ok(await refused(port), 'the proxy port is closed');
      assert.ok(await refused(controlPort), 'the control port is closed');
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  test('SIGINT closes it too; --fault-log chooses the log file', async () => {
    const faultLog = path.join(dir, 'elsewhere.jsonl');
    const run = start(['--run-dir', runDir, '--fault-log', faultLog]);
    try {
      await ready(run);
      assert.equal(fs.readFileSync(faultLog, 'utf8'), '');
      run.child.kill('SIGINT');
      assert.equal((await run.exit).code, 0);
    } finally {
      run.child.kill('SIGKILL');
    }
  });

  test('one proxy per run directory: a second CLI is refused before it touches the running one\'s fault log; the lock goes with the first', async () => {
    const faultLog = path.join(dir, 'locked.jsonl');
    const first = start(['--run-dir', runDir, '--fault-log', faultLog]);
    try {
      await ready(first);
      fs.writeFileSync(faultLog, '{"time":"2026-12-01T00:00:00.000Z","action":"stall"}\n');
      const line = await failure(['--run-dir', runDir, '--fault-log', faultLog]);
      assert.match(line, new RegExp(`^fault-proxy: a fault proxy \\(pid ${first.child.pid}\\) is already running for `));
      assert.equal(fs.readFileSync(faultLog, 'utf8'), '{"time":"2026-12-01T00:00:00.000Z","action":"stall"}\n', 'the running proxy\'s log is untouched');
      first.child.kill('SIGTERM');
      assert.equal((await first.exit).code, 0);
      assert.equal(fs.existsSync(path.join(runDir, 'fault-proxy.pid')), false, 'the lock is removed on exit');
    } finally {
      first.child.kill('SIGKILL');
    }
  });

  test('errors are one line `fault-proxy: …`, exit 1', async () => {
    assert.match(await failure([]), /^fault-proxy: --run-dir is required \(usage: cli\.ts --run-dir DIR /);
    assert.match(await failure(['--run-dir', runDir, '--bogus']), /^fault-proxy: Unknown option '--bogus'.* \(usage: cli\.ts /);
    assert.equal(await failure(['--run-dir', runDir, '--port', '70000']), 'fault-proxy: --port must be a port number 0-65535, not "70000"');
    const empty = path.join(dir, 'empty');
    fs.mkdirSync(empty);
    assert.equal(
      await failure(['--run-dir', empty]),
      `fault-proxy: cannot read ${path.join(empty, 'control-plane.json')}: ENOENT (start a control plane with: npx tsx test/e2e/control-plane/cp-cli.ts start --run-dir ${empty})`,
    );
    const broken = path.join(dir, 'broken');
    fs.mkdirSync(broken);
    fs.writeFileSync(path.join(broken, 'control-plane.json'), '{"apiURL": "https://127.0.0.1:1"}');
    assert.equal(await failure(['--run-dir', broken]), `fault-proxy: ${path.join(broken, 'control-plane.json')} has no caPath`);
    // A PKI without the proxy's certificate (a control plane from before it had one).
    const oldPki = path.join(dir, 'old-pki');
    fs.mkdirSync(oldPki);
    for (const f of ['ca.crt', 'admin.crt', 'admin.key']) fs.copyFileSync(path.join(pki, f), path.join(oldPki, f));
    const old = path.join(dir, 'old');
    writeControlPlane(old, oldPki, upstream.url);
    assert.equal(await failure(['--run-dir', old]), `fault-proxy: cannot read serving certificate ${path.join(oldPki, 'proxy.crt')}: ENOENT`);
  });
});
