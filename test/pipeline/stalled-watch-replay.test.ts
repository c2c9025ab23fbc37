/**
 * Recordings whose own order is damaged by a stalled watch of the recorder (not of the
 * controller): the report rests on the objects' revisions, not on the recorder's receive order
 * (src/timeline/stalled-watch.ts). examples/record-through-faults.kexp.jsonl is the real one (kexp
 * recorded through the fault proxy; the controller's own log of the same run is
 * examples/captures/record-through-faults/kcm.log: rounds create 4, delete 2, create 1, no failed
 * sync); the others are clean examples with a stall put into one of their watches.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { exitCodeFor } from '../../src/cli/report-exit.js';
import { withStalledIntervals } from '../../src/analysis/report/stalled-intervals.js';
import type { ReplicaSetReport } from '../../src/analysis/report-types.js';
import { validateReport } from '../support/report-schema.js';

const RECORDING = 'examples/record-through-faults.kexp.jsonl';
const KCM_LOG = 'examples/captures/record-through-faults/kcm.log';

async function faulted(kcmLog = false): Promise<{ rs: ReplicaSetReport; assumptions: string[] }> {
  const { report, problems } = await replayFiles({ files: [RECORDING], ...(kcmLog ? { kcmLogs: [KCM_LOG] } : {}) });
  assert.deepEqual(problems, []);
  assert.deepEqual(validateReport(report), []);
  return { rs: report.replicaSets.find((r) => r.key === 'kexp-record-through-faults/web')!, assumptions: report.coverage.assumptions };
}

test('record-through-faults: the 4 creates the controller made for its scale 0→4 are its round, not a surplus its count did not call for', async () => {
  const { rs, assumptions } = await faulted();
  assert.deepEqual(rs.findings.filter((f) => f.id === 'surplus-create'), []);
  const first = rs.rounds[0]!;
  assert.deepEqual([first.kind, first.n, first.writes], ['create', 4, 4]);
  // kcm.log:7-10 — "replicaSet updated" 0→4, "Too few replicas" need=4 creating=4: the Set kexp reproduces.
  assert.deepEqual(rs.expectations.filter((c) => c.op === 'set').map((c) => [c.add, c.del]), [[4, 0], [0, 2], [1, 0]]);
  assert.ok(assumptions.some((a) => /^A stalled watch of the recorder \(Pod, ReplicaSet; first at examples\/record-through-faults\.kexp\.jsonl:9\)/.test(a)), assumptions.join('\n'));
});

test('record-through-faults: no create backoff from failed syncs of kexp\'s own (the controller\'s log shows none)', async () => {
  const { rs } = await faulted();
  assert.deepEqual(rs.findings.filter((f) => f.id === 'backoff-inflated'), []);
  // Before the pods watch's relist (line 26) kexp's model fails no sync.
  assert.ok((rs.syncs.byOutcome['consistency-skip'] ?? 0) <= 4, JSON.stringify(rs.syncs));
});

test('record-through-faults: the 2 deletes of the scale 4→2 are the controller\'s delete round, not writes outside every round', async () => {
  const { rs } = await faulted();
  assert.deepEqual(rs.findings.filter((f) => /unexplained|extra-delete/.test(f.id)), []);
  assert.deepEqual(rs.rounds.map((r) => [r.kind, r.n, r.writes]), [['create', 4, 4], ['delete', 2, 2], ['create', 1, 1]]);
  assert.equal(rs.accounting.inFindings, 0);
  assert.equal(rs.accounting.inRounds, 7);
});

test('record-through-faults: no gated window of creates "not shown by the input"; the windows are the log\'s three, the relist\'s one unknown', async () => {
  const { rs } = await faulted();
  assert.deepEqual(rs.gatedWindows.map((w) => [w.raised.add, w.raised.del, w.endedBy, w.basis]), [
    [4, 0, 'fulfilled', 'inferred'],
    [0, 2, 'fulfilled', 'inferred'],
    [1, 0, 'fulfilled', 'unknown'],
  ]);
  assert.ok(rs.gatedWindows.every((w) => !/not shown by the input/.test(w.note ?? '')), JSON.stringify(rs.gatedWindows));
  assert.match(rs.gatedWindows[2]!.note ?? '', /gap inside this window/);
});

test('record-through-faults with the controller\'s log fused: kexp\'s account no longer disagrees with it', async () => {
  const { rs } = await faulted(true);
  assert.deepEqual(rs.findings.map((f) => f.id).filter((id) => /disagrees|surplus|backoff|unexplained/.test(id)), []);
});

/**
 * A clean recording with one watch stalled: the lines of `src` received in [from, from + ms) —
 * `from` the receive time of its `index`th change — are delivered at from + ms, as the recorder's
 * watch delivers its backlog when it resumes (each 10 µs apart, in their order); the recording's
 * end line, when it came before, comes 1 ms after the backlog (the recorder ends after it).
 */
