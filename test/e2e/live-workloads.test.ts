/**
 * `kexp explain ds/NAME --watch`, `kexp record job/NAME` and `kexp explain rc/NAME` against a real
 * control plane whose kube-controller-manager runs the `daemonset`, `job` and `replicationcontroller` controllers (run-workload-scenarios.ts's
 * list; no scheduler, no kubelet: the test binds daemon pods to the node their affinity names and
 * plays the kubelet of Job pods, as workload-scenarios.ts does). One control plane for the file;
 * each test has its own namespace. Needs `npm run build` first (the CLI is spawned from bin/run.js).
 * About a minute and a half.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startControlPlane, apiRequest, type ControlPlane } from './control-plane/control-plane.js';
import { api, until, sleep } from './scenarios/scenarios.js';
import { bindDaemonPods, createNode, daemonSet, job, nodeName, setPhase } from './scenarios/workload-scenarios.js';
import { WORKLOAD_CONTROLLERS } from './scenarios/run-workload-scenarios.js';
import { kexp } from '../support/cli.js';
import { validateReport } from '../support/report-schema.js';

const BIN = path.resolve(new URL('../../bin/run.js', import.meta.url).pathname);
let cp: ControlPlane;
let call: ReturnType<typeof api>;
let env: NodeJS.ProcessEnv;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-live-workloads-'));
let nsCounter = 0;

before(async () => {
  // The ReplicationController manager too, for `explain rc/NAME`.
  cp = await startControlPlane({ controllers: [...WORKLOAD_CONTROLLERS, 'replicationcontroller'] });
  call = api(cp);
  env = { KUBECONFIG: cp.kubeconfigPath };
});

after(async () => {
  await cp?.stop();
});

async function namespace(prefix: string): Promise<string> {
  const ns = `${prefix}-${++nsCounter}-${Date.now() % 100000}`;
  await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await until(`default SA in ${ns}`, 30000, async () => (await apiRequest(cp, 'GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status === 200);
  return ns;
}

async function dsSettled(ns: string, name: string, n: number): Promise<void> {
  await until(`${ns}/${name} to run ${n} daemon pods`, 60000, async () => {
    await bindDaemonPods(call, ns);
    const ds = await call<any>('GET', `/apis/apps/v1/namespaces/${ns}/daemonsets/${name}`);
    const st = ds.status ?? {};
    return st.observedGeneration === ds.metadata.generation && st.desiredNumberScheduled === n && st.currentNumberScheduled === n && (st.updatedNumberScheduled ?? 0) === n;
  });
}

/** Spawns the CLI without blocking the test (it keeps driving the cluster meanwhile). */
function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

function json(r: { stdout: string; stderr: string; code: number | null }): any {
  try {
    return JSON.parse(r.stdout);
  } catch {
    assert.fail(`stdout is not JSON (exit ${r.code}): ${r.stdout.slice(0, 500)}\nstderr: ${r.stderr}`);
  }
}

test('explain ds/NAME --watch 20s: a node labelled in during the watch gets its daemon pod — the DaemonSet entry with the create round, healthy, exit 0', async () => {
  const ns = await namespace('dswatch');
  for (const i of [1, 2]) await createNode(call, ns, i);
  await call('POST', `/apis/apps/v1/namespaces/${ns}/daemonsets`, daemonSet('agent', ns));
  await dsSettled(ns, 'agent', 2);
  // Snapshot only: the controller's status says 2/2, every node that should run one has it.
  const snap = kexp(['explain', 'ds/agent', '-n', ns, '-o', 'json'], { env });
  assert.equal(snap.code, 0, snap.stderr);
  const s = json(snap).replicaSets;
  assert.equal(s.length, 1);
  assert.equal(s[0].kind, 'DaemonSet');
  assert.equal(s[0].verdict.state, 'healthy');
  assert.match(s[0].verdict.summary, /2\/2 nodes run a daemon pod/);
  assert.deepEqual(validateReport(json(snap)), []);
  const html = path.join(tmp, 'ds.html');
  const watching = run(['explain', 'daemonset', 'agent', '-n', ns, '--watch', '20s', '-o', 'json', '--html', html]);
  await sleep(6000);
  await createNode(call, ns, 3);
  await dsSettled(ns, 'agent', 3);
  const r = await watching;
  assert.equal(r.code, 0, r.stderr);
  const rep = json(r);
  assert.deepEqual(validateReport(rep), []);
  const e = rep.replicaSets.find((x: any) => x.key === `${ns}/agent`);
  assert.equal(e.kind, 'DaemonSet');
  assert.equal(e.verdict.state, 'healthy', JSON.stringify(e.verdict));
  const creates = e.rounds.filter((x: any) => x.kind === 'create');
  assert.equal(creates.length, 1, JSON.stringify(e.rounds));
  assert.equal(creates[0].n, 1);
  assert.equal(creates[0].successes, 1);
  assert.equal(e.gatedWindows.filter((w: any) => w.endedBy !== 'fulfilled').length, 0, JSON.stringify(e.gatedWindows));
  assert.ok(rep.inputs.some((i: any) => /live watch/.test(i.format)));
  assert.ok(fs.readFileSync(html, 'utf8').includes('DaemonSet'));
  assert.ok(!nodeName(ns, 3).includes('/'));
});

