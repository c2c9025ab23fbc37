import { test } from 'node:test';
import assert from 'node:assert/strict';

import type { Pod } from '../../src/model/objects.js';
import {
  comparePodsForDeletion,
  getPodsToDelete,
  isPodActive,
  isPodReady,
  logarithmicBucket,
  maxContainerRestarts,
  podDeletionCost,
  podRankTimes,
  podReadySince,
  rankPodsByRelatedPodsOnSameNode,
} from '../../src/model/pod-ranking.js';

const NOW = Date.parse('2024-05-01T12:00:00Z');
const SEC = 1000;
const MIN = 60 * SEC;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

const RS_UID = '9f6c1b2e-4d3a-4e8b-9c1d-2a7f5e3b8c40';

interface PodOpts {
  name: string;
  uid: string;
  node?: string;
  phase?: string;
  ready?: boolean;
  readyAt?: number | null;
  created?: number;
  restarts?: number;
  sidecarRestarts?: number;
  plainInitRestarts?: number;
  cost?: string;
  deleting?: boolean;
}

function pod(o: PodOpts): Pod {
  const phase = o.phase ?? 'Running';
  const ready = o.ready ?? phase === 'Running';
  const created = o.created ?? NOW - 2 * DAY;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `web-7d9c6b8f5d-${o.name}`,
      namespace: 'shop',
      uid: o.uid,
      resourceVersion: '48213',
      creationTimestamp: iso(created),
      ...(o.deleting ? { deletionTimestamp: iso(NOW + 30 * SEC), deletionGracePeriodSeconds: 30 } : {}),
      labels: { app: 'web', 'pod-template-hash': '7d9c6b8f5d' },
      ...(o.cost !== undefined ? { annotations: { 'controller.kubernetes.io/pod-deletion-cost': o.cost } } : {}),
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9c6b8f5d', uid: RS_UID, controller: true, blockOwnerDeletion: true },
      ],
    },
    spec: {
      nodeName: o.node ?? null,
      initContainers: [
        { name: 'migrate' },
        { name: 'istio-proxy', restartPolicy: 'Always' },
      ],
      containers: [{ name: 'web' }, { name: 'metrics' }],
    },
    status: {
      phase,
      conditions: [
        { type: 'PodScheduled', status: o.node ? 'True' : 'False', lastTransitionTime: iso(created) },
        { type: 'ContainersReady', status: ready ? 'True' : 'False', lastTransitionTime: iso(created + 5 * SEC) },
        {
          type: 'Ready',
          status: ready ? 'True' : 'False',
          lastTransitionTime: o.readyAt === null ? null : iso(o.readyAt ?? created + 5 * SEC),
        },
      ],
      initContainerStatuses: [
        { name: 'migrate', restartCount: o.plainInitRestarts ?? 0, ready: false },
        { name: 'istio-proxy', restartCount: o.sidecarRestarts ?? 0, ready: true },
      ],
      containerStatuses: [
        { name: 'web', restartCount: o.restarts ?? 0, ready },
        { name: 'metrics', restartCount: 0, ready },
      ],
    },
  };
}

const cmp = (a: Pod, b: Pod, rankA = 0, rankB = 0, now = NOW): number => comparePodsForDeletion(a, b, { rankA, rankB, now });
const names = (pods: Pod[]): string[] => pods.map((p) => p.metadata.name!.replace('web-7d9c6b8f5d-', ''));

test('isPodActive: phase not Succeeded/Failed and no deletionTimestamp', () => {
  assert.equal(isPodActive(pod({ name: 'a', uid: 'u1', node: 'n1', phase: 'Running' })), true);
  assert.equal(isPodActive(pod({ name: 'a', uid: 'u1', phase: 'Pending' })), true);
  assert.equal(isPodActive(pod({ name: 'a', uid: 'u1', phase: 'Unknown' })), true);
  assert.equal(isPodActive(pod({ name: 'a', uid: 'u1', phase: '' })), true);
  assert.equal(isPodActive({ metadata: { name: 'bare' } }), true);
  assert.equal(isPodActive(pod({ name: 'a', uid: 'u1', node: 'n1', phase: 'Succeeded' })), false);
  assert.equal(isPodActive(pod({ name: 'a', uid: 'u1', node: 'n1', phase: 'Failed' })), false);
  assert.equal(isPodActive(pod({ name: 'a', uid: 'u1', node: 'n1', phase: 'Running', deleting: true })), false);
  assert.equal(isPodActive(pod({ name: 'a', uid: 'u1', phase: 'Pending', deleting: true })), false);
});

