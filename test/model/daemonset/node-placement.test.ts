/**
 * nodeShouldRunDaemonPod as src/model/daemonset/node-placement.ts mirrors it: the template's
 * nodeName, nodeSelector and required node affinity, and the node's taints against the template's
 * tolerations plus the daemon defaults. Cases follow TestNodeShouldRunDaemonPod and
 * TestNodeAffinity in pkg/controller/daemon/daemon_controller_test.go and
 * component-helpers' nodeaffinity_test.go (v1.37.2).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DaemonSet, Node } from '../../../src/model/objects.js';
import { daemonPodTolerations, placementOf, requiredNodeAffinity, toleratesTaint } from '../../../src/model/daemonset/node-placement.js';

function node(name: string, labels: Record<string, string> = {}, taints: Node['spec'] extends infer S ? NonNullable<S>['taints'] : never = []): Node {
  return { metadata: { name, labels }, spec: { taints } };
}

function ds(spec: NonNullable<NonNullable<DaemonSet['spec']>['template']>['spec'] = {}): DaemonSet {
  return { metadata: { namespace: 'kube-system', name: 'agent', uid: 'u1' }, spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec } } };
}

test('nodeSelector: every pair must be a node label', () => {
  const fits = requiredNodeAffinity(ds({ nodeSelector: { disk: 'ssd', zone: 'a' } }));
  assert.equal(fits(node('n1', { disk: 'ssd', zone: 'a', extra: 'x' })), true);
  assert.equal(fits(node('n2', { disk: 'ssd' })), false);
  assert.equal(fits(node('n3', { disk: 'hdd', zone: 'a' })), false);
});

test('required node affinity: terms ORed, requirements ANDed, operators over labels and metadata.name', () => {
  const fits = requiredNodeAffinity(ds({
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [
      { matchExpressions: [{ key: 'role', operator: 'In', values: ['worker', 'edge'] }, { key: 'cpus', operator: 'Gt', values: ['4'] }] },
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['special'] }] },
    ] } } },
  }));
  assert.equal(fits(node('w1', { role: 'worker', cpus: '8' })), true);
  assert.equal(fits(node('w2', { role: 'worker', cpus: '4' })), false, 'Gt is strict');
  assert.equal(fits(node('w3', { role: 'worker', cpus: 'many' })), false, 'Gt needs an integer label');
  assert.equal(fits(node('w4', { role: 'db', cpus: '16' })), false);
  assert.equal(fits(node('special', {})), true, 'the second term matches by name');
});

test('NotIn and DoesNotExist match a node without the label; a term that fails to parse never matches', () => {
  const notIn = requiredNodeAffinity(ds({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [
    { matchExpressions: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'DoesNotExist' }, { key: 'tier', operator: 'NotIn', values: ['gpu'] }] },
  ] } } } }));
  assert.equal(notIn(node('a', {})), true);
  assert.equal(notIn(node('b', { tier: 'gpu' })), false);
  assert.equal(notIn(node('c', { 'node-role.kubernetes.io/control-plane': '' })), false);
  const broken = requiredNodeAffinity(ds({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [
    { matchExpressions: [{ key: 'x', operator: 'Gt', values: ['1', '2'] }] },
    { matchExpressions: [{ key: 'y', operator: 'Exists' }] },
  ] } } } }));
  assert.equal(broken(node('d', { x: '5' })), false, 'Gt with two values is a parse error');
  assert.equal(broken(node('e', { y: '1' })), true, 'the other term still counts');
  const empty = requiredNodeAffinity(ds({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{}] } } } }));
  assert.equal(empty(node('f', { a: 'b' })), false, 'only empty terms: nothing matches');
});

test('default daemon tolerations: not-ready and unreachable NoExecute, pressure and unschedulable NoSchedule, network-unavailable with hostNetwork', () => {
  const keys = (t: ReturnType<typeof daemonPodTolerations>) => t.map((x) => `${x.key}:${x.effect}`).sort();
  assert.deepEqual(keys(daemonPodTolerations(ds())), [
    'node.kubernetes.io/disk-pressure:NoSchedule',
    'node.kubernetes.io/memory-pressure:NoSchedule',
    'node.kubernetes.io/not-ready:NoExecute',
    'node.kubernetes.io/pid-pressure:NoSchedule',
    'node.kubernetes.io/unreachable:NoExecute',
    'node.kubernetes.io/unschedulable:NoSchedule',
  ]);
  assert.equal(daemonPodTolerations(ds({ hostNetwork: true })).some((t) => t.key === 'node.kubernetes.io/network-unavailable'), true);
});

test('ToleratesTaint: effect, key and value; an empty key with Exists tolerates every taint', () => {
  assert.equal(toleratesTaint({ key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' }, { key: 'k', value: 'v', effect: 'NoSchedule' }), true);
  assert.equal(toleratesTaint({ key: 'k', value: 'v' }, { key: 'k', value: 'w', effect: 'NoSchedule' }), false);
  assert.equal(toleratesTaint({ key: 'k', operator: 'Exists', effect: 'NoExecute' }, { key: 'k', effect: 'NoSchedule' }), false);
  assert.equal(toleratesTaint({ operator: 'Exists' }, { key: 'anything', effect: 'NoExecute' }), true);
});

test('taints: NoSchedule stops new pods but keeps running ones; an untolerated NoExecute evicts; a tolerated one keeps both', () => {
  const place = placementOf(ds({ tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'infra', effect: 'NoExecute' }] }));
  assert.deepEqual(place(node('plain')), { shouldRun: true, shouldContinueRunning: true });
  assert.deepEqual(place(node('cordoned', {}, [{ key: 'maintenance', effect: 'NoSchedule' }])), { shouldRun: false, shouldContinueRunning: true });
  assert.deepEqual(place(node('evicting', {}, [{ key: 'maintenance', effect: 'NoExecute' }])), { shouldRun: false, shouldContinueRunning: false });
  assert.deepEqual(place(node('infra', {}, [{ key: 'dedicated', value: 'infra', effect: 'NoExecute' }])), { shouldRun: true, shouldContinueRunning: true });
  assert.deepEqual(place(node('notready', {}, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }])), { shouldRun: true, shouldContinueRunning: true }, 'the default toleration');
  assert.deepEqual(place(node('pref', {}, [{ key: 'x', effect: 'PreferNoSchedule' }])), { shouldRun: true, shouldContinueRunning: true });
});

test('a template nodeName pins the daemon to that node', () => {
  const place = placementOf(ds({ nodeName: 'n2' }));
  assert.deepEqual(place(node('n1')), { shouldRun: false, shouldContinueRunning: false });
  assert.deepEqual(place(node('n2')), { shouldRun: true, shouldContinueRunning: true });
});
