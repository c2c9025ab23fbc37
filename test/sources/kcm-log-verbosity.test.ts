/** Verbosity levels of the catalogued KCM lines and the -v=2 fixture derivation. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { assessVerbosity, lineVerbosity } from '../../src/sources/kcm-log/verbosity.js';
import { deriveV2, printedAtV2 } from '../fixtures/kcm-log/derive-v2.js';

const CAPTURE = 'examples/captures/quota-rejected/kcm.log';

test('levels as in upstream replica_set.go / controller_utils.go', () => {
  assert.equal(lineVerbosity('too-few-replicas'), 2);
  assert.equal(lineVerbosity('too-many-replicas'), 2);
  assert.equal(lineVerbosity('slow-start-failure'), 2);
  assert.equal(lineVerbosity('deleting-pod'), 2);
  assert.equal(lineVerbosity('controller-created-pod'), 4);
  assert.equal(lineVerbosity('setting-expectations'), 4);
  assert.equal(lineVerbosity('finished-syncing'), 4);
  assert.equal(lineVerbosity('finished-syncing', undefined, { finishedSyncingV0: true }), 0);
  assert.equal(lineVerbosity('other', 'pod-added'), 4);
  assert.equal(lineVerbosity('other', 'controller-stopped'), 0);
});

test('assessVerbosity: an expectations line proves -v≥4; rounds and "Finished syncing" alone do not', () => {
  assert.equal(assessVerbosity(['too-few-replicas', 'finished-syncing', 'deleting-pod']).atLeastV4, false);
  assert.equal(assessVerbosity(['too-few-replicas', 'never-recorded']).atLeastV4, true);
  assert.deepEqual(assessVerbosity(['finished-syncing', 'finished-syncing']).linesByKind, { 'finished-syncing': 2 });
});

test('printedAtV2 keeps V2 and error lines, drops V4 and uncatalogued info lines', () => {
  const h = 'I1130 02:39:06.867495   14267 ';
  assert.equal(printedAtV2(`${h}replica_set.go:668] "Too few replicas" replicaSet="a/b" need=5 creating=5`), true);
  assert.equal(printedAtV2(`${h}controller_utils.go:232] "Setting expectations" expectations={}`), false);
  assert.equal(printedAtV2(`E1130 02:39:06.916417   14267 replica_set.go:640] "Unhandled Error" err="x"`), true);
  assert.equal(printedAtV2(`${h}resource_quota_controller.go:347] "Finished syncing resource quota" key="a/b"`), false);
  const fin = `${h}replica_set.go:759] "Finished syncing" kind="ReplicaSet" key="a/b" duration="1ms"`;
  assert.equal(printedAtV2(fin), false);
  assert.equal(printedAtV2(fin, { finishedSyncingV0: true }), true);
});

test('the -v=2 fixtures are exactly the derivation of the real capture', () => {
  const text = fs.readFileSync(CAPTURE, 'utf8');
  assert.equal(fs.readFileSync('test/fixtures/kcm-log/v2-quota-rejected.log', 'utf8'), deriveV2(text));
  assert.equal(fs.readFileSync('test/fixtures/kcm-log/v2-finished-syncing-v0-quota-rejected.log', 'utf8'), deriveV2(text, { finishedSyncingV0: true }));
  const v2 = deriveV2(text);
  assert.equal(v2.split('\n').filter((l) => l.includes('"Too few replicas"')).length, 11);
  assert.equal(v2.split('\n').filter((l) => l.includes('"Setting expectations"')).length, 0);
});
