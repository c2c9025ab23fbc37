/**
 * DaemonSet and Job scenarios run against the real kube-controller-manager (issue #22, "proof on
 * the real controller"): the ground truth kexp's DaemonSet and Job models are to be scored on.
 * kexp cannot read these kinds yet, so they are not part of the fault catalogue, the e2e test or
 * bench/fidelity; run-workload-scenarios.ts captures them into examples/captures/NAME/.
 *
 * No kubelet, no scheduler. Fake Nodes (Node objects whose Ready condition the test reports and
 * whose not-ready taint it lifts: nodeShouldRunDaemonPod, daemon_controller.go, needs the labels
 * its node affinity matches and no taint the daemon pods do not tolerate) carry the scenario's own label, so DaemonSets of scenarios that run side by side never select
 * each other's nodes. The test plays the scheduler for daemon pods (binds each to the node its
 * affinity names) and the kubelet of their nodes only as far as removing a pod being deleted
 * (they stay Pending, never Ready). Job pods are bound at creation
 * (spec.nodeName in the template) and the test plays the kubelet: it patches their status to
 * Running, Succeeded or Failed.
 *
 * Cost: wall time. `ds-deletion-loss` and `job-dropped-add` wait out the 5-minute
 * ExpectationsTimeout (pkg/controller/controller_utils.go); the other two take 30–90 s, and the
 * runner starts all four side by side.
 */
import { apiRequest, type ControlPlane } from '../control-plane/control-plane.js';
import type { FaultProxy } from '../fault-proxy/fault-proxy.js';
import { EXPECTATIONS_TIMEOUT_MS, INFORMERS, sleepUntil } from './fault-scenarios.js';
import { api, sleep, until } from './scenarios.js';

export type Api = ReturnType<typeof api>;

export interface WorkloadContext {
  cp: ControlPlane;
  ns: string;
  proxy: FaultProxy;
  log: (m: string) => void;
}

export interface WorkloadScenario {
  name: string;
  /** What a reader of examples/captures should learn from it. */
  summary: string;
  kind: 'DaemonSet' | 'Job';
  /** The workload's name in the scenario's namespace. */
  target: string;
  /** Waits out the ExpectationsTimeout. */
  long: boolean;
  run(ctx: WorkloadContext): Promise<void>;
}

/** The label every fake Node of a scenario carries (the recorder's and the slicers' selector). */
export const SCENARIO_LABEL = 'kexp.test/scenario';
/** The label the DaemonSets' nodeSelector asks for besides the scenario's: removing it takes a node out. */
export const DAEMON_LABEL = 'kexp.test/daemon';

/** The fake Nodes of a namespace's scenario are named `<ns>-node-<i>`. */
export function nodeName(ns: string, i: number): string {
  return `${ns}-node-${i}`;
}

export async function createNode(call: Api, ns: string, i: number, daemon = true): Promise<void> {
  const name = nodeName(ns, i);
  await call('POST', '/api/v1/nodes', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', [SCENARIO_LABEL]: ns, ...(daemon ? { [DAEMON_LABEL]: 'on' } : {}) },
    },
  });
  // The apiserver's TaintNodesByCondition admission gives a new Node node.kubernetes.io/not-ready:NoSchedule,
  // which daemon pods do not tolerate (AddOrUpdateDaemonPodTolerations adds not-ready only as NoExecute).
  // A kubelet reports Ready and the node lifecycle controller (not run here) lifts the taint: both played here.
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  await call('PATCH', `/api/v1/nodes/${name}/status`, {
    status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status (played by the e2e test)', lastHeartbeatTime: now, lastTransitionTime: now }] },
  }, 'application/merge-patch+json');
  await call('PATCH', `/api/v1/nodes/${name}`, { spec: { taints: null } }, 'application/merge-patch+json');
}

/** Takes the node out of the DaemonSet's nodeSelector (its daemon pod must go). */
async function unlabelNode(call: Api, ns: string, i: number): Promise<void> {
  await call('PATCH', `/api/v1/nodes/${nodeName(ns, i)}`, { metadata: { labels: { [DAEMON_LABEL]: null } } }, 'application/merge-patch+json');
}

export function daemonSet(name: string, ns: string) {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace: ns, labels },
    spec: {
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          nodeSelector: { [SCENARIO_LABEL]: ns, [DAEMON_LABEL]: 'on' },
          terminationGracePeriodSeconds: 30,
          containers: [{ name: 'agent', image: 'registry.k8s.io/pause:3.10' }],
        },
      },
    },
  };
}

