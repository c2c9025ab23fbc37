/**
 * audit --since/--until take a duration back from now (kubectl logs / stern) or an RFC 3339
 * time; --since-time takes an RFC 3339 time. The clock is read once by the command.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kexp } from '../support/cli.js';

const AUDIT = 'examples/captures/quota-rejected/audit.jsonl';
// The log covers 02:39:04.962 → 02:39:16.636 with no event between 02:39:12.03 and 02:39:16.58
// (the ReplicaSet is deleted at 02:39:16.613): 02:39:14.300 cuts inside that silence.
const CUT = Date.parse('2026-11-30T02:39:14.300Z');
const START = Date.parse('2026-11-30T02:39:04.962Z');

const rss = (stdout: string) => (JSON.parse(stdout) as { replicaSets: Array<{ key: string; verdict: { state: string } }> }).replicaSets;

test('--until DURATION is that long before now: the same report as --until at that RFC 3339 time', () => {
  const abs = kexp(['audit', AUDIT, '--until', '2026-11-30T02:39:14.300Z', '-o', 'json']);
  const rel = kexp(['audit', AUDIT, '--until', `${Date.now() - CUT}ms`, '-o', 'json']);
  assert.equal(abs.code, rel.code, rel.stderr);
  assert.notEqual(rss(abs.stdout)[0]!.verdict.state, 'deleted', 'the deletion at 02:39:16.6 is after the cut');
  // The coverage ends at the cut: the relative one a little later (the time the command started).
  const relEnd = JSON.parse(rel.stdout).coverage.end as string;
  assert.equal(JSON.parse(abs.stdout).coverage.end, '2026-11-30T02:39:14.300Z');
  assert.ok(Date.parse(relEnd) >= CUT && Date.parse(relEnd) < Date.parse('2026-11-30T02:39:16.5Z'), relEnd);
  assert.deepEqual(rss(rel.stdout.replaceAll(relEnd, '2026-11-30T02:39:14.300Z')), rss(abs.stdout));
  const whole = kexp(['audit', AUDIT, '-o', 'json']);
  assert.equal(rss(whole.stdout)[0]!.verdict.state, 'deleted');
});

test('--since DURATION: a window that reaches the input reports it; one after it warns with the time it meant', () => {
  const hours = Math.ceil((Date.now() - START) / 3_600_000) + 1;
  const all = kexp(['audit', AUDIT, '--since', `${hours}h`, '-o', 'json']);
  assert.equal(all.code, 0, all.stderr);
  assert.doesNotMatch(all.stderr, /no audit events/);
  assert.deepEqual(rss(all.stdout).map((r) => r.key), ['kexp-quota-rejected/web']);
  const before = Date.now();
  const late = kexp(['audit', AUDIT, '--since', '30m']);
  const m = /warning: no audit events at or after (\S+) \(the input covers 2026-11-30T02:39:04\.962Z to 2026-11-30T02:39:16\.636Z\)/.exec(late.stderr);
  assert.ok(m, late.stderr);
  const since = Date.parse(m[1]!);
  assert.ok(since >= before - 1_800_000 && since <= Date.now() - 1_800_000, `${m[1]} is 30 minutes before the run`);
});

test('--since-time takes RFC 3339 only and is the same as --since with that time; both together is exit 2', () => {
  const a = kexp(['audit', AUDIT, '--since-time', '2026-11-30T02:39:10Z', '-o', 'json']);
  const b = kexp(['audit', AUDIT, '--since', '2026-11-30T02:39:10Z', '-o', 'json']);
  assert.equal(a.code, b.code, a.stderr);
  assert.deepEqual(JSON.parse(a.stdout).replicaSets, JSON.parse(b.stdout).replicaSets);
  const dur = kexp(['audit', AUDIT, '--since-time', '1h']);
  assert.equal(dur.code, 2);
  assert.match(dur.stderr, /^kexp: --since-time "1h" is not an RFC 3339 time/);
  const both = kexp(['audit', AUDIT, '--since', '1h', '--since-time', '2026-11-30T02:39:10Z']);
  assert.equal(both.code, 2);
  assert.equal(both.stderr.trim().split('\n').length, 1, both.stderr);
  assert.match(both.stderr, /--since(-time)?=\S+ cannot also be provided when using --since/);
});

test('--since/--until values that are neither: one line, exit 2; since after until: exit 2', () => {
  const hint = 'give a duration (e.g. 1h, 30m) or a full RFC 3339 time with a time zone, e.g. 2026-11-30T02:00:00Z';
  for (const [v, why] of [['1hx', 'not a duration or an RFC 3339 time'], ['90', 'not an RFC 3339 time'], ['yesterday', 'not an RFC 3339 time'], ['2026-11-30 02:00:00', 'not an RFC 3339 time'], ['2026-02-30T00:00:00Z', 'not a valid date']]) {
    const r = kexp(['audit', AUDIT, '--until', v!]);
    assert.equal(r.code, 2, v);
    assert.equal(r.stderr, `kexp: --until "${v}" is ${why}; ${hint}\n`);
  }
  const order = kexp(['audit', AUDIT, '--since', '10m', '--until', '1h']);
  assert.equal(order.code, 2);
  assert.match(order.stderr, /^kexp: --since 10m is later than --until 1h\n$/);
});
