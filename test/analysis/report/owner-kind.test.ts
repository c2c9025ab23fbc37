import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ownerKindOf, ownerResource, withOwnerKind } from '../../../src/analysis/report/owner-kind.js';
import { syncAssumption } from '../../../src/analysis/report/owner-words.js';
import type { Report, ReplicaSetReport } from '../../../src/analysis/report-types.js';

const r = (key: string) => ({ key, namespace: key.split('/')[0]!, name: key.split('/')[1]! }) as ReplicaSetReport;
const SYNC_RS = 'The controller syncs a ReplicaSet within milliseconds of an enqueue; events with the same timestamp collapse into one sync.';
const report = (replicaSets: ReplicaSetReport[]) => ({ replicaSets, coverage: { assumptions: [SYNC_RS, 'Writes made by a sync are matched …'] } }) as unknown as Report;

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

test('the assumption about when the controller syncs names the kinds the report holds once another kind joins', () => {
  assert.equal(syncAssumption(['ReplicaSet']), SYNC_RS, 'a ReplicaSet report keeps its words');
  const both = withOwnerKind(report([r('a/web')]), 'ReplicationController', [r('a/db')]);
  assert.deepEqual(both.coverage.assumptions, ['The controllers sync a ReplicaSet or ReplicationController within milliseconds of an enqueue; events with the same timestamp collapse into one sync.', 'Writes made by a sync are matched …']);
  const dsOnly = withOwnerKind(report([]), 'DaemonSet', [r('kube-system/agent')]);
  assert.equal(dsOnly.coverage.assumptions[0], 'The controller syncs a DaemonSet within milliseconds of an enqueue; events with the same timestamp collapse into one sync.');
});
