/**
 * The per-ReplicaSet pod counts (src/model/replicaset/pod-counts.ts): each rule of what a pod
 * contributes (owned and matching, ready, terminating, to be claimed, another owner's), the
 * rebuild on a selector or UID change, and — through the controller that keeps them — equality
 * with a scan of the cache on random populations after every kind of delivery.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { controllerRefOf, objectKey, type Pod, type ReplicaSet } from '../../../src/model/objects.js';
import { PodStore } from '../../../src/model/pod-store.js';
import { ReplicaSetPodCounts } from '../../../src/model/replicaset/pod-counts.js';
import { ReplicaSetController } from '../../../src/model/replicaset/replicaset-controller.js';
import type { PodControl } from '../../../src/model/controller/pod-control.js';
import { compileLabelSelector } from '../../../src/model/selector.js';
import { isPodActive, isPodReady } from '../../../src/model/pod-ranking.js';
import { parseK8sVersion } from '../../../src/model/version.js';
import { rng } from '../../fuzz/mutate.js';
import { OWNERS, randomPod } from '../random-pods.js';

const rsOf = (name: string, uid: string, app: string, ns = 'a'): ReplicaSet =>
  ({ metadata: { namespace: ns, name, uid }, spec: { replicas: 1, selector: { matchLabels: { app } } } }) as ReplicaSet;

function podOf(name: string, o: { app?: string; owner?: string; ready?: boolean; phase?: string; deleting?: boolean; ns?: string } = {}): Pod {
  return {
    metadata: {
      name,
      namespace: o.ns ?? 'a',
      uid: `${name}-uid`,
      labels: { app: o.app ?? 'web' },
      ...(o.owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'x', uid: o.owner, controller: true }] } : {}),
      ...(o.deleting ? { deletionTimestamp: '2025-03-10T09:00:00Z' } : {}),
    },
    status: { phase: o.phase ?? 'Running', conditions: [{ type: 'Ready', status: o.ready ? 'True' : 'False' }] },
  } as Pod;
}

/** Puts a pod in the cache the way the informer does: the counts are told first. */
function put(store: PodStore, counts: ReplicaSetPodCounts, p: Pod): void {
  const key = objectKey(p.metadata);
  counts.podChanged(p.metadata.namespace ?? '', store.get(key), p);
  store.set(key, p);
}

function remove(store: PodStore, counts: ReplicaSetPodCounts, key: string): void {
  const old = store.get(key);
  counts.podChanged(key.slice(0, key.indexOf('/')), old, undefined);
  store.delete(key);
}

test('ReplicaSetPodCounts: what each pod contributes to the aggregate of its ReplicaSet', () => {
  const store = new PodStore();
  const counts = new ReplicaSetPodCounts(store);
  counts.replicaSetChanged('a/web', rsOf('web', 'u1', 'web'));
  assert.deepEqual(counts.counts('a/web'), { active: 0, ready: 0, terminating: 0 });
  put(store, counts, podOf('owned-ready', { owner: 'u1', ready: true }));
  put(store, counts, podOf('owned', { owner: 'u1' }));
  put(store, counts, podOf('owned-other-labels', { owner: 'u1', app: 'db' }));
  put(store, counts, podOf('orphan-matching'));
  put(store, counts, podOf('orphan-other-labels', { app: 'db' }));
  put(store, counts, podOf('another-owner', { owner: 'u2' }));
  put(store, counts, podOf('terminating', { owner: 'u1', deleting: true, phase: 'Running' }));
  put(store, counts, podOf('succeeded', { owner: 'u1', phase: 'Succeeded' }));
  put(store, counts, podOf('other-namespace', { owner: 'u1', ns: 'b' }));
  assert.deepEqual(counts.counts('a/web'), { active: 2, ready: 1, terminating: 1 });
  const agg = counts.aggregate('a/web')!;
  assert.equal(agg.needsClaim, 2, 'the owned pod that no longer matches and the matching orphan');
  assert.equal(agg.uid, 'u1');
  // An update replaces the old share: the pod becomes ready, then is released.
  put(store, counts, podOf('owned', { owner: 'u1', ready: true }));
  assert.deepEqual(counts.counts('a/web'), { active: 2, ready: 2, terminating: 1 });
  put(store, counts, podOf('owned', { ready: true }));
  assert.deepEqual(counts.counts('a/web'), { active: 1, ready: 1, terminating: 1 });
  assert.equal(counts.aggregate('a/web')!.needsClaim, 3);
  remove(store, counts, 'a/terminating');
  remove(store, counts, 'a/orphan-matching');
  assert.deepEqual(counts.counts('a/web'), { active: 1, ready: 1, terminating: 0 });
  assert.equal(counts.aggregate('a/web')!.needsClaim, 2);
});