test('isPodReady and podReadySince read the Ready condition', () => {
  const readyAt = NOW - 10 * MIN;
  const p = pod({ name: 'a', uid: 'u1', node: 'n1', readyAt });
  assert.equal(isPodReady(p), true);
  assert.equal(podReadySince(p), readyAt);
  const notReady = pod({ name: 'b', uid: 'u2', node: 'n1', ready: false });
  assert.equal(isPodReady(notReady), false);
  assert.equal(podReadySince(notReady), undefined);
  assert.equal(isPodReady({ metadata: {}, status: { conditions: [{ type: 'ContainersReady', status: 'True' }] } }), false);
  assert.equal(isPodReady({ metadata: {}, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } }), false);
  assert.equal(isPodReady({ metadata: {} }), false);
  const noTime = pod({ name: 'c', uid: 'u3', node: 'n1', readyAt: null });
  assert.equal(isPodReady(noTime), true);
  assert.equal(podReadySince(noTime), undefined);
});

test('podDeletionCost parses like GetDeletionCostFromPodAnnotations', () => {
  const c = (v: string | undefined): number => podDeletionCost(pod({ name: 'a', uid: 'u', node: 'n1', ...(v === undefined ? {} : { cost: v }) }));
  assert.equal(c(undefined), 0);
  assert.equal(c('10'), 10);
  assert.equal(c('-5'), -5);
  assert.equal(c('0'), 0);
  assert.equal(c('-0'), 0);
  assert.equal(c('2147483647'), 2147483647);
  assert.equal(c('-2147483648'), -2147483648);
  assert.equal(c('2147483648'), 0);
  assert.equal(c('+10'), 0);
  assert.equal(c('008'), 0);
  assert.equal(c(''), 0);
  assert.equal(c('1.5'), 0);
  assert.equal(c(' 1'), 0);
  assert.equal(c('1e3'), 0);
  assert.equal(c('-'), 0);
});

test('maxContainerRestarts separates regular and restartable-init (sidecar) containers', () => {
  assert.deepEqual(maxContainerRestarts(pod({ name: 'a', uid: 'u', node: 'n1', restarts: 4, sidecarRestarts: 2, plainInitRestarts: 9 })), {
    regular: 4,
    sidecar: 2,
  });
  assert.deepEqual(maxContainerRestarts({ metadata: {} }), { regular: 0, sidecar: 0 });
});

test('logarithmicBucket = int64(log2(age in ns)), -1 for non-positive ages', () => {
  assert.equal(logarithmicBucket(NOW, NOW), -1);
  assert.equal(logarithmicBucket(NOW + SEC, NOW), -1);
  assert.equal(logarithmicBucket(NOW - 1, NOW), 19); // 1e6 ns
  assert.equal(logarithmicBucket(NOW - SEC, NOW), 29); // 1e9 ns
  assert.equal(logarithmicBucket(NOW - 100 * SEC, NOW), 36);
  assert.equal(logarithmicBucket(NOW - 110 * SEC, NOW), 36);
  assert.equal(logarithmicBucket(NOW - 140 * SEC, NOW), 37);
  assert.equal(logarithmicBucket(NOW - DAY, NOW), 46);
  assert.equal(logarithmicBucket(NOW - 10 * DAY, NOW), 49);
});

test('§5.3: unscheduled-pending < scheduled-pending < unknown-phase < running-not-ready < ready', () => {
  const unscheduledPending = pod({ name: 'unsched', uid: 'u5', phase: 'Pending', ready: false });
  const scheduledPending = pod({ name: 'sched', uid: 'u4', node: 'node-1', phase: 'Pending', ready: false });
  const unknown = pod({ name: 'unknown', uid: 'u3', node: 'node-1', phase: 'Unknown', ready: false });
  const runningNotReady = pod({ name: 'notready', uid: 'u2', node: 'node-1', phase: 'Running', ready: false });
  const ready = pod({ name: 'ready', uid: 'u1', node: 'node-1', phase: 'Running', ready: true });
  const chain = [unscheduledPending, scheduledPending, unknown, runningNotReady, ready];
  for (let i = 0; i + 1 < chain.length; i++) {
    assert.equal(cmp(chain[i]!, chain[i + 1]!), -1, `${chain[i]!.metadata.name} before ${chain[i + 1]!.metadata.name}`);
    assert.equal(cmp(chain[i + 1]!, chain[i]!), 1);
  }
  const shuffled = [ready, unknown, unscheduledPending, runningNotReady, scheduledPending];
  assert.deepEqual(names(getPodsToDelete(shuffled, shuffled, 4, NOW)), ['unsched', 'sched', 'unknown', 'notready']);
});

