/** What a stalled interval beyond the horizon makes unknown in a report (src/analysis/report/stalled-intervals.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withStalledIntervals } from '../../../src/analysis/report/stalled-intervals.js';
import type { Finding, GatedWindow, Report, ReplicaSetReport, RoundReport } from '../../../src/analysis/report-types.js';
import type { StalledInterval } from '../../../src/timeline/stalled-watch.js';
import { exitCodeFor } from '../../../src/cli/report-exit.js';

const T = (s: number) => new Date(Date.parse('2026-12-01T10:00:00Z') + s * 1000).toISOString();
const REC = 'rec.kexp.jsonl';

const finding = (id: string, at: number, evidence: string[], basis: Finding['basis'] = 'inferred'): Finding =>
  ({ id, severity: 'warning', title: id, basis, at: T(at), explanation: `${id}.`, nextStep: '', evidence });
const round = (at: number, line: number): RoundReport => ({ at: T(at), kind: 'create', n: 1, basis: 'inferred', writes: 1, errors: [], evidence: `${REC}:${line}` });
const window = (start: number, end: number | undefined, evidence: string[], basis: GatedWindow['basis'] = 'inferred'): GatedWindow =>
  ({ start: T(start), ...(end !== undefined ? { end: T(end) } : {}), endedBy: end === undefined ? 'open' : 'fulfilled', basis, raised: { add: 1, del: 0 }, gatedSyncs: 1, evidence });

function owner(ns: string, over: Partial<ReplicaSetReport>): ReplicaSetReport {
  return { key: `${ns}/web`, namespace: ns, name: 'web', uids: [], verdict: { state: 'gated', basis: 'inferred', summary: 'gated on its own writes' }, findings: [], rounds: [], gatedWindows: [], ...over } as unknown as ReplicaSetReport;
}

const report = (...owners: ReplicaSetReport[]): Report =>
  ({ coverage: { assumptions: ['before'], timeBasis: [], gaps: [], problems: { count: 0, examples: [] } }, replicaSets: owners }) as unknown as Report;

// The pods watch stalled from 10 s to 40 s; its backlog at lines 50-60.
const IV: StalledInterval = { file: REC, kind: 'Pod', from: Date.parse(T(10)), until: Date.parse(T(40)), firstLine: 50, lastLine: 60, count: 11, namespaces: new Set(['a']) };

test('inside the interval: findings, rounds and windows unknown with the reason; outside, in another namespace or resting on another input: as they were', () => {
  const a = owner('a', {
    findings: [finding('surplus-create', 12, [`${REC}:20`]), finding('early', 5, [`${REC}:3`]), finding('cites-backlog', 45, [`${REC}:55`]), finding('from-the-log', 20, ['kcm.log:7'], 'observed')],
    rounds: [round(5, 3), round(15, 25)],
    gatedWindows: [window(5, 8, [`${REC}:3`]), window(15, undefined, [`${REC}:25`])],
  });
  const b = owner('b', { verdict: { state: 'healthy', basis: 'inferred', summary: 'healthy' }, findings: [finding('other-namespace', 12, [`${REC}:21`])], gatedWindows: [window(15, undefined, [`${REC}:26`])] });
  const before = report(a, b);
  const out = withStalledIntervals(before, [IV]);
  const [ra, rb] = out.replicaSets;
  assert.deepEqual(ra!.findings.map((f) => `${f.id} ${f.basis}`), ['surplus-create unknown', 'early inferred', 'cites-backlog unknown', 'from-the-log observed']);
  assert.match(ra!.findings[0]!.explanation, /^surplus-create\. Basis unknown: the recorder's Pod watch stalled 30 s \(2026-12-01T10:00:10\.000Z to 2026-12-01T10:00:40\.000Z; its backlog first at rec\.kexp\.jsonl:50\): the order of the changes in that time is the recorder's, not the apiserver's\.$/);
  assert.deepEqual(ra!.rounds.map((r) => r.basis), ['inferred', 'unknown']);
  assert.match(ra!.rounds[1]!.note!, /^basis unknown: the recorder's Pod watch stalled 30 s/);
  assert.deepEqual(ra!.gatedWindows.map((w) => w.basis), ['inferred', 'unknown']);
  // Gated on a window the stall made unknown: the verdict too, and no exit code rests on it.
  assert.deepEqual([ra!.verdict.state, ra!.verdict.basis], ['gated', 'unknown']);
  assert.match(ra!.verdict.summary, /^gated on its own writes \(basis unknown: the recorder's Pod watch stalled 30 s/);
  assert.equal(rb, b, 'namespace b: no late change of the stalled watch named it');
  assert.equal(exitCodeFor(before, 0), 3);
  assert.equal(exitCodeFor(out, 0), 0);
  assert.deepEqual(out.coverage.assumptions.slice(0, 1), ['before']);
  assert.match(out.coverage.assumptions[1]!, /^A stalled watch of the recorder beyond the 10 s .*the Pod watch of rec\.kexp\.jsonl stalled 30 s, from 2026-12-01T10:00:10\.000Z to 2026-12-01T10:00:40\.000Z — 11 change\(s\) .*\(first at rec\.kexp\.jsonl:50\).*\(namespace a\) have basis unknown\.$/);
  // The input report is not changed.
  assert.equal(before.replicaSets[0]!.findings[0]!.basis, 'inferred');
});

test('a verdict resting on nothing the stall touched keeps its basis; a cluster-scoped stall reaches every namespace; no interval: the same report', () => {
  const a = owner('a', { rounds: [round(15, 25)], gatedWindows: [window(15, 16, [`${REC}:25`]), window(50, undefined, [`${REC}:70`])] });
  const out = withStalledIntervals(report(a), [{ ...IV, namespaces: undefined }]);
  assert.deepEqual(out.replicaSets[0]!.gatedWindows.map((w) => w.basis), ['unknown', 'inferred']);
  assert.deepEqual([out.replicaSets[0]!.verdict.state, out.replicaSets[0]!.verdict.basis], ['gated', 'inferred']);
  const r = report(a);
  assert.equal(withStalledIntervals(r, []), r);
});
