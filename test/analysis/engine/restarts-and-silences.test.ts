/**
 * Restart detection (src/analysis/engine/restart-detector.ts) and silence bridging
 * (silence-bridge.ts), each against the model's workqueue and expectations store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ControllerExpectations } from '../../../src/model/expectations.js';
import { WorkQueue } from '../../../src/model/workqueue.js';
import { RESTART_PAUSE_MS, RestartDetector } from '../../../src/analysis/engine/restart-detector.js';
import { RsTracks } from '../../../src/analysis/engine/rs-track.js';
import { SILENCE_HORIZON_MS, SilenceBridge } from '../../../src/analysis/engine/silence-bridge.js';
import type { RoundTrack } from '../../../src/analysis/engine/rs-track.js';
import type { TimelineEvent } from '../../../src/timeline/event.js';
import { observed, podObj, rsObj, T0 } from '../../support/timeline-events.js';

const src = { file: 'in', line: 1 };

test('SilenceBridge: after a silence past the horizon, syncs due in it are dropped and the silence recorded', () => {
  const queue = new WorkQueue();
  const ran: Array<[number, boolean]> = [];
  let drained = 0;
  const bridge = new SilenceBridge({ queue, runDue: (before: number, inclusive = false) => (ran.push([before - T0, inclusive]), []) }, { drain: () => drained++ });
  bridge.bridge(T0, src);
  bridge.bridge(T0 + 1000, src);
  assert.deepEqual(ran, [], 'no silence yet');
  queue.addAfter('shop/web', T0 + 1000, 2 * SILENCE_HORIZON_MS);
  const later = T0 + 1000 + 3 * SILENCE_HORIZON_MS;
  bridge.bridge(later, { file: 'in', line: 9 });
  assert.deepEqual(ran, [[1000 + SILENCE_HORIZON_MS, true]], 'simulated up to the horizon');
  assert.equal(drained, 1);
  assert.deepEqual(bridge.silences, [{ from: T0 + 1000 + SILENCE_HORIZON_MS, until: later, dropped: 1, source: { file: 'in', line: 9 } }]);
  assert.equal(queue.size, 0);
  bridge.finish(later + 10 * SILENCE_HORIZON_MS);
  assert.deepEqual(ran.at(-1), [later - T0 + SILENCE_HORIZON_MS, true], 'never past the horizon after the last event');
  bridge.finish(later + 5);
  assert.deepEqual(ran.at(-1), [later - T0 + 5, true], 'up to the end of coverage when it comes first');
});

function restartSetup(starts: Array<{ at: number; source: typeof src }> = [], credentialChanges = new Map<TimelineEvent, { at: number; source: typeof src; pauseMs: number }>()) {
  const expectations = new ControllerExpectations();
  const queue = new WorkQueue();
  const tracks = new RsTracks();
  const ranDue: number[] = [];
  const controller = { expectations, queue, owners: new Map([['shop/web', rsObj('web')], ['shop/api', rsObj('api')]]), runDue: (before: number) => (ranDue.push(before), []) };
  const detector = new RestartDetector(tracks, controller, { credentialChangeAt: (e) => credentialChanges.get(e) }, { drain: () => (expectations.log.length = 0) }, starts);
  return { expectations, queue, tracks, detector, ranDue };
}

test('RestartDetector: a logged start-up runs the old process\'s due syncs, drops unfulfilled records and resyncs every ReplicaSet', () => {
  const { expectations, queue, tracks, detector, ranDue } = restartSetup([{ at: T0 + 500, source: src }, { at: T0 + 100, source: src }]);
  expectations.expectCreations('shop/web', 2, T0);
  tracks.of('shop/web');
  detector.logStartsBefore(T0 + 50);
  assert.deepEqual(ranDue, [], 'none due yet');
  detector.logStartsBefore(T0 + 100);
  assert.deepEqual(ranDue, [T0 + 100], 'the earlier start-up first, whatever the input order');
  assert.deepEqual(detector.restarts.map((r) => [r.at - T0, r.via, r.dropped]), [[100, 'log', [{ key: 'shop/web', add: 2, del: 0, setAt: T0 }]]]);
  assert.equal(tracks.of('shop/web').restarts.length, 1);
  assert.equal(expectations.get('shop/web'), undefined, 'the new process starts with no record');
  assert.deepEqual([queue.dueAt('shop/web'), queue.dueAt('shop/api')], [T0 + 100, T0 + 100]);
  detector.logStartsBefore(T0 + 1000);
  assert.equal(detector.restarts.length, 1, 'a start-up that drops nothing and cuts no round is not reported');
});

test('RestartDetector: a new credential after a long pause is a restart; after a short one only if a round was cut', () => {
  const e1 = observed(T0 + 60_000, 'Pod', 'ADDED', podObj('web-a', rsObj()));
  const e2 = observed(T0 + 90_000, 'Pod', 'ADDED', podObj('web-b', rsObj()));
  const changes = new Map([[e1 as TimelineEvent, { at: e1.at, source: src, pauseMs: 3000 }], [e2 as TimelineEvent, { at: e2.at, source: src, pauseMs: RESTART_PAUSE_MS }]]);
  const { expectations, tracks, detector } = restartSetup([], changes);
  expectations.expectCreations('shop/web', 1, T0);
  tracks.of('shop/web');
  detector.noteCredential(e1);
  assert.equal(detector.restarts.length, 0, 'a token rotation');
  detector.noteCredential(e2);
  assert.deepEqual(detector.restarts.map((r) => [r.via, r.pauseMs, r.dropped.length]), [['credential', RESTART_PAUSE_MS, 1]]);
  // A round left unfinished just before a short pause: its process died making it.
  const cut = { at: e2.at + 10_000, sync: { create: { unmade: 2, calls: 1, n: 3 } }, kind: 'create' } as unknown as RoundTrack;
  tracks.of('shop/api').rounds.push(cut);
  const e3 = observed(e2.at + 15_000, 'Pod', 'ADDED', podObj('api-a', rsObj('api')));
  changes.set(e3, { at: e3.at, source: src, pauseMs: 3000 });
  detector.noteCredential(e3);
  assert.equal(detector.restarts.length, 2);
  assert.deepEqual(tracks.of('shop/api').restarts.map((r) => r.interrupted), [{ at: cut.at, made: 1, n: 3, kind: 'create' }]);
});