test('§5.3: ready-and-doubled-up < ready-alone (rank from active related pods on the same node)', () => {
  const doubled = pod({ name: 'doubled', uid: 'u1', node: 'node-1' });
  const sibling = pod({ name: 'sibling', uid: 'u9', node: 'node-1' });
  const alone = pod({ name: 'alone', uid: 'u0', node: 'node-2' });
  assert.equal(cmp(doubled, alone, 2, 1), -1);
  assert.equal(cmp(alone, doubled, 1, 2), 1);
  // Upstream TestGetPodsToDelete shape: related pods include a pod of a sibling RS on node-1.
  const other = pod({ name: 'other-rs', uid: 'u8', node: 'node-1' });
  assert.deepEqual(rankPodsByRelatedPodsOnSameNode([doubled, alone], [doubled, alone, other]), [2, 1]);
  assert.deepEqual(names(getPodsToDelete([alone, doubled], [doubled, alone, other], 1, NOW)), ['doubled']);
  // Without the co-located related pod they tie on rank and fall through to later rules (all equal → input order).
  assert.deepEqual(names(getPodsToDelete([alone, doubled], [alone, doubled], 1, NOW)), ['alone']);
  assert.deepEqual(rankPodsByRelatedPodsOnSameNode([doubled, sibling, alone], [doubled, sibling, alone]), [2, 2, 1]);
});

test('§5.3: recently-ready < long-ready', () => {
  const recent = pod({ name: 'recent', uid: 'u1', node: 'node-1', readyAt: NOW - MIN });
  const old = pod({ name: 'old', uid: 'u0', node: 'node-1', readyAt: NOW - 10 * DAY });
  assert.equal(cmp(recent, old), -1);
  assert.equal(cmp(old, recent), 1);
  assert.deepEqual(names(getPodsToDelete([old, recent], [old, recent], 1, NOW)), ['recent']);
});

test('§5.3: many-restarts < few-restarts', () => {
  const many = pod({ name: 'many', uid: 'u1', node: 'node-1', restarts: 7 });
  const few = pod({ name: 'few', uid: 'u0', node: 'node-1', restarts: 1 });
  assert.equal(cmp(many, few), -1);
  assert.equal(cmp(few, many), 1);
  assert.deepEqual(names(getPodsToDelete([few, many], [few, many], 1, NOW)), ['many']);
});

test('§5.3: low-deletion-cost < high-deletion-cost, even when the high-cost pod has a higher rank', () => {
  const cheap = pod({ name: 'cheap', uid: 'u1', node: 'node-1', cost: '-100' });
  const costly = pod({ name: 'costly', uid: 'u0', node: 'node-2', cost: '100' });
  assert.equal(cmp(cheap, costly, 1, 3), -1);
  assert.equal(cmp(costly, cheap, 3, 1), 1);
  const n2a = pod({ name: 'n2a', uid: 'u2', node: 'node-2', cost: '100' });
  const n2b = pod({ name: 'n2b', uid: 'u3', node: 'node-2', cost: '100' });
  const all = [costly, n2a, n2b, cheap];
  assert.deepEqual(rankPodsByRelatedPodsOnSameNode(all, all), [3, 3, 3, 1]);
  assert.deepEqual(names(getPodsToDelete(all, all, 1, NOW)), ['cheap']);
  // Invalid cost values count as 0: "+5" (0) sorts before "1".
  const plus = pod({ name: 'plus', uid: 'u7', node: 'node-1', cost: '+5' });
  const one = pod({ name: 'one', uid: 'u6', node: 'node-1', cost: '1' });
  assert.equal(cmp(plus, one), -1);
});