export function job(name: string, ns: string, node: string, spec: { parallelism: number; completions: number; backoffLimit: number }) {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: ns },
    spec: {
      ...spec,
      template: {
        spec: {
          nodeName: node,
          restartPolicy: 'Never',
          terminationGracePeriodSeconds: 30,
          containers: [{ name: 'work', image: 'registry.k8s.io/pause:3.10' }],
        },
      },
    },
  };
}

/** Pods of the namespace not being deleted, oldest first. */
async function livePods(call: Api, ns: string, selector: string): Promise<any[]> {
  const l = await call<{ items: any[] }>('GET', `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(selector)}`);
  return l.items
    .filter((p) => !p.metadata.deletionTimestamp)
    .sort((a, b) => String(a.metadata.creationTimestamp).localeCompare(String(b.metadata.creationTimestamp)) || a.metadata.name.localeCompare(b.metadata.name));
}

/** The node a daemon pod is pinned to (its required node affinity on metadata.name). */
export function daemonPodNode(pod: any): string | undefined {
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const t of terms) for (const f of t.matchFields ?? []) if (f.key === 'metadata.name') return f.values?.[0];
  return pod.spec?.nodeName;
}

/** The scheduler of the fake nodes alone: binds every unbound daemon pod of `ns` to the node its affinity names. */
export async function bindDaemonPods(call: Api, ns: string): Promise<void> {
  const l = await call<{ items: any[] }>('GET', `/api/v1/namespaces/${ns}/pods`);
  for (const p of l.items) {
    const node = daemonPodNode(p);
    if (p.metadata.deletionTimestamp || p.spec.nodeName || !node) continue;
    await call('POST', `/api/v1/namespaces/${ns}/pods/${p.metadata.name}/binding`, {
      apiVersion: 'v1', kind: 'Binding', metadata: { name: p.metadata.name, namespace: ns }, target: { apiVersion: 'v1', kind: 'Node', name: node },
    }).catch(() => undefined);
  }
}

/**
 * The scheduler and the kubelets of the fake nodes, one pass: every unbound daemon pod is bound to
 * the node its affinity pins it to (pods/binding), and every bound pod that carries a
 * deletionTimestamp is removed (the kubelet finishing the shutdown: a delete with grace 0).
 * The scheduler matters to the controller: syncNodeUpdate (daemon_controller.go) finds a node's
 * daemon pods by spec.nodeName, so an unbound pod on a node that loses its label is never deleted.
 */
async function nodeAgents(call: Api, ns: string, selector: string): Promise<void> {
  const l = await call<{ items: any[] }>('GET', `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(selector)}`);
  for (const p of l.items) {
    const name = p.metadata.name as string;
    if (p.metadata.deletionTimestamp) {
      if (p.spec.nodeName) await call('DELETE', `/api/v1/namespaces/${ns}/pods/${name}`, { gracePeriodSeconds: 0 }).catch(notFound);
      continue;
    }
    const node = daemonPodNode(p);
    if (!p.spec.nodeName && node) {
      await call('POST', `/api/v1/namespaces/${ns}/pods/${name}/binding`, {
        apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace: ns }, target: { apiVersion: 'v1', kind: 'Node', name: node },
      }).catch(notFound);
    }
  }
}

/** A pod that went away between the list and the write is no error for the agents. */
function notFound(e: Error): void {
  if (!/: (404|409) /.test(e.message)) throw e;
}

/**
 * Waits until the controller has synced the latest generation and reports `n` daemon pods, all of
 * the current template, and `misscheduled` pods on nodes that should not run one (a ghost the
 * controller's cache still holds counts there), and the apiserver holds `n` live pods.
 */
async function dsSettled(call: Api, ns: string, name: string, n: number, timeoutMs = 60_000, misscheduled = 0): Promise<void> {
  await until(`${ns}/${name} to run ${n} daemon pods`, timeoutMs, async () => {
    await nodeAgents(call, ns, `app=${name}`);
    const ds = await call<any>('GET', `/apis/apps/v1/namespaces/${ns}/daemonsets/${name}`);
    const st = ds.status ?? {};
    return (
      st.observedGeneration === ds.metadata.generation &&
      st.desiredNumberScheduled === n &&
      st.currentNumberScheduled === n &&
      (st.updatedNumberScheduled ?? 0) === n &&
      (st.numberMisscheduled ?? 0) === misscheduled &&
      (await livePods(call, ns, `app=${name}`)).length === n
    );
  });
}