function stall(text: string, src: string, index: number, ms: number): string {
  const [header, ...body] = text.split('\n').filter(Boolean);
  const lines = body.map((l) => JSON.parse(l) as { recv?: string; src?: string; event?: unknown; synthetic?: string });
  const own = lines.filter((l) => l.event && l.src === src && !l.synthetic);
  const from = Date.parse(own[index]!.recv!);
  let k = 0;
  const timed = lines.map((l, i) => {
    const t = l.recv ? Date.parse(l.recv) : NaN;
    const late = l.event && l.src === src && !l.synthetic && t >= from && t < from + ms;
    return { l, i, at: late ? from + ms + 0.01 * k++ : t, late };
  });
  const lastLate = Math.max(...timed.filter((x) => x.late).map((x) => x.at));
  for (const x of timed) {
    if ((x.l as { end?: unknown }).end !== undefined && x.at <= lastLate) Object.assign(x, { at: lastLate + 1, late: true });
  }
  timed.sort((a, b) => a.at - b.at || a.i - b.i);
  const iso = (at: number) => `${new Date(Math.floor(at)).toISOString().slice(0, -1)}${String(Math.round((at % 1) * 1000)).padStart(3, '0')}Z`;
  return [header, ...timed.map((x) => JSON.stringify(x.late ? { ...x.l, recv: iso(x.at) } : x.l))].join('\n') + '\n';
}

/** What a report concludes per owner: verdict, rounds, windows, findings with their basis. */
async function conclusions(file: string): Promise<unknown> {
  const { report } = await replayFiles({ files: [file] });
  assert.deepEqual(validateReport(report), []);
  return report.replicaSets.map((r) => ({
    key: r.key,
    verdict: r.verdict.state,
    rounds: r.rounds.map((x) => `${x.kind} ${x.n}`),
    windows: r.gatedWindows.map((w) => `${w.raised.add}/${w.raised.del} ${w.endedBy} ${w.basis}`),
    findings: r.findings.map((f) => `${f.id} ${f.basis}`),
  }));
}

test('a clean recording with its ReplicaSet or pods watch stalled 3 s concludes what the clean one does', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kexp-stalled-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // Each of these, replayed in the recorder's order, made false claims (surplus-create, extra
  // writes outside every round, a leak, create backoff, informer-behind, a verdict of gated).
  const cases: Array<[string, string, number]> = [
    ['scale-up-gated', 'replicasets', 1],
    ['scale-down-graceful', 'replicasets', 1],
    ['scale-down-graceful', 'pods', 0],
    ['pod-deleted-replaced', 'replicasets', 1],
    ['pod-deleted-replaced', 'pods', 0],
    ['deletion-lag', 'replicasets', 1],
    ['deletion-lag', 'pods', 0],
  ];
  for (const [name, src, index] of cases) {
    const clean = `examples/${name}.kexp.jsonl`;
    const f = join(dir, `${name}-${src}.kexp.jsonl`);
    writeFileSync(f, stall(readFileSync(clean, 'utf8'), src, index, 3000));
    assert.deepEqual(await conclusions(f), await conclusions(clean), `${name} with its ${src} watch stalled 3 s`);
  }
});