test('deletion cost is only consulted after readiness: a not-ready high-cost pod still goes first', () => {
  const notReadyCostly = pod({ name: 'nr', uid: 'u1', node: 'node-1', ready: false, cost: '1000' });
  const readyCheap = pod({ name: 'rc', uid: 'u0', node: 'node-1', cost: '-1000' });
  assert.equal(cmp(notReadyCostly, readyCheap), -1);
});

test('unassigned-first applies only when exactly one pod is unassigned', () => {
  const n1 = pod({ name: 'n1', uid: 'u1', node: 'node-1', phase: 'Pending', ready: false });
  const n2 = pod({ name: 'n2', uid: 'u2', node: 'node-2', phase: 'Running', ready: false });
  assert.equal(cmp(n1, n2), -1); // decided by phase, not by node
  const unassignedRunning = pod({ name: 'ur', uid: 'u3', phase: 'Running', ready: false });
  assert.equal(cmp(unassignedRunning, n1), -1); // unassigned beats Pending-on-a-node
});

test('phases other than Pending/Unknown/Running count as Pending (ordinal 0)', () => {
  const empty = pod({ name: 'empty', uid: 'u1', node: 'node-1', phase: '', ready: false });
  const pending = pod({ name: 'pending', uid: 'u2', node: 'node-1', phase: 'Pending', ready: false });
  const unknown = pod({ name: 'unknown', uid: 'u3', node: 'node-1', phase: 'Unknown', ready: false });
  assert.equal(cmp(empty, unknown), -1);
  // Same ordinal → falls through to later rules (equal here except uid/creation, which are equal in time).
  assert.equal(cmp(empty, pending), 0);
});

test('same ready-time log bucket: lexicographically smaller UID first, even if it is the older one', () => {
  const olderSmallUid = pod({ name: 'older', uid: '1a2b3c4d-0000-4000-8000-000000000001', node: 'node-1', readyAt: NOW - 110 * SEC });
  const newerBigUid = pod({ name: 'newer', uid: 'f0e1d2c3-0000-4000-8000-000000000002', node: 'node-1', readyAt: NOW - 100 * SEC });
  assert.equal(logarithmicBucket(NOW - 110 * SEC, NOW), logarithmicBucket(NOW - 100 * SEC, NOW));
  assert.equal(cmp(olderSmallUid, newerBigUid), -1);
  assert.equal(cmp(newerBigUid, olderSmallUid), 1);
  // Different buckets: the more recent one wins regardless of UID.
  const olderDifferentBucket = pod({ name: 'older2', uid: '0000', node: 'node-1', readyAt: NOW - 140 * SEC });
  assert.equal(cmp(newerBigUid, olderDifferentBucket), -1);
  // Without a usable Now the plain time comparison applies: newer first.
  assert.equal(cmp(newerBigUid, olderSmallUid, 0, 0, Number.NaN), -1);
});

test('a ready pod with no Ready transition time (zero time) goes first', () => {
  const zero = pod({ name: 'zero', uid: 'u9', node: 'node-1', readyAt: null });
  const timed = pod({ name: 'timed', uid: 'u0', node: 'node-1', readyAt: NOW - MIN });
  assert.equal(cmp(zero, timed), -1);
  assert.equal(cmp(timed, zero), 1);
});

test('restart tiebreak: equal regular restarts → more sidecar restarts first; plain init containers ignored', () => {
  const sidecarFlaky = pod({ name: 'sc', uid: 'u1', node: 'node-1', restarts: 2, sidecarRestarts: 5 });
  const plain = pod({ name: 'plain', uid: 'u0', node: 'node-1', restarts: 2, sidecarRestarts: 0, plainInitRestarts: 50 });
  assert.equal(cmp(sidecarFlaky, plain), -1);
  assert.equal(cmp(plain, sidecarFlaky), 1);
  // Regular restarts dominate sidecar restarts.
  const regular = pod({ name: 'reg', uid: 'u2', node: 'node-1', restarts: 3, sidecarRestarts: 0 });
  assert.equal(cmp(regular, sidecarFlaky), -1);
});

