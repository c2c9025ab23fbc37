/**
 * `kexp replay|audit … --kcm-log` on the DaemonSet and Job captures of the real v1.37.2 controllers
 * (examples/captures/ds-*, job-*; issue #22): the DaemonSet controller's and the Job controller's
 * own lines are fused into their reports as the ReplicaSet controller's are — the log's windows
 * with their gated syncs replace kexp's (observed, the log's FILE:LINE), the leak findings follow
 * them, the exit code is the leak's; the DaemonSet's rolling-update checks are compared with
 * kexp's record, and the Job's finalizer tracking stands beside the finalizer removals the input
 * shows. The ReplicaSet controller's report of the same log is unchanged (tested by the goldens).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kexp } from '../support/cli.js';

const CAP = 'examples/captures';

interface Window { start: string; end?: string; endedBy: string; basis: string; gatedSyncs: number; evidence: string[] }
interface Finding { id: string; basis: string; explanation: string; evidence: string[] }

function report(args: string[], code: number): { kind?: string; key: string; gatedWindows: Window[]; findings: Finding[]; controllerLog?: Record<string, unknown>; finalizerRemovals?: Record<string, unknown> } {
  const r = kexp([...args, '-o', 'json']);
  assert.equal(r.code, code, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.replicaSets.length, 1, out.replicaSets.map((x: { key: string }) => x.key).join());
  return out.replicaSets[0];
}

for (const input of ['recording.kexp.jsonl', 'audit.jsonl'] as const) {
  const cmd = input === 'audit.jsonl' ? 'audit' : 'replay';
  test(`ds-deletion-loss ${cmd} --kcm-log: the log's leak window (07:58:57.906 → 08:04:03.909, 7 gated syncs) observed, cited, exit 4`, () => {
    const dir = `${CAP}/ds-deletion-loss`;
    const ds = report([cmd, `${dir}/${input}`, '--kcm-log', `${dir}/kcm.log`], 4);
    assert.equal(ds.kind, 'DaemonSet');
    const leak = ds.gatedWindows.find((w) => w.endedBy === 'expired')!;
    assert.ok(leak, JSON.stringify(ds.gatedWindows.map((w) => [w.start, w.endedBy])));
    assert.equal(leak.start, '2026-12-05T07:58:57.906Z');
    assert.equal(leak.end, '2026-12-05T08:04:03.909Z');
    assert.equal(leak.gatedSyncs, 7);
    assert.equal(leak.basis, 'observed');
    assert.equal(leak.evidence[0], `${dir}/kcm.log:129`);
    const f = ds.findings.find((x) => x.id === 'expectation-leak-expired')!;
    assert.equal(f.basis, 'observed');
    // kexp's reconstruction counts the log's 7 (the hidden pod's own events trigger no sync of the controller's): one count.
    assert.match(f.explanation, /every sync was refused \(7 gated syncs\) until/);
    assert.ok(f.evidence.includes(`${dir}/kcm.log:129`));
    // updateDaemonSet's second check, each compared with kexp's record at its time.
    assert.deepEqual(ds.controllerLog!.rollingUpdateChecks, {
      total: 18, fulfilled: 15, stillWaiting: 3, expired: 0, firstStillWaiting: `${dir}/kcm.log:83`, basis: 'observed',
      kexp: { matched: 18, mismatched: 0, unknown: 0, mismatchRefs: [] },
    });
    assert.equal(ds.finalizerRemovals, undefined);
  });

  test(`job-dropped-add ${cmd} --kcm-log: the log's leak window (10 gated syncs) observed, exit 4; the held pod the log never tried to release`, () => {
    const dir = `${CAP}/job-dropped-add`;
    const job = report([cmd, `${dir}/${input}`, '--kcm-log', `${dir}/kcm.log`], 4);
    assert.equal(job.kind, 'Job');
    assert.deepEqual(job.gatedWindows.map((w) => [w.start, w.end, w.endedBy, w.gatedSyncs, w.basis, w.evidence[0]]), [
      ['2026-12-05T07:59:12.317Z', '2026-12-05T08:04:19.364Z', 'expired', 10, 'observed', `${dir}/kcm.log:5`],
    ]);
    const f = job.findings.find((x) => x.id === 'expectation-leak-expired')!;
    assert.equal(f.basis, 'observed');
    assert.match(f.explanation, /10 gated syncs in the controller's log/);
    assert.deepEqual(job.controllerLog!.finalizerTracking, { lines: 1, expected: 1, observed: 1, dropped: 0, awaited: [], basis: 'observed', evidence: `${dir}/kcm.log:29` });
    const fr = job.finalizerRemovals as { removed: number; byController: number; held: Array<{ pod: string }>; statement: string; log: string };
    assert.equal(fr.removed, 1);
    assert.equal(fr.byController, input === 'audit.jsonl' ? 1 : 0, 'only an audit log names the writer');
    assert.deepEqual(fr.held.map((h) => h.pod), ['kexp-job-dropped-add/work-9dtz6']);
    assert.match(fr.statement, /^1 pod holds the job-tracking finalizer at the end of the input .*the Job has finished/);
    assert.match(fr.log, /no "Expecting tracking finalizers removed" of the controller's log names it up to its end at 2026-12-05T08:04:25\.460Z/);
  });

  test(`job-complete ${cmd} --kcm-log: three windows fulfilled (observed), 6 removals beside the log's 6, exit 0`, () => {
    const dir = `${CAP}/job-complete`;
    const job = report([cmd, `${dir}/${input}`, '--kcm-log', `${dir}/kcm.log`], 0);
    assert.deepEqual(job.gatedWindows.map((w) => [w.endedBy, w.basis]), [['fulfilled', 'observed'], ['fulfilled', 'observed'], ['fulfilled', 'observed']]);
    const fr = job.finalizerRemovals as { removed: number; byController: number; held: unknown[]; first: string; last: string };
    assert.equal(fr.removed, 6);
    assert.equal(fr.byController, input === 'audit.jsonl' ? 6 : 0);
    assert.deepEqual(fr.held, []);
    assert.equal((job.controllerLog!.finalizerTracking as { observed: number }).observed, 6);
  });
}

test('the fused Job report prints its finalizer removals and the log\'s tracking as their own lines', () => {
  const dir = `${CAP}/job-dropped-add`;
  const r = kexp(['replay', `${dir}/recording.kexp.jsonl`, '--kcm-log', `${dir}/kcm.log`], { env: { COLUMNS: '100' } });
  assert.equal(r.code, 4, r.stderr);
  const text = r.stdout.replace(/\n\s*/g, ' ');
  assert.match(text, /Finalizer removals \(observed: trackJobStatusAndRemoveFinalizers removes batch\.kubernetes\.io\/job-tracking once it counted a finished pod\): 1 removed 07:59:18\.574, the writer not in the input \(examples\/captures\/job-dropped-add\/recording\.kexp\.jsonl:17\); 1 pod holds the job-tracking finalizer/);
  assert.match(text, /Finalizer tracking \(observed: .*\): 1 expected in 1 line \(first examples\/captures\/job-dropped-add\/kcm\.log:29\), 1 observed removed; none awaited at the end of the log/);
  assert.match(text, /07:59:12\.317 +08:04:19\.364 +5m07s +expired +2\/0 +10 +observed/);
  assert.match(text, /Input: examples\/captures\/job-dropped-add\/kcm\.log \(kcm-log, 0 log lines about ReplicaSets; its Job lines fused into their reports\)/);
});

test('without the log a DaemonSet report has no rolling-update checks and keeps kexp\'s windows', () => {
  const dir = `${CAP}/ds-deletion-loss`;
  const ds = report(['replay', `${dir}/recording.kexp.jsonl`], 4);
  assert.equal(ds.controllerLog, undefined);
  assert.ok(ds.gatedWindows.every((w) => w.basis !== 'observed'));
});

test('the HTML report of a fused Job has its finalizer lines under their own heading', async () => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const dir = `${CAP}/job-dropped-add`;
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-kcmfuse-')), 'r.html');
  const r = kexp(['replay', `${dir}/recording.kexp.jsonl`, '--kcm-log', `${dir}/kcm.log`, '--html', out]);
  assert.equal(r.code, 4, r.stderr);
  const html = fs.readFileSync(out, 'utf8');
  assert.match(html, /<h3>Finalizers<\/h3>\n<p>Finalizer removals \(observed: [^<]*1 removed 2026-12-05 07:59:18\.574 UTC[^<]*work-9dtz6[^<]*<\/p>\n<p>Finalizer tracking \(observed: [^<]*1 observed removed; none awaited at the end of the log<\/p>/);
});
