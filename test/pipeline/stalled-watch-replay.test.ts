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
 * watch delivers its backlog when it resumes (each 10 µs apart, in their order).
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
