/**
 * The informer (src/model/controller/informer.ts) against client-go's processDeltas: which
 * handler each watch event reaches, that the store changes before the handler runs, tombstones
 * for missed deletes, the listener told of every change before it is made, and withhold/restore,
 * which change the store without running any handler.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { objectKey, type Pod } from '../../../src/model/objects.js';
import { Informer } from '../../../src/model/controller/informer.js';
import { isTombstone, type Tombstone } from '../../../src/model/controller/tombstone.js';

const pod = (name: string, rv: string, ns = 'd'): Pod => ({ metadata: { namespace: ns, name, uid: `${name}-uid`, resourceVersion: rv } });

interface Setup {
  store: Map<string, Pod>;
  informer: Informer<Pod>;
  /** Handler calls, each with what the store held for the key when it ran. */
  calls: string[];
  /** Listener calls: old rv → cur rv (– for none), and whether the store still held `old` then. */
  changes: string[];
}

function setup(): Setup {
  const store = new Map<string, Pod>();
  const calls: string[] = [];
  const changes: string[] = [];
  const held = (p: Pod): string => store.get(objectKey(p.metadata))?.metadata.resourceVersion ?? 'none';
  const informer = new Informer<Pod>(
    store,
    {
      onAdd: (p, at) => calls.push(`add ${p.metadata.name}@${p.metadata.resourceVersion} t=${at} store=${held(p)}`),
      onUpdate: (old, cur, at) => calls.push(`update ${cur.metadata.name} ${old.metadata.resourceVersion}->${cur.metadata.resourceVersion} t=${at} store=${held(cur)}`),
      onDelete: (obj: Pod | Tombstone<Pod>, at) => {
        const p = isTombstone(obj) ? obj.obj : obj;
        calls.push(`${isTombstone(obj) ? `tombstone ${obj.key}` : 'delete'} ${p.metadata.name}@${p.metadata.resourceVersion} t=${at} store=${held(p)}`);
      },
    },
    (old, cur, obj) => changes.push(`${old?.metadata.resourceVersion ?? '–'}->${cur?.metadata.resourceVersion ?? '–'} (${obj.metadata.name}, store=${held(obj)})`),
  );
  return { store, informer, calls, changes };
}

test('ADDED/MODIFIED: add for a key not held, update for a held one, after the store changed', () => {
  const s = setup();
  s.informer.deliver('ADDED', pod('a', '1'), 10);
  s.informer.deliver('MODIFIED', pod('a', '2'), 20);
  // A relist's ADDED of a key the store holds is an update (processDeltas looks only at the store).
  s.informer.deliver('ADDED', pod('a', '3'), 30);
  // A MODIFIED of a key the store never had is an add.
  s.informer.deliver('MODIFIED', pod('b', '7'), 40);
  assert.deepEqual(s.calls, [
    'add a@1 t=10 store=1',
    'update a 1->2 t=20 store=2',
    'update a 2->3 t=30 store=3',
    'add b@7 t=40 store=7',
  ]);
  assert.deepEqual([...s.store.keys()], ['d/a', 'd/b']);
  assert.equal(s.store.get('d/a')!.metadata.resourceVersion, '3');
});

test('DELETED: the store drops the key, then the delete handler runs — also for a key it never held', () => {
  const s = setup();
  s.informer.deliver('ADDED', pod('a', '1'), 10);
  s.informer.deliver('DELETED', pod('a', '2'), 20);
  s.informer.deliver('DELETED', pod('ghost', '5'), 30);
  assert.deepEqual(s.calls.slice(1), ['delete a@2 t=20 store=none', 'delete ghost@5 t=30 store=none']);
  assert.equal(s.store.size, 0);
});

test('deliverTombstone: DeletedFinalStateUnknown with the stale object, keyed namespace/name', () => {
  const s = setup();
  s.informer.deliver('ADDED', pod('a', '1'), 10);
  s.informer.deliverTombstone(pod('a', '1'), 50);
  assert.deepEqual(s.calls.slice(1), ['tombstone d/a a@1 t=50 store=none']);
  assert.equal(s.store.has('d/a'), false);
});

test('the listener is told of each change before it is made: old → cur, undefined for none', () => {
  const s = setup();
  s.informer.deliver('ADDED', pod('a', '1'), 10);
  s.informer.deliver('MODIFIED', pod('a', '2'), 20);
  s.informer.deliver('DELETED', pod('a', '2'), 30);
  s.informer.deliver('ADDED', pod('b', '4'), 40);
  s.informer.deliverTombstone(pod('b', '3'), 50);
  assert.deepEqual(s.changes, [
    '–->1 (a, store=none)',
    '1->2 (a, store=1)',
    '2->– (a, store=2)',
    '–->4 (b, store=none)',
    // The tombstone's object is stale (rv 3): the listener gets the cached one as `old`.
    '4->– (b, store=4)',
  ]);
});

test('withhold and restore change the store without running any handler', () => {
  const s = setup();
  s.informer.deliver('ADDED', pod('a', '1'), 10);
  s.informer.deliver('ADDED', pod('b', '2'), 10);
  const handlerCalls = s.calls.length;
  const a = s.informer.withhold('d/a');
  assert.equal(a?.metadata.resourceVersion, '1');
  assert.equal(s.store.has('d/a'), false);
  assert.equal(s.informer.withhold('d/a'), undefined, 'nothing left to withhold');
  assert.equal(s.informer.withhold('d/none'), undefined);
  s.informer.restore(a!);
  assert.equal(s.store.get('d/a'), a);
  assert.deepEqual([...s.store.keys()], ['d/b', 'd/a'], 'back at the end of the cache order');
  // A restore of a key the cache holds again is a no-op: the cached object stays.
  const newer = pod('a', '9');
  s.informer.restore(newer);
  assert.equal(s.store.get('d/a'), a);
  assert.equal(s.calls.length, handlerCalls, 'no handler ran');
  assert.deepEqual(s.changes.slice(2), ['1->– (a, store=1)', '–->1 (a, store=none)']);
});

test('without a listener the informer delivers the same way', () => {
  const store = new Map<string, Pod>();
  const seen: string[] = [];
  const i = new Informer<Pod>(store, { onAdd: (p) => seen.push(`add ${p.metadata.name}`), onUpdate: (_o, p) => seen.push(`update ${p.metadata.name}`), onDelete: () => seen.push('delete') });
  i.deliver('ADDED', pod('a', '1'), 1);
  i.deliver('MODIFIED', pod('a', '2'), 2);
  i.deliver('DELETED', pod('a', '2'), 3);
  i.restore(pod('x', '1'));
  assert.equal(i.withhold('d/x')?.metadata.name, 'x');
  assert.deepEqual(seen, ['add a', 'update a', 'delete']);
  assert.equal(store.size, 0);
});
