/**
 * `kexp replay` on scale-downs whose deletion the controller's informer did not deliver (the
 * fixtures in test/fixtures/held-deletion/, derived from examples/scale-down-graceful.kexp.jsonl,
 * see their README): the controller's status writes count 3 replicas while 2 exist, so the delete
 * window stays open (gated) until a status write counts right, or the 5-minute expiry (a leak,
 * exit 4); the real capture itself stays healthy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
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
