/**
 * Scenarios that need faults: the real kube-controller-manager runs behind the fault proxy
 * (test/e2e/fault-proxy) and each scenario injects the fault that produces one incident.
 * kexp's recorder watches the apiserver directly (it sees the truth the controller missed),
 * except in `record-through-faults`, where the recorder itself is the target.
 *
 * Phases, because one controller-manager serves every namespace:
 * - `gate-off`: the controller-manager runs with StaleControllerConsistencyReplicaSet=false,
 *   so the pre-1.36 behaviour (kubernetes#129795) can happen; these scenarios wait out the
 *   5-minute ExpectationsTimeout and run side by side in their own namespaces, started a few
 *   seconds apart so their keyless log lines do not interleave.
 * - `serial`: one at a time, with the default gates (the consistency gate on), because their
 *   faults touch every namespace (a relist, a restart of the controller-manager).
 */
import { apiRequest } from '../control-plane/control-plane.js';
import type { FaultProxy } from '../fault-proxy/fault-proxy.js';
import { api, replicaSet, scale, sleep, until, type Scenario, type ScenarioContext } from './scenarios.js';

/** Past the 5-minute ExpectationsTimeout (pkg/controller/controller_utils.go). */
export const EXPECTATIONS_TIMEOUT_MS = 300_000;
/** The controller-manager's informers (the shared informer factory's client). */
export const INFORMERS = 'shared-informers';

export interface FaultScenarioContext extends ScenarioContext {
  proxy: FaultProxy;
}

export interface FaultScenario extends Omit<Scenario, 'run'> {
  phase: 'gate-off' | 'serial';
  /**
   * The capture's checks assert only what the real controller's log and audit show (its ground
   * truth, fault-expectations.ts GROUND_TRUTH); kexp's answers on it are scored in bench/fidelity,
   * not asserted.
   */
  truthOnly?: boolean;
  /** kexp's recorder goes through the proxy (it is the client the faults target). */
  recordThroughProxy?: boolean;
  /** What the real controller must have done (checked on the apiserver after the run). */
  run(ctx: FaultScenarioContext): Promise<void>;
}

export type Api = ReturnType<typeof api>;

export async function podsOf(call: Api, ns: string): Promise<any[]> {
  const l = await call<{ items: any[] }>('GET', `/api/v1/namespaces/${ns}/pods?labelSelector=app%3Dweb`);
  return l.items.filter((p) => !p.metadata.deletionTimestamp);
}

/** Any change to the ReplicaSet object enqueues it (updateRS): the "trigger" of a sync. */
export async function touch(call: Api, ns: string): Promise<void> {
  await call('PATCH', `/apis/apps/v1/namespaces/${ns}/replicasets/web`, { metadata: { annotations: { 'kexp.test/touched': new Date().toISOString() } } }, 'application/merge-patch+json');
}

export async function podCount(call: Api, ns: string, n: number, timeoutMs: number): Promise<void> {
  await until(`${n} pods in ${ns}`, timeoutMs, async () => (await podsOf(call, ns)).length === n);
}

export async function statusReplicas(call: Api, ns: string): Promise<number> {
  const rs = await call<any>('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/web`);
  return rs.status?.replicas ?? 0;
}

export async function settled(call: Api, ns: string, active: number, timeoutMs = 60_000): Promise<void> {
  await until(`${ns}/web to report ${active} replicas`, timeoutMs, async () => {
    const rs = await call<any>('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/web`);
    return rs.status?.observedGeneration === rs.metadata.generation && (rs.status?.replicas ?? 0) === active && (await podsOf(call, ns)).length === active;
  });
}

export async function sleepUntil(t: number): Promise<void> {
  const ms = t - Date.now();
  if (ms > 0) await sleep(ms);
}

/** The dropped-ADD scenarios: one pod ADDED never reaches the controller's informer. */
async function droppedAdd(ctx: FaultScenarioContext, trigger: boolean): Promise<void> {
  const { cp, ns, proxy, log } = ctx;
  const call = api(cp);
  await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 0));
  await sleep(1500);
  const rule = await proxy.add({ action: 'drop', resource: 'pods', namespace: ns, client: INFORMERS, events: ['ADDED'], count: 1 });
  const t0 = Date.now();
  await scale(call, ns, 'web', 3);
  await podCount(call, ns, 3, 30_000);
  proxy.remove(rule);
  await sleep(3000);
  const seen = await statusReplicas(call, ns);
  if (seen !== 2) throw new Error(`scenario: the controller should count 2 of 3 pods after a dropped ADDED, its status says ${seen}`);
  log(`  ${ns}: one ADDED dropped; waiting out the ExpectationsTimeout`);
  await sleepUntil(t0 + EXPECTATIONS_TIMEOUT_MS + 6000);
  if (trigger) {
    await touch(call, ns);
    // Expired → satisfied: the controller lists 2 pods and creates one more (4 exist).
    await podCount(call, ns, 4, 30_000);
    await sleep(3000);
  } else {
    await sleep(5000);
    const n = (await podsOf(call, ns)).length;
    if (n !== 3) throw new Error(`scenario: without a trigger the controller must stay put (3 pods), found ${n}`);
  }
}

