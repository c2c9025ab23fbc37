/** The plausibility window: which times are problems, which are genuine steps, and latency. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PlausibleTimeWindow, MAX_DEVIATION_MS, type ImplausibleTime } from '../../src/timeline/plausible-time.js';

const T = Date.parse('2026-11-30T02:39:00Z');
const DAY = 24 * 3600_000;

function run(times: Array<number | undefined>, marks: number[] = [], relative = true): { released: Array<[number, number | undefined, ImplausibleTime | undefined]>; liveAfter: number[] } {
  const released: Array<[number, number | undefined, ImplausibleTime | undefined]> = [];
  const liveAfter: number[] = [];
  const w = new PlausibleTimeWindow<number>((i, t, bad) => released.push([i, t, bad]), relative);
  for (const m of marks) w.push(-1, m, true);
  times.forEach((t, i) => {
    w.push(i, t);
    liveAfter.push(released.filter(([k]) => k >= 0).length);
  });
  w.flush();
  return { released: released.filter(([k]) => k >= 0), liveAfter };
}

const flagged = (r: ReturnType<typeof run>) => r.released.filter(([, , bad]) => bad).map(([i]) => i);

test('a single far-future line among steady times is flagged; the rest keep their times, in order', () => {
  const times = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((x) => T + x * 1000);
  times[4] = T + 100 * 365 * DAY;
  const r = run(times);
  assert.deepEqual(flagged(r), [4]);
  assert.deepEqual(r.released.map(([i]) => i), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const bad = r.released[4]![2]!;
  assert.equal(bad.reason, 'far-from-neighbours');
  assert.ok(Math.abs(bad.around! - T) < 60_000);
  assert.equal(r.released[4]![1], undefined);
  assert.equal(r.released[5]![1], T + 5000);
});

test('a run of up to RADIUS corrupt lines is flagged; a far-past line too', () => {
  const times = [0, 1, 2, 3, 4, 5].map((x) => T + x * 1000);
  const withRun = [...times.slice(0, 3), T + 50 * 365 * DAY, T + 50 * 365 * DAY + 1, T - 3 * 365 * DAY, ...times.slice(3)];
  assert.deepEqual(flagged(run(withRun)), [3, 4, 5]);
});

test('year 9999 and years before Kubernetes are out of range, whatever the neighbours say', () => {
  const r = run([T, Date.parse('9999-11-30T00:00:00Z'), Date.parse('1999-01-01T00:00:00Z'), T + 1]);
  assert.deepEqual(flagged(r), [1, 2]);
  assert.equal(r.released[1]![2]!.reason, 'out-of-range');
});

test('a genuine step (a recording paused for three days) is not flagged on either side', () => {
  const before = [0, 1, 2, 3, 4].map((x) => T + x * 1000);
  const after = [0, 1, 2, 3, 4, 5].map((x) => T + 3 * DAY + x * 1000);
  assert.deepEqual(flagged(run([...before, ...after])), []);
});

test('the first line alone far from everything after it is flagged', () => {
  const r = run([T + 200 * 365 * DAY, T, T + 1, T + 2, T + 3, T + 4]);
  assert.deepEqual(flagged(r), [0]);
});

test('ambiguity is left alone: two lines a century apart', () => {
  assert.deepEqual(flagged(run([T, T + 100 * 365 * DAY])), []);
});

test('untimed items keep their place and are never judged', () => {
  const r = run([T, undefined, T + 1, T + 100 * 365 * DAY, undefined, T + 2, T + 3, T + 4, T + 5]);
  assert.deepEqual(r.released.map(([i]) => i), [0, 1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual(flagged(r), [3]);
});

test('no latency while times agree with what came before (a live pipe), held only after a jump', () => {
  const r = run([T, T + 1, T + 2, T + 2 * DAY, T + 2 * DAY + 1], [T - 10]);
  // Seeded by the mark, the first three pass at once; the jump waits for its neighbours.
  assert.deepEqual(r.liveAfter, [1, 2, 3, 3, 3]);
  assert.equal(r.released.length, 5);
});

test('object times (relative off): only the range is checked, nothing is held', () => {
  const r = run([T - 400 * DAY, T, Date.parse('9999-01-01T00:00:00Z')], [], false);
  assert.deepEqual(flagged(r), [2]);
  assert.deepEqual(r.liveAfter, [1, 2, 3]);
});

test('a time within a day of its neighbours is never a problem', () => {
  const r = run([T, T + 1, T + MAX_DEVIATION_MS - 1, T + 2, T + 3, T + 4]);
  assert.deepEqual(flagged(r), []);
});

test('the read time bounds every time, marks and object times (relative: false) too; a day of skew is allowed', async () => {
  const { latestFor, implausibleAlone } = await import('../../src/timeline/plausible-time.js');
  const readAt = T + 5 * DAY;
  const latest = latestFor(readAt)!;
  assert.equal(latest, readAt + DAY);
  assert.equal(latestFor(Date.UTC(2001, 0, 1)), undefined, 'a clock before 2014 is not believed');
  assert.equal(implausibleAlone(readAt + DAY - 1, latest), undefined);
  assert.deepEqual(implausibleAlone(readAt + 2 * DAY, latest), { t: readAt + 2 * DAY, reason: 'after-read', around: readAt });
  for (const relative of [true, false]) {
    const released: Array<[number, number | undefined, ImplausibleTime | undefined]> = [];
    const w = new PlausibleTimeWindow<number>((i, t, bad) => released.push([i, t, bad]), relative, () => latest);
    w.push(0, T);
    w.push(1, T + 1000);
    w.push(2, T + 2 * 365 * DAY, true); // an end line two years on
    w.push(3, T + 2000);
    w.push(4, readAt + 3 * DAY); // the last event, no neighbour after it
    w.flush();
    assert.deepEqual(released.filter(([, , bad]) => bad).map(([i, , bad]) => [i, bad!.reason]), [[2, 'after-read'], [4, 'after-read']]);
    assert.deepEqual(released.map(([i]) => i), [0, 1, 2, 3, 4]);
  }
});

test('the read-time bound moves with the clock: a pipe read for days keeps its later times', () => {
  let now = T;
  const released: Array<[number, ImplausibleTime | undefined]> = [];
  const w = new PlausibleTimeWindow<number>((i, _t, bad) => released.push([i, bad]), true, () => now + DAY);
  for (let day = 0; day < 4; day++) {
    now = T + day * DAY;
    w.push(day, now - 1000);
  }
  w.push(9, now + 3 * DAY); // ahead of the clock as it reads it
  w.flush();
  assert.deepEqual(released.map(([i, bad]) => [i, bad?.reason]), [[0, undefined], [1, undefined], [2, undefined], [3, undefined], [9, 'after-read']]);
});
