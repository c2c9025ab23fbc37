/** The terminal timeline chart (src/render/chart.ts) and the colour decision (src/render/color.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Report, ReplicaSetReport } from '../../src/analysis/report-types.js';
import { renderChart, shortDuration } from '../../src/render/chart.js';
import { stripAnsi, useColor } from '../../src/render/color.js';
import { renderTable } from '../../src/render/table.js';
import { SMALL_END, SMALL_START, smallReplicaSet } from './small-report.js';

const ASCII_ONLY = /^[\x20-\x7e]*$/;
const fixture = (name: string): Report => JSON.parse(fs.readFileSync(new URL(`./fixtures/${name}.report.json`, import.meta.url), 'utf8'));
const GOLDEN = new URL('../../examples/golden/', import.meta.url);
const golden = (name: string): Report => JSON.parse(fs.readFileSync(new URL(`${name}.report.json`, GOLDEN), 'utf8'));
/** The leak fixture and every golden example report (real captures). */
const FIXTURES = [
  fixture('leak-expired'),
  ...fs.readdirSync(GOLDEN).filter((f) => f.endsWith('.report.json')).sort().map((f) => golden(f.replace(/\.report\.json$/, ''))),
];

function smallReport(): Report {
  const base = fixture('leak-expired');
  return { ...base, coverage: { ...base.coverage, start: SMALL_START, end: SMALL_END }, replicaSets: [smallReplicaSet()] };
}

test('golden: the small report in ASCII, 73 columns (one column per second)', () => {
  const got = renderChart(smallReplicaSet(), { width: 73, color: false, start: SMALL_START, end: SMALL_END });
  const want = [
    '  Timeline 2026-11-30 10:00:00.000 -> 10:01:00.000 UTC, 1 col = 1s',
    '  pods    4 |                              --------------------',
    '          3 |          --==================##############################',
    '          2 |            ######################################==========',
    '          1 |            ################################################',
    '  gated     |..........FFF                  LLLLLLLLLLLLLLL    OOOOOOOOOO',
    '  writes    |          C                   X                   D',
    '  causes    |                              !',
    '            +----------+---------+---------+---------+---------+---------',
    '             10:00:00  10:00:10  10:00:20  10:00:30  10:00:40  10:00:50',
    '  # active  - desired  = desired (met)  F gated, fulfilled',
    '  L gated, leaked  O gated, open at end  . expectations unknown',
    '  C create round  D delete round  X failed/rejected writes',
    '  ! first failure',
  ];
  assert.deepEqual(got.split('\n'), want);
});

test('golden: the small report at 100 columns has the sync count in the header', () => {
  const lines = renderChart(smallReplicaSet(), { width: 100, color: false, start: SMALL_START, end: SMALL_END }).split('\n');
  assert.equal(lines[0], '  Timeline 2026-11-30 10:00:00.000 -> 10:01:00.000 UTC, 1 col = 690ms; 9 syncs (2 gated)');
  assert.equal(lines[5], '  gated     |..............FFFF                          LLLLLLLLLLLLLLLLLLLLLL      OOOOOOOOOOOOOOO');
  assert.equal(lines[6], '  writes    |              C                            X                            D');
});

