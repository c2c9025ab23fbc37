/**
 * The real must-gather files of /work/shared/realdata/openshift-must-gather-aws (an OpenShift 4.8 /
 * Kubernetes 1.21 CI cluster; see its NOTICE and ../PROVENANCE.md), read in place: the tree as a
 * directory and its four files given one by one must give the same answer — an ordinary console
 * rollout, every ReplicaSet HEALTHY, nothing gated, nothing leaked — with the
 * kube-controller-manager log (`kube-controller-manager/current.log`, found by its content) read and
 * fused into the snapshot report as `--kcm-log` would. Skips when the realdata folder is absent.
 *
 * The log opens with the container's shell preamble and holds multi-line klog messages: the
 * KCM-log reader may report those lines as input problems (exit 6) until it skips them; any
 * other exit code, or a problem of another kind, fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { kexp } from '../support/cli.js';
import type { Report } from '../../src/analysis/report-types.js';

const REALDATA = process.env.KEXP_REALDATA ?? join(process.cwd(), '..', 'shared', 'realdata');
const MG = join(REALDATA, 'openshift-must-gather-aws');
const NS = join(MG, 'namespaces', 'openshift-console');
const FILES = [join(NS, 'apps', 'replicasets.yaml'), join(NS, 'core', 'events.yaml'), join(NS, 'core', 'pods.yaml')];
const LOG = join(MG, 'kube-controller-manager', 'current.log');
const present = existsSync(MG);

function replay(args: string[]): Report {
  const r = kexp(['replay', ...args, '--output', 'json']);
  // The log's 9 shell-preamble lines are one warning, its multi-line AWS message one record: no input problem.
  assert.equal(r.code, 0, r.stderr);
  if (args.includes(LOG) || args.includes(MG)) assert.match(r.stderr, /current\.log:1: skipped 9 lines before the first log record/);
  return JSON.parse(r.stdout) as Report;
}

function assertOrdinaryRollout(rep: Report, what: string): void {
  assert.deepEqual(
    rep.replicaSets.map((r) => [r.key, r.verdict.state]),
    [
      ['openshift-console/console-6b45f48495', 'healthy'],
      ['openshift-console/console-7994575dc5', 'healthy'],
      ['openshift-console/console-84b5f647b9', 'healthy'],
      ['openshift-console/downloads-5d5c4748d4', 'healthy'],
    ],
    what,
  );
  for (const r of rep.replicaSets) {
    assert.deepEqual(r.gatedWindows, [], `${what}: ${r.key} gated`);
    assert.ok(!r.findings.some((f) => /leak|unplaced|stale-cache|lost/.test(f.id)), `${what}: ${r.key}: ${r.findings.map((f) => f.id).join(', ')}`);
  }
  assert.ok(rep.coverage.timeBasis[0]!.startsWith('snapshot'), `${what}: read as a snapshot`);
  assert.deepEqual(rep.inputs.filter((i) => i.format === 'kcm-log').map((i) => i.file), [LOG], `${what}: the KCM log is read`);
  assert.deepEqual(rep.inputs.filter((i) => i.format === 'list').map((i) => i.file).sort(), [...FILES].sort(), `${what}: the three Lists`);
  // The release comes from the log's start-up line (controllermanager.go "Version: v1.21.1+38b3ecc"), replayed as v1.25 with its differences said.
  assert.deepEqual([rep.k8sVersion.version, rep.k8sVersion.basis, rep.k8sVersion.modelledAs], ['v1.21.1+38b3ecc', 'input', 'v1.25'], what);
  assert.ok(rep.coverage.assumptions.some((a) => /current\.log:26: modelled v1\.21\.1\+38b3ecc/.test(a)), what);
}

const analysis = (rep: Report) => rep.replicaSets.map((r) => ({ ...r, controllerLog: r.controllerLog ? { ...r.controllerLog, files: undefined } : undefined }));

test('the must-gather as a directory and as files: one snapshot, an ordinary rollout, the KCM log fused', { skip: !present && `${MG} is absent` }, () => {
  const dir = replay([MG]);
  assertOrdinaryRollout(dir, 'directory');
  const files = replay([...FILES, LOG]);
  assertOrdinaryRollout(files, 'files');
  assert.deepEqual(analysis(files), analysis(dir));
  const flag = replay([...FILES, '--kcm-log', LOG]);
  assert.deepEqual(analysis(flag), analysis(dir));
  // The List alone: the 2/2-ready ReplicaSets are a state, no round or window invented.
  const alone = replay([FILES[0]!]);
  assert.deepEqual(alone.replicaSets.map((r) => [r.verdict.state, r.gatedWindows.length, r.rounds.length]), [
    ['healthy', 0, 0], ['healthy', 0, 0], ['healthy', 0, 0], ['healthy', 0, 0],
  ]);
});
