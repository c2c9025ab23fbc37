/**
 * `kexp record` against a real control plane when things go wrong: kube-apiserver killed and
 * restarted mid-watch, Ctrl-C (SIGINT) and kill -9. One control plane for the file; each test
 * has its own namespace. Needs `npm run build` first (the CLI is spawned from bin/run.js).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { startControlPlane, apiRequest, type ControlPlane } from './control-plane/control-plane.js';
import { api, replicaSet, until, sleep } from './scenarios/scenarios.js';
import { kexp } from '../support/cli.js';

const BIN = path.resolve(new URL('../../bin/run.js', import.meta.url).pathname);
let cp: ControlPlane;
let call: ReturnType<typeof api>;
let env: NodeJS.ProcessEnv;
let restartedApiserver: ChildProcess | undefined;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-live-record-'));
let nsCounter = 0;

before(async () => {
  cp = await startControlPlane();
  call = api(cp);
  env = { KUBECONFIG: cp.kubeconfigPath };
});

after(async () => {
  if (restartedApiserver && restartedApiserver.exitCode === null) {
    restartedApiserver.kill('SIGTERM');
    await new Promise((r) => restartedApiserver!.once('exit', r));
  }
  await cp?.stop();
});

async function namespace(prefix: string): Promise<string> {
  const ns = `${prefix}-${++nsCounter}-${Date.now() % 100000}`;
  await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await until(`default SA in ${ns}`, 30000, async () => (await apiRequest(cp, 'GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status === 200);
  return ns;
}

async function settled(ns: string, name: string, replicas: number, timeoutMs = 60000): Promise<void> {
  await until(`${ns}/${name} settled at ${replicas}`, timeoutMs, async () => {
    const rs = await call<any>('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/${name}`);
    return rs.status?.observedGeneration === rs.metadata.generation && (rs.status?.replicas ?? 0) === replicas;
  });
}

async function scale(ns: string, name: string, replicas: number): Promise<void> {
  await call('PATCH', `/apis/apps/v1/namespaces/${ns}/replicasets/${name}`, { spec: { replicas } }, 'application/merge-patch+json');
}

interface Rec {
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr: () => string;
}

/** Spawns `kexp record` and waits until its ReplicaSet watch has delivered the initial list (the last one to start). */
async function startRecord(ns: string, file: string): Promise<Rec> {
  const child = spawn(process.execPath, [BIN, 'record', 'web', '-n', ns, '-f', file], { env: { ...process.env, ...env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code, sig) => resolve(code ?? (sig ? -1 : null))));
  await until('the recorder to list the ReplicaSets', 20000, async () => fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('"src":"replicasets"'));
  return { child, exited, stderr: () => stderr };
}

function lines(file: string): any[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => {
    try {
      return JSON.parse(l);
    } catch {
      return { unparsable: l };
    }
  });
}

