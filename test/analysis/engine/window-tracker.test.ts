/**
 * The window tracker (src/analysis/engine/window-tracker.ts) fed by the model's expectations
 * store, and the provenance of its changes (provenance.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ControllerExpectations } from '../../../src/model/expectations.js';
import { Provenance } from '../../../src/analysis/engine/provenance.js';
import { RsTracks } from '../../../src/analysis/engine/rs-track.js';
import { WindowTracker } from '../../../src/analysis/engine/window-tracker.js';
import { observed, podObj, rsObj, T0 } from '../../support/timeline-events.js';

const KEY = 'shop/web';

function setup(maxChanges = 100) {
  const expectations = new ControllerExpectations();
  const tracks = new RsTracks();
  const provenance = new Provenance();
  const windows = new WindowTracker(tracks, { expectations }, provenance, maxChanges);
  return { expectations, tracks, provenance, windows };
}

test('Provenance: the event being delivered, else the key\'s last trigger', () => {
  const p = new Provenance();
  const e = observed(T0, 'Pod', 'ADDED', podObj('web-a', rsObj()));
  assert.equal(p.sourceFor(KEY), undefined);
  p.noteTrigger(KEY, { file: 'f', line: 1 });
  assert.deepEqual(p.sourceFor(KEY), { file: 'f', line: 1 });
  p.delivering(e);
  assert.equal(p.current, e);
  assert.equal(p.sourceFor(KEY), e.source);
  p.delivered();
  assert.equal(p.current, undefined);
  assert.deepEqual(p.trigger(KEY), { file: 'f', line: 1 });
});

test('WindowTracker: a Set opens a window, lowers to zero fulfil it, the next sync closes it', () => {
  const { expectations, tracks, provenance, windows } = setup();
  provenance.noteTrigger(KEY, { file: 'rec', line: 7 });
  expectations.expectCreations(KEY, 2, T0);
  windows.drain();
  const t = tracks.of(KEY);
  assert.deepEqual(t.record, { add: 2, del: 0, timestamp: T0 });
  assert.equal(t.firstSetAt, T0);
  assert.deepEqual(t.open?.evidence, [{ file: 'rec', line: 7 }], 'the Set\'s source: the key\'s last trigger');
  expectations.satisfied(KEY, T0 + 100);
  expectations.creationObserved(KEY, T0 + 200);
  const add = observed(T0 + 300, 'Pod', 'ADDED', podObj('web-b', rsObj()));
  provenance.delivering(add);
  expectations.creationObserved(KEY, T0 + 300);
  windows.drain();
  provenance.delivered();
  assert.equal(t.open?.gatedSyncs, 1);
  assert.equal(t.open?.fulfilledAt, T0 + 300);
  assert.deepEqual(t.open?.evidence.at(-1), add.source);
  expectations.satisfied(KEY, T0 + 1000);
  windows.drain();
  assert.equal(t.open, undefined);
  assert.deepEqual(t.windows.map((w) => [w.start - T0, w.end! - T0, w.endedBy]), [[0, 1000, 'fulfilled']]);
  assert.deepEqual(t.changes.map((c) => c.op), ['set', 'lower', 'lower']);
  assert.equal(expectations.log.length, 0, 'the log is consumed');
});

test('WindowTracker: a raise after kexp closed the window reopens it (the controller was still waiting)', () => {
  const { expectations, tracks, windows } = setup();
  expectations.expectCreations(KEY, 1, T0);
  expectations.creationObserved(KEY, T0 + 10);
  expectations.satisfied(KEY, T0 + 20);
  expectations.raise(KEY, 1, 0, T0 + 30);
  windows.drain();
  const t = tracks.of(KEY);
  assert.equal(t.windows.length, 0);
  assert.equal(t.open?.end, undefined);
  assert.match(t.open?.note ?? '', /its informer had not delivered them, so it was still waiting/);
  assert.deepEqual(t.record, { add: 1, del: 0, timestamp: T0 });
});

test('WindowTracker: expiry, reset and deletion close the window with what remained; deletions set the chosen keys', () => {
  const { expectations, tracks, windows } = setup();
  expectations.expectDeletions(KEY, ['shop/web-a', 'shop/web-b'], T0);
  windows.drain();
  const t = tracks.of(KEY);
  assert.deepEqual([...t.chosen.keys()], ['shop/web-a', 'shop/web-b']);
  expectations.satisfied(KEY, T0 + 5 * 60_000 + 1);
  windows.drain();
  assert.deepEqual(t.windows[0]!.remaining, { add: 0, del: 2, keys: ['shop/web-a', 'shop/web-b'] });
  assert.equal(t.windows[0]!.endedBy, 'expired');
  assert.deepEqual(t.expiredSyncs, [{ at: T0 + 5 * 60_000 + 1, add: 0, del: 2 }]);
  expectations.expectDeletions(KEY, ['shop/web-c'], T0 + 400_000);
  expectations.reset(T0 + 400_100);
  windows.drain();
  assert.deepEqual(t.clobbers.map((c) => c.keys), [['shop/web-a', 'shop/web-b']]);
  assert.equal(t.windows[1]!.endedBy, 'reset');
  assert.deepEqual(t.windows[1]!.remaining, { add: 0, del: 1 });
  assert.equal(t.record, undefined);
  assert.equal(t.chosen.size, 0);
});

test('WindowTracker: changes are capped, the oldest counted as dropped; finish closes a window fulfilled at the end', () => {
  const { expectations, tracks, windows } = setup(3);
  expectations.expectCreations(KEY, 2, T0);
  expectations.creationObserved(KEY, T0 + 1);
  expectations.creationObserved(KEY, T0 + 2);
  expectations.creationObserved(KEY, T0 + 3);
  windows.drain();
  const t = tracks.of(KEY);
  assert.equal(t.changes.length, 3);
  assert.equal(t.changesDropped, 1);
  assert.equal(t.changes[0]!.at, T0 + 1);
  windows.finish();
  assert.equal(t.open, undefined);
  assert.deepEqual(t.windows.map((w) => [w.end! - T0, w.endedBy, w.note]), [[2, 'fulfilled', 'fulfilled by the last observations; the input ends before the next sync']]);
});
