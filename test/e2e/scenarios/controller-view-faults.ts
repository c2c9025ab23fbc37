/**
 * Controller-view faults (issue #21 item 10): scenarios in which the real kube-controller-manager's
 * own view — its pod informer, its client, its process, its admission path — diverges from what
 * the apiserver holds, on the paths the earlier fault scenarios did not reach: the deletion path
 * of the controller's own deletes, a graceful restart in a rollout, a brown-out of its client, a
 * relist of its watch, a slow validating webhook, and another actor writing its pods.
 *
 * Contract: each scenario drives one incident in its own namespace through the fault proxy
 * (fault-scenarios.ts's FaultScenario), checks on the apiserver that the incident really
 * happened (else it throws and the runner reports NOT REPRODUCED), and is `truthOnly`: its
 * capture is checked against the controller's own log and audit writes
 * (fault-expectations.ts GROUND_TRUTH), never against what kexp says — kexp is scored on it in
 * bench/fidelity.
 *
 * Cost: wall time. `deletion-loss` waits out the 5-minute ExpectationsTimeout and runs side by
 * side with the other long scenarios in the `gate-off` phase; the others take 30–60 s each.
 */
import { NODE, api, ensureNode, markReady, replicaSet, scale, sleep, until } from './scenarios.js';
import {
  EXPECTATIONS_TIMEOUT_MS, INFORMERS, podCount, podsOf, settled, sleepUntil, statusReplicas, touch,
  type Api, type FaultScenario,
} from './fault-scenarios.js';

/** How long the deletion-lag scenario holds the controller's pod events back. */
export const DELETION_LAG_MS = 20_000;
/** How long the brown-out holds the controller's own requests. */
export const BROWNOUT_MS = 15_000;

/** Binds a pod to the fake node, as a scheduler would (pods/binding). */
async function bind(call: Api, ns: string, pod: string): Promise<void> {
  await call('POST', `/api/v1/namespaces/${ns}/pods/${pod}/binding`, {
    apiVersion: 'v1', kind: 'Binding', metadata: { name: pod, namespace: ns }, target: { apiVersion: 'v1', kind: 'Node', name: NODE },
  });
}

/** Every pod of the namespace that carries a deletionTimestamp, force-deleted (a kubelet finishing the shutdown). */
async function finishTerminating(call: Api, ns: string): Promise<number> {
  const l = await call<{ items: any[] }>('GET', `/api/v1/namespaces/${ns}/pods?labelSelector=app%3Dweb`);
  let n = 0;
  for (const p of l.items) {
    if (!p.metadata.deletionTimestamp) continue;
    await call('DELETE', `/api/v1/namespaces/${ns}/pods/${p.metadata.name}`, { gracePeriodSeconds: 0 });
    n++;
  }
  return n;
}

