/**
 * The reconciliation of unexplained writes (src/analysis/engine/write-reconciler.ts) with small
 * fakes of the ledger, the model and the other stages: what it syncs, in which order it tries
 * the explanations, and what it records when none holds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ControllerExpectations } from '../../../src/model/expectations.js';
import type { SyncRecord } from '../../../src/model/controller/sync-record.js';
import { WorkQueue } from '../../../src/model/workqueue.js';
import { RsTracks } from '../../../src/analysis/engine/rs-track.js';
import { WriteReconciler } from '../../../src/analysis/engine/write-reconciler.js';
import type { ControllerWrite, WriteKind } from '../../../src/analysis/engine/write-ledger.js';
import type { TimelineEvent } from '../../../src/timeline/event.js';
import { podObj, podWrite, rsObj, T0 } from '../../support/timeline-events.js';

const KEY = 'shop/web';
let ids = 0;
const write = (kind: WriteKind, at: number, rsKey = KEY): ControllerWrite => ({ id: ++ids, rsKey, kind, outcome: 'ok', at, forms: ['audit'], sources: [] });

type View = ConstructorParameters<typeof WriteReconciler>[5];

function setup(opts: { syncs?: Array<(key: string, ws: ControllerWrite[]) => Partial<SyncRecord>>; busy?: boolean; change?: { at: number; source: { file: string; line: number } }; view?: Partial<View> } = {}) {
  const expectations = new ControllerExpectations();
  const queue = new WorkQueue();
  const tracks = new RsTracks();
  let open: ControllerWrite[] = [];
  const forced: string[] = [];
  const forcedEvents: Array<TimelineEvent | undefined> = [];
  const plan = [...(opts.syncs ?? [])];
  const reconciler = new WriteReconciler(
    tracks,
    { owners: new Map([[KEY, rsObj('web')]]), isBusy: () => opts.busy ?? false, expectations, queue },
    {
      settle: () => open,
      explain: (w, kind, detail) => (w.divergence = { kind, detail }),
      credentialChangeBetween: () => opts.change,
    },
    { setForcedEvent: (e) => forcedEvents.push(e) },
    {
      forced: (key, at, why) => {
        forced.push(why);
        return { at, key, outcome: 'synced', ...(plan.shift()?.(key, open) ?? {}) } as SyncRecord;
      },
    },
    { releaseWithheld: () => false, withholdRound: () => [], createsAhead: () => 0, reopenedFor: () => false, ...opts.view },
    { has: () => false },
    { drain: () => (expectations.log.length = 0) },
    5000,
  );
  return { expectations, queue, tracks, reconciler, forced, forcedEvents, setOpen: (ws: ControllerWrite[]) => (open = ws) };
}

const e = podWrite(T0 + 60_000, 'create', podObj('web-x', rsObj('web')));

test('WriteReconciler: a write with no ReplicaSet in the model, or inside a sync kexp follows, is explained without a sync', () => {
  const s = setup({ busy: true });
  const gone = write('create', e.at, 'shop/gone');
  s.tracks.of('shop/gone').deletedAt = T0;
  const adopt = write('adopt', e.at);
  const create = write('create', e.at);
  s.setOpen([gone, adopt, create]);
  s.reconciler.reconcile(e);
  assert.deepEqual(s.forced, []);
  assert.equal(gone.divergence?.kind, 'no-model');
  assert.match(gone.divergence!.detail, /had been deleted/);
  assert.equal(adopt.divergence?.kind, 'unexpected-claim');
  assert.equal(create.divergence?.kind, 'outside-round');
});

test('WriteReconciler: kexp syncs at the write (a predicted sync close after it is advanced), with the oracle told why', () => {
  const s = setup({ syncs: [(_, ws) => ((ws[0]!.round = 3), {})] });
  s.queue.addAfter(KEY, e.at, 400);
  const w = write('create', e.at);
  s.setOpen([w]);
  s.reconciler.reconcile(e);
  assert.deepEqual(s.forced, ['kexp\'s predicted sync ran 400 ms earlier, at the controller\'s write']);
  assert.equal(s.queue.dueAt(KEY), undefined, 'the predicted sync is this one');
  assert.deepEqual(s.forcedEvents, [e, undefined]);
  assert.equal(w.divergence, undefined);
});

test('WriteReconciler: a write while kexp\'s record said gated drops the record (all of them after a restart) and records the divergence', () => {
  const change = { at: e.at - 1000, source: { file: 'audit', line: 4 } };
  const s = setup({ syncs: [() => ({ outcome: 'gated', expectations: 'still-waiting' })], change });
  s.expectations.expectCreations(KEY, 2, T0);
  s.expectations.expectCreations('shop/api', 1, T0);
  s.reconciler.noteWrite(podWrite(T0 + 20_000, 'create', podObj('web-a', rsObj('web'))));
  const w = write('create', e.at);
  s.setOpen([w]);
  s.reconciler.reconcile(e);
  assert.equal(s.forced.length, 2);
  assert.match(s.forced[1]!, /^kube-controller-manager restarted \(new credential\)/);
  const t = s.tracks.of(KEY);
  assert.deepEqual(t.divergences.map((d) => [d.kind, d.record?.add, d.credentialChange]), [['after-restart', 2, change]]);
  assert.deepEqual(t.viewUnknown.map((u) => [u.from - T0, u.until! - T0]), [[20_000, 60_000]], 'from the controller\'s last write after the Set');
  assert.equal(s.expectations.get('shop/api'), undefined, 'a restart resets every key');
  assert.equal(w.divergence?.kind, 'after-restart');
});

test('WriteReconciler: a create the model would not make is a surplus, or an expired-over-create past the record\'s timeout', () => {
  const s = setup({ syncs: [() => ({ outcome: 'synced', active: 3, desired: 3 })] });
  const t = s.tracks.of(KEY);
  t.changes.push({ at: T0, op: 'set', add: 2 });
  const late = podWrite(T0 + 360_000, 'create', podObj('web-y', rsObj('web')));
  const w = write('create', late.at);
  s.setOpen([w]);
  s.reconciler.reconcile(late);
  assert.equal(w.divergence?.kind, 'expired-over-create');
  assert.match(w.divergence!.detail, /\(add=2\) was 360 s old, past the 5-minute ExpectationsTimeout/);
  // The same create a minute after the Set: the controller counted fewer pods than kexp.
  const s2 = setup({ syncs: [() => ({ outcome: 'synced', active: 3, desired: 3 })] });
  s2.tracks.of(KEY).changes.push({ at: T0, op: 'set', add: 2 });
  const w2 = write('create', e.at);
  s2.setOpen([w2]);
  s2.reconciler.reconcile(e);
  assert.deepEqual(w2.divergence, { kind: 'surplus-create', detail: 'kexp\'s cache had 3 active pod(s) for 3 desired' });
});

test('WriteReconciler: pods kexp withholds are released by a write past the gate, then creates past an expired record hold a lagging round back', () => {
  const released: number[] = [];
  const held: Array<[string, number, number]> = [];
  const s = setup({
    syncs: [() => ({ outcome: 'gated' }), () => ({ outcome: 'synced', active: 3, desired: 3 }), (_, ws) => ((ws[0]!.round = 8), { outcome: 'synced' })],
    view: {
      releaseWithheld: (_key, at) => (released.push(at), true),
      createsAhead: () => 2,
      withholdRound: (key, setAt, n) => (held.push([key, setAt - T0, n]), [{ pod: 'shop/web-a', seenAt: T0 + 5 }, { pod: 'shop/web-b', seenAt: T0 + 7 }]),
    },
  });
  const t = s.tracks.of(KEY);
  t.changes.push({ at: T0, op: 'set', add: 2 });
  const late = podWrite(T0 + 360_000, 'create', podObj('web-y', rsObj('web')));
  const w = write('create', late.at);
  s.setOpen([w]);
  s.reconciler.reconcile(late);
  assert.deepEqual(released, [late.at]);
  assert.deepEqual(held, [[KEY, 0, 2]], 'active − desired + the creates of the sync ahead');
  assert.equal(s.forced.length, 3);
  assert.match(s.forced[2]!, /kubernetes#129795/);
  assert.deepEqual(t.lagOverCreates, [{ at: late.at, setAt: T0, pods: ['shop/web-a', 'shop/web-b'], source: late.source }]);
  assert.deepEqual(t.viewUnknown.map((u) => [u.from - T0, u.until! - T0]), [[360_000 - 5000, 360_000], [5, 360_000]]);
  assert.equal(w.round, 8);
  assert.equal(w.divergence, undefined);
});

test('WriteReconciler: a lagging round whose window the held pods reopened adds no unknown span (its decisions are known: gated until the expiry)', () => {
  const asked: string[][] = [];
  const s = setup({
    syncs: [() => ({ outcome: 'synced', active: 3, desired: 3 }), (_, ws) => ((ws[0]!.round = 8), { outcome: 'synced' })],
    view: {
      createsAhead: () => 2,
      withholdRound: () => [{ pod: 'shop/web-a', seenAt: T0 + 5 }, { pod: 'shop/web-b', seenAt: T0 + 7 }],
      reopenedFor: (_t, pods) => (asked.push(pods), true),
    },
  });
  const t = s.tracks.of(KEY);
  t.changes.push({ at: T0, op: 'set', add: 2 });
  const late = podWrite(T0 + 360_000, 'create', podObj('web-y', rsObj('web')));
  s.setOpen([write('create', late.at)]);
  s.reconciler.reconcile(late);
  assert.deepEqual(asked, [['shop/web-a', 'shop/web-b']]);
  assert.equal(t.lagOverCreates.length, 1);
  assert.deepEqual(t.viewUnknown, []);
});
