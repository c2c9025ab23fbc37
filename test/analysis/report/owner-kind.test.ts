import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ownerKindOf, ownerResource, withOwnerKind } from '../../../src/analysis/report/owner-kind.js';
import type { Report, ReplicaSetReport } from '../../../src/analysis/report-types.js';

const r = (key: string) => ({ key, namespace: key.split('/')[0]!, name: key.split('/')[1]! }) as ReplicaSetReport;
const report = (replicaSets: ReplicaSetReport[]) => ({ replicaSets }) as Report;

test('another kind\'s reports are marked and sorted by key, a ReplicaSet first on the same key', () => {
  const rs = report([r('a/web'), r('b/api')]);
  const out = withOwnerKind(rs, 'ReplicationController', [r('a/web'), r('a/db')]);
  assert.deepEqual(out.replicaSets.map((x) => [x.key, x.kind]), [['a/db', 'ReplicationController'], ['a/web', undefined], ['a/web', 'ReplicationController'], ['b/api', undefined]]);
  assert.equal(JSON.stringify(out.replicaSets[0]).startsWith('{"kind":"ReplicationController","key":"a/db"'), true);
  assert.equal('kind' in out.replicaSets[1]!, false);
  assert.equal(withOwnerKind(rs, 'ReplicationController', []), rs);
  assert.deepEqual([ownerKindOf(out.replicaSets[1]!), ownerKindOf(out.replicaSets[2]!)], ['ReplicaSet', 'ReplicationController']);
  assert.deepEqual([ownerResource(out.replicaSets[1]!), ownerResource(out.replicaSets[2]!)], ['rs', 'rc']);
});
