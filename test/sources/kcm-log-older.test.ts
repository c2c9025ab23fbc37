/**
 * A kube-controller-manager log older than kexp models (its round lines in the printf wording
 * of v1.20 and earlier, test/sources/fixtures/kcm-v119-v2.log: -v=2, a quota-rejected
 * scale-up and a scale-down) is recognised as such in one line — its lines still read as the
 * controller's own account — instead of being judged by the -v rules of modelled releases
 * ("below -v=4", "syncs not logged").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openKcmLogSource } from '../../src/sources/kcm-log/kcm-log-source.js';
import { collectDiagnostics } from '../../src/sources/diagnostics.js';
import { olderThanModelledWording } from '../../src/sources/kcm-log/log-era.js';
import { kexp } from '../support/cli.js';

const OLD = path.resolve(new URL('./fixtures/kcm-v119-v2.log', import.meta.url).pathname);

async function read(file: string) {
  const d = collectDiagnostics();
  const src = await openKcmLogSource(file, { diagnostics: d, year: 2020 });
  const kinds: string[] = [];
  for await (const e of src.events) if (e.type === 'controller-log') kinds.push(`${e.source.line}:${e.logKind}`);
  return { stats: src.stats(), warnings: d.warnings, problems: d.problems, kinds };
}

test('the old wording is recognised: one warning naming the first line, the count and the oldest modelled release', async () => {
  const r = await read(OLD);
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.stats.olderThanModelled, { line: 5, wording: '"Too few replicas for <Kind> <ns/name>, need N, creating N"', lines: 4 });
  assert.deepEqual(r.warnings, [
    `${OLD}:5: this kube-controller-manager log is older than kexp models: 4 round lines in the printf wording of v1.20 and earlier (the first is this one, "Too few replicas for <Kind> <ns/name>, need N, creating N"); the oldest modelled release is v1.25. Its lines are read as the controller's own account; what they do not show (gate and expectations decisions) is unknown, not absent`,
  ]);
  // Still read: the rounds, the slow-start failure, the sync error, the delete, the ReplicaSet's Events.
  assert.deepEqual(r.kinds, ['2:controller-started', '5:too-few-replicas', '6:controller-event', '8:slow-start-failure', '7:sync-failed', '9:controller-event', '10:too-few-replicas', '11:sync-failed', '12:too-many-replicas', '13:deleting-pod']);
});

test('logs of modelled releases are not called old', async () => {
  for (const f of ['test/fixtures/kcm-log/v128-text.log', 'test/fixtures/kcm-log/v2-quota-rejected.log', 'test/fixtures/kcm-log/sim-v1.37.2-text.log']) {
    const r = await read(f);
    assert.equal(r.stats.olderThanModelled, undefined, f);
    assert.ok(!r.warnings.some((w) => /older than kexp models/.test(w)), f);
  }
  assert.equal(olderThanModelledWording('Too few replicas', true), undefined, 'the structured message');
  assert.equal(olderThanModelledWording('Too many replicas for ReplicationController shop/legacy, need 1, deleting 2', false), '"Too many replicas for <Kind> <ns/name>, need N, deleting N"');
  assert.equal(olderThanModelledWording('Slow-start failure. Skipping creation of 3 pods, decrementing expectations for ReplicaSet shop/web', false), '"Slow-start failure. Skipping creation of N pods, decrementing expectations for <Kind> <ns/name>"');
});

test('kexp kcm-log on it: the one line, no "below -v=4" note; its FailedCreate Event makes it FAILING (exit 5), not a gate verdict', () => {
  const r = kexp(['kcm-log', OLD, '--year', '2020']);
  assert.equal(r.code, 5, r.stderr);
  const err = r.stderr.split('\n').filter(Boolean);
  assert.equal(err.length, 1, r.stderr);
  assert.match(err[0]!, /^warning: .*kcm-v119-v2\.log:5: this kube-controller-manager log is older than kexp models/);
  assert.doesNotMatch(r.stdout + r.stderr, /below -v=4/);
  const text = r.stdout.replace(/\n\s*/g, ' ');
  assert.match(text, /Verdict: FAILING \[observed\] — creates failing for shop\/web-6b7f9c5d48: a ResourceQuota of the namespace is exhausted \(exceeded quota\) \(FailedCreate ×1, the controller's own Events, first .*kcm-v119-v2\.log:9\)/);
  assert.match(text, /kubectl -n shop describe resourcequota/);
  assert.match(text, /08:14:31\.204 create 2 \(desired 4\): 1 SuccessfulCreate, 1 FailedCreate/);
  // Without the Events, the same log's verdict says why the gate cannot be told.
  const noEvents = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-old-')), 'v119.log');
  fs.writeFileSync(noEvents, fs.readFileSync(OLD, 'utf8').split('\n').filter((l) => !l.includes('event.go')).join('\n'));
  const u = kexp(['kcm-log', noEvents, '--year', '2020']);
  assert.equal(u.code, 0, u.stderr);
  assert.match(u.stdout.replace(/\n\s*/g, ' '), /Verdict: UNKNOWN \[unknown\] — the gate and the expectations are not visible: the log is older than kexp models and shows no gate decision, so no gated window or leak can be told from it, nor their absence \(2 ReplicaSets, 3 rounds seen, 0 confirmed by the controller's own Events\)/);
  const j = JSON.parse(kexp(['kcm-log', OLD, '--year', '2020', '-o', 'json']).stdout) as { verbosity: { atLeastV4: boolean; note?: string; olderThanModelled?: boolean }; replicaSets: Array<{ key: string; rounds: unknown[] }> };
  assert.deepEqual(j.verbosity, { atLeastV4: false, olderThanModelled: true });
  assert.deepEqual(j.replicaSets.map((x) => [x.key, x.rounds.length]), [['shop/api-5d8c7b6f4c', 1], ['shop/web-6b7f9c5d48', 2]]);
});