export const FAULT_SCENARIOS: FaultScenario[] = [
  {
    name: 'informer-lag-over-create',
    phase: 'gate-off',
    summary:
      'kubernetes#129795: the controller-manager\'s pod informer lags 330 s while a ReplicaSet scales 0→3. The add=3 record expires at 300 s; ' +
      'the next sync (a touch of the ReplicaSet) lists the stale cache (0 pods) and creates 3 more; when the late ADDs arrive it deletes the 3 surplus pods.',
    target: 'web',
    async run({ cp, ns, proxy, log }) {
      const call = api(cp);
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 0));
      await sleep(1500);
      const lag = await proxy.add({ action: 'delay', resource: 'pods', namespace: ns, client: INFORMERS, delayMs: 330_000 });
      const t0 = Date.now();
      await scale(call, ns, 'web', 3);
      await podCount(call, ns, 3, 30_000);
      log(`  ${ns}: pod informer lagging 330 s; waiting out the ExpectationsTimeout`);
      await sleepUntil(t0 + EXPECTATIONS_TIMEOUT_MS + 6000);
      await touch(call, ns);
      await podCount(call, ns, 6, 30_000);
      // The informer catches up: the 6 ADDs arrive in order, the controller deletes 3.
      await sleepUntil(t0 + 330_000);
      proxy.remove(lag);
      proxy.flush({ resource: 'pods', namespace: ns });
      await settled(call, ns, 3, 60_000);
      await sleep(2000);
    },
  },
  {
    name: 'dropped-add-trigger',
    phase: 'gate-off',
    summary:
      'One pod ADDED never reaches the controller\'s informer during a 0→3 scale-up: add=1 leaks, every sync is gated; the record expires at 300 s, ' +
      'and at the next sync (a touch of the ReplicaSet) the controller, still counting 2 pods, creates a 4th.',
    target: 'web',
    run: (ctx) => droppedAdd(ctx, true),
  },
  {
    name: 'dropped-add-no-trigger',
    phase: 'gate-off',
    summary:
      'As dropped-add-trigger, but nothing touches the ReplicaSet or its pods after the record expires: the expiry is passive, so the controller ' +
      'stays as it is (status 2 of 3) until some event makes it sync.',
    target: 'web',
    run: (ctx) => droppedAdd(ctx, false),
  },
  {
    name: 'consistency-gate-lag',
    phase: 'serial',
    summary:
      '1.36+ StaleControllerConsistencyReplicaSet: the pod informer lags 8 s behind a 0→3 scale-up; syncs of the ReplicaSet return a ConsistencyError ' +
      '(skipped, requeued with backoff) until the informer has seen the controller\'s own writes — not expectations gating.',
    target: 'web',
    async run({ cp, ns, proxy }) {
      const call = api(cp);
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 0));
      await sleep(1500);
      const lag = await proxy.add({ action: 'delay', resource: 'pods', client: INFORMERS, delayMs: 8000 });
      await scale(call, ns, 'web', 3);
      await podCount(call, ns, 3, 30_000);
      proxy.remove(lag);
      await settled(call, ns, 3, 60_000);
      await sleep(2000);
    },
  },
  {
    name: 'dropped-delete-relist',
    phase: 'serial',
    summary:
      'A user deletes one of 3 pods; the controller\'s informer misses the DELETED, then its watch ends, the re-watch gets 410 Gone and the relist ' +
      'still serves the deleted pod (kubernetes#115658 shape): the controller keeps counting it and never creates a replacement.',
    target: 'web',
    async run({ cp, ns, proxy, log }) {
      const call = api(cp);
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 3));
      await settled(call, ns, 3);
      await sleep(1000);
      const [victim] = await podsOf(call, ns);
      const hide = await proxy.add({ action: 'hide-deletion', resource: 'pods', namespace: ns, name: victim.metadata.name, client: INFORMERS });
      // Grace period 0: the pod is gone at once (one DELETED event, no deletionTimestamp update first).
      await call('DELETE', `/api/v1/namespaces/${ns}/pods/${victim.metadata.name}`, { gracePeriodSeconds: 0 });
      await sleep(3000);
      await proxy.add({ action: 'gone', resource: 'pods', client: INFORMERS, count: 1 });
      const ended = proxy.endWatches({ resource: 'pods', client: INFORMERS, mode: 'end' });
      log(`  ${ns}: ${ended} pod watch(es) ended; waiting for the relist`);
      await until('the relist that hides the deletion', 30_000, async () => proxy.log.entries.some((e) => e.action === 'hide-deletion' && (e.event === 'LIST' || e.event === 'ADDED')));
      await sleep(5000);
      const n = (await podsOf(call, ns)).length;
      const seen = await statusReplicas(call, ns);
      if (n !== 2 || seen !== 3) throw new Error(`scenario: expected 2 pods and a controller that still counts 3, found ${n} pods, status ${seen}`);
      proxy.remove(hide);
    },
  },
  {
    name: 'kcm-restart-scale-up',
    phase: 'serial',
    summary:
      'kube-controller-manager is killed (SIGKILL) in the middle of a 0→300 scale-up and started again: the new process holds no expectations, ' +
      'waits for the leader Lease, lists the pods that exist and creates only the rest.',
    target: 'web',
    async run({ cp, ns, log, proxy }) {
      const call = api(cp);
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 0));
      await sleep(1500);
      await scale(call, ns, 'web', 300);
      await until('the scale-up to be under way', 60_000, async () => (await podsOf(call, ns)).length >= 60);
      const before = (await podsOf(call, ns)).length;
      log(`  ${ns}: killing kube-controller-manager with ${before} pods created`);
      // Not a proxy fault, but a fault all the same: logged with the others.
      proxy.log.write({ action: 'kcm-killed', namespace: ns, detail: `SIGKILL with ${before} of 300 pods created; restarted with the same flags` });
      await cp.restartKcm({ signal: 'SIGKILL' });
      await settled(call, ns, 300, 240_000);
      await sleep(2000);
    },
  },
  {
    name: 'delayed-add-no-surplus',
    phase: 'serial',
    summary:
      'An attempt at the kubernetes PR #8138 race (#28): pod ADDs reach the informer 3 s late while the ReplicaSet is scaled 2→3→4→5 a second apart. ' +
      'The controller checks expectations before it lists pods, and the 1.36 consistency gate waits for its own writes, so no surplus pod is created.',
    target: 'web',
    async run({ cp, ns, proxy }) {
      const call = api(cp);
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 2));
      await settled(call, ns, 2);
      await sleep(1000);
      const lag = await proxy.add({ action: 'delay', resource: 'pods', namespace: ns, client: INFORMERS, delayMs: 3000 });
      for (const n of [3, 4, 5]) {
        await scale(call, ns, 'web', n);
        await sleep(1000);
      }
      await sleep(4000);
      proxy.remove(lag);
      await settled(call, ns, 5);
      await sleep(2000);
      const n = (await podsOf(call, ns)).length;
      if (n !== 5) throw new Error(`scenario: ${n} pods after scaling to 5`);
    },
  },
  {
    name: 'record-through-faults',
    phase: 'serial',
    recordThroughProxy: true,
    summary:
      'kexp record itself runs through the fault proxy during a 0→4→2→3 scaling: a 4 s stall, a dropped connection, and a 410 Gone that forces a relist. ' +
      'The recording must hold every pod change the audit log shows, once, with a gap marked only at the relist.',
    target: 'web',
    async run({ cp, ns, proxy, log }) {
      const call = api(cp);
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 0));
      await sleep(1500);
      proxy.stall(4000, 'kexp/');
      await scale(call, ns, 'web', 4);
      await settled(call, ns, 4);
      await sleep(5000);
      log(`  ${ns}: dropping kexp's connections`);
      proxy.endWatches({ client: 'kexp/', mode: 'reset' });
      await scale(call, ns, 'web', 2);
      await settled(call, ns, 2);
      await sleep(3000);
      await proxy.add({ action: 'gone', resource: 'pods', client: 'kexp/', count: 1 });
      proxy.endWatches({ resource: 'pods', client: 'kexp/', mode: 'end' });
      await scale(call, ns, 'web', 3);
      await settled(call, ns, 3);
      await sleep(3000);
      // Nothing the recorder may still be waiting for.
      await apiRequest(cp, 'GET', '/readyz');
    },
  },
];