test('every line fits the width; plain mode is pure ASCII; colour mode has the same layout', () => {
  const cases: [ReplicaSetReport, string | undefined, string | undefined][] = [
    [smallReplicaSet(), SMALL_START, SMALL_END],
    ...FIXTURES.flatMap((r) => r.replicaSets.map((rs): [ReplicaSetReport, string | undefined, string | undefined] => [rs, r.coverage.start, r.coverage.end])),
    ...FIXTURES.flatMap((r) => r.replicaSets.map((rs): [ReplicaSetReport, undefined, undefined] => [rs, undefined, undefined])),
  ];
  for (const [rs, start, end] of cases) {
    for (const width of [40, 60, 80, 100, 132]) {
      const plain = renderChart(rs, { width, color: false, start, end });
      const colored = renderChart(rs, { width, color: true, start, end });
      for (const line of plain.split('\n')) {
        assert.ok(line.length <= width, `${width}: ${JSON.stringify(line)} is ${line.length} long`);
        assert.match(line, ASCII_ONLY, `non-ASCII in plain mode: ${JSON.stringify(line)}`);
      }
      assert.ok(colored.includes('\x1b['), 'colour mode uses SGR');
      const stripped = stripAnsi(colored).split('\n');
      assert.equal(stripped.length, plain.split('\n').length);
      for (const line of stripped) assert.ok([...line].length <= width, `${width}: coloured line too long: ${JSON.stringify(line)}`);
    }
  }
});

test('deterministic: the same input gives the same chart, regardless of the clock and timezone', () => {
  const rs = fixture('leak-expired').replicaSets[0]!;
  const a = renderChart(rs, { width: 100, color: false });
  const tz = process.env.TZ;
  process.env.TZ = 'Pacific/Chatham';
  try {
    assert.equal(renderChart(rs, { width: 100, color: false }), a);
  } finally {
    if (tz === undefined) delete process.env.TZ;
    else process.env.TZ = tz;
  }
});

test('golden example quota-rejected (real capture): failed rounds are X, the fulfilled window is F', () => {
  const r = golden('quota-rejected');
  const lines = renderChart(r.replicaSets[0]!, { width: 100, color: false, start: r.coverage.start, end: r.coverage.end }).split('\n');
  const gated = lines.find((l) => l.startsWith('  gated'))!;
  const writes = lines.find((l) => l.startsWith('  writes'))!;
  assert.match(gated, /\|[ .]+F+\s*$/);
  assert.doesNotMatch(writes, /C/, 'every round of this capture had failures');
  assert.equal((writes.match(/X/g) ?? []).length >= 6, true, writes);
  // The gated window starts in the column of the first round.
  assert.equal(gated.indexOf('F'), writes.indexOf('X'));
});

test('zooming with start/end: marks outside the range are dropped, state before it carries in', () => {
  const rs = smallReplicaSet();
  const lines = renderChart(rs, { width: 73, color: false, start: '2026-11-30T10:00:35.000Z', end: '2026-11-30T10:00:45.000Z' }).split('\n');
  const gated = lines.find((l) => l.startsWith('  gated'))!;
  const writes = lines.find((l) => l.startsWith('  writes'))!;
  assert.match(gated, /^ {2}gated {5}\|L+$/, 'the whole range is inside the expired window');
  assert.match(writes, /^ {2}writes {4}\|$/, 'no rounds in range');
  assert.match(lines[0]!, /10:00:35\.000 -> 10:00:45\.000 UTC/);
  // desired 4 / active 3 from 10:00:30 carries into the range.
  assert.match(lines[1]!, /^ {2}pods {4}4 \|-+$/);
});

test('large counts use at most five rows; zero-length and empty inputs do not break', () => {
  const rs = smallReplicaSet();
  rs.series = [
    { at: SMALL_START, desired: 600, active: 0, terminating: 0, ready: 0 },
    { at: '2026-11-30T10:00:30.000Z', desired: 600, active: 500, terminating: 0, ready: 0 },
  ];
  const lines = renderChart(rs, { width: 100, color: false, start: SMALL_START, end: SMALL_END }).split('\n');
  assert.match(lines[1]!, /^ {2}pods {2}600 \|/);
  assert.deepEqual(lines.slice(2, 6).map((l) => /^ {2} +(\d+) \|/.exec(l)?.[1]), ['480', '360', '240', '120'], 'five pod rows, each labelled with its count');

  const point = smallReplicaSet();
  const one = renderChart(point, { width: 80, color: false, start: SMALL_START, end: SMALL_START });
  assert.ok(one.split('\n').every((l) => l.length <= 80));

  const empty: ReplicaSetReport = { ...smallReplicaSet(), series: [], rounds: [], gatedWindows: [], initialState: { basis: 'unknown', reason: 'x' } };
  assert.equal(renderChart(empty, { width: 100, color: false }), '  Timeline: no timed events for this ReplicaSet');
});

