/** The snapshot analysis of `kexp explain` (pure): verdicts, findings, timeline, adoption; and `kexp adopt`'s rows. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeVerdict, type ExplainResult } from '../../src/pipeline/explain-live.js';
import { analyseSnapshot } from '../../src/analysis/snapshot-analysis.js';
import { eventTimes } from '../../src/analysis/report/event-times.js';
import { STALL_MS } from '../../src/analysis/report/snapshot-state.js';
import { renderExplainHtml, renderExplainText } from '../../src/render/explain.js';
import { adoptRows } from '../../src/pipeline/adopt.js';
import { exitCodeFor } from '../../src/cli/report-exit.js';
import { REPORT_SCHEMA_VERSION, type Report } from '../../src/analysis/report-types.js';
import type { CoreEvent, Namespace, Pod, ReplicaSet } from '../../src/model/objects.js';
import { validateReport } from '../support/report-schema.js';

const NOW = Date.UTC(2026, 10, 30, 10, 0, 0);
const at = (sAgo: number) => new Date(NOW - sAgo * 1000).toISOString().replace('.000Z', 'Z');

function rs(replicas: number, extra: Partial<ReplicaSet['metadata']> = {}, status: ReplicaSet['status'] = {}): ReplicaSet {
  return {
    apiVersion: 'apps/v1', kind: 'ReplicaSet',
    metadata: {
      name: 'web', namespace: 'shop', uid: 'rs-uid', generation: 2, creationTimestamp: at(3600),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web-d', uid: 'dep-uid', controller: true }],
      ...extra,
    },
    spec: { replicas, selector: { matchLabels: { app: 'web' } } },
    status: { replicas: 0, observedGeneration: 2, ...status },
  };
}

let podN = 0;
function pod(opts: { owned?: boolean; createdAgo?: number; deleting?: boolean; labels?: Record<string, string>; otherOwner?: boolean; ready?: boolean } = {}): Pod {
  const n = ++podN;
  const owned = opts.owned ?? true;
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name: `web-${n}`, namespace: 'shop', uid: `pod-${n}`, creationTimestamp: at(opts.createdAgo ?? 600), labels: opts.labels ?? { app: 'web' },
      ownerReferences: opts.otherOwner
        ? [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'other', uid: 'other-uid', controller: true }]
        : owned ? [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs-uid', controller: true }] : undefined,
      ...(opts.deleting ? { deletionTimestamp: at(-30), deletionGracePeriodSeconds: 30 } : {}),
    },
    status: { phase: 'Running', conditions: opts.ready ? [{ type: 'Ready', status: 'True' }] : [] },
  };
}

function ev(reason: string, message: string, lastAgo: number, count = 1, firstAgo = lastAgo, type = reason.startsWith('Failed') ? 'Warning' : 'Normal'): CoreEvent {
  return {
    apiVersion: 'v1', kind: 'Event', metadata: { name: `web.${reason}.${lastAgo}`, namespace: 'shop' },
    involvedObject: { kind: 'ReplicaSet', name: 'web', namespace: 'shop', uid: 'rs-uid' },
    reason, message, type, count, firstTimestamp: at(firstAgo), lastTimestamp: at(lastAgo),
  };
}

const activeNs: Namespace = { metadata: { name: 'shop' }, status: { phase: 'Active' } };
const terminatingNs: Namespace = { metadata: { name: 'shop', deletionTimestamp: at(20) }, status: { phase: 'Terminating' } };

test('healthy: active == desired, observedGeneration up to date → healthy [observed], timeline from object times', () => {
  const pods = [pod({ ready: true }), pod({ ready: true }), pod({ ready: true })];
  const a = analyseSnapshot(rs(3), { pods, events: [ev('SuccessfulCreate', 'Created pod: web-1', 600)], ns: activeNs }, NOW);
  assert.equal(a.verdict.state, 'healthy');
  assert.equal(a.verdict.basis, 'observed');
  assert.deepEqual(a.counts, { desired: 3, active: 3, terminating: 0, ready: 3 });
  assert.ok(a.timeline.some((t) => t.from === 'pod' && /3 pods created/.test(t.text) && t.coarse));
  assert.ok(a.timeline.some((t) => t.basis === 'unknown' && /expectations are not visible/.test(t.text)));
  assert.equal(a.findings.length, 0);
  assert.deepEqual(a.adoption.map((r) => r.action), ['keep', 'keep', 'keep']);
});

test('namespace Terminating + fewer pods than desired → the NamespaceTerminating leak (leaked, inferred) with an open window', () => {
  const a = analyseSnapshot(rs(3), { pods: [pod()], events: [], ns: terminatingNs }, NOW);
  assert.equal(a.verdict.state, 'leaked');
  assert.equal(a.verdict.basis, 'inferred');
  assert.match(a.verdict.summary, /NamespaceTerminating/);
  assert.equal(a.findings[0].id, 'expectation-leak-namespace-terminating-open');
  assert.equal(a.windows.length, 1);
  assert.deepEqual(a.windows[0].raised, { add: 2, del: 0 });
  assert.equal(a.windows[0].endedBy, 'open');
  // Enough pods: a warning, not a leak.
  const b = analyseSnapshot(rs(1), { pods: [pod()], events: [], ns: terminatingNs }, NOW);
  assert.equal(b.verdict.state, 'healthy');
  assert.ok(b.findings.some((f) => f.id === 'namespace-terminating'));
});

test('ReplicaFailure condition or a recent FailedCreate → failing [observed]; an old one after progress is only info', () => {
  const cond = rs(3, {}, { replicas: 1, observedGeneration: 2, conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'pods "web-x" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=1, limited: pods=1', lastTransitionTime: at(40) }] });
  const a = analyseSnapshot(cond, { pods: [pod()], events: [], ns: activeNs, quotas: [{ metadata: { name: 'pods' }, status: { hard: { pods: '1' }, used: { pods: '1' } } }] }, NOW);
  assert.equal(a.verdict.state, 'failing');
  assert.equal(a.verdict.basis, 'observed');
  assert.match(a.findings[0].nextStep, /ResourceQuota/);
  const recent = analyseSnapshot(rs(3), { pods: [pod({ createdAgo: 120 })], events: [ev('FailedCreate', 'Error creating: admission webhook "x" denied the request', 30, 7, 110)], ns: activeNs }, NOW);
  assert.equal(recent.verdict.state, 'failing');
  assert.ok(recent.timeline.some((t) => /Warning FailedCreate ×7 since/.test(t.text)));
  const old = analyseSnapshot(rs(2), { pods: [pod({ createdAgo: 100 }), pod({ createdAgo: 100 })], events: [ev('FailedCreate', 'Error creating: boom', 3000)], ns: activeNs }, NOW);
  assert.equal(old.verdict.state, 'healthy');
  assert.ok(old.findings.some((f) => f.id === 'past-write-failures' && f.severity === 'info'));
});

test('pods missing, spec processed, no failure, nothing moved for > 30 s → gated [inferred]; beyond the 5-minute timeout → leaked', () => {
  const spec = (ago: number) => rs(4, { managedFields: [{ manager: 'kubectl', operation: 'Update', subresource: 'scale', time: at(ago) }] } as never, { replicas: 2, observedGeneration: 2 });
  const g = analyseSnapshot(spec(90), { pods: [pod({ createdAgo: 200 }), pod({ createdAgo: 200 })], events: [], ns: activeNs }, NOW);
  assert.equal(g.verdict.state, 'gated');
  assert.equal(g.verdict.basis, 'inferred');
  assert.ok(g.findings.some((f) => f.id === 'gated-no-progress'));
  assert.ok(g.timeline.some((t) => /spec \(scale\) last written by kubectl/.test(t.text)));
  const l = analyseSnapshot(spec(900), { pods: [pod({ createdAgo: 1000 }), pod({ createdAgo: 1000 })], events: [], ns: activeNs }, NOW);
  assert.equal(l.verdict.state, 'leaked');
  assert.ok(l.findings.some((f) => f.id === 'expectation-leak-suspected' && /annotate rs web/.test(f.nextStep)));
  // Just scaled: converging, not gated (its status counts the one pod that exists: a status
  // counting more would be a held deletion, snapshot-held-deletion.test.ts).
  const justScaled = rs(4, { managedFields: [{ manager: 'kubectl', operation: 'Update', subresource: 'scale', time: at(STALL_MS / 1000 - 10) }] } as never, { replicas: 1, observedGeneration: 2 });
  const c = analyseSnapshot(justScaled, { pods: [pod({ createdAgo: 200 })], events: [], ns: activeNs }, NOW);
  assert.equal(c.verdict.state, 'converging');
});

test('observedGeneration behind generation → converging with a status-stale warning; RS deletionTimestamp → deleting', () => {
  const s = analyseSnapshot(rs(3, { generation: 3 }, { replicas: 1, observedGeneration: 2 }), { pods: [pod()], events: [], ns: activeNs }, NOW);
  assert.equal(s.verdict.state, 'converging');
  assert.ok(s.findings.some((f) => f.id === 'status-stale'));
  const d = analyseSnapshot(rs(3, { deletionTimestamp: at(10), finalizers: ['foregroundDeletion'] }), { pods: [pod()], events: [], ns: terminatingNs }, NOW);
  assert.equal(d.verdict.state, 'deleting');
  assert.ok(d.findings.some((f) => f.id === 'rs-being-deleted' && /foregroundDeletion/.test(f.explanation)));
});

test('Events: aggregated ("combined from similar events") and series-style counts', () => {
  const e = ev('SuccessfulCreate', '(combined from similar events): Created pod: web-9', 5, 12, 60);
  const t = eventTimes(e);
  assert.equal(t.count, 12);
  assert.equal(t.aggregated, true);
  assert.equal(t.message, 'Created pod: web-9');
  assert.equal(t.last! - t.first!, 55_000);
  const s = eventTimes({ metadata: { name: 'x' }, eventTime: at(30), series: { count: 4, lastObservedTime: at(3) } } as unknown as CoreEvent);
  assert.equal(s.count, 4);
  assert.equal(s.last, NOW - 3000);
});

test('adoption: orphans matching the selector are adopted, pods of other controllers ignored, owned non-matching released', () => {
  const pods = [pod(), pod({ owned: false }), pod({ otherOwner: true }), pod({ labels: { app: 'debug' } }), pod({ owned: false, labels: { app: 'db' } })];
  const a = analyseSnapshot(rs(2), { pods, events: [], ns: activeNs }, NOW);
  assert.deepEqual(a.adoption.map((r) => r.action).sort(), ['adopt', 'ignore', 'keep', 'release']);
  assert.ok(a.findings.some((f) => f.id === 'orphans-to-adopt'));
  assert.ok(a.findings.some((f) => f.id === 'overlapping-selector'));
  const { rows, nonMatchingOrphans } = adoptRows(rs(2), pods);
  assert.equal(nonMatchingOrphans, 1);
  assert.equal(rows.find((r) => r.action === 'adopt')?.controller, undefined);
  assert.equal(rows.find((r) => r.action === 'ignore')?.controller, 'ReplicaSet/other');
  assert.ok(rows.every((r) => r.active === true));
});

test('mergeVerdict: the watch wins for gated/leaked/failing and healthy; the snapshot keeps deleting and the NamespaceTerminating leak', () => {
  const v = (state: any, summary = '') => ({ state, basis: 'inferred' as const, summary });
  assert.equal(mergeVerdict(v('converging'), v('gated'), true).state, 'gated');
  assert.equal(mergeVerdict(v('converging'), v('healthy'), true).state, 'healthy');
  assert.equal(mergeVerdict(v('leaked', 'NamespaceTerminating'), v('healthy'), false).state, 'leaked');
  assert.equal(mergeVerdict(v('deleting'), v('gated'), false).state, 'deleting');
  assert.equal(mergeVerdict(v('gated'), v('converging'), false).state, 'gated');
  assert.equal(mergeVerdict(v('gated'), v('converging'), true).state, 'converging');
  assert.equal(mergeVerdict(v('healthy'), undefined, false).state, 'healthy');
});

function reportFor(state: string, findings: any[] = []): Report {
  return {
    schemaVersion: REPORT_SCHEMA_VERSION, generator: { name: 'kexp', version: '0', command: 'explain' }, k8sVersion: { version: 'v1.37.2', basis: 'input' },
    inputs: [], coverage: { timeBasis: [], assumptions: [], gaps: [], problems: { count: 0, examples: [] } },
    replicaSets: [{
      key: 'shop/web', namespace: 'shop', name: 'web', uids: [], verdict: { state: state as never, basis: 'inferred', summary: '' },
      counts: { desired: { first: 0, last: 0, min: 0, max: 0 }, active: { first: 0, last: 0, min: 0, max: 0 }, terminating: { first: 0, last: 0, min: 0, max: 0 }, ready: { first: 0, last: 0, min: 0, max: 0 } },
      series: [], initialState: { basis: 'unknown', reason: 'x' }, syncs: { total: 0, byOutcome: {} }, accounting: { evidence: 'watch', writes: 0, inRounds: 0, inFindings: 0, byKind: { create: 0, delete: 0, adopt: 0, release: 0 }, failed: 0 }, rounds: [], gatedWindows: [], expectations: [], expectationsTruncated: false, findings, adoption: { rows: [] },
    }],
  };
}

test('exit codes per verdict (src/cli/report-exit.ts): healthy/converging/deleting 0, gated 3, leaked 4, failing 5', () => {
  assert.equal(exitCodeFor(reportFor('healthy'), 0), 0);
  assert.equal(exitCodeFor(reportFor('converging'), 0), 0);
  assert.equal(exitCodeFor(reportFor('deleting'), 0), 0);
  assert.equal(exitCodeFor(reportFor('gated'), 0), 3);
  assert.equal(exitCodeFor(reportFor('leaked'), 0), 4);
  assert.equal(exitCodeFor(reportFor('failing'), 0), 5);
});

test('renderers: the verdict comes first in text; HTML escapes and embeds the schema-valid Report', () => {
  const a = analyseSnapshot(rs(3), { pods: [pod({ labels: { app: 'web' } })], events: [ev('FailedCreate', '<script>alert(1)</script>', 10)], ns: terminatingNs }, NOW);
  const rep = reportFor('leaked');
  rep.replicaSets[0] = { ...rep.replicaSets[0], verdict: a.verdict, findings: a.findings, gatedWindows: a.windows, adoption: { rows: a.adoption } };
  assert.deepEqual(validateReport(rep), []);
  const res: ExplainResult = {
    report: rep,
    explanations: [{ report: rep.replicaSets[0], facts: a.facts, timeline: a.timeline, timelineOmitted: 0, nextSteps: ['Finish the namespace deletion.'] }],
    snapshot: { takenAt: NOW, server: 'https://k', context: 'c', namespace: 'shop', unavailable: [] },
    warnings: [],
  };
  const text = renderExplainText(res);
  assert.match(text.split('\n')[1], /^Verdict: LEAKED \[inferred\]/);
  assert.match(text, /^Next: {4}Finish the namespace deletion\.$/m);
  assert.match(text, /^ {2}kubectl get namespace shop -o yaml$/m, 'creates rejected by the Terminating namespace: its finalizers and conditions');
  const html = renderExplainHtml(res);
  assert.ok(!html.includes('<script>alert'));
  assert.match(html, /&lt;script&gt;alert/);
  const embedded = /<script type="application\/json" id="kexp-report">([\s\S]*?)<\/script>/.exec(html)![1];
  assert.deepEqual(validateReport(JSON.parse(embedded)), []);
});

test('deployment snapshots: Events of a sibling ReplicaSet stay out of this ReplicaSet\'s timeline', () => {
  const sibling: CoreEvent = { ...ev('SuccessfulCreate', 'Created pod: web-old-1', 300), involvedObject: { kind: 'ReplicaSet', name: 'web-old', namespace: 'shop', uid: 'old-uid' } };
  const mine = ev('SuccessfulCreate', 'Created pod: web-1', 600);
  const a = analyseSnapshot(rs(3), { pods: [pod(), pod(), pod()], events: [sibling, mine], ns: activeNs }, NOW);
  assert.ok(a.timeline.some((t) => t.from === 'event' && /Created pod: web-1/.test(t.text)));
  assert.ok(!a.timeline.some((t) => /web-old/.test(t.text)), JSON.stringify(a.timeline.map((t) => t.text)));
});

test('a terminating orphan matching the selector is not "will be adopted": the finding agrees with the adoption table', () => {
  const pods = [pod({ ready: true }), pod({ ready: true }), pod({ owned: false, deleting: true }), pod({ owned: false })];
  const a = analyseSnapshot(rs(3), { pods, events: [], ns: activeNs }, NOW);
  const adopt = a.findings.find((f) => f.id === 'orphans-to-adopt')!;
  assert.match(adopt.title, /^1 orphan pod match/);
  const terminating = a.findings.find((f) => f.id === 'terminating-orphans')!;
  assert.ok(terminating);
  assert.match(terminating.title, /not adopted/);
  const rows = new Map(a.adoption.map((r) => [r.pod, r.action]));
  assert.equal(rows.get(`shop/${pods[2]!.metadata.name}`), 'ignore');
  assert.equal(rows.get(`shop/${pods[3]!.metadata.name}`), 'adopt');
});

test('explain snapshot: the controller\'s Events are its rounds in the report (one write per occurrence)', async () => {
  const { snapshotReplicaSetReport } = await import('../../src/analysis/report/snapshot-report.js');
  const events = [ev('SuccessfulCreate', 'Created pod: web-1', 600), ev('FailedCreate', 'Error creating: exceeded quota', 300, 3, 500)];
  const a = analyseSnapshot(rs(3), { pods: [pod({ ready: true })], events, ns: activeNs }, NOW);
  const r = snapshotReplicaSetReport(rs(3), a, NOW, events);
  assert.deepEqual(r.rounds.map((x) => [x.kind, x.n, x.writes, x.errors.length]), [['create', 1, 1, 0], ['create', 3, 3, 1]]);
  assert.deepEqual([r.accounting.writes, r.accounting.inRounds, r.accounting.failed], [4, 4, 3]);
});

test('the kube-controller-manager Lease: nobody renewing it means no controller runs; a recent acquisition means expectations were reset', () => {
  const pods = [pod({ ready: true })];
  const lease = (renewAgo: number, acquireAgo: number) => ({ metadata: { name: 'kube-controller-manager', namespace: 'kube-system' }, spec: { holderIdentity: 'cp-1_abc', leaseDurationSeconds: 15, renewTime: new Date(NOW - renewAgo * 1000).toISOString(), acquireTime: new Date(NOW - acquireAgo * 1000).toISOString(), leaseTransitions: 3 } });
  const down = analyseSnapshot(rs(3), { pods, events: [], ns: activeNs, kcmLease: lease(600, 3600) }, NOW);
  const f = down.findings.find((x) => x.id === 'controller-not-leading')!;
  assert.ok(f);
  assert.equal(f.severity, 'critical');
  assert.match(f.title, /10m0s: no ReplicaSet controller is running|for 10m/);
  const changed = analyseSnapshot(rs(3), { pods, events: [], ns: activeNs, kcmLease: lease(2, 120) }, NOW);
  assert.ok(changed.findings.some((x) => x.id === 'controller-leader-changed'));
  assert.ok(!changed.findings.some((x) => x.id === 'controller-not-leading'));
  const steady = analyseSnapshot(rs(3), { pods, events: [], ns: activeNs, kcmLease: lease(2, 86_400) }, NOW);
  assert.ok(!steady.findings.some((x) => x.id.startsWith('controller-')));
});
