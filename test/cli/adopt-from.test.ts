/**
 * `kexp adopt NAME --from FILE…` (the built CLI): the exit code comes from the error's type
 * (src/cli/error-exit.ts). A name that several namespaces of the input hold is a usage error
 * (a UsageError from src/pipeline/adopt.ts: pass -n), one that none holds is not found (8).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp } from '../support/cli.js';
import { adoptFromFile } from '../../src/pipeline/adopt.js';
import { UsageError } from '../../src/pipeline/usage-error.js';

const EXAMPLE = path.resolve('examples/orphan-adopted.kexp.jsonl');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-adopt-from-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
// The same recording in a second namespace.
const OTHER = path.join(dir, 'other.kexp.jsonl');
fs.writeFileSync(OTHER, fs.readFileSync(EXAMPLE, 'utf8').replaceAll('kexp-orphan-adopted', 'kexp-orphan-other'));

test('a ReplicaSet name in several namespaces without -n: UsageError, exit 2, one line', async () => {
  await assert.rejects(adoptFromFile({ files: [EXAMPLE, OTHER], name: 'web' }), (err) => err instanceof UsageError);
  const r = kexp(['adopt', 'web', '--from', EXAMPLE, '--from', OTHER]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, 'kexp: ReplicaSet web appears in several namespaces (kexp-orphan-adopted, kexp-orphan-other); pass -n\n');
  assert.equal(r.stdout, '');
});

test('with -n the one of that namespace is decided (exit 0); a name none holds exits 8', () => {
  const r = kexp(['adopt', 'web', '--from', EXAMPLE, '--from', OTHER, '-n', 'kexp-orphan-other', '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).replicaSet.key, 'kexp-orphan-other/web');
  const none = kexp(['adopt', 'nope', '--from', EXAMPLE]);
  assert.equal(none.code, 8);
  assert.equal(none.stderr, `kexp: ReplicaSet nope does not appear in ${EXAMPLE}\n`);
});

test('from a file every row is complete: ACTIVE and CONTROLLER read from the pods at the end of the input', () => {
  const json = kexp(['adopt', 'web', '-n', 'kexp-orphan-adopted', '--from', EXAMPLE, '-o', 'json']);
  assert.equal(json.code, 0, json.stderr);
  const rows = JSON.parse(json.stdout).rows as Array<{ pod: string; action: string; active?: boolean; controller?: string; reason: string }>;
  assert.ok(rows.length >= 2, json.stdout);
  for (const row of rows) {
    // A pod kept because its controller is the ReplicaSet shows that controller, not "(orphan)".
    if (/^Already controlled by ReplicaSet web/.test(row.reason)) assert.equal(row.controller, 'ReplicaSet/web', row.pod);
    assert.equal(typeof row.active, 'boolean', row.pod);
  }
  // The hand-made pod the ReplicaSet adopted during the recording is its own at the end.
  const handmade = rows.find((r) => r.pod === 'kexp-orphan-adopted/web-handmade');
  assert.deepEqual(handmade && { active: handmade.active, controller: handmade.controller }, { active: true, controller: 'ReplicaSet/web' });
  const table = kexp(['adopt', 'web', '-n', 'kexp-orphan-adopted', '--from', EXAMPLE], { env: { COLUMNS: '120' } });
  assert.match(table.stdout, /POD\s+ACTION\s+CLAIMED\s+ACTIVE\s+CONTROLLER\s+WHY/);
  assert.match(table.stdout, /web-handmade\s+keep\s+yes\s+yes\s+ReplicaSet\/web\s+Already controlled/);
  assert.doesNotMatch(table.stdout, /\(orphan\)\s+Already controlled/);
});
