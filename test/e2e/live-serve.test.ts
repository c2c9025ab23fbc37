/**
 * `kexp serve` against the real control plane (kube-controller-manager with the replicaset and
 * daemonset controllers and leader election, so its Lease exists): serve follows a namespace
 * through a TCP relay the test controls; /readyz turns ready once the initial lists are in; a
 * ReplicaSet is scaled up and a DaemonSet gains a node, and /metrics and /explain show both
 * healthy with their create rounds and no gate left; then every connection of serve's watches is
 * cut (as an apiserver restart or a broken network does), the ReplicaSet is scaled down, and serve
 * resumes its watches — no gap, no false finding, the delete round seen; SIGTERM stops it (exit 0).
 * The resumed watches deliver their backlog at once, each resource at its own jittered reconnect,
 * so the scale-down may arrive after the deletion it caused, both late: the causal order keeps it
 * just before (src/timeline/causal-order.ts) and the victim is ranked at the time its deletion
 * shows (src/analysis/engine/deletion-victims.ts; unit tests: test/pipeline/resumed-watches.test.ts).
 * Serve may start in the very second the first pods were created: their listed Events are history
 * (test/pipeline/initial-list-events.test.ts).
 * The test plays the scheduler of the fake nodes (binding daemon pods), as live-workloads does.
 * Needs `npm run build` first. About a minute.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startControlPlane, apiRequest, type ControlPlane } from './control-plane/control-plane.js';
import { api, until, sleep, replicaSet, scale } from './scenarios/scenarios.js';
import { bindDaemonPods, createNode, daemonSet } from './scenarios/workload-scenarios.js';
import { WORKLOAD_CONTROLLERS } from './scenarios/run-workload-scenarios.js';
import { startKexp, waitFor } from '../support/spawn-cli.js';
import { validateReport } from '../support/report-schema.js';

let cp: ControlPlane;
let call: ReturnType<typeof api>;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-live-serve-'));

/** A TCP relay to the apiserver whose connections the test can cut. */
interface Relay {
  url: string;
  cut(): number;
  close(): Promise<void>;
}

async function relay(target: URL): Promise<Relay> {
  const socks = new Set<net.Socket>();
  const server = net.createServer((c) => {
    const up = net.connect(Number(target.port), target.hostname);
    socks.add(c);
    socks.add(up);
    const drop = () => {
      c.destroy();
      up.destroy();
      socks.delete(c);
      socks.delete(up);
    };
    c.on('error', drop).on('close', drop);
    up.on('error', drop).on('close', drop);
    c.pipe(up);
    up.pipe(c);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `https://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut: () => {
      const n = socks.size;
      for (const s of socks) s.destroy();
      socks.clear();
      return n;
    },
    close: () => new Promise<void>((r) => {
      for (const s of socks) s.destroy();
      server.close(() => r());
    }),
  };
}

before(async () => {
  cp = await startControlPlane({ controllers: WORKLOAD_CONTROLLERS, leaderElect: true });
  call = api(cp);
});

after(async () => {
  await cp?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function dsSettled(ns: string, n: number): Promise<void> {
  await until(`the DaemonSet to run ${n} pods`, 60000, async () => {
    await bindDaemonPods(call, ns);
    const ds = await call<any>('GET', `/apis/apps/v1/namespaces/${ns}/daemonsets/agent`);
    const st = ds.status ?? {};
    return st.observedGeneration === ds.metadata.generation && st.desiredNumberScheduled === n && st.currentNumberScheduled === n;
  });
}

async function rsSettled(ns: string, n: number): Promise<void> {
  await until(`the ReplicaSet to have ${n} pods`, 60000, async () => {
    const rs = await call<any>('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/web`);
    return rs.status?.observedGeneration === rs.metadata.generation && rs.status?.replicas === n;
  });
}

async function get(url: string, accept = 'application/json'): Promise<{ status: number; body: string }> {
  const r = await fetch(url, { headers: { accept } });
  return { status: r.status, body: await r.text() };
}

