/**
 * The pod cache's indexes (src/model/pod-store.ts) against the full scans they replace, on random
 * pod populations: pods added, updated with other labels and ownerReferences (a controllerRef
 * added, removed, moved to another owner), deleted and added again, in three namespaces (one of
 * them absent). Every index answer must be the same pods in the same order as the scan over the
 * whole cache in insertion order — the order the ReplicaSet model ranks and adopts in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PodStore } from '../../src/model/pod-store.js';
import { controllerRefOf, type Pod, type ReplicaSet } from '../../src/model/objects.js';
import { rng } from '../fuzz/mutate.js';
import { OWNERS, randomPod, randomRefs } from './random-pods.js';

const NAMESPACES = ['a', 'b', undefined] as const;

/** The scan candidatePods did before the index: every cached pod, in cache order. */
function scanCandidates(all: Pod[], rs: ReplicaSet, mode: false | 'uid' | 'kind-name-uid'): Pod[] {
  const ns = rs.metadata.namespace;
  const out: Pod[] = [];
  for (const p of all) {
    if (p.metadata.namespace !== ns) continue;
    if (mode) {
      const ref = controllerRefOf(p.metadata);
      if (ref && mode === 'uid' && ref.uid !== rs.metadata.uid) continue;
      if (ref && mode === 'kind-name-uid' && !(ref.kind === 'ReplicaSet' && ref.name === rs.metadata.name && ref.uid === rs.metadata.uid)) continue;
    }
    out.push(p);
  }
  return out;
}

function indexedCandidates(store: PodStore, rs: ReplicaSet, mode: false | 'uid' | 'kind-name-uid'): Pod[] {
  const ns = rs.metadata.namespace;
  if (!mode) return [...store.inNamespace(ns)];
  if (mode === 'uid') return store.ownedAndOrphans(ns, rs.metadata.uid);
  return store.ownedAndOrphans(ns, rs.metadata.uid, (p) => controllerRefOf(p.metadata)!.kind === 'ReplicaSet' && controllerRefOf(p.metadata)!.name === rs.metadata.name);
}

const names = (ps: Pod[]) => ps.map((p) => `${p.metadata.namespace}/${p.metadata.name}#${p.metadata.uid}`);

test('PodStore: indexed candidates equal the full scan, same order, on random populations', () => {
  let compared = 0;
  let nonEmpty = 0;
  let orphanLists = 0;
  let labelLists = 0;
  for (let seed = 1; seed <= 25; seed++) {
    const r = rng(seed);
    const store = new PodStore();
    for (let op = 0; op < 1500; op++) {
      const ns = NAMESPACES[Math.floor(r() * NAMESPACES.length)];
      const name = `p${Math.floor(r() * 60)}`;
      const key = `${ns ?? ''}/${name}`;
      const x = r();
      if (x < 0.2) store.delete(key);
      else if (x < 0.3 && store.has(key)) {
        // Relabel or re-own the cached pod in place (an UPDATE): keeps its place in the cache.
        const old = store.get(key)!;
        store.set(key, { ...old, metadata: { ...old.metadata, ownerReferences: randomRefs(r), labels: { app: `app-${Math.floor(r() * 3)}` } } });
      } else store.set(key, randomPod(r, name, ns));
      if (op % 25 !== 0) continue;
      const all = [...Map.prototype.values.call(store)] as Pod[];
      assert.equal(store.size, all.length);
      for (const rsNs of NAMESPACES) {
        for (const o of [...OWNERS, { name: 'none', uid: 'uid-none' }]) {
          const rs = { metadata: { namespace: rsNs, name: o.name, uid: o.uid } } as ReplicaSet;
          for (const mode of [false, 'uid', 'kind-name-uid'] as const) {
            const want = scanCandidates(all, rs, mode);
            assert.deepEqual(names(indexedCandidates(store, rs, mode)), names(want), `seed ${seed} op ${op} ns ${rsNs} ${o.name} ${mode}`);
            compared++;
            if (want.length > 1) nonEmpty++;
          }
          const owned = all.filter((p) => p.metadata.namespace === rsNs && controllerRefOf(p.metadata)?.uid === o.uid);
          assert.deepEqual(names([...store.controlledBy(rsNs, o.uid)]), names(owned), `seed ${seed} op ${op} controlledBy`);
        }
        assert.equal(store.countInNamespace(rsNs), all.filter((p) => p.metadata.namespace === rsNs).length);
        for (const app of ['app-0', 'app-1', 'app-2', 'app-9']) {
          // Built at the first check, then kept through every later set and delete.
          const want = all.filter((p) => p.metadata.namespace === rsNs && p.metadata.labels?.app === app).map((p) => `${p.metadata.namespace ?? ''}/${p.metadata.name}`);
          assert.deepEqual([...store.labelled(rsNs, 'app', app)].sort(), want.sort(), `seed ${seed} op ${op} labelled ${app}`);
          if (want.length > 1) labelLists++;
        }
        const orphans = all.filter((p) => p.metadata.namespace === rsNs && !controllerRefOf(p.metadata));
        assert.deepEqual(names([...store.orphansIn(rsNs)]), names(orphans), `seed ${seed} op ${op} orphansIn`);
        if (orphans.length > 1) orphanLists++;
      }
    }
  }
  // The comparison is not vacuous: thousands of lists, most with several pods.
  assert.ok(compared > 20_000, `compared ${compared}`);
  assert.ok(nonEmpty > compared / 2, `non-trivial ${nonEmpty} of ${compared}`);
  assert.ok(orphanLists > 100, `orphan lists of several pods: ${orphanLists}`);
  assert.ok(labelLists > 100, `label lists of several pods: ${labelLists}`);
});

