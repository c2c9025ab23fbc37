/**
 * The year of a kube-controller-manager log given beside other inputs (`--kcm-log`, or found
 * among them): klog lines carry none. It comes from the log's wrapper timestamps, else the other
 * inputs' time (a recording's start, an audit log's first event, a snapshot's time, a watch
 * dump's times), else the file's mtime — and the report says which (coverage.timeBasis, printed
 * as a "Times:" line), as `kexp kcm-log` says it on the log's Input line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openKcmLogSource } from '../../src/sources/kcm-log/kcm-log-source.js';
import { collectDiagnostics } from '../../src/sources/diagnostics.js';
import { readControllerLogs, watchInputsTime } from '../../src/pipeline/controller-log-files.js';
import { kexp } from '../support/cli.js';
import type { Report } from '../../src/analysis/report-types.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-kcm-year-'));
/** A copy of `src` whose mtime is `mtime` (a log copied long after it was written). */
function copyWithMtime(src: string, name: string, mtime: string): string {
  const f = path.join(tmp, name);
  fs.copyFileSync(src, f);
  const t = new Date(mtime);
  fs.utimesSync(f, t, t);
  return f;
}
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

const NEW_YEAR = [
  'I1231 23:59:58.000000       1 replica_set.go:285] "Starting controller" logger="replicaset-controller" name="replicaset"',
  'I0101 00:00:02.000000       1 replica_set.go:668] "Too few replicas" logger="replicaset-controller" replicaSet="shop/web" need=1 creating=1',
].join('\n') + '\n';

test('source: the other inputs\' time places the klog year (nearest to it, across New Year) and beats the mtime', async () => {
  const f = path.join(tmp, 'new-year.log');
  fs.writeFileSync(f, NEW_YEAR);
  const mtime = new Date('2031-12-31T12:00:00Z');
  fs.utimesSync(f, mtime, mtime);
  const read = async (otherInputsAt?: number) => {
    const src = await openKcmLogSource(f, { diagnostics: collectDiagnostics(), ...(otherInputsAt !== undefined ? { otherInputsAt } : {}) });
    for await (const _ of src.events) void _;
    return { cov: src.coverage(), basis: src.stats().yearBasis };
  };
  const other = await read(Date.parse('2025-01-01T00:00:05Z'));
  assert.deepEqual([other.basis, iso(other.cov.start), iso(other.cov.end)], ['other-input', '2024-12-31T23:59:58.000Z', '2025-01-01T00:00:02.000Z']);
  const mt = await read();
  assert.deepEqual([mt.basis, iso(mt.cov.start), iso(mt.cov.end)], ['mtime', '2031-12-31T23:59:58.000Z', '2032-01-01T00:00:02.000Z']);
});

