import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { REPORT_SCHEMA_VERSION } from '../../src/analysis/report-types.js';
import { validateReport } from '../support/report-schema.js';
import { RecordingBuilder } from '../support/recording-builder.js';

test('a report with windows, rounds, findings and adoption rows validates against schema/report.schema.json', async () => {
  const b = new RecordingBuilder();
  b.namespace().replicaSet(0, 'ADDED');
  b.advance(100).addPod(99, { owned: false, name: 'web-handmade' });
  b.advance(1000).namespace('Terminating');
  b.advance(10).replicaSet(2);
  b.advance(400_000).end();
  const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-')), 'r.kexp.jsonl');
  fs.writeFileSync(f, b.text());
  const { report } = await replayFiles({ files: [f] });
  assert.equal(report.schemaVersion, REPORT_SCHEMA_VERSION);
  const rs = report.replicaSets[0];
  assert.ok(rs.gatedWindows.length > 0 && rs.findings.length > 0 && rs.adoption.rows.length > 0);
  assert.deepEqual(validateReport(report), []);
});

test('the schema rejects a report with a missing basis', () => {
  const bad = { schemaVersion: REPORT_SCHEMA_VERSION, generator: { name: 'kexp', version: '0', command: 'replay' }, k8sVersion: { version: 'v1.37.2', basis: 'default' }, inputs: [], coverage: { timeBasis: [], assumptions: [], gaps: [], problems: { count: 0, examples: [] } }, replicaSets: [{ key: 'a/b' }] };
  const errs = validateReport(bad);
  assert.ok(errs.some((e) => e.includes("must have required property 'verdict'")), errs.join('\n'));
});
