/**
 * `kexp kcm-log` on controller-manager logs below -v=4: fixtures derived from the real
 * quota-rejected capture by test/fixtures/kcm-log/derive-v2.ts (the lines a -v=2 KCM prints;
 * `v2-finished-syncing-v0-…` keeps "Finished syncing" as v1.28–v1.32 print it at V(0)).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp } from '../support/cli.js';

const V2 = 'test/fixtures/kcm-log/v2-quota-rejected.log';
const V2_FINISHED = 'test/fixtures/kcm-log/v2-finished-syncing-v0-quota-rejected.log';

/** A copy of `file` whose mtime is `when` (the fixture's own mtime is the checkout time). */
function withMtime(file: string, when: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-kcm-v2-'));
  const to = path.join(dir, path.basename(file));
  fs.copyFileSync(file, to);
  const t = new Date(when);
  fs.utimesSync(to, t, t);
  return to;
}

const count = (s: string, re: RegExp) => s.split('\n').filter((l) => re.test(l)).length;

test('-v=2 log (1.33+): 11 observed rounds with desired 5, syncs "not logged", one below -v=4 line, year from mtime said', () => {
  const f = withMtime(V2, '2024-12-05T00:00:00Z');
  const r = kexp(['kcm-log', f, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.verbosity.atLeastV4, false);
  assert.match(out.verbosity.note, /below -v=4.*gate and expectations decisions are not visible/);
  assert.equal(count(r.stderr, /below -v=4/), 1, r.stderr);
  assert.match(r.stderr, /syncs not logged at this verbosity/);
  const rs = out.replicaSets.find((x: { key: string }) => x.key === 'kexp-quota-rejected/web');
  assert.equal(rs.syncs.basis, 'not-logged');
  assert.equal(rs.syncs.finishedLines, 0);
  assert.equal(rs.rounds.length, 11);
  assert.deepEqual(rs.rounds.map((x: { count: number }) => x.count), [5, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]);
  assert.deepEqual(rs.rounds[0], { at: '2024-11-30T02:39:06.867Z', kind: 'create', count: 5, desired: 5, basis: 'observed', evidence: `${f}:1` });
  assert.ok(rs.rounds.every((x: { desired: number; basis: string }) => x.desired === 5 && x.basis === 'observed'));
  assert.equal(rs.slowStartFailures.length, 11);
  assert.deepEqual(out.inputs[0].year.value, 2024);
  assert.equal(out.inputs[0].year.basis, 'mtime');
  assert.match(out.inputs[0].year.note, /took 2024 from the file's modification time \(mtime\)/);
  assert.doesNotMatch(r.stderr, /modification time/);

  const t = kexp(['kcm-log', f], { env: { COLUMNS: '400' } });
  assert.equal(t.code, 0, t.stderr);
  assert.match(t.stdout, /Syncs: not logged at this verbosity/);
  assert.doesNotMatch(t.stdout, /Syncs 0/);
  assert.match(t.stdout, /Rounds \(observed: "Too few \/ Too many replicas"\) \(2024-11-30, UTC\): 11 — 02:39:06\.867 create 5 \(desired 5\)/);
  assert.match(t.stdout, /Verdict: UNKNOWN \[unknown\] — the gate and the expectations are not visible: the log is below -v=4, where they are not printed, so no gated window or leak can be told from it, nor their absence \(1 ReplicaSet, 11 rounds seen, 0 confirmed by the controller's own Events\)/);
  assert.doesNotMatch(t.stdout, /no leaked expectations/);
  assert.match(t.stdout, /Input: .*v2-quota-rejected\.log .*; klog lines carry no year; took 2024 from the file's modification time \(mtime\); pass --year/);
});

test('-v=2 log of 1.28–1.32 ("Finished syncing" at V0): the 15 syncs it saw, not "Syncs 0"; --year: no mtime note', () => {
  const r = kexp(['kcm-log', V2_FINISHED, '--year', '2025', '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  const rs = out.replicaSets[0];
  assert.equal(rs.syncs.basis, 'finished-syncing');
  assert.equal(rs.syncs.finishedLines, 15);
  assert.equal(rs.rounds.length, 11);
  assert.equal(rs.rounds[0].at, '2025-11-30T02:39:06.867Z');
  assert.deepEqual(out.inputs[0].year, { value: 2025, basis: 'option' });
  assert.doesNotMatch(r.stderr, /modification time/);
  assert.equal(count(r.stderr, /below -v=4/), 1);
  assert.match(r.stderr, /syncs from 15 "Finished syncing" line\(s\)/);
  const t = kexp(['kcm-log', V2_FINISHED, '--year', '2025'], { env: { COLUMNS: '400' } });
  assert.match(t.stdout, /Syncs 15 seen \("Finished syncing" lines\); their gate decisions are not logged below -v=4/);
  assert.doesNotMatch(t.stdout, /Syncs 0/);
  assert.doesNotMatch(t.stdout, /carry no year/);
});

test('year from another input of the same run (a CRI-wrapped log carries full dates), said in year.note', () => {
  const f = withMtime(V2, '2030-12-05T00:00:00Z');
  const r = kexp(['kcm-log', f, 'test/fixtures/kcm-log/cri-wrapped.log', '-o', 'json']);
  const out = JSON.parse(r.stdout);
  assert.equal(out.inputs[0].year.value, 2025);
  assert.equal(out.inputs[0].year.basis, 'other-input');
  assert.match(out.inputs[0].year.note, /year 2025 of the klog lines taken from test\/fixtures\/kcm-log\/cri-wrapped\.log/);
  assert.equal(out.inputs[1].year.basis, 'wrapper');
  assert.doesNotMatch(r.stderr, /modification time/);
  const rs = out.replicaSets.find((x: { key: string }) => x.key === 'kexp-quota-rejected/web');
  assert.equal(rs.rounds[0].at, '2025-11-30T02:39:06.867Z');
});

test('the -v=4 capture: atLeastV4, syncs from gate decisions, no below -v=4 warning; its FailedCreate Events ended with the ReplicaSet\'s deletion: exit 0', () => {
  const r = kexp(['kcm-log', 'examples/captures/quota-rejected/kcm.log', '--year', '2026', '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.verbosity, { atLeastV4: true });
  assert.doesNotMatch(r.stderr, /below -v=4/);
  const rs = out.replicaSets[0];
  assert.equal(rs.syncs.basis, 'gate-decisions');
  assert.equal(rs.syncs.total, 13);
  assert.equal(rs.syncs.finishedLines, 15);
  assert.equal(rs.rounds.length, 11);
});
