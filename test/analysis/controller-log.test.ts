/**
 * The one fusion of a kube-controller-manager log into a report (src/analysis/controller-log.ts),
 * on hand-made inputs: what each basis does (a replay, a snapshot, a report read from a file),
 * what it adds (windows confirmed, leak findings observed, the log's own findings, the informer
 * lag, the log's inputs and time notes), what it leaves alone (the input report, a log of another
 * time), and the scores `kcm-log --compare` prints.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { controllerLogOverlap, fuseControllerLog, type ControllerLogInput } from '../../src/analysis/controller-log.js';
import type { ReplayResult } from '../../src/analysis/engine/replay-result.js';
import { REPORT_SCHEMA_VERSION, type Report, type ReplicaSetReport } from '../../src/analysis/report-types.js';
import type { ControllerWrite } from '../../src/analysis/engine/write-ledger.js';
import type { GroundTruth } from '../../src/sources/kcm-log/ground-truth.js';
import type { FileCoverage } from '../../src/sources/source.js';
import { smallReplicaSet } from '../render/small-report.js';

const T = Date.UTC(2026, 10, 30, 10, 0, 0);
const at = (s: number) => new Date(T + s * 1000).toISOString();
const src = (line: number) => ({ file: 'kcm.log', line });
const KEY = 'shop/web-7d9c6b8f5d';

function report(): Report {
  const rs: ReplicaSetReport = {
    ...smallReplicaSet(),
    expectations: [{ at: at(31), op: 'set', add: 1, del: 0, evidence: 'rec.jsonl:10' }],
    findings: [
      { id: 'expectation-leak-expired', severity: 'warning', basis: 'inferred', at: at(31), title: 'leak', explanation: '', nextStep: '', evidence: ['rec.jsonl:10'] },
      { id: 'input-disagrees-with-model', severity: 'info', basis: 'unknown', at: at(50), title: 'x', explanation: '', nextStep: 'Compare with the log', evidence: [] },
    ],
  };
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generator: { name: 'kexp', version: 't', command: 'replay' },
    k8sVersion: { version: 'v1.33.0', basis: 'default' },
    inputs: [{ file: 'rec.jsonl', format: 'kexp-recording', timeBasis: 'received', start: at(0), end: at(60), events: 10, problems: 0, endMarker: true }],
    coverage: { start: at(0), end: at(60), timeBasis: ['received: …'], assumptions: ['A.'], gaps: [], problems: { count: 0, examples: [] } },
    replicaSets: [rs],
  };
}

function truth(rsKey: string): GroundTruth {
  return {
    rsKey,
    syncs: [{ at: T + 40_000, decision: 'gated', source: src(3) }],
    raises: [{ at: T + 31_000, add: 1, del: 0, op: 'set', source: src(1) }],
    lowers: [], clobbers: [], slowStartFailures: [], restarts: [], consistencySkips: [], syncFailures: [],
    gatedWindows: [
      { start: T + 31_000, startSource: src(1), startedBy: 'setting', expected: { add: 1, del: 0 }, end: T + 45_000, endSource: src(4), ended: 'expired', leaked: { add: 1, del: 0 }, gatedSyncs: 1 },
      // A window only the log shows.
      { start: T + 20_000, startSource: src(5), startedBy: 'gated-sync', end: T + 25_000, endSource: src(6), ended: 'fulfilled', gatedSyncs: 2, satisfiedAt: T + 25_000 },
    ],
  };
}

const coverage: FileCoverage[] = [{ file: 'kcm.log', format: 'kcm-log', timeBasis: 'log', start: T, end: T + 60_000, endMarker: false, events: 6, problems: 0 }];

function log(extra: Partial<ControllerLogInput> = {}): ControllerLogInput {
  return {
    files: ['kcm.log'], truths: new Map([[KEY, truth(KEY)], ['shop/other', truth('shop/other')]]),
    podAdded: new Map([['shop/web-1', { at: T + 11_500, source: src(9) }]]), starts: [], coverage, yearNotes: ['kcm.log: year from x'], ...extra,
  };
}

function replayed(start: number, end: number): ReplayResult {
  const writes = [{ kind: 'create', outcome: 'ok', pod: 'shop/web-1', at: T + 10_000, round: 0 }] as ControllerWrite[];
  return { start, end, tracks: new Map([[KEY, { key: KEY, writes, rounds: [{ at: T + 10_000, modelRound: 0 }] }]]) } as unknown as ReplayResult;
}

test('a report read from a file (kcm-log --compare): scored against every ReplicaSet of the log, returned as given', () => {
  const r = report();
  const f = fuseControllerLog(r, log(), { kind: 'report-file' });
  assert.equal(f.report, r);
  assert.deepEqual([...f.scores.keys()], [KEY, 'shop/other']);
  assert.deepEqual(f.scores.get('shop/other')!.syncs, { total: 1, matched: 0, mismatched: 0, unknown: 1 });
  assert.equal(f.scores.get(KEY)!.raises.total, 1);
  assert.equal(f.notUsed, undefined);
});

test('a snapshot\'s report: the log\'s windows replace kexp\'s (observed, with the log\'s own end), the log\'s own findings and summary are added', () => {
  const r = report();
  const before = JSON.stringify(r);
  const f = fuseControllerLog(r, log(), { kind: 'snapshot' });
  assert.equal(JSON.stringify(r), before, 'the input report is not modified');
  const rs = f.report.replicaSets[0]!;
  const w = rs.gatedWindows.find((x) => x.start === at(31))!;
  assert.deepEqual([w.basis, w.endedBy, w.end, w.gatedSyncs, w.remaining], ['observed', 'expired', at(45), 1, { add: 1, del: 0 }]);
  assert.deepEqual(w.evidence.slice(0, 2), ['kcm.log:1', 'kcm.log:4']);
  assert.match(w.note!, /^the controller's log: "Setting expectations" at kcm\.log:1, ended expired at .* \(kcm\.log:4\), 1 gated sync/);
  // The window only the log shows is the report's too.
  const only = rs.gatedWindows.find((x) => x.start === at(20))!;
  assert.deepEqual([only.basis, only.endedBy, only.end, only.gatedSyncs], ['observed', 'fulfilled', at(25), 2]);
  assert.equal(rs.findings.find((x) => x.id === 'expectation-leak-expired')!.basis, 'observed');
  // kexp's own end of that window differs from the log's: one info finding says which source says what.
  assert.deepEqual(rs.findings.map((x) => x.id), ['expectation-leak-expired', 'input-disagrees-with-model', 'controller-log-gated', 'controller-log-disagrees']);
  assert.match(rs.findings[1]!.nextStep, /^The controller's log was given/);
  assert.deepEqual(rs.controllerLog, { files: ['kcm.log'], syncs: 1, decisionsMatched: 1, decisionsMismatched: 0, decisionsUnknown: 0, windowsConfirmed: 1 });
  // The log's files join the inputs; its year note the time bases; a snapshot states no assumption about it.
  assert.deepEqual(f.report.inputs.map((i) => [i.file, i.timeBasis, i.start]), [['rec.jsonl', 'received', at(0)], ['kcm.log', 'log', at(0)]]);
  assert.deepEqual(f.report.coverage.timeBasis, ['received: …', 'kcm.log: year from x']);
  assert.deepEqual(f.report.coverage.assumptions, ['A.']);
});

test('a replayed report: the informer lag of its writes, the log\'s time basis, the fusion stated', () => {
  const f = fuseControllerLog(report(), log(), { kind: 'replay', result: replayed(T, T + 60_000) });
  const rs = f.report.replicaSets[0]!;
  assert.deepEqual(rs.controllerLog!.informerLagMs, { writes: 1, median: 1500, max: 1500 });
  const lag = rs.findings.find((x) => x.id === 'informer-lag')!;
  assert.equal(lag.severity, 'info');
  assert.match(lag.title, /up to 2 s after their creates \(median 1500 ms\)/);
  assert.deepEqual(f.report.coverage.timeBasis, ['received: …', 'log: times are kube-controller-manager log timestamps', 'kcm.log: year from x']);
  assert.equal(f.report.coverage.assumptions.length, 2);
  assert.match(f.report.coverage.assumptions[1]!, /^kube-controller-manager's own log \(kcm\.log\) is the controller's account where it covers the time: its gated windows, gated syncs and expiries replace kexp's reconstruction/);
});

test('a log of another time is not fused: said once as a warning and an assumption; its files still listed', () => {
  const r = report();
  const f = fuseControllerLog(r, log(), { kind: 'replay', result: replayed(T + 86_400_000, T + 86_460_000) });
  assert.match(f.notUsed!, /^the kube-controller-manager log covers .* no overlap .*; it was not used$/);
  assert.equal(f.report.replicaSets[0], r.replicaSets[0]);
  assert.equal(f.report.coverage.assumptions.at(-1), f.notUsed![0]!.toUpperCase() + f.notUsed!.slice(1) + '.');
  assert.equal(f.report.inputs.length, 2);
  assert.equal(f.scores.size, 2);
});

test('controllerLogOverlap: no verdict without times on both sides', () => {
  assert.equal(controllerLogOverlap(coverage, undefined, T), undefined);
  assert.equal(controllerLogOverlap([], T, T + 1), undefined);
  assert.equal(controllerLogOverlap(coverage, T + 30_000, T + 90_000), undefined);
  assert.ok(controllerLogOverlap(coverage, T + 61_000, T + 90_000));
});