test('PodStore.labelled: the label index starts again after clear()', () => {
  const store = new PodStore();
  const pod = (name: string, app: string) => ({ metadata: { name, namespace: 'a', labels: { app } } }) as Pod;
  store.set('a/p1', pod('p1', 'x'));
  assert.deepEqual([...store.labelled('a', 'app', 'x')], ['a/p1']);
  store.clear();
  assert.deepEqual([...store.labelled('a', 'app', 'x')], []);
  store.set('a/p2', pod('p2', 'x'));
  store.set('a/p2', pod('p2', 'y'));
  assert.deepEqual([...store.labelled('a', 'app', 'x')], []);
  assert.deepEqual([...store.labelled('a', 'app', 'y')], ['a/p2']);
  store.delete('a/p2');
  assert.deepEqual([...store.labelled('a', 'app', 'y')], []);
});

test('PodStore: a pod that changes owner keeps its place in the cache order of its new bucket', () => {
  const store = new PodStore();
  const pod = (name: string, uid?: string): Pod => ({ metadata: { name, namespace: 'a', uid: name, ownerReferences: uid ? [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid, controller: true }] : undefined } }) as Pod;
  store.set('a/p1', pod('p1', 'u1'));
  store.set('a/p2', pod('p2'));
  store.set('a/p3', pod('p3', 'u1'));
  store.set('a/p4', pod('p4'));
  // p3 is released (orphan), then p1 too: both go to the orphan bucket after p4 but must come back in cache order.
  store.set('a/p3', pod('p3'));
  store.set('a/p1', pod('p1'));
  assert.deepEqual(store.ownedAndOrphans('a', 'u1').map((p) => p.metadata.name), ['p1', 'p2', 'p3', 'p4']);
  // Deleted and added again: now last.
  store.delete('a/p1');
  store.set('a/p1', pod('p1', 'u1'));
  assert.deepEqual(store.ownedAndOrphans('a', 'u1').map((p) => p.metadata.name), ['p2', 'p3', 'p4', 'p1']);
  assert.deepEqual([...store.controlledBy('a', 'u1')].map((p) => p.metadata.name), ['p1']);
  store.clear();
  assert.equal(store.ownedAndOrphans('a', 'u1').length, 0);
  assert.equal(store.countInNamespace('a'), 0);
});

test('PodStore.counter: per-owner counts of the pods a predicate accepts equal a walk of the owner bucket', () => {
  const isActive = (p: Pod) => p.status?.phase !== 'Succeeded' && p.metadata.deletionTimestamp == null;
  for (let seed = 1; seed <= 20; seed++) {
    const r = rng(500 + seed);
    const store = new PodStore();
    // Pods cached before the counter is made are counted when it is.
    for (let i = 0; i < 10; i++) store.set(`a/pre${i}`, randomPod(r, `pre${i}`, 'a'));
    const counter = store.counter(isActive);
    assert.equal(store.counter(isActive), counter, 'one counter per predicate');
    for (let op = 0; op < 400; op++) {
      const ns = NAMESPACES[Math.floor(r() * NAMESPACES.length)];
      const name = `p${Math.floor(r() * 30)}`;
      const key = `${ns ?? ''}/${name}`;
      const x = r();
      if (x < 0.2) store.delete(key);
      else if (x < 0.22) store.clear();
      else {
        const p = randomPod(r, name, ns);
        if (r() < 0.15) p.metadata.deletionTimestamp = '2025-03-10T09:00:00Z';
        const old = store.get(key);
        // Half the updates keep the owner (the in-place path of set), the rest may move the pod.
        if (old && r() < 0.5) p.metadata.ownerReferences = old.metadata.ownerReferences;
        else if (r() < 0.3) p.metadata.ownerReferences = randomRefs(r);
        store.set(key, p);
      }
      for (const n of NAMESPACES) {
        for (const uid of [...OWNERS.map((o) => o.uid), 'cm', undefined]) {
          const walk = [...store.controlledBy(n, uid)].filter(isActive).length;
          assert.equal(counter.count(n, uid), walk, `seed ${seed} op ${op} ${n}/${uid}`);
        }
      }
    }
  }
});