test('restart tiebreak before v1.32: sidecar restarts do not break the tie (the pods compare equal on rule 7)', () => {
  const sidecarFlaky = pod({ name: 'sc', uid: 'u1', node: 'node-1', restarts: 2, sidecarRestarts: 5 });
  const plain = pod({ name: 'plain', uid: 'u1', node: 'node-1', restarts: 2, sidecarRestarts: 0 });
  const old = { rankA: 0, rankB: 0, now: NOW, sidecarRestartTiebreak: false };
  assert.equal(comparePodsForDeletion(sidecarFlaky, plain, old), 0);
  assert.equal(comparePodsForDeletion(sidecarFlaky, plain, { ...old, sidecarRestartTiebreak: true }), -1);
  // getPodsToDelete then keeps the input order (a stable sort): the first listed goes.
  assert.deepEqual(names(getPodsToDelete([plain, sidecarFlaky], [plain, sidecarFlaky], 1, NOW, { sidecarRestartTiebreak: false })), ['plain']);
  assert.deepEqual(names(getPodsToDelete([plain, sidecarFlaky], [plain, sidecarFlaky], 1, NOW)), ['sc']);
});

test('creation time: newer first across buckets; same bucket → smaller UID first', () => {
  const common = { node: 'node-1', readyAt: NOW - 10 * DAY };
  const newer = pod({ name: 'newer', uid: 'ffff', created: NOW - HOUR, ...common });
  const older = pod({ name: 'older', uid: '0000', created: NOW - 5 * DAY, ...common });
  assert.equal(cmp(newer, older), -1);
  const sameBucketA = pod({ name: 'a', uid: 'aaaa', created: NOW - 100 * SEC, ...common });
  const sameBucketB = pod({ name: 'b', uid: 'bbbb', created: NOW - 110 * SEC, ...common });
  assert.equal(cmp(sameBucketA, sameBucketB), -1);
  assert.equal(cmp(sameBucketB, sameBucketA), 1);
  const sameBucketC = pod({ name: 'c', uid: '0000', created: NOW - 100 * SEC, ...common });
  assert.equal(cmp(sameBucketB, sameBucketC), 1);
  const noCreation: Pod = { ...older, metadata: { ...older.metadata, creationTimestamp: null } };
  assert.equal(cmp(noCreation, newer), -1);
});

test('identical pods compare equal (0)', () => {
  const a = pod({ name: 'a', uid: 'same', node: 'node-1' });
  const b = pod({ name: 'b', uid: 'same', node: 'node-1' });
  assert.equal(cmp(a, b), 0);
  // Equal timestamps skip the UID rule entirely, so different UIDs still tie.
  const c = pod({ name: 'c', uid: 'zzz', node: 'node-1' });
  assert.equal(cmp(a, c), 0);
});

test('§11 case 17: A unscheduled+pending, B scheduled+pending, C running not-ready, D ready; 4→1 deletes A, B, C', () => {
  const A = pod({ name: 'a', uid: '9f6c1b2e-0001-4a00-8000-00000000000a', phase: 'Pending', ready: false });
  const B = pod({ name: 'b', uid: '9f6c1b2e-0002-4a00-8000-00000000000b', node: 'node-1', phase: 'Pending', ready: false });
  const C = pod({ name: 'c', uid: '9f6c1b2e-0003-4a00-8000-00000000000c', node: 'node-1', phase: 'Running', ready: false });
  const D = pod({ name: 'd', uid: '9f6c1b2e-0004-4a00-8000-00000000000d', node: 'node-2', phase: 'Running', ready: true });
  const active = [D, C, B, A];
  const got = getPodsToDelete(active, active, 3, NOW);
  assert.deepEqual(names(got), ['a', 'b', 'c']);
  assert.deepEqual(got.map((p) => `${p.metadata.namespace}/${p.metadata.name}`), [
    'shop/web-7d9c6b8f5d-a',
    'shop/web-7d9c6b8f5d-b',
    'shop/web-7d9c6b8f5d-c',
  ]);
  assert.deepEqual(names(active), ['d', 'c', 'b', 'a'], 'input not mutated');
});

test('getPodsToDelete: n >= len takes list order without sorting; n <= 0 takes nothing', () => {
  const A = pod({ name: 'a', uid: 'u1', phase: 'Pending', ready: false });
  const D = pod({ name: 'd', uid: 'u4', node: 'node-2' });
  assert.deepEqual(names(getPodsToDelete([D, A], [D, A], 2, NOW)), ['d', 'a']);
  assert.deepEqual(names(getPodsToDelete([D, A], [D, A], 5, NOW)), ['d', 'a']);
  assert.deepEqual(getPodsToDelete([D, A], [D, A], 0, NOW), []);
  assert.deepEqual(getPodsToDelete([], [], 3, NOW), []);
});

