/**
 * controllerLogInput (src/pipeline/controller-log-files.ts): what fusion reads of a controller
 * log, built the same way for `replay`/`audit`/snapshots (readControllerLogs) and for `kcm-log
 * --compare` — the ground truth and restarts from the events in the caller's order, the first
 * "Pod created" handler line of each pod in reading order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { controllerLogInput } from '../../src/pipeline/controller-log-files.js';
import { buildGroundTruth } from '../../src/sources/kcm-log/ground-truth.js';
import { compareTimeline, type ControllerLogEvent } from '../../src/timeline/event.js';

const T = Date.UTC(2026, 10, 30, 10, 0, 0);
let line = 0;
function ev(s: number, logKind: ControllerLogEvent['logKind'], message: string, extra: Partial<ControllerLogEvent> = {}): ControllerLogEvent {
  return { type: 'controller-log', at: T + s * 1000, atBasis: 'log', source: { file: 'kcm.log', line: ++line }, logKind, message, ...extra };
}

test('pods: the first handler line of each pod in reading order (klog, JSON and plain forms); restarts in time order', () => {
  const events = [
    ev(5, 'controller-started', '"Starting controller" name="replicaset"'),
    ev(3, 'other', '"Pod created" pod="shop/web-1" logger="replicaset-controller"'),
    ev(1, 'other', '{"msg":"Pod created","pod":"shop/web-2"}'),
    ev(2, 'other', 'Pod created pod=shop/web-3'),
    // Read later but earlier in time: the first line read wins.
    ev(0, 'other', '"Pod created" pod="shop/web-1"'),
    ev(1, 'controller-started', '"Starting controller" name="replicaset"'),
  ];
  const log = controllerLogInput(['kcm.log'], events, (a, b) => a.at - b.at);
  assert.deepEqual(log.files, ['kcm.log']);
  assert.deepEqual([...log.podAdded].map(([pod, x]) => [pod, x.at - T, x.source.line]), [['shop/web-1', 3000, 2], ['shop/web-2', 1000, 3], ['shop/web-3', 2000, 4]]);
  assert.deepEqual(log.starts.map((x) => x.at - T), [1000, 5000]);
  assert.equal(log.coverage, undefined);
  assert.deepEqual(events.map((e) => e.source.line), [1, 2, 3, 4, 5, 6], 'the events given are not reordered');
});

test('the ground truth is built from the events in the given order (kcm-log sorts by compareTimeline)', () => {
  const key = 'shop/web';
  const events = [
    ev(0, 'setting-expectations', '"Setting expectations"', { rsKey: key, add: 1, del: 0, seq: 2 } as Partial<ControllerLogEvent>),
    ev(1, 'still-waiting', '"Controller still waiting on expectations"', { rsKey: key, add: 1, del: 0, seq: 3 } as Partial<ControllerLogEvent>),
    ev(2, 'expectations-fulfilled', '"Controller expectations fulfilled"', { rsKey: key, add: 0, del: 0, seq: 4 } as Partial<ControllerLogEvent>),
  ];
  const log = controllerLogInput(['kcm.log'], [...events].reverse(), compareTimeline);
  assert.deepEqual(log.truths, buildGroundTruth([...events].sort(compareTimeline)));
  assert.equal(log.truths.get(key)!.gatedWindows.length, 1);
});