test('a clean recording whose watch stalled 3 s says nothing of a stall beyond the horizon, and its report is the same object', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kexp-stalled-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const f = join(dir, 'scale-down-graceful-pods.kexp.jsonl');
  writeFileSync(f, stall(readFileSync('examples/scale-down-graceful.kexp.jsonl', 'utf8'), 'pods', 0, 3000));
  const { report, problems } = await replayFiles({ files: [f] });
  assert.deepEqual(problems, []);
  assert.ok(report.coverage.assumptions.some((a) => /^A stalled watch of the recorder \(Pod/.test(a)), 'the 3 s stall is repaired and named');
  assert.ok(!report.coverage.assumptions.some((a) => /beyond the 10 s/.test(a)), report.coverage.assumptions.join('\n'));
  assert.ok(report.replicaSets.every((r) => !JSON.stringify(r).includes('watch stalled')));
  assert.equal(withStalledIntervals(report, []), report);
});

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A 30 s stall of `src` in examples/NAME: the report, its one stalled interval [from, until] from the assumption, and its exit code. */
async function stalled30(dir: string, name: string, src: string, index: number, kind: string, firstLine: number, changes: number) {
  const f = join(dir, `${name}-${src}-30s.kexp.jsonl`);
  writeFileSync(f, stall(readFileSync(`examples/${name}.kexp.jsonl`, 'utf8'), src, index, 30_000));
  const { report, problems } = await replayFiles({ files: [f] });
  assert.deepEqual(problems, []);
  assert.deepEqual(validateReport(report), []);
  const lines = report.coverage.assumptions.filter((a) => /beyond the 10 s/.test(a));
  assert.equal(lines.length, 1, report.coverage.assumptions.join('\n'));
  const m = new RegExp(
    `^A stalled watch of the recorder beyond the 10 s kexp puts back in resourceVersion order: the ${kind} watch of ${esc(f)} stalled 30 s, ` +
      `from (\\S+) to (\\S+) — ${changes} change\\(s\\) it delivered by \\2 \\(first at ${esc(f)}:${firstLine}\\) carry resourceVersions below ones other watches had delivered more than 10 s earlier, ` +
      `and were made no earlier than \\1\\. The order of the changes in that time is the recorder's, not the apiserver's: the findings, gated windows and rounds there \\(namespace kexp-${name}\\) have basis unknown\\.$`,
  ).exec(lines[0]!);
  assert.ok(m, lines[0]);
  const [from, until] = [Date.parse(m[1]!), Date.parse(m[2]!)];
  const inside = (at: string | undefined) => at !== undefined && Date.parse(at) >= from && Date.parse(at) <= until;
  const rs = report.replicaSets.find((r) => r.key === `kexp-${name}/web`)!;
  const why = new RegExp(`the recorder's ${kind} watch stalled 30 s \\(${esc(m[1]!)} to ${esc(m[2]!)}; its backlog first at ${esc(f)}:${firstLine}\\): the order of the changes in that time is the recorder's, not the apiserver's`);
  for (const x of rs.findings.filter((x) => inside(x.at))) {
    assert.equal(x.basis, 'unknown', x.id);
    assert.match(x.explanation, why, x.id);
  }
  for (const x of rs.rounds.filter((x) => inside(x.at))) {
    assert.equal(x.basis, 'unknown', x.at);
    assert.match(x.note ?? '', why);
  }
  for (const w of rs.gatedWindows.filter((w) => inside(w.start) || inside(w.end))) {
    assert.equal(w.basis, 'unknown', w.start);
    assert.match(w.note ?? '', why);
  }
  return { report, rs, from, until, code: exitCodeFor(report, problems.length) };
}

