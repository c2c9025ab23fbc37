/** `kexp kcm-log` on the real captured logs in examples/captures. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp } from '../support/cli.js';

test('kcm-log reads the real v1.37 quota capture: 11 Sets (5 then 3×10), 11 slow-start failures, no gated sync; its FailedCreate Events until the ReplicaSet was deleted: history, exit 0 (a deleted ReplicaSet\'s failures are past)', () => {
  const r = kexp(['kcm-log', 'examples/captures/quota-rejected/kcm.log', '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.schemaVersion, 'kexp.kcm-log/v1');
  const rs = out.replicaSets.find((x: { key: string }) => x.key === 'kexp-quota-rejected/web');
  assert.deepEqual(rs.raises.map((x: { add: number }) => x.add), [5, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]);
  assert.equal(rs.slowStartFailures.length, 11);
  assert.equal(rs.syncs.gated, 0);
  // Each round's calls, from the controller's own Events: the first makes 3 calls (2 created, 1
  // rejected: slowStartBatch stops), every later one 1 rejected call.
  assert.deepEqual(rs.rounds.map((x: { confirmed?: { succeeded: number; failed: number } }) => [x.confirmed?.succeeded, x.confirmed?.failed]), [[2, 1], ...Array(10).fill([0, 1])]);
  assert.equal(rs.failures.length, 1);
  assert.deepEqual({ ...rs.failures[0], message: undefined }, {
    kind: 'create', reason: 'FailedCreate', count: 11, first: '2026-11-30T02:39:06.901Z', last: '2026-11-30T02:39:12.020Z',
    cause: 'a ResourceQuota of the namespace is exhausted (exceeded quota)', message: undefined,
    nextStep: 'raise the quota or free what it counts (terminating pods still count); the controller retries with backoff',
    commands: ['kubectl -n kexp-quota-rejected describe resourcequota', 'kubectl -n kexp-quota-rejected get events --field-selector involvedObject.name=web'],
    current: false, basis: 'observed', evidence: 'examples/captures/quota-rejected/kcm.log:16',
  });
  assert.equal(rs.deleted, '2026-11-30T02:39:17.140Z');
  const table = kexp(['kcm-log', 'examples/captures/quota-rejected/kcm.log'], { env: { COLUMNS: '100' } });
  assert.match(table.stdout, /^Verdict: DELETED \[observed\] — the log shows the ReplicaSet deleted, with no leaked expectations\s+before; kexp-quota-rejected\/web: its creates failed until 2026-11-30T02:39:12\.020Z, then it\s+was deleted/);

  // The same log cut before the deletion: its creates are still failing at its end — exit 5.
  const cut = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-kcm-cut-')), 'kcm.log');
  fs.writeFileSync(cut, fs.readFileSync('examples/captures/quota-rejected/kcm.log', 'utf8').split('\n').filter((l) => !/"deleted" kind="ReplicaSet"|"Deleting" logger="replicaset-controller"/.test(l)).join('\n'));
  const failing = kexp(['kcm-log', cut]);
  assert.equal(failing.code, 5, failing.stderr);
  assert.match(failing.stdout, /^Verdict: FAILING \[observed\]/);
});

test('kcm-log --compare scores a replay of the same scenario: every decision and Set matches', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-kcm-'));
  const rep = kexp(['replay', 'examples/scale-down-graceful.kexp.jsonl', '-o', 'json']);
  const f = path.join(dir, 'report.json');
  fs.writeFileSync(f, rep.stdout);
  const r = kexp(['kcm-log', 'examples/captures/scale-down-graceful/kcm.log', '--compare', f, '-o', 'json']);
  const out = JSON.parse(r.stdout);
  const o = out.compare.overall;
  assert.ok(o.syncs.total > 10);
  assert.equal(o.syncs.matched, o.syncs.total);
  assert.equal(o.raises.exact, o.raises.total);
  assert.deepEqual(out.replicaSets[0].raises.map((x: { add: number; del: number }) => [x.add, x.del]), [[5, 0], [0, 3]]);
});

test('kcm-log on a watch recording points to kexp replay; --compare with a non-report fails clearly', () => {
  const r = kexp(['kcm-log', 'examples/scale-up-gated.kexp.jsonl']);
  assert.equal(r.code, 6);
  assert.match(r.stderr, /kexp replay/);
  const r2 = kexp(['kcm-log', 'examples/captures/scale-up-gated/kcm.log', '--compare', 'package.json']);
  assert.equal(r2.code, 6);
  assert.match(r2.stderr, /not a kexp report/);
});

test('audit on the shared real falco captures: the ReplicaSet controller\'s pod creates are found and attributed to their ReplicaSets', { skip: !fs.existsSync('/work/shared/realdata/falco-k8s-audit') && 'shared realdata not present' }, () => {
  const dir = '/work/shared/realdata/falco-k8s-audit';
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => path.join(dir, f));
  const r = kexp(['audit', ...files, '-o', 'json']);
  const rep = JSON.parse(r.stdout);
  const w = rep.coverage.controllerWrites as Array<{ replicaSet: string; creates: number; inReport: boolean }>;
  assert.ok(w.length >= 3, JSON.stringify(w));
  assert.ok(w.every((x) => /^(default|kube-system)\/nginx-deployment-/.test(x.replicaSet) && x.creates === 1 && !x.inReport));
  const t = kexp(['audit', ...files], { env: { COLUMNS: '100' } });
  assert.match(t.stdout, /Pod writes by the ReplicaSet controller for ReplicaSets whose object is not in the log/);
});

test('kcm-log --rs naming a ReplicaSet the log never mentions: a warning and exit 8, like replay', () => {
  const r = kexp(['kcm-log', 'examples/captures/burst-600/kcm.log.gz', '--rs', 'nope/none']);
  assert.equal(r.code, 8, r.stderr);
  assert.match(r.stderr, /no ReplicaSet, ReplicationController, DaemonSet or Job nope\/none appears in the log/);
  const found = kexp(['kcm-log', 'examples/captures/burst-600/kcm.log.gz', '--rs', 'kexp-burst-600/web']);
  assert.equal(found.code, 0, found.stderr);
});