test('ReplicaSetPodCounts: a selector or UID change rebuilds the aggregate from the cache; a deletion drops it', () => {
  const store = new PodStore();
  const counts = new ReplicaSetPodCounts(store);
  put(store, counts, podOf('w1', { owner: 'u1', ready: true }));
  put(store, counts, podOf('d1', { owner: 'u1', app: 'db' }));
  // Pods cached before the ReplicaSet is delivered are counted when it is.
  counts.replicaSetChanged('a/web', rsOf('web', 'u1', 'web'));
  assert.deepEqual(counts.counts('a/web'), { active: 1, ready: 1, terminating: 0 });
  const before = counts.aggregate('a/web');
  counts.replicaSetChanged('a/web', rsOf('web', 'u1', 'web'));
  assert.equal(counts.aggregate('a/web'), before, 'same UID and selector: kept as is');
  counts.replicaSetChanged('a/web', rsOf('web', 'u1', 'db'));
  assert.deepEqual(counts.counts('a/web'), { active: 1, ready: 0, terminating: 0 });
  counts.replicaSetChanged('a/web', rsOf('web', 'u9', 'db'));
  assert.deepEqual(counts.counts('a/web'), { active: 0, ready: 0, terminating: 0 }, 'the pods are controlled by the old UID');
  // A pod of the old UID no longer counts for the new one.
  put(store, counts, podOf('d2', { owner: 'u1', app: 'db' }));
  put(store, counts, podOf('d3', { owner: 'u9', app: 'db' }));
  assert.deepEqual(counts.counts('a/web'), { active: 1, ready: 0, terminating: 0 });
  counts.replicaSetChanged('a/web', undefined);
  assert.equal(counts.counts('a/web'), undefined);
  assert.equal(counts.aggregate('a/web'), undefined);
  put(store, counts, podOf('d4', { owner: 'u9', app: 'db' }));
  assert.equal(counts.counts('a/web'), undefined, 'a dropped ReplicaSet is not counted for again');
});

const noCalls: PodControl<ReplicaSet> = {
  createPod: () => ({ ok: true }),
  deletePod: () => ({ ok: true }),
  getFreshOwner: (rs) => rs,
  patchPod: () => 'ok',
};

test('ReplicaSetController: per-ReplicaSet counts kept per pod delivery equal a scan of the cache', () => {
  for (let seed = 1; seed <= 10; seed++) {
    const r = rng(1000 + seed);
    const c = new ReplicaSetController({ version: parseK8sVersion('1.33.0'), podControl: noCalls, recordClaimDecisions: false });
    const rss = OWNERS.flatMap((o) => (['a', 'b'] as const).map((ns) => ({
      metadata: { namespace: ns, name: o.name, uid: ns === 'a' ? o.uid : `${o.uid}-b`, resourceVersion: '1' },
      spec: { replicas: 2, selector: { matchLabels: { app: `app-${Number(o.uid.slice(-1)) % 3}` } } },
    }) as ReplicaSet));
    let at = Date.parse('2025-03-10T09:00:00Z');
    for (const rs of rss) c.deliverOwner('ADDED', rs, at);
    let rv = 10;
    for (let op = 0; op < 800; op++) {
      at += 10;
      const ns = r() < 0.5 ? 'a' : 'b';
      const name = `p${Math.floor(r() * 40)}`;
      const key = `${ns}/${name}`;
      const x = r();
      if (x < 0.15) {
        const old = c.pods.get(key);
        if (old) c.deliverPod('DELETED', old, at);
      } else if (x < 0.2) {
        // A selector change rebuilds one aggregate from the namespace's pods.
        const rs = rss[Math.floor(r() * rss.length)]!;
        const next = { ...rs, metadata: { ...rs.metadata, resourceVersion: String(++rv) }, spec: { ...rs.spec, selector: { matchLabels: { app: `app-${Math.floor(r() * 3)}` } } } } as ReplicaSet;
        rss[rss.indexOf(rs)] = next;
        c.deliverOwner('MODIFIED', next, at);
      } else {
        const p = randomPod(r, name, ns);
        // Controllers in namespace b carry the "-b" UIDs.
        for (const ref of p.metadata.ownerReferences ?? []) if (ns === 'b' && ref.uid.startsWith('uid-')) ref.uid = `${ref.uid}-b`;
        if (r() < 0.1) p.metadata.deletionTimestamp = new Date(at).toISOString();
        p.metadata.resourceVersion = String(++rv);
        c.deliverPod(c.pods.has(key) ? 'MODIFIED' : 'ADDED', p, at);
      }
      c.runDue(at);
      if (op % 20 !== 0) continue;
      for (const rs of rss) {
        const matches = compileLabelSelector(rs.spec!.selector);
        let active = 0;
        let ready = 0;
        let terminating = 0;
        for (const p of Map.prototype.values.call(c.pods) as IterableIterator<Pod>) {
          if (p.metadata.namespace !== rs.metadata.namespace || controllerRefOf(p.metadata)?.uid !== rs.metadata.uid || !matches(p.metadata.labels)) continue;
          if (isPodActive(p)) {
            active++;
            if (isPodReady(p)) ready++;
          } else if (p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed') terminating++;
        }
        assert.deepEqual(c.podCounts(objectKey(rs.metadata)), { active, ready, terminating }, `seed ${seed} op ${op} ${objectKey(rs.metadata)}`);
      }
    }
  }
});