test('record job/NAME: the Job, its pods, Events, namespace; the replay reports the Job with its create round and Complete, exit 0', async () => {
  const ns = await namespace('jobrec');
  await createNode(call, ns, 1, false);
  const file = path.join(tmp, 'job.kexp.jsonl');
  // Created suspended (record needs its target to exist), resumed once the recording runs.
  const j = job('work', ns, nodeName(ns, 1), { parallelism: 2, completions: 2, backoffLimit: 1 });
  await call('POST', `/apis/batch/v1/namespaces/${ns}/jobs`, { ...j, spec: { ...j.spec, suspend: true } });
  const recording = run(['record', 'job/work', '-n', ns, '-f', file, '--duration', '25s', '-q']);
  await sleep(3000);
  await call('PATCH', `/apis/batch/v1/namespaces/${ns}/jobs/work`, { spec: { suspend: false } }, 'application/merge-patch+json');
  // The kubelet: each pod Running, then Succeeded.
  await until('the Job complete', 60000, async () => {
    const pods = (await call<{ items: any[] }>('GET', `/api/v1/namespaces/${ns}/pods`)).items.filter((p) => !p.metadata.deletionTimestamp);
    for (const p of pods) {
      const phase = p.status?.phase ?? 'Pending';
      if (phase === 'Pending') await setPhase(call, ns, p, 'Running');
      else if (phase === 'Running') await setPhase(call, ns, p, 'Succeeded');
    }
    const j = await call<any>('GET', `/apis/batch/v1/namespaces/${ns}/jobs/work`);
    return (j.status?.conditions ?? []).some((c: any) => c.type === 'Complete' && c.status === 'True');
  });
  const rec = await recording;
  assert.equal(rec.code, 0, rec.stderr);
  const header = JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0]!);
  assert.equal(header.job, 'work');
  assert.deepEqual(header.watches.map((w: any) => w.resource), ['jobs', 'pods', 'events', 'namespaces']);
  assert.equal(header.redacted, true);
  const r = kexp(['replay', file, '-o', 'json'], { env });
  assert.equal(r.code, 0, r.stderr);
  const rep = json(r);
  assert.deepEqual(validateReport(rep), []);
  const e = rep.replicaSets.find((x: any) => x.key === `${ns}/work`);
  assert.equal(e.kind, 'Job');
  assert.equal(e.verdict.state, 'healthy', JSON.stringify(e.verdict));
  const created = e.rounds.filter((x: any) => x.kind === 'create').reduce((n: number, x: any) => n + (x.successes ?? 0), 0);
  assert.equal(created, 2, JSON.stringify(e.rounds));
  assert.equal(e.gatedWindows.filter((w: any) => w.endedBy === 'expired' || w.endedBy === 'open').length, 0);
  // The snapshot of the finished Job: the controller is done, no pod holds the tracking finalizer.
  const snap = kexp(['explain', 'job', 'work', '-n', ns, '-o', 'json'], { env });
  assert.equal(snap.code, 0, snap.stderr);
  const s = json(snap).replicaSets[0];
  assert.equal(s.kind, 'Job');
  assert.equal(s.verdict.state, 'healthy');
  assert.match(s.verdict.summary, /the Job is Complete/);
  assert.equal(s.findings.some((f: any) => f.id === 'job-tracking-finalizer-held'), false);
});

test('explain rc/NAME: the ReplicationController read as the ReplicaSet its manager runs, its pods and the replication-controller\'s Events — healthy with its create round, exit 0; --watch follows a scale-up', async () => {
  const ns = await namespace('rcexp');
  const rc = {
    apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'legacy', namespace: ns },
    spec: { replicas: 2, selector: { app: 'legacy' }, template: { metadata: { labels: { app: 'legacy' } }, spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } } },
  };
  await call('POST', `/api/v1/namespaces/${ns}/replicationcontrollers`, rc);
  await until('the RC to have 2 pods', 60000, async () => {
    const r = await call<any>('GET', `/api/v1/namespaces/${ns}/replicationcontrollers/legacy`);
    return r.status?.replicas === 2 && r.status?.observedGeneration === r.metadata.generation;
  });
  const snap = kexp(['explain', 'rc/legacy', '-n', ns, '-o', 'json'], { env });
  assert.equal(snap.code, 0, snap.stderr);
  const rep = json(snap);
  assert.deepEqual(validateReport(rep), []);
  const e = rep.replicaSets[0];
  assert.equal(e.kind, 'ReplicationController');
  assert.equal(e.key, `${ns}/legacy`);
  assert.equal(e.verdict.state, 'healthy', JSON.stringify(e.verdict));
  assert.equal(e.counts.active.last, 2);
  // The manager's two SuccessfulCreate Events (rounds as their times group them: whole seconds).
  assert.equal(e.rounds.filter((r: any) => r.kind === 'create').reduce((n: number, r: any) => n + (r.successes ?? 0), 0), 2, JSON.stringify(e.rounds));
  assert.ok(e.rounds.every((r: any) => r.basis === 'observed'));
  const text = kexp(['explain', 'replicationcontroller', 'legacy', '-n', ns], { env });
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, new RegExp(`^ReplicationController ${ns}/legacy`, 'm'));
  // --watch: a scale-up during the watch is the manager's create round in the replay.
  const watched = run(['explain', 'rc/legacy', '-n', ns, '--watch', '12s', '-o', 'json']);
  await sleep(4000);
  await call('PATCH', `/api/v1/namespaces/${ns}/replicationcontrollers/legacy`, { spec: { replicas: 3 } }, 'application/merge-patch+json');
  const w = await watched;
  assert.equal(w.code, 0, w.stderr);
  const we = json(w).replicaSets[0];
  assert.equal(we.kind, 'ReplicationController');
  assert.equal(we.counts.active.last, 3, JSON.stringify(we.counts));
  assert.ok(we.rounds.some((r: any) => r.kind === 'create' && r.successes === 1), JSON.stringify(we.rounds));
});
