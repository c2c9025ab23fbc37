import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReplicationController } from '../../../src/model/objects.js';
import { replicaSetFromReplicationController, replicationControllerFromReplicaSet } from '../../../src/model/replicationcontroller/conversion.js';

const rc: ReplicationController = {
  apiVersion: 'v1',
  kind: 'ReplicationController',
  metadata: { name: 'frontend', namespace: 'legacy', uid: '8c1f0b7e-3a52-4d9e-9f0a-6d2b5c7e1a40', resourceVersion: '5120', generation: 2, creationTimestamp: '2025-03-10T08:00:00Z', labels: { app: 'frontend' } },
  spec: {
    replicas: 3,
    minReadySeconds: 5,
    selector: { app: 'frontend', tier: 'web' },
    template: { metadata: { labels: { app: 'frontend', tier: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } },
  },
  status: { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 1, availableReplicas: 1, observedGeneration: 2 },
};

test('conversion: RC → RS keeps the metadata, turns the selector map into matchLabels, copies the shared status, names no kind', () => {
  const rs = replicaSetFromReplicationController(rc);
  assert.deepEqual(rs, {
    metadata: rc.metadata,
    spec: { replicas: 3, minReadySeconds: 5, selector: { matchLabels: { app: 'frontend', tier: 'web' } }, template: rc.spec!.template },
    status: { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 1, availableReplicas: 1, observedGeneration: 2 },
  });
  assert.equal(rs.metadata, rc.metadata, 'the metadata object is shared, not copied');
  assert.notEqual(rs.spec!.selector!.matchLabels, rc.spec!.selector, 'the selector map is copied');
  assert.equal(rs.apiVersion, undefined);
  assert.equal(rs.kind, undefined);
});

test('conversion: absent replicas stay absent (defaulted to 1 downstream), a null selector stays null, an empty map matches everything', () => {
  assert.deepEqual(replicaSetFromReplicationController({ metadata: { name: 'a' }, spec: { selector: null } }), { metadata: { name: 'a' }, spec: { selector: null } });
  assert.deepEqual(replicaSetFromReplicationController({ metadata: { name: 'a' }, spec: { selector: {} } }).spec, { selector: { matchLabels: {} } });
  assert.deepEqual(replicaSetFromReplicationController({ metadata: { name: 'a' } }), { metadata: { name: 'a' } });
});

test('conversion: RS → RC round-trips an RC, drops terminatingReplicas and any matchExpressions', () => {
  assert.deepEqual(replicationControllerFromReplicaSet(replicaSetFromReplicationController(rc)), rc);
  const back = replicationControllerFromReplicaSet({
    metadata: { name: 'b' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'b' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] } },
    status: { replicas: 2, terminatingReplicas: 1 },
  });
  assert.deepEqual(back, { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'b' }, spec: { replicas: 2, selector: { app: 'b' } }, status: { replicas: 2 } });
});
