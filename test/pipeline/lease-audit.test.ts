/**
 * The kube-controller-manager Lease in an audit log (src/sources/audit/lease.ts → engine/
 * leadership.ts leaseGaps): writes shaped like v1.37's LeaseLock (update of
 * coordination.k8s.io/v1 leases kube-system/kube-controller-manager by system:kube-controller-manager,
 * spec holderIdentity/acquireTime/renewTime/leaseDurationSeconds). Process A renews every 2 s and
 * stops after its renewal at T; a scale-up comes while nobody leads; B acquires the Lease after
 * A's ran out (T + 8 s) and its ReplicaSet controller makes the creates.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditFiles } from '../../src/pipeline/audit-files.js';
import { AuditLogBuilder, actors } from '../support/audit-builder.js';

const KCM = { username: 'system:kube-controller-manager', userAgent: 'kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/6d1a2b3/leader-election' };
const micro = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');

/** One Lease write as client-go's LeaseLock.Update makes it (request and response carry the spec). */
function leaseUpdate(b: AuditLogBuilder, holder: string, acquireTime: number, renewTime: number, transitions: number): void {
  const lease = {
    kind: 'Lease', apiVersion: 'coordination.k8s.io/v1',
    metadata: { name: 'kube-controller-manager', namespace: 'kube-system', uid: 'lease-uid-1', resourceVersion: String(++b.rv) },
    spec: { holderIdentity: holder, leaseDurationSeconds: 8, acquireTime: micro(acquireTime), renewTime: micro(renewTime), leaseTransitions: transitions },
  };
  const at = b.t;
  b.lines.push(JSON.stringify({
    kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'RequestResponse', auditID: `lease-${b.lines.length}`, stage: 'ResponseComplete',
    requestURI: '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-controller-manager?timeout=5s', verb: 'update',
    user: { username: KCM.username, groups: ['system:authenticated'] }, sourceIPs: ['10.0.0.1'], userAgent: KCM.userAgent,
    objectRef: { resource: 'leases', namespace: 'kube-system', name: 'kube-controller-manager', uid: 'lease-uid-1', apiGroup: 'coordination.k8s.io', apiVersion: 'v1', resourceVersion: String(b.rv - 1) },
    responseStatus: { metadata: {}, code: 200 }, requestObject: lease, responseObject: lease,
    requestReceivedTimestamp: micro(at - 2), stageTimestamp: micro(at),
  }));
}

function scenario(withLease: boolean): { file: string; T: number } {
  const b = new AuditLogBuilder('shop', 'web-7d9c6b8f5d');
  const A = 'vm_a72e3f99-a31f-461f-a30c-5a6ebb246dd0';
  const B = 'vm_0c4d2b7e-5f1a-4e8b-9d3c-2a1b0c9d8e7f';
  const start = b.t;
  b.replicaSet(2);
  b.advance(5);
  b.controllerCreate();
  b.controllerCreate();
  b.advance(5).rsStatus(2);
  const T = start + 4_000;
  for (let r = start; r <= T; r += 2_000) {
    b.t = r;
    if (withLease) leaseUpdate(b, A, start - 60_000, r, 0);
  }
  // While nobody leads (A stopped after its renewal at T; its Lease runs out at T + 8 s): a scale-up.
  b.t = T + 3_000;
  b.replicaSet(4);
  // B acquires at T + 9.5 s; its ReplicaSet controller (a new credential) makes the 2 creates.
  b.t = T + 9_500;
  if (withLease) leaseUpdate(b, B, T + 9_500, T + 9_500, 1);
  b.t = T + 9_700;
  b.rsController = actors.rsController('JTI=22222222-aaaa-4bbb-8ccc-000000000002');
  b.controllerCreate();
  b.controllerCreate();
  b.advance(5).rsStatus(4);
  const dir = mkdtempSync(join(tmpdir(), 'kexp-lease-'));
  return { file: b.write(join(dir, 'audit.jsonl')), T };
}

test('the Lease in the audit log: nobody led from A\'s expiry to B\'s acquire (observed); no sync of the model while A no longer renewed; the creates are B\'s new round', async () => {
  const { file, T } = scenario(true);
  const { report } = await auditFiles({ files: [file] });
  const rs = report.replicaSets[0]!;
  const f = rs.findings.filter((x) => x.id === 'no-leader');
  assert.equal(f.length, 1, rs.findings.map((x) => x.id).join());
  assert.equal(f[0]!.basis, 'observed');
  assert.equal(f[0]!.at, new Date(T + 8_000).toISOString(), 'from the last renewTime + leaseDurationSeconds');
  assert.match(f[0]!.title, /^no kube-controller-manager led for 2s: no sync ran \(1 sync of this ReplicaSet came due then/);
  assert.match(f[0]!.explanation, /ran out at .*acquired the Lease at .*missed its next renewal at /s);
  assert.ok(f[0]!.evidence.every((e) => e.startsWith(file)), f[0]!.evidence.join());
  assert.equal(f[0]!.evidence.length, 2, 'A\'s last write and B\'s acquire');
  // No sync of the model at the scale-up: nothing withheld; the 2 creates are B's round, made at its start.
  assert.ok(rs.findings.every((x) => x.id !== 'writes-withheld'), rs.findings.map((x) => x.id).join());
  assert.deepEqual(rs.rounds.map((r) => [r.at, r.kind, r.n]), [[new Date(T - 4_000).toISOString(), 'create', 2], [new Date(T + 9_500).toISOString(), 'create', 2]]);
  // B's first write with its new credential is the same restart, not a second one that would drop B's own record.
  assert.ok(rs.findings.every((x) => x.id !== 'controller-restarted'), rs.findings.map((x) => x.id).join());
});

test('without the Lease the same writes give no no-leader finding, and kexp\'s model syncs at the scale-up (the Lease is the evidence)', async () => {
  const { file } = scenario(false);
  const { report } = await auditFiles({ files: [file] });
  const ids = report.replicaSets[0]!.findings.map((x) => x.id);
  assert.ok(!ids.includes('no-leader'), ids.join());
  assert.ok(ids.includes('writes-withheld'), ids.join());
});

test('the lease pass reads only successful writes of kube-system/kube-controller-manager', async () => {
  const { openAuditSource } = await import('../../src/sources/audit/audit-source.js');
  const b = new AuditLogBuilder('shop', 'web');
  leaseUpdate(b, 'vm_a', b.t - 60_000, b.t, 0);
  const ok = b.lines[0]!;
  b.lines.push(ok.replaceAll('"name":"kube-controller-manager"', '"name":"kube-scheduler"').replace('leases/kube-controller-manager', 'leases/kube-scheduler'));
  b.lines.push(ok.replace('"code":200', '"code":409'));
  b.replicaSet(1);
  const dir = mkdtempSync(join(tmpdir(), 'kexp-lease-'));
  const file = b.write(join(dir, 'audit.jsonl'));
  const got: unknown[] = [];
  const src = await openAuditSource(file, { diagnostics: { problem: () => undefined, warn: () => undefined }, leaseWrites: (x) => got.push(x) });
  let events = 0;
  for await (const _ of src.events) events++;
  assert.equal(events, 0, 'the lease pass emits no event');
  assert.deepEqual(got, [{ at: b.t - 2, holder: 'vm_a', acquireTime: b.t - 60_000, renewTime: b.t, leaseDurationSeconds: 8, source: { file, line: 1 } }]);
});
