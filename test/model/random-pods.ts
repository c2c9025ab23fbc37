/**
 * Random pod populations for the tests of the pod cache and the counts kept beside it
 * (pod-store.test.ts, replicaset/pod-counts.test.ts): pods in a few namespaces, with labels
 * `app-0…2`, and ownerReferences that are absent, not a controller, a controllerRef to one of
 * OWNERS (sometimes of another kind or under a name that does not go with the UID), or a
 * ConfigMap beside it. Deterministic for a given `rng` (test/fuzz/mutate.ts).
 */
import type { OwnerReference, Pod } from '../../src/model/objects.js';

/** The owners controllerRefs point at. */
export const OWNERS = [0, 1, 2, 3].map((i) => ({ name: `rs-${i}`, uid: `uid-${i}` }));

/** ownerReferences for a random pod: none (orphan), a non-controller owner, or a controllerRef, sometimes beside a ConfigMap. */
export function randomRefs(r: () => number): OwnerReference[] | undefined {
  const x = r();
  if (x < 0.25) return undefined; // orphan
  const o = OWNERS[Math.floor(r() * OWNERS.length)]!;
  const kind = r() < 0.85 ? 'ReplicaSet' : 'StatefulSet';
  // Sometimes a name that does not go with the UID (kind/name/UID indexing must tell it apart).
  const name = r() < 0.9 ? o.name : `other-${Math.floor(r() * 3)}`;
  const ctrl: OwnerReference = { apiVersion: 'apps/v1', kind, name, uid: o.uid, controller: true };
  if (x < 0.35) return [{ ...ctrl, controller: false }]; // an owner that is not the controller: an orphan
  return r() < 0.2 ? [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'cm' }, ctrl] : [ctrl];
}

/** A random running (sometimes succeeded) pod `name` in `ns`, ready or not. */
export function randomPod(r: () => number, name: string, ns: string | undefined): Pod {
  return {
    metadata: { name, namespace: ns, uid: `${name}-${Math.floor(r() * 1e9)}`, labels: { app: `app-${Math.floor(r() * 3)}` }, ownerReferences: randomRefs(r) },
    status: { phase: r() < 0.1 ? 'Succeeded' : 'Running', conditions: [{ type: 'Ready', status: r() < 0.5 ? 'True' : 'False' }] },
    ...(r() < 0.1 ? {} : {}),
  } as Pod;
}
