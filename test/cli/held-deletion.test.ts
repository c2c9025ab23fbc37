/**
 * `kexp replay` on scale-downs whose deletion the controller's informer did not deliver (the
 * fixtures in test/fixtures/held-deletion/, derived from examples/scale-down-graceful.kexp.jsonl,
 * see their README): the controller's status writes count 3 replicas while 2 exist, so the delete
 * window stays open (gated) until a status write counts right, or the 5-minute expiry (a leak,
 * exit 4); the real capture itself stays healthy. With the controller's own log, a relist of its pod
 * informer (reflector lines) delivers a held deletion, unless its status still counts the pod after it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp } from '../support/cli.js';

const DIR = 'test/fixtures/held-deletion';

interface Rs {
  verdict: { state: string };
  gatedWindows: Array<{ start: string; end?: string; endedBy: string; gatedSyncs: number; basis: string; remaining?: { add: number; del: number } }>;
  rounds: Array<{ at: string; kind: string; n: number }>;
  findings: Array<{ id: string; basis: string; title: string; explanation: string; evidence: string[] }>;
}

function run(file: string): { code: number | null; rs: Rs } {
  const r = kexp(['replay', file, '-o', 'json']);
  assert.ok(r.stdout.trim().startsWith('{'), r.stderr);
  const out = JSON.parse(r.stdout) as { replicaSets: Rs[] };
  assert.equal(out.replicaSets.length, 1);
  return { code: r.code, rs: out.replicaSets[0]! };
}

const deleteWindow = (rs: Rs) => rs.gatedWindows.find((w) => w.start === '2026-11-30T02:39:32.676Z')!;

test('the real graceful scale-down: the delete window is fulfilled within the round, no held deletion', () => {
  const { code, rs } = run('examples/scale-down-graceful.kexp.jsonl');
  assert.equal(code, 0);
  assert.equal(deleteWindow(rs).endedBy, 'fulfilled');
  assert.equal(rs.findings.some((f) => f.id === 'held-deletion'), false);
});

test('a deletion never delivered: the delete window stays open to the end, gated, with the held-deletion finding citing the status write', () => {
  const { code, rs } = run(`${DIR}/lost.kexp.jsonl`);
  assert.equal(code, 3);
  assert.equal(rs.verdict.state, 'gated');
  const w = deleteWindow(rs);
  assert.equal(w.endedBy, 'open');
  assert.deepEqual(w.remaining, { add: 0, del: 1 });
  assert.ok(w.gatedSyncs >= 1);
  const f = rs.findings.find((x) => x.id === 'held-deletion')!;
  assert.equal(f.basis, 'inferred');
  assert.match(f.title, /status write at 2026-11-30T02:39:34\.509Z counted 3 replicas while 2 existed/);
  assert.match(f.explanation, /among kexp-scale-down-graceful\/web-4szmc, kexp-scale-down-graceful\/web-pnmz6, kexp-scale-down-graceful\/web-s26wm/);
  assert.ok(f.evidence.some((e) => e.endsWith('lost.kexp.jsonl:42')), f.evidence.join(' '));
  // No create round is invented: the model counts 3 active (the stale pod) for 2 desired.
  assert.equal(rs.rounds.filter((r) => r.kind === 'create').length, 1);
});

test('the deletion never delivered, then a sync after the 5-minute expiry: a leak only the timeout freed, exit 4', () => {
  const { code, rs } = run(`${DIR}/expiry.kexp.jsonl`);
  assert.equal(code, 4);
  const w = deleteWindow(rs);
  assert.equal(w.endedBy, 'expired');
  assert.equal(w.end, '2026-11-30T02:44:42.700Z');
  assert.ok(rs.findings.some((x) => x.id === 'expectation-leak-expired'));
  assert.match(rs.findings.find((x) => x.id === 'held-deletion')!.explanation, /only ended by the 5-minute expiry/);
  // The controller's cache still holds the stale pod: its DELETE after the expiry finds nothing (404), no live pod is deleted.
  const after = rs.rounds.filter((r) => r.at === '2026-11-30T02:44:42.700Z');
  assert.deepEqual(after.map((r) => [r.kind, r.n]), [['delete', 1]]);
  assert.equal(rs.rounds.filter((r) => r.kind === 'create').length, 1);
});

test('the deletion delivered 20 s late: the window ends at the status write that counts right, not at the input\'s deletion', () => {
  const { code, rs } = run(`${DIR}/caught-up.kexp.jsonl`);
  assert.equal(code, 0);
  const w = deleteWindow(rs);
  assert.equal(w.endedBy, 'fulfilled');
  assert.equal(w.end, '2026-11-30T02:39:54.500Z');
  assert.match(rs.findings.find((x) => x.id === 'held-deletion')!.explanation, /delivered the deletion at 2026-11-30T02:39:54\.500Z \(a status write no longer counting it\)/);
});

/** A KCM log with only the pod informer's reflector lines of a 410 relist whose LIST is in the cache at `populated` (HH:MM:SS.mmm, 2026-11-30). */
function relistLog(name: string, closed: string, listing: string, populated: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-relist-'));
  const R = 'reflector="k8s.io/client-go@v0.37.2/tools/cache/reflector.go:343"';
  const f = path.join(dir, name);
  fs.writeFileSync(f, [
    `I1130 ${closed}   17973 reflector.go:221] "Watch closed" ${R} type="*v1.Pod" err="too old resource version: 900 (950)"`,
    `I1130 ${listing}   17973 reflector.go:472] "Listing and watching" type="*v1.Pod" ${R}`,
    `I1130 ${populated}   17973 reflector.go:507] "Caches populated" type="*v1.Pod" ${R}`,
  ].join('\n') + '\n');
  return f;
}

