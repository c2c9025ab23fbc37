/**
 * kexp's replay of the DaemonSet and Job captures of issue #22 (examples/captures/ds-*, job-*,
 * made on the real v1.37.2 controller by test/e2e/scenarios/run-workload-scenarios.ts) against
 * the controller's own -v=4 log: from the recording alone, kexp finds the window the log shows the
 * record held — its Set, its expiry at the controller's "Controller expectations expired" sync —
 * and calls it a leak (exit 4); a capture without an incident replays healthy with the rounds the
 * log shows. The log is read here only as the truth to compare with (the sliced log holds one
 * namespace's lines, so its keyless expectations lines are that controller's).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { exitCodeFor } from '../../src/cli/report-exit.js';
import { logLines } from '../e2e/scenarios/controller-truth.js';
import { validateReport } from '../support/report-schema.js';

const DIR = 'examples/captures';

async function replayCapture(name: string) {
  const { report, problems } = await replayFiles({ files: [path.join(DIR, name, 'recording.kexp.jsonl')] });
  assert.deepEqual(problems, []);
  assert.deepEqual(validateReport(report), []);
  return report;
}

/** The times of the log's lines matching `re`. */
function logTimes(name: string, re: RegExp): number[] {
  return logLines(path.join(DIR, name, 'kcm.log'), 2026).filter((l) => re.test(l.text)).map((l) => l.at);
}

test('ds-deletion-loss: the hidden deletion leaves del=1 from the delete round to the controller\'s expired sync, from the recording alone; exit 4', async () => {
  const report = await replayCapture('ds-deletion-loss');
  const ds = report.replicaSets.find((r) => r.kind === 'DaemonSet')!;
  const leak = ds.gatedWindows.find((w) => w.endedBy === 'expired');
  assert.ok(leak, ds.gatedWindows.map((w) => JSON.stringify(w)).join('\n'));
  assert.deepEqual([leak.raised.add, leak.raised.del, leak.basis], [0, 1, 'inferred']);
  const [deleteRound] = logTimes('ds-deletion-loss', /Pods to delete for daemon set, deleting" .*deleteCount=1/);
  const [expired] = logTimes('ds-deletion-loss', /"Controller expectations expired"/);
  assert.ok(Math.abs(Date.parse(leak.start) - deleteRound!) < 50, `window start ${leak.start} vs the log's delete round ${new Date(deleteRound!).toISOString()}`);
  assert.ok(Math.abs(Date.parse(leak.end!) - expired!) < 50, `window end ${leak.end} vs the log's expired sync ${new Date(expired!).toISOString()}`);
  assert.ok(leak.gatedSyncs >= 5, `gated syncs ${leak.gatedSyncs}`);
  assert.equal(exitCodeFor(report, 0), 4);
});

test('job-dropped-add: the create whose ADD the controller never got leaves the Job gated from its Set to the expired sync; exit 4', async () => {
  const report = await replayCapture('job-dropped-add');
  const job = report.replicaSets.find((r) => r.kind === 'Job')!;
  const leak = job.gatedWindows.find((w) => w.endedBy === 'expired');
  assert.ok(leak, job.gatedWindows.map((w) => JSON.stringify(w)).join('\n'));
  const [set] = logTimes('job-dropped-add', /"Too few pods running" .*creating=2/);
  const [expired] = logTimes('job-dropped-add', /"Controller expectations expired"/);
  assert.ok(Math.abs(Date.parse(leak.start) - set!) < 50, `window start ${leak.start} vs the log's round ${new Date(set!).toISOString()}`);
  assert.ok(Math.abs(Date.parse(leak.end!) - expired!) < 50, `window end ${leak.end} vs the log's expired sync ${new Date(expired!).toISOString()}`);
  const stillWaiting = logTimes('job-dropped-add', /"Controller still waiting on expectations"/).filter((t) => t > set! && t < expired!).length;
  // The log shows 10 (its 60-s rate-limited requeues included); within 20 % while the model's requeue of a gated failing Job is checked.
  assert.ok(Math.abs(leak.gatedSyncs - stillWaiting) <= Math.ceil(stillWaiting * 0.2), `gated syncs ${leak.gatedSyncs} vs the log's ${stillWaiting}`);
  assert.equal(exitCodeFor(report, 0), 4);
});

test('ds-scale-nodes: healthy, with the create and delete rounds the controller logged', async () => {
  const report = await replayCapture('ds-scale-nodes');
  const ds = report.replicaSets.find((r) => r.kind === 'DaemonSet')!;
  assert.equal(ds.verdict.state, 'healthy');
  const logged = logLines(path.join(DIR, 'ds-scale-nodes', 'kcm.log'), 2026)
    .map((l) => /createCount=(\d+)|deleteCount=(\d+)/.exec(l.text))
    .filter((m): m is RegExpExecArray => m !== null && (m[1] ?? m[2]) !== '0')
    .map((m) => (m[1] !== undefined ? ['create', Number(m[1])] : ['delete', Number(m[2])]));
  assert.deepEqual(ds.rounds.map((r) => [r.kind, r.n]), logged);
  assert.equal(exitCodeFor(report, 0), 0);
});
