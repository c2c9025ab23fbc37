/**
 * A DaemonSet recording made without the Nodes (src/pipeline/node-placement-coverage.ts): the real
 * ds-scale-nodes capture with its Node lines taken out and the header saying the recorder was
 * refused them, as `kexp record ds/NAME` writes it under a namespaced Role. Its replay says node
 * placement is unknown instead of replaying deletes the controller never made; the capture itself
 * (with its Nodes) and a Job recording are unchanged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { replayFiles } from '../../src/pipeline/replay-files.js';

const SRC = 'examples/captures/ds-scale-nodes/recording.kexp.jsonl';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-nodes-'));

function withoutNodes(header: (h: any) => any): string {
  const [h, ...rest] = fs.readFileSync(SRC, 'utf8').split('\n');
  const file = path.join(dir, `ds-${Math.random().toString(36).slice(2)}.kexp.jsonl`);
  fs.writeFileSync(file, [JSON.stringify(header(JSON.parse(h!))), ...rest.filter((l) => !l.includes('"src":"nodes"'))].join('\n'));
  return file;
}

test('nodes refused (header unavailable): the DaemonSet verdict is unknown, no rounds or windows, its 6 writes counted by the finding citing the header', async () => {
  const file = withoutNodes((h) => ({
    ...h,
    watches: h.watches.filter((w: any) => w.resource !== 'nodes'),
    unavailable: [{ resource: 'nodes', verb: 'list', message: 'forbidden: cannot list nodes (nodes is forbidden: User "u" cannot list resource "nodes" in API group "" at the cluster scope)' }],
  }));
  const { report } = await replayFiles({ files: [file] });
  const ds = report.replicaSets.find((r) => r.kind === 'DaemonSet')!;
  assert.equal(ds.verdict.state, 'unknown');
  assert.equal(ds.verdict.basis, 'unknown');
  assert.match(ds.verdict.summary, /^node placement unknown: the recorder could not list nodes \(forbidden: cannot list nodes/);
  assert.deepEqual(ds.rounds, []);
  assert.deepEqual(ds.gatedWindows, []);
  assert.equal(ds.syncs.total, 0);
  assert.deepEqual(ds.findings.map((f) => f.id), ['node-placement-unknown']);
  assert.deepEqual(ds.findings[0]!.evidence, [`${file}:1`]);
  assert.equal(ds.findings[0]!.writes, 6);
  assert.equal(ds.accounting.writes, 6);
  assert.equal(ds.accounting.inRounds + ds.accounting.inFindings, 6);
  assert.ok(report.coverage.assumptions.some((a) => /^Node placement unknown \(/.test(a)));
});

test('a recording that watched DaemonSets but never Nodes says so too', async () => {
  const file = withoutNodes((h) => ({ ...h, watches: h.watches.filter((w: any) => w.resource !== 'nodes') }));
  const ds = (await replayFiles({ files: [file] })).report.replicaSets.find((r) => r.kind === 'DaemonSet')!;
  assert.equal(ds.verdict.state, 'unknown');
  assert.match(ds.verdict.summary, /the recording watched DaemonSets but not Nodes/);
});

test('with its Nodes the capture replays as before (healthy, its rounds); a Job recording is untouched', async () => {
  const ds = (await replayFiles({ files: [SRC] })).report;
  const e = ds.replicaSets.find((r) => r.kind === 'DaemonSet')!;
  assert.equal(e.verdict.state, 'healthy');
  assert.equal(e.rounds.length, 4);
  assert.ok(!ds.coverage.assumptions.some((a) => /Node placement unknown/.test(a)));
  const job = (await replayFiles({ files: ['examples/captures/job-complete/recording.kexp.jsonl'] })).report;
  assert.ok(!job.coverage.assumptions.some((a) => /Node placement unknown/.test(a)));
  assert.equal(job.replicaSets.find((r) => r.kind === 'Job')!.verdict.state, 'healthy');
});
