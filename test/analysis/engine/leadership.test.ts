/**
 * Leadership (src/analysis/engine/leadership.ts): the stretches with no kube-controller-manager
 * leader from its leader-election lines, and the restart detector keeping the model idle there
 * (src/analysis/engine/restart-detector.ts). Times follow the real v1.37.2 capture
 * examples/captures/restart-mid-rollout (kcm.log lines 264, 279, 284).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ControllerExpectations } from '../../../src/model/expectations.js';
import { WorkQueue } from '../../../src/model/workqueue.js';
import { leadershipGaps, type LeaseLine } from '../../../src/analysis/engine/leadership.js';
import { RestartDetector } from '../../../src/analysis/engine/restart-detector.js';
import { RsTracks } from '../../../src/analysis/engine/rs-track.js';
import { rsObj, T0 } from '../../support/timeline-events.js';

const at = (line: number) => ({ file: 'kcm.log', line });
// Attempt 02:04:59.984, acquired 02:05:09.674, "Starting controller" 02:05:09.740.
const ATTEMPT = T0 + 3_390;
const ACQUIRED = T0 + 13_080;
const STARTED = T0 + 13_146;
const graceful: LeaseLine[] = [
  { at: ATTEMPT, kind: 'lease-attempt', source: at(264) },
  { at: ACQUIRED, kind: 'lease-acquired', source: at(279) },
];

test('leadershipGaps: a new process waiting for the Lease: nobody led from its attempt (inferred) to its acquire; the model resumes at its controller start', () => {
  assert.deepEqual(leadershipGaps(graceful, [{ at: STARTED, source: at(284) }]), [
    { from: ATTEMPT, acquiredAt: ACQUIRED, resumeAt: STARTED, cause: 'new-process', basis: 'inferred', evidence: [at(264), at(279), at(284)] },
  ]);
  // No start line of the ReplicaSet controller: the model resumes at the acquire.
  assert.equal(leadershipGaps(graceful, [])[0]!.resumeAt, ACQUIRED);
  // A start line long after the acquire is not this acquire's.
  assert.equal(leadershipGaps(graceful, [{ at: ACQUIRED + 120_000, source: at(900) }])[0]!.resumeAt, ACQUIRED);
});

test('leadershipGaps: a lost lease is the observed end of leading; without an acquire after it nobody leads to the end', () => {
  const lost: LeaseLine[] = [
    { at: T0, kind: 'lease-lost', source: at(10) },
    { at: T0 + 2_000, kind: 'lease-attempt', source: at(20) },
    { at: T0 + 9_000, kind: 'lease-acquired', source: at(30) },
    { at: T0 + 60_000, kind: 'lease-lost', source: at(40) },
  ];
  assert.deepEqual(leadershipGaps(lost, []), [
    { from: T0, acquiredAt: T0 + 9_000, resumeAt: T0 + 9_000, cause: 'lease-lost', basis: 'observed', evidence: [at(10), at(20), at(30)] },
    { from: T0 + 60_000, cause: 'lease-lost', basis: 'observed', evidence: [at(40)] },
  ]);
  // An acquire whose wait the log does not show says nothing about who led before it.
  assert.deepEqual(leadershipGaps([{ at: T0, kind: 'lease-acquired', source: at(1) }], []), []);
});

function setup() {
  const expectations = new ControllerExpectations();
  const queue = new WorkQueue();
  const tracks = new RsTracks();
  const ranDue: number[] = [];
  const controller = { expectations, queue, owners: new Map([['shop/web', rsObj('web')], ['shop/api', rsObj('api')]]), runDue: (before: number) => (ranDue.push(before), []) };
  return { expectations, queue, tracks, ranDue, controller };
}

test('RestartDetector: while nobody leads no sync runs; the syncs due then run at the new leader\'s start, with no expectations', () => {
  const { expectations, queue, tracks, ranDue, controller } = setup();
  const starts = [{ at: STARTED, source: at(284) }];
  const detector = new RestartDetector(tracks, controller, { credentialChangeAt: () => undefined }, { drain: () => {} }, starts, leadershipGaps(graceful, starts));
  expectations.expectCreations('shop/web', 3, T0);
  tracks.of('shop/web');
  tracks.of('shop/api');
  detector.logStartsBefore(ATTEMPT - 1);
  assert.deepEqual(ranDue, [], 'leading: nothing to do yet');
  // A gated sync comes due 1 s into the gap, another one 5 s in.
  queue.add('shop/web', ATTEMPT + 1_000);
  detector.logStartsBefore(ATTEMPT + 2_000);
  assert.deepEqual(ranDue, [ATTEMPT], 'the old process\'s syncs due before the gap ran, none after');
  assert.equal(queue.dueAt('shop/web'), undefined, 'the sync due while nobody led is not run');
  queue.add('shop/web', ATTEMPT + 5_000);
  detector.logStartsBefore(ACQUIRED + 10);
  assert.equal(queue.dueAt('shop/web'), undefined);
  assert.equal(detector.restarts.length, 0, 'the new process has not started its controllers yet');
  detector.logStartsBefore(STARTED + 1);
  assert.deepEqual(detector.restarts.map((r) => [r.at, r.via, r.dropped.map((d) => d.key), r.noLeader?.idleSyncs]), [[STARTED, 'log', ['shop/web'], { 'shop/web': 2 }]]);
  assert.deepEqual([detector.restarts[0]!.noLeader!.from, detector.restarts[0]!.noLeader!.acquiredAt, detector.restarts[0]!.noLeader!.basis], [ATTEMPT, ACQUIRED, 'inferred']);
  assert.equal(expectations.get('shop/web'), undefined, 'the new process starts with no record');
  assert.deepEqual([queue.dueAt('shop/web'), queue.dueAt('shop/api')], [STARTED, STARTED], 'every ReplicaSet synced afresh at the start');
  assert.equal(tracks.of('shop/api').restarts.length, 0, 'nothing of shop/api waited or was dropped');
});

test('RestartDetector: a gap without a logged start restarts the model at the acquire; a ReplicaSet whose sync only waited carries it', () => {
  const { queue, tracks, controller } = setup();
  const detector = new RestartDetector(tracks, controller, { credentialChangeAt: () => undefined }, { drain: () => {} }, [], leadershipGaps(graceful, []));
  tracks.of('shop/api');
  detector.logStartsBefore(ATTEMPT);
  queue.add('shop/api', ATTEMPT + 500);
  detector.logStartsBefore(ACQUIRED + 5);
  assert.deepEqual(detector.restarts.map((r) => [r.at, r.dropped.length, r.noLeader?.idleSyncs]), [[ACQUIRED, 0, { 'shop/api': 1 }]]);
  assert.equal(tracks.of('shop/api').restarts.length, 1);
  assert.equal(queue.dueAt('shop/api'), ACQUIRED, 'synced at the new leader\'s start, not in the gap');
});

import { leaseGaps, leaseWritesRead, mergeGaps, type LeaseObservation } from '../../../src/analysis/engine/leadership.js';

const w = (at: number, holder: string, o: Partial<LeaseObservation> = {}, line = at): LeaseObservation => ({ at, holder, leaseDurationSeconds: 8, renewTime: at, source: { file: 'audit.jsonl', line }, ...o });

test('leaseGaps: a takeover after the Lease ran out: nobody led from the last renewTime + leaseDurationSeconds to the acquireTime (observed); the model idles from the missed renewal', () => {
  const writes = [w(T0, 'a', {}, 1), w(T0 + 2_000, 'a', {}, 2), w(T0 + 10_600, 'b', { acquireTime: T0 + 10_500 }, 3)];
  assert.deepEqual(leaseGaps(writes, [{ at: T0 + 10_700, source: at(7) }]), [
    { from: T0 + 10_000, idleFrom: T0 + 4_000, acquiredAt: T0 + 10_500, resumeAt: T0 + 10_700, cause: 'lease-expired', basis: 'observed', evidence: [{ file: 'audit.jsonl', line: 2 }, { file: 'audit.jsonl', line: 3 }, at(7)] },
  ]);
  // Acquired after the expiry: a gap; a single renewal shows no cadence (the model idles from the expiry).
  const late = [w(T0, 'a', {}, 1), w(T0 + 12_000, 'b', { acquireTime: T0 + 11_000 }, 2)];
  assert.deepEqual(leaseGaps(late, []), [
    { from: T0 + 8_000, acquiredAt: T0 + 11_000, resumeAt: T0 + 11_000, cause: 'lease-expired', basis: 'observed', evidence: [{ file: 'audit.jsonl', line: 1 }, { file: 'audit.jsonl', line: 2 }] },
  ]);
  // Renewals by one holder, and a takeover before the expiry, leave no gap.
  assert.deepEqual(leaseGaps([w(T0, 'a'), w(T0 + 2_000, 'a'), w(T0 + 4_000, 'b', { acquireTime: T0 + 4_000 })], []), []);
});

test('leaseGaps: a released Lease (holderIdentity emptied) is the observed start of the gap', () => {
  const writes = [w(T0, 'a', {}, 1), w(T0 + 1_000, '', { renewTime: T0 + 1_000, leaseDurationSeconds: 1 }, 2), w(T0 + 3_000, 'b', { acquireTime: T0 + 3_000 }, 3)];
  assert.deepEqual(leaseGaps(writes, []), [
    { from: T0 + 1_000, acquiredAt: T0 + 3_000, resumeAt: T0 + 3_000, cause: 'lease-released', basis: 'observed', evidence: [{ file: 'audit.jsonl', line: 2 }, { file: 'audit.jsonl', line: 3 }] },
  ]);
});

test('mergeGaps: the Lease\'s stretch wins over the log\'s account of the same one; others are kept', () => {
  const lease = leaseGaps([w(T0, 'a', {}, 1), w(T0 + 12_000, 'b', { acquireTime: T0 + 11_000 }, 2)], []);
  const log = leadershipGaps([
    { at: T0 + 500, kind: 'lease-attempt', source: at(1) },
    { at: T0 + 11_000, kind: 'lease-acquired', source: at(2) },
    { at: T0 + 60_000, kind: 'lease-lost', source: at(3) },
  ], []);
  assert.deepEqual(mergeGaps(lease, log).map((g) => [g.from - T0, g.cause, g.basis]), [[8_000, 'lease-expired', 'observed'], [60_000, 'lease-lost', 'observed']]);
});

test('leaseWritesRead: keeps only the Lease writes leaseGaps reads — the same gaps on random sequences, a list set by the holder changes', () => {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  let nonEmpty = 0;
  for (let round = 0; round < 400; round++) {
    const writes: LeaseObservation[] = [];
    let t = T0;
    let holder = 'a';
    const n = 1 + Math.floor(rand() * 40);
    for (let i = 0; i < n; i++) {
      // Ties (the same `at`), out-of-order arrivals, renewals, takeovers, releases, expiries.
      t += rand() < 0.15 ? 0 : Math.floor(rand() * 12_000);
      const r = rand();
      if (r < 0.12) holder = '';
      else if (r < 0.3) holder = ['a', 'b', 'c'][Math.floor(rand() * 3)]!;
      else if (holder === '') holder = 'b';
      const at = rand() < 0.1 ? t - Math.floor(rand() * 5_000) : t;
      writes.push(w(at, holder, {
        renewTime: rand() < 0.9 ? at - Math.floor(rand() * 50) : undefined,
        leaseDurationSeconds: rand() < 0.9 ? 1 + Math.floor(rand() * 10) : undefined,
        ...(rand() < 0.5 ? { acquireTime: at - Math.floor(rand() * 2_000) } : {}),
      }, i + 1));
    }
    const starts = Array.from({ length: Math.floor(rand() * 4) }, (_, i) => ({ at: T0 + Math.floor(rand() * n * 12_000), source: at(100 + i) }));
    const kept = leaseWritesRead(writes);
    const full = leaseGaps(writes, starts);
    nonEmpty += full.length > 0 ? 1 : 0;
    assert.deepEqual(leaseGaps(kept, starts), full, `round ${round}`);
    assert.ok(kept.every((k) => writes.includes(k)) && kept.length <= writes.length);
  }
  assert.ok(nonEmpty > 100, `the random sequences have gaps to compare (${nonEmpty})`);
  // An hour of renewals every 2 s by one holder, a release, an hour by another: five writes read.
  const hour = (h: string, from: number) => Array.from({ length: 1_800 }, (_, i) => w(from + i * 2_000, h, {}, from + i));
  const long = [...hour('a', T0), w(T0 + 3_600_000, '', {}, 1), w(T0 + 3_600_500, '', {}, 2), ...hour('b', T0 + 3_601_000)];
  const kept = leaseWritesRead(long);
  assert.deepEqual(kept.map((k) => [k.holder, k.at - T0]), [['a', 0], ['a', 3_596_000], ['a', 3_598_000], ['', 3_600_000], ['b', 3_601_000], ['b', 7_197_000], ['b', 7_199_000]]);
  assert.deepEqual(leaseGaps(kept, []), leaseGaps(long, []));
});