function readyz(): Promise<boolean> {
  return new Promise((resolve) => {
    const req = https.get(`${cp.apiURL}/readyz`, { ca: fs.readFileSync(cp.caPath), timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.on('timeout', () => req.destroy());
  });
}

/** Kills kube-apiserver (SIGKILL: a crash, connections reset) and starts it again with the same command line. */
async function restartApiserver(downMs: number): Promise<void> {
  const pid = cp.pids.apiserver!;
  process.kill(pid, 'SIGKILL');
  await until('kube-apiserver to exit', 20000, async () => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  });
  await sleep(downMs);
  const [bin, ...args] = fs.readFileSync(path.join(cp.runDir, 'kube-apiserver.cmdline'), 'utf8').split('\n').filter(Boolean);
  const log = fs.openSync(cp.apiserverLogPath, 'a');
  restartedApiserver = spawn(bin, args, { cwd: cp.runDir, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  cp.pids.apiserver = restartedApiserver.pid;
  await until('kube-apiserver to be ready again', 120000, readyz);
}

test('kube-apiserver killed and restarted mid-watch: the recording continues after a gap marker, with no pod write lost or duplicated', async () => {
  const ns = await namespace('restart');
  await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 0));
  await settled(ns, 'web', 0);
  const file = path.join(tmp, 'restart.kexp.jsonl');
  const rec = await startRecord(ns, file);
  await scale(ns, 'web', 3);
  await settled(ns, 'web', 3);
  await sleep(1000);
  await restartApiserver(3000);
  await until('a scale to 6 to be accepted', 60000, async () => {
    await scale(ns, 'web', 6);
    return true;
  });
  await settled(ns, 'web', 6, 120000);
  await sleep(2000);
  rec.child.kill('SIGINT');
  assert.equal(await rec.exited, 130, rec.stderr());
  const all = lines(file);
  assert.ok(all.every((l) => !l.unparsable), 'every line is JSON');
  const gaps = all.filter((l) => l.gap);
  assert.ok(gaps.some((g) => g.src === 'pods' && /watch-(reconnect|relist)/.test(g.gap.reason)), `a gap marker for the pods watch: ${JSON.stringify(gaps)}`);
  assert.match(rec.stderr(), /warning: pods: watch-(reconnect|relist)/);
  assert.deepEqual(all[all.length - 1].end, { reason: 'interrupted' });
  // Events after the gap: the recording went on.
  const gapIdx = all.findIndex((l) => l.gap && l.src === 'pods');
  const podEvents = all.filter((l) => l.src === 'pods' && l.event && l.event.type !== 'BOOKMARK');
  assert.ok(all.slice(gapIdx).some((l) => l.src === 'pods' && l.event?.type === 'ADDED'), 'pods added after the restart were recorded');
  // No duplicates: one line per (uid, resourceVersion, type).
  const keys = podEvents.map((l) => `${l.event.object.metadata.uid}@${l.event.object.metadata.resourceVersion}/${l.event.type}`);
  assert.equal(new Set(keys).size, keys.length, `duplicated pod events: ${keys.filter((k, i) => keys.indexOf(k) !== i).join(', ')}`);
  // Nothing lost: every successful pod write in the audit log for this namespace is in the recording (by resourceVersion).
  const recordedRVs = new Set(podEvents.map((l) => l.event.object.metadata.resourceVersion));
  const writes: Array<{ verb: string; rv: string; name: string }> = [];
  for (const line of fs.readFileSync(cp.auditLogPath, 'utf8').split('\n')) {
    if (!line.includes(`"namespace":"${ns}"`) || !line.includes('"resource":"pods"')) continue;
    const a = JSON.parse(line);
    if (a.stage !== 'ResponseComplete' || a.objectRef?.resource !== 'pods' || a.objectRef?.namespace !== ns) continue;
    if (!['create', 'update', 'patch', 'delete'].includes(a.verb) || (a.responseStatus?.code ?? 0) >= 300) continue;
    const rv = a.responseObject?.metadata?.resourceVersion;
    if (rv) writes.push({ verb: a.verb, rv, name: a.responseObject.metadata.name });
  }
  assert.equal(writes.filter((w) => w.verb === 'create').length, 6, JSON.stringify(writes));
  const lost = writes.filter((w) => !recordedRVs.has(w.rv));
  assert.deepEqual(lost, [], 'pod writes missing from the recording');
  const auditRVs = new Set(writes.map((w) => w.rv));
  const phantom = podEvents.filter((l) => !auditRVs.has(l.event.object.metadata.resourceVersion));
  assert.deepEqual(phantom.map((l) => l.event.object.metadata.name), [], 'pod events with no write in the audit log');
  // The recording replays.
  const r = kexp(['replay', file]);
  assert.ok([0, 3, 4].includes(r.code ?? -1), `replay exit ${r.code}: ${r.stderr}`);
  assert.match(r.stdout, /Gaps: /);
});

test('Ctrl-C (SIGINT) during kexp record: exit 130, the file ends with an "interrupted" end line and replays', async () => {
  const ns = await namespace('sigint');
  await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 0));
  await settled(ns, 'web', 0);
  const file = path.join(tmp, 'sigint.kexp.jsonl');
  const rec = await startRecord(ns, file);
  await scale(ns, 'web', 2);
  await settled(ns, 'web', 2);
  await sleep(500);
  rec.child.kill('SIGINT');
  assert.equal(await rec.exited, 130, rec.stderr());
  assert.doesNotMatch(rec.stderr(), /\n\s+at .+:\d+:\d+/);
  const all = lines(file);
  assert.deepEqual(all[all.length - 1].end, { reason: 'interrupted' });
  assert.equal((fs.statSync(file).mode & 0o777).toString(8), '600');
  const r = kexp(['replay', file]);
  assert.ok([0, 3, 4].includes(r.code ?? -1), `replay exit ${r.code}: ${r.stderr}`);
  assert.match(r.stdout, /Verdict: HEALTHY/);
});

test('kill -9 during kexp record: the file replays, at most its last line is reported as a problem', async () => {
  const ns = await namespace('kill9');
  await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 0));
  await settled(ns, 'web', 0);
  const file = path.join(tmp, 'kill9.kexp.jsonl');
  const rec = await startRecord(ns, file);
  await scale(ns, 'web', 30);
  await sleep(700); // creates are in flight (KCM writes at ~20/s)
  rec.child.kill('SIGKILL');
  await rec.exited;
  const text = fs.readFileSync(file, 'utf8');
  const n = text.split('\n').filter(Boolean).length;
  assert.doesNotMatch(text.trimEnd().split('\n').pop()!, /"end":/, 'no end line after kill -9');
  const r = kexp(['replay', file]);
  assert.ok([0, 3, 4, 6].includes(r.code ?? -1), `replay exit ${r.code}: ${r.stderr}`);
  const problems = r.stderr.split('\n').filter((l) => l.startsWith(`${file}:`));
  if (r.code === 6) {
    assert.equal(problems.length, 1, r.stderr);
    assert.ok(problems[0].startsWith(`${file}:${n}: truncated line`), problems[0]);
  } else {
    assert.equal(problems.length, 0, r.stderr);
  }
  assert.match(r.stdout, /no end marker/);
  assert.match(r.stdout, /Verdict: /);
  await settled(ns, 'web', 30);
});
