/**
 * The DaemonSet sync ends at its status write (syncDaemonSet in pkg/controller/daemon/
 * daemon_controller.go: manage → rolling update → cleanupHistory → updateDaemonSetStatus, whose
 * UpdateStatus is the sync's last call), read from a hand-written audit log of the DaemonSet
 * controller (test/support/daemonset-audit.ts): the key stays busy until that write completed, so
 * the pod deletions delivered meanwhile wait for the next sync; and a create the log shows after
 * the status write is that next sync's, not a call of the sync the write ended.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { auditFiles } from '../../src/pipeline/audit-files.js';
import { daemonPod, daemonSet, node, T0 } from '../support/daemonset-recording.js';
import { changed } from '../model/daemonset/daemonset-harness.js';
import { auditLog, daemonSetOpening, dsStatus, nodeHeartbeat, podCreate, type AuditLine } from '../support/daemonset-audit.js';
import type { DaemonSet, Pod } from '../../src/model/objects.js';

const S = 1000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-ds-sync-end-'));
const hb = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const iso = (ms: number) => new Date(ms).toISOString();

function counts(desired: number, current: number, ready: number) {
  return { desiredNumberScheduled: desired, currentNumberScheduled: current, numberMisscheduled: 0, numberReady: ready, updatedNumberScheduled: current, numberAvailable: ready, numberUnavailable: desired - ready, observedGeneration: 1 };
}

/** A person's DELETE with gracePeriodSeconds 0: the pod is gone at once (the response carries it). */
function personDelete(at: number, receivedAt: number, pod: Pod): AuditLine {
  return { at, receivedAt, actor: 'person', verb: 'delete', resource: 'pods', namespace: pod.metadata.namespace, name: pod.metadata.name, requestObject: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/__internal', gracePeriodSeconds: 0 }, responseObject: changed(pod, (p) => { p.metadata.deletionTimestamp = hb(at); p.metadata.deletionGracePeriodSeconds = 0; }) };
}

function status(at: number, receivedAt: number, ds: DaemonSet, c: ReturnType<typeof counts>): AuditLine {
  return { ...dsStatus(at, changed(ds, (d) => { d.status = c; })), receivedAt };
}

/**
 * DaemonSet kube-system/agent on n1 and n2. At t−10 the kubelet reports n1's pod ready: the sync
 * it triggers (S0) writes status (requested t−3, done t+1). Meanwhile a person deletes both pods
 * (grace 0; done t−1 and t). The controller's next sync (S1) made one create (n1, done t+6) and
 * wrote status (requested t+9, done t+12); the one after it (S2) created n2's pod (requested t+14)
 * and wrote status (done t+25): the log shows no create between S1's status write and t+14.
 */
function input(version: string): string {
  const [n1, n2] = ['n1', 'n2'].map((n) => node(n));
  const ds = daemonSet();
  const created = changed(ds, () => {});
  const p1 = daemonPod(ds, 'n1', { at: T0 + 5 * S, name: 'agent-q7x2k' });
  const p2 = daemonPod(ds, 'n2', { at: T0 + 5 * S, name: 'agent-m4v9d' });
  const t = T0 + 60 * S;
  const ready1 = daemonPod(ds, 'n1', { at: T0 + 5 * S, name: 'agent-q7x2k', bound: true, ready: true });
  const r1 = daemonPod(ds, 'n1', { at: t, name: 'agent-r1n1x' });
  const r2 = daemonPod(ds, 'n2', { at: t, name: 'agent-r2n2y' });
  const lines: AuditLine[] = [
    ...daemonSetOpening(T0, T0 + 5 * S, [n1!, n2!], ds, created, [p1, p2], changed(created, (d) => { d.status = counts(2, 2, 0); })),
    { at: t - 10, actor: { kubelet: 'n1' }, verb: 'patch', resource: 'pods', subresource: 'status', namespace: 'kube-system', name: p1.metadata.name, requestObject: { status: { phase: 'Running' } }, responseObject: ready1 },
    status(t + 1, t - 3, created, counts(2, 2, 1)),
    personDelete(t - 1, t - 3, p1),
    personDelete(t, t - 2, p2),
    { ...podCreate(t + 6, r1), receivedAt: t + 4 },
    status(t + 12, t + 9, created, counts(2, 1, 0)),
    { ...podCreate(t + 16, r2), receivedAt: t + 14 },
    status(t + 25, t + 22, created, counts(2, 2, 0)),
    nodeHeartbeat(t + 60 * S, changed(n1!, () => {}), hb(t + 60 * S)),
  ];
  return auditLog(lines, version);
}

for (const version of ['v1.37.2', 'v1.35.2']) {
  test(`${version}: a sync lasts until its status write; the create after that write is the next sync's, which no earlier sync gated`, async () => {
    const file = path.join(dir, `sync-end-${version}.jsonl`);
    fs.writeFileSync(file, input(version));
    const { report } = await auditFiles({ files: [file] });
    const ds = report.replicaSets.find((r) => r.kind === 'DaemonSet')!;
    const t = T0 + 60 * S;
    const creates = ds.rounds.filter((r) => r.kind === 'create' && Date.parse(r.at) >= t - 10 * S);
    // S1 runs when S0's status write completed (t+1), both deletions delivered: kexp's model
    // Sets add=2; the log shows one create before S1's status write, so the other was not made.
    assert.deepEqual(creates.map((r) => [r.at, r.n, r.successes, r.unmade ?? 0]), [
      [iso(t + 1), 2, 1, 1],
      // S2 starts when S1's status write completed (t+12): its own round of 1.
      [iso(t + 12), 1, 1, 0],
    ]);
    const gated = ds.gatedWindows.reduce((n, w) => n + w.gatedSyncs, 0);
    assert.equal(gated, 0, JSON.stringify(ds.gatedWindows.map((w) => [w.start, w.gatedSyncs])));
  });
}
