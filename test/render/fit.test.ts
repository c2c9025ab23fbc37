/**
 * The terminal renderers fit the width: every example's report (examples/golden/*.report.json,
 * the goldens are read, never changed) and the render fixtures, at 80 and 120 columns, plain
 * and coloured; `wide` prints the full text; the adoption table collapses repeated `keep` rows;
 * the summary names real kubectl commands derived from the findings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Report } from '../../src/analysis/report-types.js';
import { adoptionTable } from '../../src/render/adoption.js';
import { renderAuditRanking } from '../../src/render/audit-table.js';
import { stripAnsi } from '../../src/render/color.js';
import { fitWidths, formatTable, truncate } from '../../src/render/columns.js';
import { breakCommand, kubectlCommands, renderSummary } from '../../src/render/next-steps.js';
import { renderTable } from '../../src/render/table.js';
import { clockFor } from '../../src/render/times.js';
import { outputWidth } from '../../src/render/width.js';
import { SMALL_END, SMALL_START, smallReplicaSet } from './small-report.js';

const GOLDEN = new URL('../../examples/golden/', import.meta.url);
const NAMES = fs.readdirSync(GOLDEN).filter((f) => f.endsWith('.report.json')).sort();
const golden = (name: string): Report => JSON.parse(fs.readFileSync(new URL(name, GOLDEN), 'utf8'));
const fixture = (name: string): Report => JSON.parse(fs.readFileSync(new URL(`./fixtures/${name}.report.json`, import.meta.url), 'utf8'));
const chars = (s: string) => [...stripAnsi(s)].length;

function smallReport(): Report {
  const base = fixture('leak-expired');
  return { ...base, coverage: { ...base.coverage, start: SMALL_START, end: SMALL_END }, replicaSets: [smallReplicaSet()] };
}

const REPORTS: Array<[string, Report]> = [
  ...NAMES.map((n): [string, Report] => [n, golden(n)]),
  ['fixtures/leak-expired', fixture('leak-expired')],
  ['small-report', smallReport()],
];

test('every example report and render fixture fits 80 and 120 columns (plain and coloured, table and audit ranking)', () => {
  assert.ok(NAMES.length >= 10, 'all golden examples are read');
  for (const [name, report] of REPORTS) {
    for (const width of [80, 120]) {
      for (const color of [false, true]) {
        const text = renderTable(report, width, { color });
        for (const l of text.split('\n')) assert.ok(chars(l) <= width, `${name} at ${width}${color ? ' (colour)' : ''}: ${chars(l)} columns: ${stripAnsi(l)}`);
      }
      const ranking = renderAuditRanking(report, [], { width });
      for (const l of ranking.split('\n')) assert.ok(chars(l) <= width, `${name} ranking at ${width}: ${l}`);
    }
  }
});

test('no box drawing; headers in capitals; times HH:MM:SS.mmm with the date in the section title', () => {
  const text = renderTable(golden('quota-rejected.report.json'), 80);
  assert.doesNotMatch(text, /[┌┐└┘├┤┬┴┼│─]/);
  assert.match(text, /^ {2}Rounds \(2026-11-30, UTC\): /m);
  assert.match(text, /^ {2}AT {13}KIND {5}N {3}OK {3}FAILED {3}BASIS {6}DETAIL$/m);
  const rows = text.split('\n').filter((l) => /^ {2}\d\d:\d\d:\d\d\.\d{3} {3}create /.test(l));
  assert.equal(rows.length, 11, 'one row per creation round, no date repeated');
  assert.doesNotMatch(rows.join('\n'), /2026-11-30/);
});

test('-o wide prints every cell, row and evidence item in full; the table cuts them with …', () => {
  const report = golden('quota-rejected.report.json');
  const finding = report.replicaSets[0]!.findings.find((f) => f.id === 'create-failures')!;
  assert.equal(finding.evidence.length, 10);
  const narrow = renderTable(report, 80);
  const wide = renderTable(report, 80, { wide: true });
  assert.match(narrow, /^ {8}Evidence \(10; -o wide lists all\): examples\/quota-rejected\.kexp\.jsonl:5,/m);
  assert.ok(wide.includes(`Evidence: ${finding.evidence.join(', ')}`), 'all ten evidence lines');
  const round = report.replicaSets[0]!.rounds.find((r) => r.errors.length)!;
  const row = (text: string) => text.split('\n').find((l) => l.startsWith(`  ${round.at.slice(11, 23)}   create `))!;
  assert.match(row(narrow), /…$/, 'the round error is cut at 80 columns');
  assert.ok(row(wide).includes(round.errors[0]!), 'and in full with -o wide');
  assert.match(wide, /^ {2}AT .* WRITES .* EVIDENCE$/m, 'wide-only columns');
});

test('the adoption table collapses repeated keep rows into a count; -o wide lists all 600', () => {
  const report = golden('burst-600.report.json');
  const rows = report.replicaSets[0]!.adoption.rows;
  assert.equal(rows.length, 600);
  const narrow = renderTable(report, 80);
  const listed = narrow.split('\n').filter((l) => /^ {2}web-\w+ +keep +yes /.test(l));
  assert.equal(listed.length, 5);
  assert.match(narrow, /^ {2}… 595 more pods: keep \(Already controlled by ReplicaSet web and matches its s…$/m);
  const wide = renderTable(report, 80, { wide: true });
  assert.equal(wide.split('\n').filter((l) => /^ {2}web-\w+ +keep +yes /.test(l)).length, 600);
  assert.doesNotMatch(wide, /more pods: keep/);
  assert.ok(wide.includes(rows[0]!.reason), 'the full reason');

  // Rows that need a look come first and are never collapsed; 6 keeps are shown (collapsing one is no gain).
  const mixed = [
    ...Array.from({ length: 6 }, (_, i) => ({ pod: `shop/k${i}`, action: 'keep' as const, claimed: true, reason: 'kept.' })),
    ...Array.from({ length: 8 }, (_, i) => ({ pod: `shop/a${i}`, action: 'adopt' as const, claimed: true, reason: 'adopted.' })),
  ];
  const lines = adoptionTable(mixed, { width: 80 });
  assert.equal(lines.length, 1 + 14);
  assert.match(lines[1]!, /^a0 +adopt /);
  const more = adoptionTable([...mixed, { pod: 'shop/k9', action: 'keep', claimed: true, reason: 'other.' }, { pod: 'shop/k8', action: 'keep', claimed: true, reason: 'kept.' }], { width: 80 });
  assert.deepEqual(more.slice(-2), ['… 2 more pods: keep (kept)', '… 1 more pod: keep (other)']);
});

test('columns: free text shrinks first, widest first; times and numbers never; … marks a cut', () => {
  const cols = [{ header: 'At', kind: 'fixed' as const }, { header: 'Name', kind: 'text' as const }, { header: 'Why', kind: 'flex' as const }, { header: 'Evidence', kind: 'flex' as const }];
  assert.deepEqual(fitWidths(cols, [12, 20, 50, 30], { width: 200 }), [12, 20, 50, 30]);
  // 12+20+50+30 + 3 gaps of 3 = 121; to 100: the widest flex (Why) loses 21.
  assert.deepEqual(fitWidths(cols, [12, 20, 50, 30], { width: 100 }), [12, 20, 29, 30]);
  // To 70: both flex columns shrink to the floor of 12, then the name column.
  assert.deepEqual(fitWidths(cols, [12, 20, 50, 30], { width: 70 }), [12, 20, 12, 17]);
  assert.deepEqual(fitWidths(cols, [12, 20, 50, 30], { width: 55 }), [12, 10, 12, 12]);
  assert.deepEqual(fitWidths(cols, [12, 20, 50, 30], { width: 55, wide: true }), [12, 20, 50, 30]);
  assert.equal(truncate('abcdef', 4), 'abc…');
  assert.equal(truncate('abc', 4), 'abc');
  const lines = formatTable(cols, [['10:00:00.000', 'web', 'x'.repeat(80), 'rec.jsonl:1']], { width: 60, indent: '  ' });
  assert.deepEqual(lines, [
    // 60 = 2 + 12 + 3 + 4 + 3 + WHY + 3 + 11: WHY gets 22 columns.
    '  AT             NAME   WHY                      EVIDENCE',
    `  10:00:00.000   web    ${'x'.repeat(21)}…   rec.jsonl:1`,
  ]);
  // A cell cannot break a row: newlines and escapes are shown, not obeyed.
  assert.deepEqual(formatTable([{ header: 'a' }], [['x\ny\x1b[2J']], { width: 40 }), ['A', 'x\\ny\\x1b[2J']);
});

test('summary: verdict, cause in one sentence, next step with kubectl commands derived from the report', () => {
  const quota = golden('quota-rejected.report.json').replicaSets[0]!;
  const lines = renderSummary(quota, { width: 80 });
  assert.match(lines[0]!, /^Verdict: FAILING \[inferred\] — failing to reach 5 replicas/);
  assert.ok(lines.some((l) => l.startsWith('Cause:   11 creation rounds hit failed creates (ResourceQuota).')), lines.join('\n'));
  assert.ok(lines.some((l) => l.startsWith('Next:    Raise the ResourceQuota')));
  assert.deepEqual(kubectlCommands(quota), [
    'kubectl -n kexp-quota-rejected get resourcequota',
    'kubectl -n kexp-quota-rejected describe rs web',
    'kubectl -n kexp-quota-rejected get events --field-selector involvedObject.name=web',
  ]);

  const ns = golden('namespace-terminating-leak.report.json').replicaSets[0]!;
  assert.deepEqual(kubectlCommands(ns), [
    'kubectl get namespace kexp-namespace-terminating-leak -o yaml',
    'kubectl -n kexp-namespace-terminating-leak get events --field-selector involvedObject.name=web',
  ], 'deleted: no describe of a ReplicaSet that is gone');

  const healthy = golden('scale-up-gated.report.json').replicaSets[0]!;
  assert.deepEqual(kubectlCommands(healthy), []);
  assert.deepEqual(renderSummary(healthy, { width: 80 }).slice(-1), ['Next:    nothing to do.']);

  // The leak's title repeats the verdict, so the cause is the explanation's first sentence.
  const leak = fixture('leak-expired').replicaSets[0]!;
  const cause = renderSummary(leak, { width: 1000 }).find((l) => l.startsWith('Cause:'))!;
  assert.match(cause, /^Cause: {3}Since 2026-11-30T10:06:42\.055Z the controller has been waiting for 2 creation\(s\) .* observed for them\.$/);
  assert.ok(kubectlCommands(leak).includes('kubectl -n shop rollout status deployment/web'), 'the Deployment owner');
});

test('long kubectl commands break with copy-pasteable continuations, never inside quotes', () => {
  const cmd = "kubectl -n a-rather-long-namespace-name get events --field-selector involvedObject.name=web-7d9c6b8f5d";
  const lines = breakCommand(cmd, 60, '  ');
  assert.ok(lines.length > 1);
  for (const l of lines) assert.ok(l.length <= 60, l);
  assert.equal(lines.map((l) => l.replace(/ \\$/, '').trim()).join(' '), cmd);
  assert.deepEqual(breakCommand("kubectl get pods -l 'app in (a, b)' -o wide", 30, ''), ['kubectl get pods -l \\', "    'app in (a, b)' -o wide"]);
});

test('width: $COLUMNS, else the TTY, else the terminal behind a pipe, else 80', () => {
  assert.equal(outputWidth({ env: { COLUMNS: '132' }, isTTY: false }), 132);
  assert.equal(outputWidth({ env: { COLUMNS: '80' }, isTTY: true, columns: 200 }), 80);
  assert.equal(outputWidth({ env: {}, isTTY: true, columns: 97 }), 97);
  assert.equal(outputWidth({ env: {}, isTTY: true }), 80);
  assert.equal(outputWidth({ env: { COLUMNS: 'wide' }, isTTY: true }), 80);
  assert.equal(outputWidth({ env: {}, isTTY: false }), 80);
  assert.equal(outputWidth({ env: { COLUMNS: '0' }, isTTY: undefined }), 80);
  assert.equal(outputWidth({ env: {}, isTTY: false, terminalColumns: 132 }), 132, 'piped from a 132-column terminal');
  assert.equal(outputWidth({ env: { COLUMNS: '100' }, isTTY: false, terminalColumns: 132 }), 100, 'COLUMNS first');
  assert.equal(outputWidth({ env: {}, isTTY: true, columns: 90, terminalColumns: 132 }), 90, 'stdout\'s own terminal first');
  assert.equal(outputWidth({ env: { COLUMNS: '20' }, isTTY: false }), 40, 'at least 40');
});

test('times: HH:MM:SS.mmm for the section date, the date kept on other days', () => {
  const clock = clockFor('2026-11-30');
  assert.equal(clock('2026-11-30T10:00:02.045Z'), '10:00:02.045');
  assert.equal(clock('2026-12-01T00:00:01.250Z'), '2026-12-01 00:00:01.250');
  assert.equal(clock(undefined), '—');
});
