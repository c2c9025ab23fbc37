/**
 * The live target parser (src/pipeline/live-target.ts): kubectl's TYPE/NAME and TYPE NAME forms
 * for every kind `kexp record` and `kexp explain` follow, a bare NAME as a ReplicaSet, and one-line
 * errors naming the accepted forms.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KIND_NAMES, parseLiveTarget, requireKinds, TARGET_FORMS } from '../../src/pipeline/live-target.js';
import { parseTarget, watchesFor } from '../../src/pipeline/record-live.js';
import { InvalidNameError } from '../../src/sources/live/names.js';

test('every type name kubectl accepts, in TYPE/NAME and TYPE NAME, case-insensitive', () => {
  const cases: Array<[string, string]> = [
    ['rs', 'rs'], ['replicaset', 'rs'], ['replicasets', 'rs'], ['replicaset.apps', 'rs'], ['ReplicaSets.apps', 'rs'],
    ['rc', 'rc'], ['replicationcontroller', 'rc'], ['replicationcontrollers', 'rc'],
    ['ds', 'ds'], ['daemonset', 'ds'], ['daemonsets', 'ds'], ['daemonset.apps', 'ds'], ['DaemonSet', 'ds'], ['daemonsets.apps', 'ds'],
    ['job', 'job'], ['jobs', 'job'], ['job.batch', 'job'], ['jobs.batch', 'job'],
    ['deploy', 'deployment'], ['deployment', 'deployment'], ['deployments', 'deployment'], ['deployment.apps', 'deployment'],
  ];
  for (const [type, kind] of cases) {
    assert.deepEqual(parseLiveTarget([`${type}/web-1`]), { kind, name: 'web-1' }, type);
    assert.deepEqual(parseLiveTarget([type, 'web-1']), { kind, name: 'web-1' }, `${type} NAME`);
  }
});

test('a bare NAME is a ReplicaSet; parseTarget (one argument) is the same parser', () => {
  assert.deepEqual(parseLiveTarget(['web-7d9c6b8f5d']), { kind: 'rs', name: 'web-7d9c6b8f5d' });
  assert.deepEqual(parseTarget('ds/node-agent'), { kind: 'ds', name: 'node-agent' });
  assert.deepEqual(parseTarget('a.b.c'), { kind: 'rs', name: 'a.b.c' });
});

test('errors are one line naming the accepted forms', () => {
  const bad: Array<[string[], RegExp]> = [
    [['statefulset/db'], /"statefulset" is not a resource type kexp follows/],
    [['sts', 'db'], /"sts" is not a resource type/],
    [['ds/'], /no DaemonSet name after "ds\/"/],
    [['ds/a/b'], /more than one "\/"/],
    [['ds/a', 'b'], /already names its object/],
    [['ds', 'a/b'], /is not an object name/],
    [['ds', 'a', 'b'], /too many arguments/],
    [[''], /no target given/],
    [[], /no target given/],
  ];
  for (const [args, re] of bad) {
    assert.throws(() => parseLiveTarget(args), (e: Error) => re.test(e.message) && !e.message.includes('\n') && (e.message.includes(TARGET_FORMS) || e instanceof InvalidNameError), JSON.stringify(args));
  }
  assert.throws(() => parseLiveTarget(['job/Bad_Name']), (e: Error) => e instanceof InvalidNameError && /Job name "Bad_Name" is not a valid object name/.test(e.message));
  assert.throws(() => parseLiveTarget(['ds', '..']), InvalidNameError);
});

test('requireKinds names what a command takes', () => {
  assert.doesNotThrow(() => requireKinds({ kind: 'ds', name: 'a' }, ['rs', 'ds'], 'explain'));
  assert.throws(() => requireKinds({ kind: 'rc', name: 'web' }, ['rs', 'deployment', 'ds', 'job'], 'explain'), /kexp explain does not take a ReplicationController \(rc\/web\): it takes NAME or rs\/NAME, deployment\/NAME, ds\/NAME, job\/NAME/);
  assert.equal(KIND_NAMES.job, 'Job');
});

test('watchesFor: each kind\'s informers — the owner listed last, Nodes and ControllerRevisions optional for a DaemonSet', () => {
  const names = (k: Parameters<typeof watchesFor>[0]['kind']) => watchesFor({ kind: k, name: 'x' }, 'shop').map((w) => `${w.resource}${w.owner ? '*' : ''}${w.optional ? '?' : ''}`);
  assert.deepEqual(names('rs'), ['replicasets*', 'pods', 'events', 'namespaces']);
  assert.deepEqual(names('deployment'), ['replicasets*', 'pods', 'events', 'namespaces']);
  assert.deepEqual(names('rc'), ['replicationcontrollers*', 'pods', 'events', 'namespaces']);
  assert.deepEqual(names('ds'), ['daemonsets*', 'controllerrevisions?', 'pods', 'events', 'nodes?', 'namespaces']);
  assert.deepEqual(names('job'), ['jobs*', 'pods', 'events', 'namespaces']);
  const ds = watchesFor({ kind: 'ds', name: 'x' }, 'shop');
  assert.equal(ds.find((w) => w.resource === 'nodes')!.path, '/api/v1/nodes');
  assert.equal(ds.find((w) => w.resource === 'nodes')!.namespace, undefined);
  assert.equal(watchesFor({ kind: 'job', name: 'x' }, 'shop')[0]!.path, '/apis/batch/v1/namespaces/shop/jobs');
});