test('useColor: --no-color/--color win, then NO_COLOR, then FORCE_COLOR, then TERM=dumb, then the TTY', () => {
  assert.equal(useColor({ env: { NO_COLOR: '1', FORCE_COLOR: '1' }, isTTY: true, flag: true }), true, 'a per-invocation flag beats NO_COLOR');
  assert.equal(useColor({ env: { NO_COLOR: '1', FORCE_COLOR: '1' }, isTTY: true }), false);
  assert.equal(useColor({ env: { NO_COLOR: '' }, isTTY: true }), true, 'an empty NO_COLOR is ignored');
  assert.equal(useColor({ env: {}, isTTY: true, flag: false }), false);
  assert.equal(useColor({ env: { FORCE_COLOR: '1' }, isTTY: false, flag: false }), false);
  assert.equal(useColor({ env: {}, isTTY: false, flag: true }), true);
  assert.equal(useColor({ env: { FORCE_COLOR: '1' }, isTTY: false }), true);
  assert.equal(useColor({ env: { FORCE_COLOR: '' }, isTTY: false }), true);
  assert.equal(useColor({ env: { FORCE_COLOR: '0' }, isTTY: true }), false);
  assert.equal(useColor({ env: { FORCE_COLOR: 'false' }, isTTY: true }), false);
  assert.equal(useColor({ env: { TERM: 'dumb' }, isTTY: true }), false);
  assert.equal(useColor({ env: {}, isTTY: true }), true);
  assert.equal(useColor({ env: {}, isTTY: false }), false);
  assert.equal(useColor({ env: {}, isTTY: undefined }), false);
});

test('renderTable: the chart follows the summary and counts; NO_COLOR gives plain ASCII, colour adds SGR', () => {
  const report = smallReport();
  const color = useColor({ env: { NO_COLOR: '1' }, isTTY: true });
  const text = renderTable(report, 100, { color });
  assert.equal(text, renderTable(report, 100), 'colour defaults to off');
  assert.ok(!text.includes('\x1b'), 'no escape codes with NO_COLOR');
  const lines = text.split('\n');
  const verdict = lines.findIndex((l) => l.startsWith('Verdict: '));
  const before = lines.findIndex((l) => l.startsWith('  Before '));
  const timeline = lines.findIndex((l) => l.startsWith('  Timeline '));
  const gated = lines.findIndex((l) => l === '  Gated windows (2026-11-30, UTC)');
  assert.ok(verdict === 1 && before > verdict && timeline === before + 2 && gated > timeline, `order: verdict ${verdict}, before ${before}, timeline ${timeline}, gated ${gated}`);
  const chart = lines.slice(timeline, gated - 1);
  assert.deepEqual(chart, renderChart(report.replicaSets[0]!, { width: 100, color: false, start: SMALL_START, end: SMALL_END }).split('\n'));
  for (const l of chart) assert.match(l, ASCII_ONLY);

  const colored = renderTable(report, 100, { color: useColor({ env: { FORCE_COLOR: '1' }, isTTY: false }) });
  assert.ok(colored.includes('\x1b['));
  assert.equal(stripAnsi(colored).split('\n').length, lines.length);
});

test('shortDuration', () => {
  assert.deepEqual([0.4, 45, 999, 1000, 5250, 42_000, 462_055, 3 * 3600e3 + 5 * 60e3, 50 * 3600e3].map(shortDuration), [
    '0.4ms', '45ms', '999ms', '1s', '5.3s', '42s', '7m42s', '3h05m', '2d2h',
  ]);
});