test('ranks count only active related pods; unassigned pods share the "" node', () => {
  const p1 = pod({ name: 'p1', uid: 'u1', node: 'node-1' });
  const p2 = pod({ name: 'p2', uid: 'u2', node: 'node-2' });
  const u1 = pod({ name: 'u1', uid: 'u3', phase: 'Pending', ready: false });
  const u2 = pod({ name: 'u2', uid: 'u4', phase: 'Pending', ready: false });
  const failed = pod({ name: 'failed', uid: 'u5', node: 'node-2', phase: 'Failed', ready: false });
  const done = pod({ name: 'done', uid: 'u6', node: 'node-2', phase: 'Succeeded', ready: false });
  const terminating = pod({ name: 'term', uid: 'u7', node: 'node-2', deleting: true });
  const related = [p1, p2, u1, u2, failed, done, terminating];
  assert.deepEqual(rankPodsByRelatedPodsOnSameNode([p1, p2, u1, u2], related), [1, 1, 2, 2]);
  const extra = pod({ name: 'extra', uid: 'u8', node: 'node-2' });
  assert.deepEqual(rankPodsByRelatedPodsOnSameNode([p1, p2], [...related, extra]), [1, 2]);
  assert.deepEqual(names(getPodsToDelete([p1, p2], [...related, extra], 1, NOW)), ['p2']);
  assert.deepEqual(rankPodsByRelatedPodsOnSameNode([p1], []), [0]);
});

test('stable sort: fully tied pods keep their input order', () => {
  const x = pod({ name: 'x', uid: 'same', node: 'node-1' });
  const y = pod({ name: 'y', uid: 'same', node: 'node-1' });
  const z = pod({ name: 'z', uid: 'same', node: 'node-1' });
  const notReady = pod({ name: 'nr', uid: 'same', node: 'node-1', ready: false });
  assert.deepEqual(names(getPodsToDelete([x, y, notReady, z], [x, y, notReady, z], 3, NOW)), ['nr', 'x', 'y']);
});

test('getPodsToDelete with times parsed once per pod: the same victims as a sort comparing the pods themselves', () => {
  // Random populations where rules 6 and 8 decide (ready and creation times in a few log buckets,
  // some equal, some missing), against a stable sort with comparePodsForDeletion parsing per comparison.
  let seed = 7;
  const r = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  let decided = 0;
  for (let round = 0; round < 40; round++) {
    const pods: Pod[] = [];
    for (let i = 0; i < 30; i++) {
      const created = NOW - Math.floor(r() * 8) * 7 * MIN - Math.floor(r() * 3) * SEC;
      pods.push(pod({ name: `p${i}`, uid: `uid-${Math.floor(r() * 1000)}`, node: `node-${Math.floor(r() * 3)}`, created, readyAt: r() < 0.1 ? null : created + Math.floor(r() * 5) * MIN, restarts: r() < 0.1 ? 1 : 0 }));
    }
    for (const n of [1, 3, 10, 29]) {
      const ranks = rankPodsByRelatedPodsOnSameNode(pods, pods);
      const want = pods
        .map((p, i) => ({ p, rank: ranks[i]! }))
        .sort((x, y) => comparePodsForDeletion(x.p, y.p, { rankA: x.rank, rankB: y.rank, now: NOW }))
        .slice(0, n)
        .map((x) => x.p);
      assert.deepEqual(names(getPodsToDelete(pods, pods, n, NOW)), names(want), `round ${round} n ${n}`);
      if (n === 3 && names(want).join() !== names(pods.slice(0, 3)).join()) decided++;
    }
    // The comparator itself, both ways round, with and without the parsed times.
    for (let i = 0; i + 1 < pods.length; i++) {
      const [a, b] = [pods[i]!, pods[i + 1]!];
      const ctx = { rankA: 1, rankB: 1, now: NOW };
      assert.equal(comparePodsForDeletion(a, b, { ...ctx, timesA: podRankTimes(a), timesB: podRankTimes(b) }), comparePodsForDeletion(a, b, ctx));
      assert.equal(comparePodsForDeletion(b, a, { ...ctx, timesA: podRankTimes(b), timesB: podRankTimes(a) }), comparePodsForDeletion(b, a, ctx));
    }
  }
  assert.ok(decided > 30, `the sort reordered in ${decided} of 40 rounds`);
});