export const CONTROLLER_VIEW_SCENARIOS: FaultScenario[] = [
  {
    name: 'deletion-lag',
    phase: 'gate-off',
    truthOnly: true,
    summary:
      'A 10→2 scale-down of pods bound to a node: the controller\'s pod informer gets the deletionTimestamp MODIFIED and the DELETED events ' +
      `of its 8 victims ${DELETION_LAG_MS / 1000} s late (proxy delay on its pod watch, then flush). Its del=8 record waits the whole time; ` +
      'the ReplicaSet is touched every 4 s (any update enqueues it), so its syncs in the window are gated; the late events fulfil the record.',
    target: 'web',
    async run({ cp, ns, proxy, log }) {
      const call = api(cp);
      await ensureNode(call);
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 10, { nodeName: NODE }));
      await settled(call, ns, 10);
      await sleep(1500);
      const lag = await proxy.add({ action: 'delay', resource: 'pods', namespace: ns, client: INFORMERS, delayMs: DELETION_LAG_MS });
      const t0 = Date.now();
      await scale(call, ns, 'web', 2);
      await podCount(call, ns, 2, 30_000); // the 8 graceful deletions are in the apiserver (deletionTimestamp set)
      log(`  ${ns}: 8 deletions held back from the controller for ${DELETION_LAG_MS / 1000} s`);
      let mid = -1;
      for (let i = 1; t0 + i * 4000 < t0 + DELETION_LAG_MS - 1000; i++) {
        await sleepUntil(t0 + i * 4000);
        await touch(call, ns);
        if (i === 2) {
          // A kubelet would finish the shutdown: the pods go away (DELETED, held back too).
          const gone = await finishTerminating(call, ns);
          log(`  ${ns}: ${gone} terminating pod(s) force-deleted`);
        }
        if (i === 3) mid = await statusReplicas(call, ns);
      }
      // The controller counts pods by its informer: while the deletions are held it still counts them.
      if (mid < 3) throw new Error(`scenario: the controller should still count the deleted pods while its informer lags, its status says ${mid}`);
      await sleepUntil(t0 + DELETION_LAG_MS);
      proxy.remove(lag);
      proxy.flush({ resource: 'pods', namespace: ns });
      await settled(call, ns, 2, 30_000);
      await sleep(4000);
      await touch(call, ns);
      await sleep(2000);
    },
  },
  {
    name: 'deletion-loss',
    phase: 'gate-off',
    truthOnly: true,
    summary:
      'A 5→3 scale-down whose two victims are the unscheduled pods (the other three are bound to a node, so they rank last): the DELETED of ' +
      'one victim never reaches the controller\'s informer (hide-deletion, its client only). del=1 leaks for the 5-minute ExpectationsTimeout ' +
      '(the ReplicaSet is touched once a minute: gated syncs; status.replicas 4 while 3 pods exist); after the expiry each sync (two touches) ' +
      'deletes the ghost again and the apiserver answers 404.',
    target: 'web',
    async run({ cp, ns, proxy, log }) {
      const call = api(cp);
      await ensureNode(call);
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 5));
      await settled(call, ns, 5);
      const pods = (await podsOf(call, ns)).map((p) => p.metadata.name as string).sort();
      // Three pods bound (as a scheduler would), two left unscheduled: ActivePodsWithRanks puts
      // unassigned pods first (pkg/controller/controller_utils.go), so those two are the victims.
      for (const p of pods.slice(0, 3)) await bind(call, ns, p);
      const victims = pods.slice(3);
      await sleep(1500);
      const hide = await proxy.add({ action: 'hide-deletion', resource: 'pods', namespace: ns, name: victims[0], client: INFORMERS });
      const t0 = Date.now();
      await scale(call, ns, 'web', 3);
      await podCount(call, ns, 3, 30_000);
      const left = (await podsOf(call, ns)).map((p) => p.metadata.name as string);
      if (victims.some((v) => left.includes(v))) throw new Error(`scenario: the controller deleted other pods than the unscheduled ${victims.join(', ')} (left: ${left.join(', ')})`);
      await sleep(3000);
      const seen = await statusReplicas(call, ns);
      if (seen !== 4) throw new Error(`scenario: the controller should count the ghost ${victims[0]} (status 4 of 3 pods), its status says ${seen}`);
      log(`  ${ns}: the deletion of ${victims[0]} is hidden from the controller; waiting out the ExpectationsTimeout`);
      for (let i = 1; t0 + i * 60_000 < t0 + EXPECTATIONS_TIMEOUT_MS; i++) {
        await sleepUntil(t0 + i * 60_000);
        await touch(call, ns);
      }
      await sleepUntil(t0 + EXPECTATIONS_TIMEOUT_MS + 6000);
      // Expired: the controller lists 4 pods (the ghost first, unscheduled) and deletes it: 404.
      await touch(call, ns);
      await sleep(4000);
      await touch(call, ns);
      await sleep(4000);
      proxy.remove(hide);
    },
  },
  {
    name: 'restart-mid-rollout',
    phase: 'serial',
    truthOnly: true,
    summary:
      'A Deployment (6 replicas, maxSurge 1, maxUnavailable 0, pods bound to a node that the test plays the kubelet for: it marks pods Ready ' +
      'and finishes terminating ones) rolls out a new template; once the new ReplicaSet has 2 ready pods kube-controller-manager is stopped ' +
      'gracefully (SIGTERM) and started again. 1.37 does not release the leader Lease on SIGTERM (ControllerManagerReleaseLeaderElectionLockOnExit ' +
      'is alpha, off), so nobody leads until the 8 s Lease expires; the new process starts with no expectations and finishes the rollout.',
    target: 'deployment/web',
    async run({ cp, ns, proxy, log }) {
      const call = api(cp);
      await ensureNode(call);
      const dep = (image: string) => ({
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: ns },
        spec: {
          replicas: 6, progressDeadlineSeconds: 120, selector: { matchLabels: { app: 'web' } },
          strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
          template: { metadata: { labels: { app: 'web' } }, spec: { nodeName: NODE, terminationGracePeriodSeconds: 30, containers: [{ name: 'app', image }] } },
        },
      });
      // The kubelet's part: pods become Ready, terminating pods go away.
      let kubelet = true;
      const kubeletLoop = (async () => {
        while (kubelet) {
          const l = await call<{ items: any[] }>('GET', `/api/v1/namespaces/${ns}/pods`).catch(() => ({ items: [] as any[] }));
          for (const p of l.items) {
            if (p.metadata.deletionTimestamp) await call('DELETE', `/api/v1/namespaces/${ns}/pods/${p.metadata.name}`, { gracePeriodSeconds: 0 }).catch(() => undefined);
            else if (!(p.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True')) await markReady(call, ns, p).catch(() => undefined);
          }
          await sleep(500);
        }
      })();
      const rolledOut = async (image: string) => {
        const d = await call<any>('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web`);
        return d.status?.observedGeneration === d.metadata.generation && d.status?.updatedReplicas === 6 && d.status?.readyReplicas === 6 &&
          d.status?.replicas === 6 && d.spec.template.spec.containers[0].image === image;
      };
      try {
        await call('POST', `/apis/apps/v1/namespaces/${ns}/deployments`, dep('registry.k8s.io/pause:3.9'));
        await until('the first rollout', 60_000, () => rolledOut('registry.k8s.io/pause:3.9'));
        await sleep(1500);
        await call('PATCH', `/apis/apps/v1/namespaces/${ns}/deployments/web`, { spec: { template: { spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] } } } }, 'application/strategic-merge-patch+json');
        await until('2 ready pods of the new ReplicaSet', 30_000, async () => {
          const d = await call<any>('GET', `/apis/apps/v1/namespaces/${ns}/deployments/web`);
          return d.status?.observedGeneration === d.metadata.generation && (d.status?.updatedReplicas ?? 0) >= 2;
        });
        if (await rolledOut('registry.k8s.io/pause:3.10')) throw new Error('scenario: the rollout finished before the restart');
        proxy.log.write({ action: 'kcm-stopped', namespace: ns, detail: 'SIGTERM in the middle of the rollout; restarted with the same flags' });
        log(`  ${ns}: stopping kube-controller-manager (SIGTERM) mid-rollout`);
        await cp.restartKcm({ signal: 'SIGTERM' });
        proxy.log.write({ action: 'kcm-started', namespace: ns, detail: 'the new process runs; it has to acquire the Lease first' });
        await until('the rollout to finish after the restart', 90_000, () => rolledOut('registry.k8s.io/pause:3.10'));
        await sleep(3000);
      } finally {
        kubelet = false;
        await kubeletLoop;
      }
    },
  },
  {
    name: 'client-brownout',
    phase: 'serial',
    truthOnly: true,
    summary:
      'A ReplicaSet scales 0→150; once 40 pods exist, every request of the replicaset-controller\'s own client is held 15 s by the proxy ' +
      '(stall; its informers and the leader election are not): the round\'s creates straddle the stall inside one long sync, then finish.',
    target: 'web',
    async run({ cp, ns, proxy, log }) {
      const call = api(cp);
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 0));
      await sleep(1500);
      await scale(call, ns, 'web', 150);
      await until('the round to be under way', 30_000, async () => (await podsOf(call, ns)).length >= 40);
      proxy.stall(BROWNOUT_MS, 'replicaset-controller');
      log(`  ${ns}: the controller's client stalled for ${BROWNOUT_MS / 1000} s`);
      await sleep(BROWNOUT_MS);
      await settled(call, ns, 150, 120_000);
      await sleep(2000);
    },
  },
  {
    name: 'relist-mid-round',
    phase: 'serial',
    truthOnly: true,
    summary:
      'With the 1.37 default gates, a ReplicaSet scales 0→60; while the round runs the controller\'s pod watch is ended and its re-watch ' +
      'answered 410 Gone (proxy `gone`): the reflector relists mid-round and the round completes from the relisted cache.',
    target: 'web',
    async run({ cp, ns, proxy, log }) {
      const call = api(cp);
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 0));
      await sleep(1500);
      await scale(call, ns, 'web', 60);
      await until('the round to be under way', 30_000, async () => (await podsOf(call, ns)).length >= 10);
      await proxy.add({ action: 'gone', resource: 'pods', client: INFORMERS, count: 1 });
      const ended = proxy.endWatches({ resource: 'pods', client: INFORMERS, mode: 'end' });
      log(`  ${ns}: ${ended} pod watch(es) of the controller ended; its re-watch gets 410`);
      await until('the re-watch refused', 30_000, async () => proxy.log.entries.some((e) => e.action === 'gone' && Date.parse(e.time) > Date.now() - 30_000));
      await settled(call, ns, 60, 60_000);
      await sleep(2000);
    },
  },
  {
    name: 'person-orphans-and-creates',
    phase: 'serial',
    truthOnly: true,
    summary:
      'A person (the admin user) removes the ownerReference of one of 3 pods — its labels still match, so the controller adopts it back — ' +
      'and creates a pod that carries the ReplicaSet\'s controllerRef: the controller counts 4 and deletes one.',
    target: 'web',
    async run({ cp, ns, proxy }) {
      const call = api(cp);
      await call('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet('web', ns, 3));
      await settled(call, ns, 3);
      await sleep(1500);
      const [p] = await podsOf(call, ns);
      // Not proxy faults, but the incident all the same: logged with the faults.
      proxy.log.write({ action: 'person-orphaned', namespace: ns, name: p.metadata.name, detail: 'the admin user removes the pod\'s ownerReferences' });
      await call('PATCH', `/api/v1/namespaces/${ns}/pods/${p.metadata.name}`, { metadata: { ownerReferences: null } }, 'application/merge-patch+json');
      await sleep(3000);
      const rs = await call<any>('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/web`);
      proxy.log.write({ action: 'person-created', namespace: ns, name: 'web-by-hand', detail: 'the admin user creates a pod with the ReplicaSet\'s controllerRef' });
      await call('POST', `/api/v1/namespaces/${ns}/pods`, {
        apiVersion: 'v1', kind: 'Pod',
        metadata: {
          name: 'web-by-hand', labels: { app: 'web' },
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }],
        },
        spec: { containers: [{ name: 'app', image: 'registry.k8s.io/pause:3.10' }] },
      });
      await settled(call, ns, 3, 30_000);
      await sleep(3000);
    },
  },
];