test('readControllerLogs: one note per log saying where its year came from; none for a wrapped log (its wrapper has full times)', async () => {
  const f = copyWithMtime('examples/captures/namespace-terminating-leak/kcm.log', 'ntl.log', '2031-12-31T12:00:00Z');
  const withOther = await readControllerLogs([f], { diagnostics: collectDiagnostics(), otherInputs: { at: Date.parse('2026-11-30T02:39:18.206Z'), what: "the recording's start" } });
  assert.deepEqual(withOther.yearNotes, [`${f}: klog lines carry no year; took 2026 from the recording's start (2026-11-30T02:39:18.206Z)`]);
  assert.equal(iso(withOther.coverage[0]!.start)!.slice(0, 10), '2026-11-30');
  const alone = await readControllerLogs([f], { diagnostics: collectDiagnostics() });
  assert.equal(alone.yearNotes.length, 1);
  assert.match(alone.yearNotes[0]!, /klog lines carry no year; took 2031 from the file's modification time \(mtime\), as the other inputs give no time to take it from/);
  const cri = await readControllerLogs(['test/fixtures/kcm-log/cri-wrapped.log'], { diagnostics: collectDiagnostics(), otherInputs: { at: Date.parse('2019-06-01T00:00:00Z'), what: 'x' } });
  assert.deepEqual(cri.yearNotes, []);
  assert.notEqual(iso(cri.coverage[0]!.start)!.slice(0, 4), '2019', 'the wrapper timestamps, not the other inputs, give the year');
});

test('watchInputsTime: the newest time among a watch dump\'s first events; nothing from stdin', async () => {
  const t = await watchInputsTime(['test/fixtures/watch/kubectl-watch.json'], undefined);
  assert.ok(t);
  assert.equal(t.what, 'the time of test/fixtures/watch/kubectl-watch.json');
  // The newest timestamp any object of the file carries.
  const stamps = [...fs.readFileSync('test/fixtures/watch/kubectl-watch.json', 'utf8').matchAll(/"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"/g)].map((m) => Date.parse(m[1]!));
  assert.equal(iso(t.at), iso(Math.max(...stamps)));
  assert.equal(await watchInputsTime(['-'], undefined), undefined);
});

test('replay RECORDING --kcm-log: the year from the recording\'s start, said in a Times line (text) and coverage.timeBasis (JSON)', () => {
  const f = copyWithMtime('examples/captures/namespace-terminating-leak/kcm.log', 'kcm-2031.log', '2031-12-31T12:00:00Z');
  const r = kexp(['replay', 'examples/namespace-terminating-leak.kexp.jsonl', '--kcm-log', f, '--output', 'json']);
  assert.equal(r.code, 0, r.stderr);
  const rep = JSON.parse(r.stdout) as Report;
  assert.ok(rep.coverage.timeBasis.includes(`${f}: klog lines carry no year; took 2026 from the recording's start (2026-11-30T02:39:18.206Z)`), rep.coverage.timeBasis.join('\n'));
  assert.equal(rep.inputs.find((i) => i.file === f)!.start!.slice(0, 10), '2026-11-30');
  assert.equal(rep.replicaSets[0]!.gatedWindows[0]!.basis, 'observed', 'the log is fused (same year as the recording)');
  const text = kexp(['replay', 'examples/namespace-terminating-leak.kexp.jsonl', '--kcm-log', f], { env: { COLUMNS: '400' } });
  assert.match(text.stdout, new RegExp(`Times: +${f.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: klog lines carry no year; took 2026 from the recording's start`));
});

test('audit AUDIT --kcm-log: the year from the audit log\'s first event', () => {
  const f = copyWithMtime('examples/captures/quota-rejected/kcm.log', 'quota-2031.log', '2031-12-31T12:00:00Z');
  const r = kexp(['audit', 'examples/captures/quota-rejected/audit.jsonl', '--kcm-log', f, '--rs', 'kexp-quota-rejected/web', '--output', 'json']);
  const rep = JSON.parse(r.stdout) as Report;
  assert.ok(rep.coverage.timeBasis.some((b) => b.startsWith(`${f}: klog lines carry no year; took 2026 from the audit log's first event (2026-`)), rep.coverage.timeBasis.join('\n'));
  assert.equal(rep.replicaSets[0]!.controllerLog?.decisionsMatched, 13, 'fused: the times line up');
});

test('replay of a kubectl watch dump (no recording header) --kcm-log: the year from the dump\'s times; from stdin, the mtime, said so', () => {
  const f = copyWithMtime('examples/captures/namespace-terminating-leak/kcm.log', 'kcm-watch.log', '2031-12-31T12:00:00Z');
  const r = kexp(['replay', 'test/fixtures/watch/kubectl-watch.json', '--kcm-log', f, '--output', 'json']);
  const rep = JSON.parse(r.stdout) as Report;
  assert.ok(rep.coverage.timeBasis.some((b) => b.startsWith(`${f}: klog lines carry no year; took 2026 from the time of test/fixtures/watch/kubectl-watch.json (2026-`)), rep.coverage.timeBasis.join('\n'));
  const s = kexp(['replay', '-', '--kcm-log', f, '--output', 'json'], { input: fs.readFileSync('test/fixtures/watch/kubectl-watch.json', 'utf8') });
  const srep = JSON.parse(s.stdout) as Report;
  assert.ok(srep.coverage.timeBasis.includes(`${f}: klog lines carry no year; took 2031 from the file's modification time (mtime), as the other inputs give no time to take it from; its times may be off by a year if the file was copied later`), srep.coverage.timeBasis.join('\n'));
  assert.match(s.stderr, /no overlap/, 'and a 2031 log does not overlap a 2026 dump: it is not fused');
});
