/** The directory walker's path rules (src/sources/dump-dir.ts), the scanner's text regions and the ScalingReplicaSet wordings. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyPath } from '../../src/sources/dump-dir.js';
import { JsonValueScanner } from '../../src/sources/watch/json-values.js';
import { parseScalingMessage } from '../../src/analysis/report/scaling-events.js';

test('classifyPath: cluster-info dump and must-gather layouts', () => {
  const c = (p: string) => classifyPath(p.split('/'));
  assert.equal(c('nodes.json'), 'list');
  assert.equal(c('kube-system/daemonsets.json'), 'list');
  assert.equal(c('kube-system/replicasets.json'), 'list');
  assert.equal(c('kube-system/pods.yaml'), 'list');
  assert.equal(c('default/services.json'), 'peek');
  assert.equal(c('kube-system/kube-controller-manager-minikube/logs.txt'), 'kcm');
  assert.equal(c('kube-system/etcd-minikube/logs.txt'), 'otherLogs');
  assert.equal(c('mg/namespaces/shop/shop.yaml'), 'list');
  assert.equal(c('mg/namespaces/shop/core/events.yaml'), 'list');
  assert.equal(c('mg/namespaces/shop/apps/replicasets.yaml'), 'list');
  assert.equal(c('mg/namespaces/shop/pods/web-1/web-1.yaml'), 'pod-copy');
  assert.equal(c('mg/namespaces/shop/apps/daemonsets.yaml'), 'list');
  assert.equal(c('mg/namespaces/shop/apps/daemonsets/agent.yaml'), 'ds-copy');
  assert.equal(c('batch/jobs.json'), 'list');
  assert.equal(c('mg/namespaces/shop/batch/jobs.yaml'), 'list');
  assert.equal(c('mg/namespaces/shop/batch/jobs/work.yaml'), 'job-copy');
  assert.equal(c('mg/namespaces/shop/batch/cronjobs.yaml'), 'peek');
  assert.equal(c('mg/cluster-scoped-resources/core/nodes/m0.yaml'), 'list');
  assert.equal(c('mg/cluster-scoped-resources/storage.k8s.io/csinodes/m0.yaml'), 'otherKinds');
  assert.equal(c('mg/namespaces/openshift-kube-controller-manager/pods/kube-controller-manager-m0/kube-controller-manager/kube-controller-manager/logs/current.log'), 'kcm');
  assert.equal(c('mg/namespaces/openshift-kube-controller-manager/pods/kube-controller-manager-m0/cluster-policy-controller/cluster-policy-controller/logs/current.log'), 'otherLogs');
  assert.equal(c('mg/audit_logs/kube-apiserver/m0-audit.log.gz'), 'audit');
  assert.equal(c('mg/audit_logs/openshift-apiserver/m0-audit.log.gz'), 'otherLogs');
  assert.equal(c('mg/audit_logs/kube-apiserver.audit_logs_listing'), 'other');
  assert.equal(c('mg/timestamp'), 'other');
});

test('JsonValueScanner: a text region is one item with its first and last line, whatever the chunking', () => {
  const text = ['# notes', '', '```json', '{"kind":"Pod","metadata":{"name":"a"}}', '```', 'bye'].join('\n');
  for (const size of [1, 3, 1000]) {
    const sc = new JsonValueScanner();
    const items: ReturnType<JsonValueScanner['end']> = [];
    for (let i = 0; i < text.length; i += size) sc.push(Buffer.from(text.slice(i, i + size)), items);
    sc.end(items);
    assert.deepEqual(items.map((i) => (i.kind === 'text' ? `text ${i.line}-${i.endLine}` : i.kind === 'value' ? `value ${i.line}` : i.kind)), ['text 1-3', 'value 4', 'text 5-6'], `chunks of ${size}`);
  }
});

test('parseScalingMessage: the 1.27+ wording, the older one and "from A to B"', () => {
  assert.deepEqual(parseScalingMessage('Scaled up replica set web-7d9 to 5 from 2'), { direction: 'up', rs: 'web-7d9', to: 5, from: 2 });
  assert.deepEqual(parseScalingMessage('Scaled down replica set web-7d9 to 0'), { direction: 'down', rs: 'web-7d9', to: 0 });
  assert.deepEqual(parseScalingMessage('Scaled up replica set web-7d9 from 2 to 5'), { direction: 'up', rs: 'web-7d9', to: 5, from: 2 });
  assert.equal(parseScalingMessage('Created pod: web-7d9-x'), undefined);
});