/** Any change to the DaemonSet object enqueues it (updateDaemonset): the trigger of a sync. */
async function touch(call: Api, path: string): Promise<void> {
  await call('PATCH', path, { metadata: { annotations: { 'kexp.test/touched': new Date().toISOString() } } }, 'application/merge-patch+json');
}

/** The kubelet's status write for a pod's phase (Running → Ready; Succeeded/Failed → terminated with exit code 0/1). */
export async function setPhase(call: Api, ns: string, pod: any, phase: 'Running' | 'Succeeded' | 'Failed'): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const ready = phase === 'Running' ? 'True' : 'False';
  const cond = (type: string, status: string) => ({ type, status, lastTransitionTime: now });
  const container = pod.spec.containers[0];
  const state =
    phase === 'Running'
      ? { running: { startedAt: now } }
      : { terminated: { exitCode: phase === 'Succeeded' ? 0 : 1, reason: phase === 'Succeeded' ? 'Completed' : 'Error', startedAt: pod.status?.startTime ?? now, finishedAt: now } };
  await call(
    'PATCH',
    `/api/v1/namespaces/${ns}/pods/${pod.metadata.name}/status`,
    {
      status: {
        phase,
        startTime: pod.status?.startTime ?? now,
        conditions: [cond('PodScheduled', 'True'), cond('Initialized', 'True'), cond('ContainersReady', ready), cond('Ready', ready)],
        containerStatuses: [{ name: container.name, image: container.image, imageID: '', ready: phase === 'Running', restartCount: 0, started: phase === 'Running', state }],
      },
    },
    'application/merge-patch+json',
  );
}

/** Every Pending pod of the Job set Running (the kubelet starting them); returns how many. */
async function startPending(call: Api, ns: string, jobName: string): Promise<number> {
  let n = 0;
  for (const p of await livePods(call, ns, `batch.kubernetes.io/job-name=${jobName}`)) {
    if ((p.status?.phase ?? 'Pending') !== 'Pending') continue;
    await setPhase(call, ns, p, 'Running');
    n++;
  }
  return n;
}

function condition(j: any, type: string): boolean {
  return (j.status?.conditions ?? []).some((c: any) => c.type === type && c.status === 'True');
}

/** The DaemonSet over three nodes, then two more labelled in (creates); returns when 5 daemon pods run. */
async function dsOverFiveNodes(call: Api, ns: string, name: string): Promise<void> {
  for (const i of [1, 2, 3]) await createNode(call, ns, i);
  await sleep(1000);
  await call('POST', `/apis/apps/v1/namespaces/${ns}/daemonsets`, daemonSet(name, ns));
  await dsSettled(call, ns, name, 3);
  await sleep(2000);
  for (const i of [4, 5]) await createNode(call, ns, i);
  await dsSettled(call, ns, name, 5);
  await sleep(2000);
}

