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

/**
 * The controller's rounds in its log, in order: the Job's "Too few pods running … creating=N" /
 * "Too many pods running … deleting=N", the DaemonSet's "Nodes needing daemon pods … createCount=N"
 * / "Pods to delete … deleteCount=N" (manage's and the rolling update's), N > 0, before `until`.
 */
function logRounds(name: string, until = Infinity): Array<[string, number]> {
  return logLines(path.join(DIR, name, 'kcm.log'), 2026)
    .filter((l) => l.at < until)
    .map((l) => /(?:creating|createCount)=(\d+)|(?:deleting|deleteCount)=(\d+)/.exec(l.text))
    .filter((m): m is RegExpExecArray => m !== null && (m[1] ?? m[2]) !== '0')
    .map((m): [string, number] => (m[1] !== undefined ? ['create', Number(m[1])] : ['delete', Number(m[2])]));
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
  // The rounds up to the expiry are the log's: 3 creates, one for each new node, the delete of the
  // pod whose deletion the proxy hid. The controller's cache still held that pod after it (a ghost:
  // its DELETE answered 404 at every later sync, in manage and in the rolling update); kexp keeps
  // it too, so the expired sync's two rounds are the log's: manage's delete of the ghost, then the
  // rolling update's of all five old pods, the ghost among them.
  const rounds = ds.rounds.filter((r) => Date.parse(r.at) < Date.parse(leak.end!)).map((r) => [r.kind, r.n]);
  assert.deepEqual(rounds, logRounds('ds-deletion-loss', expired!));
  assert.deepEqual(rounds, [['create', 3], ['create', 1], ['create', 1], ['delete', 1]]);
  const atExpiry = ds.rounds.filter((r) => r.at === leak.end);
  assert.deepEqual(atExpiry.map((r) => [r.kind, r.n]), logRounds('ds-deletion-loss').slice(4, 6));
  assert.ok(atExpiry.every((r) => r.keys!.includes('kexp-ds-deletion-loss/agent-twctt') && /^1 DELETE answered 404 \(NotFound\).*\(inferred: /.test(r.note ?? '')));
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
  // The log shows 10, each 1 s after a handler's "enqueueing job" (none rate-limited: no gated sync
  // failed); the ones 60 s apart follow the scenario's annotation patches of the Job, which kexp
  // replays too. The status write at 07:59:13.346 counts 1 of 2: kexp first withholds the newest
  // (work-ktzm8); the write at 07:59:16.548 counts it ready (status.ready 1, and only ktzm8 was
  // ready), so the controller had ktzm8 and lacked work-9dtz6, whose ADD the proxy dropped. kexp
  // swaps them there: its model then runs the sync after ktzm8's Failed update (07:59:18.5), and
  // misses only the one after its Running update (07:59:16.5), which it could not know of yet: 9.
  assert.ok(Math.abs(leak.gatedSyncs - stillWaiting) <= Math.ceil(stillWaiting * 0.1), `gated syncs ${leak.gatedSyncs} vs the log's ${stillWaiting}`);
  assert.equal(leak.gatedSyncs, 9);
  // The record the controller kept: 2 raised, ktzm8's ADD lowered it, 9dtz6's never reached it.
  assert.deepEqual([leak.remaining?.add, leak.remaining?.del], [1, 0]);
  // The lost ADD is named, and its next update (08:04:22.425) delivers it: the log's "Lowered expectations" then.
  const behind = job.findings.find((f) => f.id === 'informer-behind')!;
  assert.match(behind.explanation, /not the newest: kexp-job-dropped-add\/work-9dtz6/);
  assert.match(behind.explanation, /a lost watch event, not a lag/);
  assert.match(behind.explanation, /work-9dtz6 \(2026-12-05T08:04:22\.425Z\) reached the informer as an add/);
  const [lowered] = logTimes('job-dropped-add', /"Lowered expectations"/).filter((t) => t > expired!);
  assert.ok(Math.abs(Date.parse('2026-12-05T08:04:22.425Z') - lowered!) < 50);
  // Every gate decision follows the controller's view: nothing of the window is unknown.
  assert.deepEqual(job.viewUnknown ?? [], []);
  assert.deepEqual(job.rounds.map((r) => [r.kind, r.n]), logRounds('job-dropped-add'));
  assert.match(job.verdict.summary, /^the Job is Failed \(BackoffLimitExceeded: Job has reached the specified backoff limit\) since 2026-12-05T08:04:19Z/);
  assert.equal(exitCodeFor(report, 0), 4);
});

test('ds-scale-nodes: healthy, with the create and delete rounds the controller logged', async () => {
  const report = await replayCapture('ds-scale-nodes');
  const ds = report.replicaSets.find((r) => r.kind === 'DaemonSet')!;
  assert.equal(ds.verdict.state, 'healthy');
  assert.deepEqual(ds.rounds.map((r) => [r.kind, r.n]), logRounds('ds-scale-nodes'));
  assert.equal(exitCodeFor(report, 0), 0);
});

test('job-complete: healthy, with the controller\'s three create rounds (3, then 1 and 2 to replace the finished pods), each fulfilled by its ADDs with no gated sync', async () => {
  const report = await replayCapture('job-complete');
  const job = report.replicaSets.find((r) => r.kind === 'Job')!;
  assert.deepEqual(job.rounds.map((r) => [r.kind, r.n]), logRounds('job-complete'));
  assert.deepEqual(logRounds('job-complete'), [['create', 3], ['create', 1], ['create', 2]]);
  // Each round's window: from its Set ("Setting expectations") to the sync that found it fulfilled.
  const sets = logTimes('job-complete', /"Setting expectations"/);
  const fulfilled = logTimes('job-complete', /"Controller expectations fulfilled"/);
  assert.equal(job.gatedWindows.length, sets.length);
  job.gatedWindows.forEach((w, i) => {
    assert.equal(w.endedBy, 'fulfilled');
    assert.equal(w.gatedSyncs, 0);
    assert.ok(Math.abs(Date.parse(w.start) - sets[i]!) < 50, `window ${i} start ${w.start}`);
    const end = fulfilled.find((t) => t > sets[i]!)!;
    assert.ok(Math.abs(Date.parse(w.end!) - end) < 50, `window ${i} end ${w.end} vs the log's ${new Date(end).toISOString()}`);
  });
  assert.equal(logTimes('job-complete', /"Controller still waiting on expectations"/).length, 0);
  assert.equal(job.verdict.state, 'healthy');
  // Its Complete condition, as the controller wrote it, is the verdict's sentence (observed).
  assert.equal(job.verdict.basis, 'observed');
  assert.match(job.verdict.summary, /^the Job is Complete \(CompletionsReached: Reached expected number of succeeded pods\) since 2026-12-05T08:00:10Z/);
  assert.equal(exitCodeFor(report, 0), 0);
});
