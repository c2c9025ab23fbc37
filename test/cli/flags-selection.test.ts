/**
 * kubectl habits for choosing ReplicaSets in the file commands: `-n NS NAME` (= `--rs NS/NAME`),
 * `-n NS` alone, `-A`, `-l SELECTOR`; the exit code follows the ReplicaSets reported.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kexp } from '../support/cli.js';

const ROLLOUT = 'examples/deployment-rollout.kexp.jsonl';
const QUOTA = 'examples/quota-rejected.kexp.jsonl';
const AUDIT_ROLLOUT = 'examples/captures/deployment-rollout/audit.jsonl';
const AUDIT_QUOTA = 'examples/captures/quota-rejected/audit.jsonl';

const keys = (stdout: string): string[] => (JSON.parse(stdout) as { replicaSets: Array<{ key: string }> }).replicaSets.map((r) => r.key);

test('replay of two namespaces: every namespace by default (-A the same), exit 5 from the failing one', () => {
  const all = kexp(['replay', ROLLOUT, QUOTA, '-o', 'json']);
  assert.equal(all.code, 5, all.stderr);
  assert.deepEqual(keys(all.stdout), ['kexp-deployment-rollout/web-6594b5fdcc', 'kexp-deployment-rollout/web-95bc5b57f', 'kexp-quota-rejected/web']);
  const a = kexp(['replay', '-A', ROLLOUT, QUOTA, '-o', 'json']);
  assert.equal(a.code, 5);
  assert.deepEqual(keys(a.stdout), keys(all.stdout));
});

test('replay -n NS alone keeps that namespace, and the exit code rests on it', () => {
  const r = kexp(['replay', '-n', 'kexp-deployment-rollout', ROLLOUT, QUOTA, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(keys(r.stdout), ['kexp-deployment-rollout/web-6594b5fdcc', 'kexp-deployment-rollout/web-95bc5b57f']);
  const q = kexp(['replay', '--namespace', 'kexp-quota-rejected', ROLLOUT, QUOTA, '-o', 'json']);
  assert.equal(q.code, 5);
  assert.deepEqual(keys(q.stdout), ['kexp-quota-rejected/web']);
});

test('replay -n NS NAME is --rs NS/NAME; both agreeing is fine, disagreeing is exit 2', () => {
  const byName = kexp(['replay', '-n', 'kexp-deployment-rollout', 'web-95bc5b57f', ROLLOUT, QUOTA, '-o', 'json']);
  const byRs = kexp(['replay', '--rs', 'kexp-deployment-rollout/web-95bc5b57f', ROLLOUT, QUOTA, '-o', 'json']);
  assert.equal(byName.code, 0, byName.stderr);
  assert.deepEqual(keys(byName.stdout), ['kexp-deployment-rollout/web-95bc5b57f']);
  assert.deepEqual(JSON.parse(byName.stdout).replicaSets, JSON.parse(byRs.stdout).replicaSets);
  const both = kexp(['replay', '-n', 'kexp-deployment-rollout', 'web-95bc5b57f', '--rs', 'kexp-deployment-rollout/web-95bc5b57f', ROLLOUT, '-o', 'json']);
  assert.equal(both.code, 0, both.stderr);
  const clash = kexp(['replay', '-n', 'kexp-deployment-rollout', 'web-95bc5b57f', '--rs', 'kexp-quota-rejected/web', ROLLOUT]);
  assert.equal(clash.code, 2);
  assert.equal(clash.stdout, '');
  assert.match(clash.stderr, /^kexp: --rs kexp-quota-rejected\/web and -n kexp-deployment-rollout web-95bc5b57f name different ReplicaSets; give one\n$/);
  const nsClash = kexp(['replay', '-n', 'shop', '--rs', 'kexp-quota-rejected/web', QUOTA]);
  assert.equal(nsClash.code, 2);
  assert.match(nsClash.stderr, /--rs kexp-quota-rejected\/web is not in namespace shop/);
  const missing = kexp(['replay', '-n', 'kexp-quota-rejected', 'nosuch', QUOTA]);
  assert.equal(missing.code, 8, missing.stderr);
  assert.match(missing.stderr, /ReplicaSet kexp-quota-rejected\/nosuch does not appear/);
});

test('-A with -n or --rs is a usage error', () => {
  for (const extra of [['-n', 'shop'], ['--rs', 'shop/web']]) {
    const r = kexp(['replay', '-A', ...extra, QUOTA]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^kexp: -A\/--all-namespaces cannot be combined with/);
  }
});

test('replay -l chooses ReplicaSets by their labels (kubectl syntax)', () => {
  const one = kexp(['replay', '-l', 'pod-template-hash=6594b5fdcc', ROLLOUT, QUOTA, '-o', 'json']);
  assert.equal(one.code, 0, one.stderr);
  assert.deepEqual(keys(one.stdout), ['kexp-deployment-rollout/web-6594b5fdcc']);
  const not = kexp(['replay', '--selector', 'app=web,!pod-template-hash', ROLLOUT, QUOTA, '-o', 'json']);
  assert.equal(not.code, 5);
  assert.deepEqual(keys(not.stdout), ['kexp-quota-rejected/web']);
  const set = kexp(['replay', '-l', 'pod-template-hash in (95bc5b57f,nope)', ROLLOUT, QUOTA, '-o', 'json']);
  assert.deepEqual(keys(set.stdout), ['kexp-deployment-rollout/web-95bc5b57f']);
  const none = kexp(['replay', '-l', 'app=db', ROLLOUT, QUOTA]);
  assert.equal(none.code, 0);
  assert.match(none.stderr, /kexp: no ReplicaSets found matching -l app=db/);
  const bad = kexp(['replay', '-l', 'app in (', QUOTA]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^kexp: invalid label selector .* at position \d+\n$/);
});

test('audit: -n NS, -n NS NAME and -l filter the ranking and the report', () => {
  const all = kexp(['audit', AUDIT_ROLLOUT, AUDIT_QUOTA, '-o', 'json']);
  assert.equal(keys(all.stdout).length, 3, all.stderr);
  const ns = kexp(['audit', '-n', 'kexp-quota-rejected', AUDIT_ROLLOUT, AUDIT_QUOTA, '-o', 'json']);
  assert.deepEqual(keys(ns.stdout), ['kexp-quota-rejected/web']);
  assert.deepEqual(JSON.parse(ns.stdout).coverage.controllerWrites.map((w: { replicaSet: string }) => w.replicaSet), ['kexp-quota-rejected/web']);
  const table = kexp(['audit', '-n', 'kexp-quota-rejected', AUDIT_ROLLOUT, AUDIT_QUOTA]);
  assert.doesNotMatch(table.stdout, /kexp-deployment-rollout/);
  assert.match(table.stdout, /kexp-quota-rejected/);
  const name = kexp(['audit', '-n', 'kexp-deployment-rollout', 'web-95bc5b57f', AUDIT_ROLLOUT, AUDIT_QUOTA, '-o', 'json']);
  const rs = kexp(['audit', '--rs', 'kexp-deployment-rollout/web-95bc5b57f', AUDIT_ROLLOUT, AUDIT_QUOTA, '-o', 'json']);
  assert.deepEqual(keys(name.stdout), ['kexp-deployment-rollout/web-95bc5b57f']);
  assert.deepEqual(JSON.parse(name.stdout).replicaSets, JSON.parse(rs.stdout).replicaSets);
  const sel = kexp(['audit', '-l', 'pod-template-hash', AUDIT_ROLLOUT, AUDIT_QUOTA, '-o', 'json']);
  assert.deepEqual(keys(sel.stdout), ['kexp-deployment-rollout/web-6594b5fdcc', 'kexp-deployment-rollout/web-95bc5b57f']);
});

test('help says -A is the default for files', () => {
  for (const cmd of ['replay', 'audit']) {
    const h = kexp([cmd, '--help'], { env: { COLUMNS: '200' } });
    assert.match(h.stdout.replace(/\s+/g, ' '), /-A, --all-namespaces Every namespace in the input \(the default for files/);
    assert.match(h.stdout, /-l, --selector=SELECTOR/);
  }
});
