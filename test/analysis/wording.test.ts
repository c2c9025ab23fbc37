/**
 * How the report words counts, durations and controller writes (src/analysis/report/wording.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeWrites, fmtAgo, fmtDuration, plural } from '../../src/analysis/report/wording.js';
import type { ControllerWrite } from '../../src/analysis/engine/write-ledger.js';

test('plural', () => {
  assert.equal(plural(0, 'pod'), '0 pods');
  assert.equal(plural(1, 'pod'), '1 pod');
  assert.equal(plural(2, 'gated sync'), '2 gated syncs');
});

test('fmtDuration: milliseconds under a second; seconds, minutes, hours', () => {
  assert.deepEqual([-5, 0, 450.6, 999, 1000, 119_400, 119_600, 450_000, 7_199_000, 7_200_000, 7_500_000].map(fmtDuration),
    ['0ms', '0ms', '451ms', '999ms', '1s', '119s', '2m', '7m30s', '119m59s', '2h', '2h5m']);
});

test('fmtAgo: whole seconds, never negative', () => {
  assert.deepEqual([-5000, 0, 450, 42_000, 450_000, 7_500_000].map(fmtAgo), ['0s', '0s', '0s', '42s', '7m30s', '2h5m']);
});

test('describeWrites: by kind, failures counted, up to five pods named', () => {
  const w = (kind: ControllerWrite['kind'], pod: string, outcome: ControllerWrite['outcome'] = 'ok') => ({ kind, pod, outcome }) as ControllerWrite;
  assert.equal(describeWrites([w('create', 'a'), w('create', 'b', 'failed'), w('delete', 'c')]), 'created 2 pods (a, b), 1 failed and deleted 1 pod (c)');
  assert.equal(describeWrites([w('delete', 'x', 'failed')]), 'tried to delete 1 pod (x)');
  assert.equal(describeWrites([...'abcdef'].map((p) => w('adopt', p))), 'adopted 6 pods (a, b, c, d, e)');
  assert.equal(describeWrites([]), 'wrote');
});
