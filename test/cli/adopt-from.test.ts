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