function runWithLog(file: string, log: string): { code: number | null; rs: Rs } {
  const r = kexp(['replay', file, '--kcm-log', log, '-o', 'json']);
  assert.ok(r.stdout.trim().startsWith('{'), r.stderr);
  return { code: r.code, rs: (JSON.parse(r.stdout) as { replicaSets: Rs[] }).replicaSets[0]! };
}

test('the controller\'s pod informer relists (its own log) before the status counts right: the held deletion is delivered at the relist\'s end, citing its "Caches populated" line', () => {
  const log = relistLog('kcm.log', '02:39:53.000000', '02:39:54.200000', '02:39:54.300000');
  const { code, rs } = runWithLog(`${DIR}/caught-up.kexp.jsonl`, log);
  assert.equal(code, 0);
  const w = deleteWindow(rs);
  assert.equal(w.endedBy, 'fulfilled');
  assert.equal(w.end, '2026-11-30T02:39:54.300Z');
  const f = rs.findings.find((x) => x.id === 'held-deletion')!;
  assert.match(f.explanation, /delivered the deletion at 2026-11-30T02:39:54\.300Z \(the controller's pod informer relisted: its reflector's "Caches populated"/);
  assert.ok(f.evidence.includes(`${log}:3`), f.evidence.join(' '));
});

test('a relist after which the status still counts the deleted pod did not deliver it (kubernetes#115658): still held until the status counts right', () => {
  // Relisted at 02:39:45; the status standing 2 s later (and until 02:39:54.5) still counts 3 while 2 exist.
  const log = relistLog('kcm.log', '02:39:44.000000', '02:39:44.900000', '02:39:45.000000');
  const { code, rs } = runWithLog(`${DIR}/caught-up.kexp.jsonl`, log);
  assert.equal(code, 0);
  assert.equal(deleteWindow(rs).end, '2026-11-30T02:39:54.500Z');
  assert.match(rs.findings.find((x) => x.id === 'held-deletion')!.explanation, /delivered the deletion at 2026-11-30T02:39:54\.500Z \(a status write no longer counting it\)/);
  const exp = runWithLog(`${DIR}/expiry.kexp.jsonl`, log);
  assert.equal(exp.code, 4, 'the leak only the timeout freed stays one');
  assert.equal(deleteWindow(exp.rs).endedBy, 'expired');
});

test('the real capture deletion-loss (audit): the controller\'s two DELETEs of web-tl9vt answered 404 pin it as the ghost its cache held — each in a round of its own, none unexplained, the leak still exit 4', () => {
  const log = 'examples/captures/deletion-loss/audit.jsonl';
  const r = kexp(['audit', log, '-o', 'json']);
  assert.ok(r.stdout.trim().startsWith('{'), r.stderr);
  const rs = (JSON.parse(r.stdout) as { replicaSets: Array<Rs & { key: string }> }).replicaSets.find((x) => x.key === 'kexp-deletion-loss/web')!;
  assert.equal(r.code, 4);
  const after = rs.rounds.filter((x) => x.at >= '2026-12-05T02:02');
  assert.deepEqual(after.map((x) => [x.at, x.kind, x.n]), [['2026-12-05T02:02:11.634Z', 'delete', 1], ['2026-12-05T02:02:15.641Z', 'delete', 1]]);
  assert.equal(rs.findings.some((f) => f.id === 'unexplained-writes'), false);
  const f = rs.findings.find((x) => x.id === 'held-deletion')!;
  assert.equal(f.basis, 'inferred');
  assert.match(f.explanation, /The controller's DELETE of kexp-deletion-loss\/web-tl9vt at 2026-12-05T02:02:11\.636Z was answered 404: its cache still held that pod, gone in the input since 2026-12-05T01:57:05\.599Z \(kexp had held kexp-deletion-loss\/web-z5rhx in its place\)/);
  assert.ok(f.evidence.includes(`${log}:63`), f.evidence.join(' '));
});
