/**
 * The Job's finalizer removals (analysis/finalizer-removals.ts) and the log's finalizer tracking
 * against them (report/log-stores.ts finalizersAgainstLog), on events shaped as the sources make
 * them: a recording's pod states, an audit log's job-controller PATCH with its response state on
 * the same line, a failed PATCH, a person's PATCH; pods that finished still holding the finalizer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FinalizerRemovals } from '../../src/analysis/finalizer-removals.js';
import { finalizersAgainstLog } from '../../src/analysis/report/log-stores.js';
import type { Job, Pod } from '../../src/model/objects.js';
import type { TimelineEvent, WatchType } from '../../src/timeline/event.js';

const T0 = Date.parse('2026-12-05T08:00:00Z');
const F = 'batch.kubernetes.io/job-tracking';
const JOB_UID = '5f0e6a9e-1111-4c2b-9a57-0c8a7b2f0001';

function pod(name: string, o: { finalizer: boolean; phase?: string; deleting?: boolean }): Pod {
  return {
    metadata: {
      name, namespace: 'ns', uid: `uid-${name}`,
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'work', uid: JOB_UID, controller: true }],
      ...(o.finalizer ? { finalizers: [F] } : {}),
      ...(o.deleting ? { deletionTimestamp: '2026-12-05T08:00:30Z' } : {}),
    },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
    status: { phase: o.phase ?? 'Running' },
  } as Pod;
}

function seen(file: string, line: number, s: number, watchType: WatchType, p: Pod): TimelineEvent {
  return { type: 'observed', kind: 'Pod', watchType, object: p, at: T0 + s * 1000, atBasis: 'received', source: { file, line } };
}

function patch(line: number, s: number, name: string, code: number, controller: boolean): TimelineEvent {
  return {
    type: 'write', verb: 'patch', resource: 'pods', namespace: 'ns', name, at: T0 + s * 1000, receivedAt: T0 + s * 1000 - 3, atBasis: 'audit-stage',
    source: { file: 'audit.jsonl', line },
    actor: controller
      ? { username: 'system:serviceaccount:kube-system:job-controller', controller: 'job-controller' }
      : { username: 'kubernetes-admin' },
    owner: { state: 'owned', kind: 'Job', name: 'work', uid: JOB_UID, basis: 'response' },
    status: { code },
    requestObject: { metadata: { '$deleteFromPrimitiveList/finalizers': [F] } },
    ...(code === 200 ? { responseObject: pod(name, { finalizer: false, phase: 'Succeeded' }) } : {}),
  };
}

const job = (finished: boolean): Job => ({
  metadata: { name: 'work', namespace: 'ns', uid: JOB_UID },
  spec: { parallelism: 2 },
  status: finished ? { conditions: [{ type: 'Complete', status: 'True' }] } : { active: 0 },
} as Job);

test('a recording: a finalizer gone between two states of a Job pod is a removal, its writer unknown; a finished pod still holding it is held', () => {
  const r = new FinalizerRemovals();
  const R = 'rec.kexp.jsonl';
  r.see(seen(R, 3, 0, 'ADDED', pod('a', { finalizer: true })));
  r.see(seen(R, 4, 0, 'ADDED', pod('b', { finalizer: true })));
  r.see(seen(R, 5, 0, 'ADDED', pod('c', { finalizer: true })));
  r.see(seen(R, 9, 5, 'MODIFIED', pod('a', { finalizer: true, phase: 'Succeeded' })));
  r.see(seen(R, 10, 5.2, 'MODIFIED', pod('a', { finalizer: false, phase: 'Succeeded' })));
  // Deleted carrying its last state without the finalizer: removed before it went.
  r.see(seen(R, 11, 6, 'DELETED', pod('c', { finalizer: false, phase: 'Failed' })));
  r.see(seen(R, 12, 7, 'MODIFIED', pod('b', { finalizer: true, phase: 'Failed' })));
  r.see(seen(R, 13, 8, 'MODIFIED', pod('b', { finalizer: true, phase: 'Failed' })));
  const out = r.report('ns/work', job(false), T0 + 60_000)!;
  assert.equal(out.removed, 2);
  assert.equal(out.byController, 0);
  assert.equal(out.failed, 0);
  assert.equal(out.first, '2026-12-05T08:00:05.200Z');
  assert.equal(out.last, '2026-12-05T08:00:06.000Z');
  assert.deepEqual(out.evidence, [`${R}:10`, `${R}:11`]);
  assert.deepEqual(out.removedUids, ['uid-a', 'uid-c']);
  // Held since it was first seen finished with the finalizer, cited by its last state.
  assert.deepEqual(out.held, [{ pod: 'ns/b', uid: 'uid-b', since: '2026-12-05T08:00:07.000Z', evidence: `${R}:13` }]);
  assert.equal(out.statement, '1 pod holds the job-tracking finalizer (finished or terminating since 2026-12-05T08:00:07.000Z, 53 s before the end of the input); the Job cannot finish until the Job controller counts them in its status (uncountedTerminatedPods) and removes it — a rejected status update or a controller that does not sync stops both');
  assert.equal(r.report('ns/other', undefined, T0), undefined, 'no pod of another Job');
});

test('an audit log: the job-controller PATCH and its response on the same line are one removal by the controller; a failed PATCH leaves it held; a person\'s is not the controller\'s', () => {
  const r = new FinalizerRemovals();
  const A = 'audit.jsonl';
  r.see(seen(A, 2, 0, 'ADDED', pod('a', { finalizer: true })));
  r.see(seen(A, 3, 0, 'ADDED', pod('b', { finalizer: true })));
  r.see(seen(A, 4, 0, 'ADDED', pod('c', { finalizer: true })));
  r.see(seen(A, 8, 4, 'MODIFIED', pod('a', { finalizer: true, phase: 'Succeeded' })));
  r.see(seen(A, 9, 4, 'MODIFIED', pod('b', { finalizer: true, phase: 'Succeeded', deleting: true })));
  // The audit source yields the write and its responseObject's state from one line.
  r.see(patch(12, 5, 'a', 200, true));
  r.see(seen(A, 12, 5, 'MODIFIED', pod('a', { finalizer: false, phase: 'Succeeded' })));
  r.see(patch(13, 6, 'b', 422, true));
  r.see(seen(A, 20, 9, 'MODIFIED', pod('c', { finalizer: true, phase: 'Failed' })));
  r.see(patch(21, 10, 'c', 200, false));
  r.see(seen(A, 21, 10, 'MODIFIED', pod('c', { finalizer: false, phase: 'Failed' })));
  const out = r.report('ns/work', job(true), T0 + 20_000)!;
  assert.equal(out.removed, 2);
  assert.equal(out.byController, 1);
  assert.equal(out.failed, 1);
  assert.deepEqual(out.evidence, [`${A}:12`, `${A}:13`, `${A}:21`]);
  assert.deepEqual(out.held.map((h) => [h.pod, h.since]), [['ns/b', '2026-12-05T08:00:04.000Z']]);
  assert.match(out.statement!, /^1 pod holds the job-tracking finalizer at the end of the input \(finished or terminating since 2026-12-05T08:00:04\.000Z, 16 s before the end of the input\); the Job has finished/);
});

test('the log against the input: a holder it never expected, one it still awaits, and a removal it had not observed (a disagreement)', () => {
  const r = new FinalizerRemovals();
  const R = 'rec.kexp.jsonl';
  for (const [i, n] of ['a', 'b', 'c'].entries()) r.see(seen(R, 2 + i, 0, 'ADDED', pod(n, { finalizer: true })));
  r.see(seen(R, 7, 2, 'MODIFIED', pod('a', { finalizer: true, phase: 'Succeeded' })));
  r.see(seen(R, 8, 2, 'MODIFIED', pod('b', { finalizer: true, phase: 'Succeeded' })));
  r.see(seen(R, 9, 3, 'MODIFIED', pod('c', { finalizer: true, phase: 'Succeeded' })));
  r.see(seen(R, 10, 4, 'MODIFIED', pod('c', { finalizer: false, phase: 'Succeeded' })));
  const f = r.report('ns/work', job(false), T0 + 30_000)!;
  const log = { file: 'kcm.log', line: 0 };
  const tracking = {
    key: 'ns/work',
    expected: [{ at: T0 + 3500, uids: ['uid-b', 'uid-c'], source: { ...log, line: 40 } }],
    observed: 0,
    dropped: 0,
    awaited: [{ uid: 'uid-b', since: T0 + 3500, source: { ...log, line: 40 } }, { uid: 'uid-c', since: T0 + 3500, source: { ...log, line: 40 } }],
  };
  const got = finalizersAgainstLog(f, tracking, T0 + 25_000);
  assert.equal(got.log, 'no "Expecting tracking finalizers removed" of the controller\'s log names 1 of them (a) up to its end at 2026-12-05T08:00:25.000Z: the controller had not tried to remove it; the controller\'s log still awaited the removal of 1 (b) at its end (kcm.log:40): removal requested, not yet observed');
  assert.match(got.disagreement!.text, /^the controller's log still awaited the job-tracking finalizer removal of a pod at its end \(uid-c since 2026-12-05T08:00:03\.500Z\) that the input shows removed \(rec\.kexp\.jsonl:10\)/);
  assert.deepEqual(got.disagreement!.evidence, ['kcm.log:40']);
  // A log that ends before the pods finished tells nothing of them.
  assert.deepEqual(finalizersAgainstLog(f, { ...tracking, awaited: [] }, T0 + 1000), {});
});