const PROBLEM = /^kexp_(controller_gated|expectations_leaked|expectations_outstanding|object_verdict|controller_write_failures_total)\{/m;

test('kexp serve: ready after the initial lists; scale-ups healthy in /metrics and /explain; cut watches resume without a false finding; SIGTERM exits 0', { timeout: 240_000 }, async () => {
  const ns = `serve-${Date.now() % 100000}`;
  await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await until(`default SA in ${ns}`, 30000, async () => (await apiRequest(cp, 'GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`)).status === 200);
  for (const i of [1, 2]) await createNode(call, ns, i);
  await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 2));
  await call('POST', `/apis/apps/v1/namespaces/${ns}/daemonsets`, daemonSet('agent', ns));
  await rsSettled(ns, 2);
  await dsSettled(ns, 2);

  const r = await relay(new URL(cp.apiURL));
  const kubeconfig = path.join(tmp, 'kubeconfig');
  fs.writeFileSync(kubeconfig, fs.readFileSync(cp.kubeconfigPath, 'utf8').split(cp.apiURL).join(r.url), { mode: 0o600 });
  const serve = startKexp(['serve', '--kubeconfig', kubeconfig, '-n', ns, '--listen', '127.0.0.1:0', '--interval', '1s'], { timeoutMs: 200_000 });
  try {
    await waitFor('serve to listen', 20_000, () => /listening on http:\/\/\S+/.test(serve.stderr()));
    const url = /listening on (http:\/\/\S+)/.exec(serve.stderr())![1]!;
    await waitFor('ready', 30_000, () => /kexp serve: ready/.test(serve.stderr()));
    assert.equal((await get(`${url}/readyz`)).status, 200);

    // Scale the ReplicaSet up and give the DaemonSet a third node.
    await scale(call, ns, 'web', 4);
    await createNode(call, ns, 3);
    await rsSettled(ns, 4);
    await dsSettled(ns, 3);
    // Past the look-ahead window and an evaluation.
    await sleep(8000);
    const m = (await get(`${url}/metrics`)).body;
    assert.match(m, /^kexp_objects_tracked\{kind="ReplicaSet"\} 1$/m);
    assert.match(m, /^kexp_objects_tracked\{kind="DaemonSet"\} 1$/m);
    assert.match(m, /^kexp_kcm_lease_observed 1$/m);
    assert.match(m, /^kexp_kcm_leading 1$/m);
    assert.doesNotMatch(m, PROBLEM, 'no gate, leak or failure on healthy scale-ups');
    const writes = Number(/^kexp_controller_writes_total\{kind="ReplicaSet",verb="create"\} (\d+)$/m.exec(m)?.[1]);
    assert.equal(writes, 2, 'the scale-up\'s two creates (the initial two came before serve)');
    const rsRep = JSON.parse((await get(`${url}/explain/rs/${ns}/web`)).body);
    assert.deepEqual(validateReport(rsRep), []);
    const rs = rsRep.replicaSets[0];
    assert.equal(rs.initialState.basis, 'unknown');
    assert.ok(!['gated', 'leaked', 'failing', 'stalled'].includes(rs.verdict.state), JSON.stringify(rs.verdict));
    assert.deepEqual(rs.rounds.filter((x: any) => x.kind === 'create').map((x: any) => [x.n, x.successes]), [[2, 2]]);
    assert.equal(rs.gatedWindows.filter((w: any) => w.endedBy !== 'fulfilled').length, 0, JSON.stringify(rs.gatedWindows));
    const dsRep = JSON.parse((await get(`${url}/explain/ds/${ns}/agent`)).body);
    const ds = dsRep.replicaSets[0];
    assert.equal(ds.kind, 'DaemonSet');
    assert.equal(ds.verdict.state, 'healthy', JSON.stringify(ds.verdict));
    assert.deepEqual(ds.rounds.filter((x: any) => x.kind === 'create').map((x: any) => [x.n, x.successes]), [[1, 1]]);
    const html = await get(`${url}/explain/daemonset/${ns}/agent`, 'text/html');
    assert.equal(html.status, 200);
    assert.match(html.body, /DaemonSet/);

    // Cut every connection serve has (its watches), then scale down while it reconnects.
    const cut = r.cut();
    assert.ok(cut >= 6, `cut ${cut} sockets`);
    await scale(call, ns, 'web', 3);
    await rsSettled(ns, 3);
    await sleep(10000);
    const m2 = (await get(`${url}/metrics`)).body;
    assert.match(m2, /^kexp_watch_restarts_total\{resource="pods",reason="resumed"\} [1-9]/m, 'the pods watch resumed from its resourceVersion');
    assert.doesNotMatch(m2, /^kexp_watch_restarts_total\{[^}]*reason="relist"/m, 'no relist: nothing lost');
    assert.doesNotMatch(m2, PROBLEM, 'no false gate, leak or failure after the cut');
    const after = JSON.parse((await get(`${url}/explain/rs/${ns}/web`)).body).replicaSets[0];
    assert.deepEqual(after.rounds.filter((x: any) => x.kind === 'delete').map((x: any) => x.n), [1], JSON.stringify(after.rounds));
    assert.ok(!after.findings.some((f: any) => /^expectation-leak|unexplained-writes|unattributed-writes|extra-delete|input-disagrees-with-model/.test(f.id)), JSON.stringify(after.findings.map((f: any) => f.id)));
    assert.equal(after.gatedWindows.filter((w: any) => w.endedBy !== 'fulfilled').length, 0, JSON.stringify(after.gatedWindows));
  } catch (err) {
    // Never leave serve or the relay running (they would keep the test file alive).
    serve.child.kill('SIGTERM');
    await serve.done;
    await r.close();
    throw err;
  }
  serve.child.kill('SIGTERM');
  const done = await serve.done;
  await r.close();
  assert.equal(done.code, 0, done.stderr);
  assert.match(done.stderr, /stopped \(SIGTERM\)/);
});
