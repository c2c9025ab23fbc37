/**
 * ThinnedSeries (src/analysis/engine/thinned-series.ts) against the splice it replaces in the replay
 * engine: for random sizes (including the degenerate 1 and 2) and long runs of points, the kept
 * points, their order and the dropped count are the same.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ThinnedSeries } from '../../src/analysis/engine/thinned-series.js';

/** The engine's former pushPoint, minus the duplicate check. */
function splicePush(series: number[], state: { dropped: number }, max: number, p: number): void {
  if (series.length >= max) {
    series.splice(1 + (state.dropped % (max - 2)), 1);
    state.dropped++;
  }
  series.push(p);
}

test('ThinnedSeries keeps exactly the points the splice-based thinning keeps', () => {
  let checks = 0;
  for (const max of [1, 2, 3, 4, 5, 7, 10, 64, 257, 5000]) {
    const series = new ThinnedSeries<number>(max);
    const ref: number[] = [];
    const state = { dropped: 0 };
    const n = Math.max(40, max * 7 + 13);
    for (let i = 0; i < n; i++) {
      series.push(i);
      splicePush(ref, state, max, i);
      assert.equal(series.last(), ref[ref.length - 1]);
      assert.equal(series.length, ref.length);
      if (i % Math.max(1, Math.floor(max / 3)) === 0 || i === n - 1) {
        assert.deepEqual(series.toArray(), ref, `max ${max} after ${i + 1} points`);
        checks++;
      }
    }
    assert.equal(series.dropped, state.dropped, `max ${max}`);
    assert.ok(series.dropped > 0, `max ${max}: the thinning ran`);
  }
  assert.ok(checks > 100);
});
