/**
 * `kexp explain rc/NAME` without --watch (pure part): the ReplicationController read as the
 * ReplicaSet its manager converts it to (model/replicationcontroller/conversion.ts), the
 * replication-controller's Events read as the ReplicaSet controller's (owner-snapshot.ts
 * eventsAsReplicaSets), the snapshot rules in the ReplicationController's words, its fields cited
 * as `live:replicationcontrollers/NAME#field`, and the report entry marked with its kind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyseSnapshot } from '../../src/analysis/snapshot-analysis.js';
import { snapshotReplicaSetReport } from '../../src/analysis/report/snapshot-report.js';
import { eventsAsReplicaSets } from '../../src/analysis/report/owner-snapshot.js';
import { ownerWords } from '../../src/analysis/report/owner-words.js';
import { LIVE_RC_REFS } from '../../src/analysis/report/snapshot-refs.js';
import { replicaSetFromReplicationController } from '../../src/model/replicationcontroller/conversion.js';
import type { CoreEvent, Namespace, Pod, ReplicationController } from '../../src/model/objects.js';
import { renderExplainText } from '../../src/render/explain.js';
import { REPORT_SCHEMA_VERSION, type Report } from '../../src/analysis/report-types.js';
import type { ExplainResult } from '../../src/pipeline/explain-live.js';
import { validateReport } from '../support/report-schema.js';

const NOW = Date.UTC(2026, 11, 5, 10, 0, 0);
const at = (sAgo: number) => new Date(NOW - sAgo * 1000).toISOString().replace('.000Z', 'Z');
const activeNs: Namespace = { metadata: { name: 'legacy' }, status: { phase: 'Active' } };

function rc(replicas: number, specAgo: number): ReplicationController {
  return {
    apiVersion: 'v1', kind: 'ReplicationController',
    metadata: {
      name: 'web', namespace: 'legacy', uid: 'rc-uid', generation: 3, creationTimestamp: at(7200),
      managedFields: [{ manager: 'kubectl', operation: 'Update', subresource: 'scale', time: at(specAgo) }],
    } as never,
    spec: { replicas, selector: { app: 'web' }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    status: { replicas: 2, readyReplicas: 2, observedGeneration: 3 },
  };
}

function pod(n: number, createdAgo: number): Pod {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name: `web-${n}`, namespace: 'legacy', uid: `pod-${n}`, creationTimestamp: at(createdAgo), labels: { app: 'web' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'web', uid: 'rc-uid', controller: true }],
    },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

function ev(reason: string, lastAgo: number, component = 'replication-controller'): CoreEvent {
  return {
    apiVersion: 'v1', kind: 'Event', metadata: { name: `web.${reason}.${lastAgo}`, namespace: 'legacy' },
    involvedObject: { kind: 'ReplicationController', name: 'web', namespace: 'legacy', uid: 'rc-uid' },
    source: { component }, reason, message: `Created pod: web-${lastAgo}`, type: 'Normal', count: 1, firstTimestamp: at(lastAgo), lastTimestamp: at(lastAgo),
  };
}

function explainRc(replicas: number, specAgo: number, events: CoreEvent[]) {
  const rs = replicaSetFromReplicationController(rc(replicas, specAgo));
  const view = eventsAsReplicaSets('ReplicationController', 'web', events);
  const a = analyseSnapshot(rs, { pods: [pod(1, 1000), pod(2, 1000)], events: view, ns: activeNs, words: ownerWords('rc') }, NOW, LIVE_RC_REFS);
  const entry = { kind: 'ReplicationController' as const, ...snapshotReplicaSetReport(rs, a, NOW, view, LIVE_RC_REFS) };
  return { a, entry };
}

test('explain rc/NAME: a ReplicationController missing pods with nothing moving past the timeout is a suspected leak, in its own words and citations', () => {
  const { a, entry } = explainRc(4, 900, [ev('SuccessfulCreate', 1000)]);
  assert.equal(a.verdict.state, 'leaked');
  const leak = a.findings.find((f) => f.id === 'expectation-leak-suspected')!;
  assert.match(leak.nextStep, /kubectl annotate rc web -n legacy/);
  assert.match(leak.explanation, /a pod or ReplicationController change/);
  assert.deepEqual(leak.evidence.slice(0, 1), ['live:replicationcontrollers/web']);
  // The replication-controller's SuccessfulCreate is its round.
  assert.deepEqual(entry.rounds.map((r) => [r.kind, r.n, r.basis]), [['create', 1, 'observed']]);
  assert.equal(entry.kind, 'ReplicationController');
  const watchLine = a.findings.find((f) => f.id === 'gated-no-progress');
  assert.equal(watchLine, undefined, 'past the timeout: the leak, not the gate');
});

test('explain rc/NAME: gated within the timeout; the next step watches rc/NAME', () => {
  const { a } = explainRc(4, 90, []);
  assert.equal(a.verdict.state, 'gated');
  assert.match(a.findings.find((f) => f.id === 'gated-no-progress')!.nextStep, /kexp explain rc\/web -n legacy --watch 1m/);
});

test('explain rc/NAME: Events of other components or other objects are not the manager\'s rounds', () => {
  const { entry } = explainRc(2, 900, [ev('SuccessfulCreate', 1000, 'someone-else'), { ...ev('SuccessfulCreate', 900), involvedObject: { kind: 'ReplicaSet', name: 'web', namespace: 'legacy' } }]);
  assert.deepEqual(entry.rounds, []);
});

test('explain rc/NAME renders as a ReplicationController, and the report validates', () => {
  const { a, entry } = explainRc(4, 900, [ev('SuccessfulCreate', 1000)]);
  const report: Report = {
    schemaVersion: REPORT_SCHEMA_VERSION, generator: { name: 'kexp', version: '0.0.0-test', command: 'explain' }, k8sVersion: { version: '1.37.2', basis: 'input' },
    inputs: [{ file: 'live:ctx/legacy', format: 'live-snapshot', timeBasis: 'object-timestamp', start: at(10), end: at(0), events: 5, problems: 0, endMarker: true }],
    coverage: { start: at(10), end: at(0), timeBasis: [], assumptions: [], gaps: [], problems: { count: 0, examples: [] } },
    replicaSets: [entry],
  };
  assert.deepEqual(validateReport(report), []);
  const r: ExplainResult = {
    report, explanations: [{ report: entry, facts: a.facts, timeline: a.timeline, timelineOmitted: 0, nextSteps: [] }],
    snapshot: { takenAt: NOW, server: 'https://x', context: 'ctx', namespace: 'legacy', unavailable: [] }, warnings: [],
  };
  const text = renderExplainText(r, { width: 100 });
  assert.match(text, /^ReplicationController legacy\/web/m);
  assert.doesNotMatch(text, /^ReplicaSet legacy\/web/m);
});
