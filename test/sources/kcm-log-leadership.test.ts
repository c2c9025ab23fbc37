/**
 * The kube-controller-manager's leader-election lines (src/sources/kcm-log/catalogue.ts): the
 * v1.37.2 structured wording (client-go v0.37.2 tools/leaderelection/leaderelection.go, and
 * controllermanager.go's "leaderelection lost/stopped") and the ≤1.26 printf wording (client-go
 * v0.21.14), for its own lock only; the lines of the real capture
 * examples/captures/restart-mid-rollout/kcm.log.gz (264, 279, 284) among them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openKcmLogSource } from '../../src/sources/kcm-log/kcm-log-source.js';
import { collectDiagnostics } from '../../src/sources/diagnostics.js';

async function kinds(text: string, year: number): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-lease-'));
  const file = path.join(dir, 'kcm.log');
  fs.writeFileSync(file, text);
  const src = await openKcmLogSource(file, { diagnostics: collectDiagnostics(), year });
  const out: string[] = [];
  for await (const e of src.events) if (e.type === 'controller-log') out.push(`${e.source.line}:${e.logKind}:${new Date(e.at).toISOString().slice(11, 23)}`);
  return out;
}

test('v1.37 leader-election lines of the kube-controller-manager lock are read; another lock is not', async () => {
  const log = [
    'I1205 02:04:59.984626   24140 leaderelection.go:258] "Attempting to acquire leader lease..." lock="kube-system/kube-controller-manager"',
    'I1205 02:04:59.993409   24140 leaderelection.go:493] "Lease is held by and has not yet expired" lock="kube-system/kube-controller-manager" holder="vm_a72e3f99-a31f-461f-a30c-5a6ebb246dd0"',
    'I1205 02:05:09.674964   24140 leaderelection.go:272] "Successfully acquired lease" lock="kube-system/kube-controller-manager"',
    'I1205 02:05:09.740785   24140 replica_set.go:285] "Starting controller" name="replicaset"',
    'I1205 02:05:30.100000   24140 leaderelection.go:304] "Failed to renew lease" lock="kube-system/kube-controller-manager" err="context deadline exceeded"',
    'E1205 02:05:30.100100   24140 controllermanager.go:413] "leaderelection lost/stopped"',
    'I1205 02:05:31.000000   24140 leaderelection.go:272] "Successfully acquired lease" lock="kube-system/cloud-controller-manager"',
  ].join('\n') + '\n';
  assert.deepEqual(await kinds(log, 2026), [
    '1:lease-attempt:02:04:59.984',
    '3:lease-acquired:02:05:09.674',
    '4:controller-started:02:05:09.740',
    '5:lease-lost:02:05:30.100',
    '6:lease-lost:02:05:30.100',
  ]);
});

test('≤1.26 printf leader-election lines are read', async () => {
  const log = [
    'I0301 10:00:00.100000       1 leaderelection.go:243] attempting to acquire leader lease kube-system/kube-controller-manager...',
    'I0301 10:00:15.200000       1 leaderelection.go:253] successfully acquired lease kube-system/kube-controller-manager',
    'I0301 10:05:00.300000       1 leaderelection.go:278] failed to renew lease kube-system/kube-controller-manager: timed out waiting for the condition',
    'F0301 10:05:00.300100       1 controllermanager.go:284] leaderelection lost',
    'I0301 10:05:01.000000       1 leaderelection.go:253] successfully acquired lease kube-system/other-lock',
  ].join('\n') + '\n';
  assert.deepEqual(await kinds(log, 2021), [
    '1:lease-attempt:10:00:00.100',
    '2:lease-acquired:10:00:15.200',
    '3:lease-lost:10:05:00.300',
    '4:lease-lost:10:05:00.300',
  ]);
});