export const WORKLOAD_SCENARIOS: WorkloadScenario[] = [
  {
    name: 'ds-deletion-loss',
    kind: 'DaemonSet',
    target: 'agent',
    long: true,
    summary:
      'A DaemonSet over 3 fake nodes, then 2 more labelled in (5 daemon pods); node 2 loses its label and the controller deletes its daemon pod, ' +
      'but the DELETED never reaches the controller\'s informer (hide-deletion, its client only): del=1 leaks for the 5-minute ExpectationsTimeout. ' +
      '30 s in, the template changes (generation 2): the syncs of the window (a touch a minute) write status only and observedGeneration stays 1. ' +
      'After the expiry a touch lets the sync through: the ghost is deleted again (404, lowered at once), the rolling update replaces the 4 old pods ' +
      '(and deletes the ghost again), and the ghost stays in the controller\'s cache, counted as misscheduled, for as long as nothing relists.',
    async run({ cp, ns, proxy, log }) {
      const call = api(cp);
      const ds = `/apis/apps/v1/namespaces/${ns}/daemonsets/agent`;
      await dsOverFiveNodes(call, ns, 'agent');
      const victim = (await livePods(call, ns, 'app=agent')).find((p) => daemonPodNode(p) === nodeName(ns, 2));
      if (!victim) throw new Error(`scenario: no daemon pod pinned to ${nodeName(ns, 2)}`);
      await proxy.add({ action: 'hide-deletion', resource: 'pods', namespace: ns, name: victim.metadata.name, client: INFORMERS });
      const t0 = Date.now();
      await unlabelNode(call, ns, 2);
      await until(`${victim.metadata.name} deleted`, 45_000, async () => {
        await nodeAgents(call, ns, 'app=agent');
        return (await apiRequest(cp, 'GET', `/api/v1/namespaces/${ns}/pods/${victim.metadata.name}`)).status === 404;
      });
      await sleep(3000);
      const st = (await call<any>('GET', ds)).status ?? {};
      if (st.numberMisscheduled !== 1) throw new Error(`scenario: the controller should still count the ghost ${victim.metadata.name} on the unlabelled node (numberMisscheduled 1), status says ${JSON.stringify(st)}`);
      log(`  ${ns}: the deletion of ${victim.metadata.name} is hidden from the controller; waiting out the ExpectationsTimeout`);
      await sleepUntil(t0 + 30_000);
      await call('PATCH', ds, { spec: { template: { metadata: { annotations: { 'kexp.test/revision': '2' } } } } }, 'application/merge-patch+json');
      await sleep(5000);
      const gated = await call<any>('GET', ds);
      if (gated.status?.observedGeneration !== 1 || gated.metadata.generation !== 2) {
        throw new Error(`scenario: a gated sync must not raise observedGeneration (generation ${gated.metadata.generation}, observed ${gated.status?.observedGeneration})`);
      }
      for (let i = 1; t0 + i * 60_000 < t0 + EXPECTATIONS_TIMEOUT_MS; i++) {
        await sleepUntil(t0 + i * 60_000);
        await touch(call, ds);
      }
      await sleepUntil(t0 + EXPECTATIONS_TIMEOUT_MS + 6000);
      // Expired: the sync goes through — the ghost deleted again (404), then the rolling update. The
      // ghost stays in the controller's cache (its deletion was never delivered, and nothing relists):
      // the status keeps counting it as misscheduled.
      await touch(call, ds);
      await dsSettled(call, ns, 'agent', 4, 60_000, 1);
      await sleep(3000);
    },
  },
  {
    name: 'job-dropped-add',
    kind: 'Job',
    target: 'work',
    long: true,
    summary:
      'A Job (parallelism 2, completions 2, backoffLimit 0) whose first pod ADDED never reaches the controller\'s informer: add=1 leaks. The other pod ' +
      'runs and fails: the backoff limit is exceeded, but while the record is unsatisfied the controller cannot declare the Job failed (syncJob: ' +
      '"Can\'t declare the Job as finished yet"); it counts the failure, removes the pod\'s tracking finalizer and writes no condition. A touch a minute ' +
      'changes nothing; after the 5-minute expiry a touch lets the sync declare the Job Failed (BackoffLimitExceeded) — the unseen pod still running. ' +
      'Then the kubelet (the test) finishes the unseen pod.',
    async run({ cp, ns, proxy, log }) {
      const call = api(cp);
      const path = `/apis/batch/v1/namespaces/${ns}/jobs/work`;
      await createNode(call, ns, 1, false);
      const rule = await proxy.add({ action: 'drop', resource: 'pods', namespace: ns, client: INFORMERS, events: ['ADDED'], count: 1 });
      const t0 = Date.now();
      await call('POST', `/apis/batch/v1/namespaces/${ns}/jobs`, job('work', ns, nodeName(ns, 1), { parallelism: 2, completions: 2, backoffLimit: 0 }));
      const pods = await until('2 job pods', 30_000, async () => {
        const l = await livePods(call, ns, 'batch.kubernetes.io/job-name=work');
        return l.length === 2 && l;
      });
      const dropped = await until('the dropped ADDED', 10_000, async () => proxy.log.entries.find((e) => e.action === 'drop' && e.namespace === ns && e.event === 'ADDED'));
      proxy.remove(rule);
      const hidden = pods.find((p) => p.metadata.name === dropped.name);
      const seen = pods.find((p) => p.metadata.name !== dropped.name);
      if (!hidden || !seen) throw new Error(`scenario: the dropped ADDED (${dropped.name}) is not one of the job's pods ${pods.map((p) => p.metadata.name).join(', ')}`);
      await sleep(3000);
      const active = (await call<any>('GET', path)).status?.active ?? 0;
      if (active !== 1) throw new Error(`scenario: the controller should count 1 active pod after a dropped ADDED, its status says ${active}`);
      log(`  ${ns}: the ADDED of ${hidden.metadata.name} was dropped; ${seen.metadata.name} runs and fails`);
      await setPhase(call, ns, seen, 'Running');
      await sleep(2000);
      await setPhase(call, ns, (await call<any>('GET', `/api/v1/namespaces/${ns}/pods/${seen.metadata.name}`)), 'Failed');
      await sleep(5000);
      const held = await call<any>('GET', path);
      if ((held.status?.failed ?? 0) !== 1 || condition(held, 'Failed') || condition(held, 'FailureTarget')) {
        throw new Error(`scenario: the controller should count the failure but not declare the Job failed while add=1 is pending, status says ${JSON.stringify(held.status)}`);
      }
      for (let i = 1; t0 + i * 60_000 < t0 + EXPECTATIONS_TIMEOUT_MS; i++) {
        await sleepUntil(t0 + i * 60_000);
        await touch(call, path);
      }
      await sleepUntil(t0 + EXPECTATIONS_TIMEOUT_MS + 6000);
      await touch(call, path);
      await until('the Job declared Failed', 30_000, async () => condition(await call<any>('GET', path), 'Failed'));
      await sleep(3000);
      // The kubelet finishes the pod the controller never saw (its first MODIFIED is the controller's first sight of it).
      await setPhase(call, ns, await call<any>('GET', `/api/v1/namespaces/${ns}/pods/${hidden.metadata.name}`), 'Running');
      await sleep(2000);
      await setPhase(call, ns, await call<any>('GET', `/api/v1/namespaces/${ns}/pods/${hidden.metadata.name}`), 'Succeeded');
      await sleep(5000);
    },
  },
  {
    name: 'ds-scale-nodes',
    kind: 'DaemonSet',
    target: 'agent',
    long: false,
    summary:
      'A DaemonSet over 3 fake nodes (3 creates), then 2 more nodes labelled in (2 creates), then one node\'s label removed: its daemon pod is ' +
      'deleted (del=1, observed at once: unscheduled pods go without a grace period).',
    async run({ cp, ns }) {
      const call = api(cp);
      await dsOverFiveNodes(call, ns, 'agent');
      await unlabelNode(call, ns, 2);
      await dsSettled(call, ns, 'agent', 4);
      await sleep(3000);
    },
  },
  {
    name: 'job-complete',
    kind: 'Job',
    target: 'work',
    long: false,
    summary:
      'A Job (parallelism 3, completions 5, backoffLimit 6) whose pods the test runs as the kubelet: all started, then finished one at a time, ' +
      'the second one Failed (a replacement after the pod-failure backoff), five Succeeded; each finished pod\'s job-tracking finalizer is removed ' +
      'by the controller before it is counted, and the Job completes.',
    async run({ cp, ns, log }) {
      const call = api(cp);
      const path = `/apis/batch/v1/namespaces/${ns}/jobs/work`;
      await createNode(call, ns, 1, false);
      await call('POST', `/apis/batch/v1/namespaces/${ns}/jobs`, job('work', ns, nodeName(ns, 1), { parallelism: 3, completions: 5, backoffLimit: 6 }));
      await until('3 job pods', 30_000, async () => (await livePods(call, ns, 'batch.kubernetes.io/job-name=work')).length === 3);
      await startPending(call, ns, 'work');
      await sleep(2000);
      const outcomes = ['Succeeded', 'Failed', 'Succeeded', 'Succeeded', 'Succeeded', 'Succeeded'] as const;
      for (const outcome of outcomes) {
        const pod = await until('a running job pod', 60_000, async () => {
          await startPending(call, ns, 'work');
          return (await livePods(call, ns, 'batch.kubernetes.io/job-name=work')).find((p) => p.status?.phase === 'Running');
        });
        log(`  ${ns}: ${pod.metadata.name} → ${outcome}`);
        await setPhase(call, ns, pod, outcome);
        await sleep(3000);
      }
      await until('the Job complete', 60_000, async () => condition(await call<any>('GET', path), 'Complete'));
      await sleep(3000);
    },
  },
];