test('a clean recording with its ReplicaSet watch stalled 30 s, beyond the horizon: named, what rests on that time unknown, and the exit code no longer rests on it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kexp-stalled-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // scale-up-gated with the ReplicaSet's scale to 5 (its 2nd change) held 30 s: in the recorder's
  // order the 5 pods come before it — a "surplus" the controller deleted, a round still gated at
  // the end (exit 3 before this stall was seen; the clean recording exits 0). 2 of its late changes
  // lie below the pods' revisions; the other 2 only below the Events', which are not compared (an
  // apiserver may keep Events in an etcd of their own).
  const { rs, code } = await stalled30(dir, 'scale-up-gated', 'replicasets', 1, 'ReplicaSet', 14, 2);
  const surplus = rs.findings.find((x) => x.id === 'surplus-create');
  assert.equal(surplus?.basis, 'unknown', 'kept, not dropped, with basis unknown');
  assert.deepEqual(rs.rounds.map((r) => `${r.kind} ${r.basis}`), ['delete unknown', 'delete unknown', 'delete unknown', 'delete unknown', 'delete unknown']);
  assert.equal(rs.verdict.state, 'gated');
  assert.equal(rs.verdict.basis, 'unknown');
  assert.match(rs.verdict.summary, /basis unknown: the recorder's ReplicaSet watch stalled 30 s/);
  assert.equal(code, 0);
});

test('a clean recording with its pods watch stalled 30 s from the scale-down on: the round before keeps its basis, the ones inside and the verdict are unknown', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kexp-stalled-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // scale-down-graceful with the pods' changes from the scale 5→2 on held 30 s: in the recorder's
  // order the round the controller made after them (create 2, its pods seen deleted) is still
  // gated at the end (exit 3 before this stall was seen; the clean recording exits 0).
  const { rs, from, code } = await stalled30(dir, 'scale-down-graceful', 'pods', 10, 'Pod', 35, 9);
  assert.deepEqual(rs.rounds.map((r) => `${r.kind} ${r.n} ${r.basis}`), ['create 5 inferred', 'delete 3 unknown', 'create 2 unknown']);
  assert.ok(Date.parse(rs.rounds[0]!.at) < from);
  assert.deepEqual(rs.gatedWindows.map((w) => `${w.endedBy} ${w.basis}`), ['fulfilled inferred', 'fulfilled unknown', 'open unknown']);
  assert.equal(rs.findings.find((x) => x.id === 'gated-at-end')?.basis, 'unknown');
  assert.deepEqual([rs.verdict.state, rs.verdict.basis], ['gated', 'unknown']);
  assert.equal(code, 0);
});

test('a relist after a 12 s cut of the pods watch is no stall: its items (`synthetic: "relist"`) carry their last writes\' revisions', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kexp-stalled-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // scale-down-graceful, then the recorder's pods watch cut (a gap) and relisted 12 s after the
  // last line: the relist re-reads a pod whose revision lies below the ReplicaSet's last change.
  const lines = readFileSync('examples/scale-down-graceful.kexp.jsonl', 'utf8').trimEnd().split('\n');
  const end = JSON.parse(lines.pop()!);
  const lastAt = Date.parse(JSON.parse(lines[lines.length - 1]!).recv);
  const pod = [...lines].reverse().map((l) => JSON.parse(l)).find((l) => l.src === 'pods' && l.event?.type !== 'DELETED')!;
  const iso = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');
  const f = join(dir, 'scale-down-graceful-relist.kexp.jsonl');
  writeFileSync(f, [
    ...lines,
    JSON.stringify({ recv: iso(lastAt + 1000), src: 'pods', gap: { reason: 'watch-relist', detail: 'too old resource version' } }),
    JSON.stringify({ recv: iso(lastAt + 12_000), src: 'pods', event: { type: 'MODIFIED', object: pod.event.object }, synthetic: 'relist' }),
    JSON.stringify({ ...end, recv: iso(lastAt + 13_000) }),
  ].join('\n') + '\n');
  const { report, problems } = await replayFiles({ files: [f] });
  assert.deepEqual(problems, []);
  assert.ok(!report.coverage.assumptions.some((a) => /beyond the 10 s/.test(a)), report.coverage.assumptions.join('\n'));
  assert.ok(report.replicaSets.every((r) => !JSON.stringify(r).includes('watch stalled')));
});
