/**
 * DaemonSets and Nodes of a real OpenShift must-gather, read in place from
 * /work/shared/realdata/openshift-must-gather-aws (PROVENANCE.md; KEXP_REALDATA names another
 * realdata folder): `namespaces/<ns>/apps/daemonsets.yaml` Lists (each DaemonSet's own
 * `apps/daemonsets/<name>.yaml` a copy of its item) and `cluster-scoped-resources/core/nodes/<node>.yaml`.
 * A must-gather is a snapshot: the DaemonSets and Nodes are read and named, not analysed (no
 * DaemonSet report: a snapshot shows neither what the DaemonSet controller expected nor its rounds),
 * and they change nothing of the ReplicaSets' analysis. What is asserted is computed from the files
 * themselves. Skips when the folder holds no DaemonSet List (the realdata copy keeps only the
 * openshift-console namespace's ReplicaSets, pods and Events).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { kexp } from '../support/cli.js';
import type { Report } from '../../src/analysis/report-types.js';

const REALDATA = process.env.KEXP_REALDATA ?? join(process.cwd(), '..', 'shared', 'realdata');
const MG = join(REALDATA, 'openshift-must-gather-aws');
const nsDir = join(MG, 'namespaces');
const dsLists = existsSync(nsDir) ? readdirSync(nsDir).map((ns) => join(nsDir, ns, 'apps', 'daemonsets.yaml')).filter((f) => existsSync(f)) : [];
const nodeDir = join(MG, 'cluster-scoped-resources', 'core', 'nodes');
const nodeFiles = existsSync(nodeDir) ? readdirSync(nodeDir).filter((f) => f.endsWith('.yaml')) : [];
const daemonSets = dsLists.flatMap((f) => ((parse(readFileSync(f, 'utf8')) as { items?: Array<{ metadata: { namespace: string; name: string } }> }).items ?? []).map((d) => `${d.metadata.namespace}/${d.metadata.name}`)).sort();

test('a must-gather with DaemonSets: every DaemonSet and Node read and named in the snapshot report, none analysed, no problem', { skip: daemonSets.length === 0 && 'no apps/daemonsets.yaml with items in the realdata must-gather' }, () => {
  const r = kexp(['replay', MG, '--output', 'json']);
  assert.equal(r.code, 0, r.stderr.slice(0, 2000));
  const rep = JSON.parse(r.stdout) as Report;
  assert.equal(rep.replicaSets.filter((x) => x.kind === 'DaemonSet').length, 0, 'a snapshot gives no DaemonSet report');
  const note = rep.coverage.assumptions.find((a) => /DaemonSet\(s\) \(/.test(a));
  assert.ok(note, rep.coverage.assumptions.join('\n'));
  const named = daemonSets.slice(0, 5).join(', ') + (daemonSets.length > 5 ? ', …' : '');
  assert.ok(note.startsWith(`${daemonSets.length} DaemonSet(s) (${named})${nodeFiles.length ? ` and ${nodeFiles.length} node(s)` : ''} in the snapshot, not analysed`), note);
  // The per-DaemonSet copies beside their Lists are counted, not read twice.
  const copies = dsLists.flatMap((f) => (existsSync(f.replace(/\.yaml$/, '')) ? readdirSync(f.replace(/\.yaml$/, '')) : []));
  if (copies.length) assert.match(r.stderr, new RegExp(`${copies.length} per-DaemonSet copies of listed DaemonSets`));
});
