/**
 * The heap settings of a large input (src/cli/heap-settings.ts): when bin/run.js starts the
 * command again with HEAP_FLAGS (`--max-semi-space-size=16`; for audit also `--heap-growing-percent=150 --expose-gc`), that
 * the collection between a replay and its report (src/pipeline/phase-collection.ts) runs only there, and that the relaunched command's report, stderr
 * and exit code are the ones of the same command run in one process.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { AUDIT_HEAP_FLAGS, HEAP_FLAGS, heapRelaunch, RELAUNCHED_ENV, RELAUNCH_BYTES } from '../../src/cli/heap-settings.js';
import { kexp } from '../support/cli.js';

const ROOT = path.resolve(new URL('../../', import.meta.url).pathname);
const dir = mkdtempSync(path.join(tmpdir(), 'kexp-heap-settings-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('heapRelaunch', () => {
  const sizes: Record<string, number> = { 'big.log': RELAUNCH_BYTES, 'half.log': RELAUNCH_BYTES / 2, 'small.log': 1000 };
  const size = (a: string) => sizes[a];

  test('relaunches with the heap flags after the node arguments when the files reach RELAUNCH_BYTES', () => {
    assert.deepEqual(heapRelaunch(['audit', 'big.log', '-o', 'json'], {}, ['--enable-source-maps'], size), ['--enable-source-maps', ...HEAP_FLAGS, ...AUDIT_HEAP_FLAGS]);
    // the growth factor and the collection are audit's only (the factor costs the replay 8 % CPU)
    assert.deepEqual(heapRelaunch(['replay', 'big.log', '-o', 'json'], {}, [], size), [...HEAP_FLAGS]);
    assert.deepEqual(heapRelaunch(['audit', 'half.log', 'half.log'], {}, [], size), [...HEAP_FLAGS, ...AUDIT_HEAP_FLAGS]);
    // a flag's value names input too (--kcm-log FILE and --kcm-log=FILE)
    assert.deepEqual(heapRelaunch(['audit', 'half.log', '--kcm-log', 'half.log'], {}, [], size), [...HEAP_FLAGS, ...AUDIT_HEAP_FLAGS]);
    assert.deepEqual(heapRelaunch(['audit', 'half.log', '--kcm-log=half.log'], {}, [], size), [...HEAP_FLAGS, ...AUDIT_HEAP_FLAGS]);
  });

  test('runs in this process below RELAUNCH_BYTES, on stdin, and without files', () => {
    assert.equal(heapRelaunch(['audit', 'half.log', 'small.log'], {}, [], size), undefined);
    assert.equal(heapRelaunch(['audit', '-'], {}, [], size), undefined);
    assert.equal(heapRelaunch(['explain', '-n', 'shop', 'web'], {}, [], size), undefined);
    assert.equal(heapRelaunch(['--version'], {}, [], size), undefined);
  });

  test("the user's own heap settings win, and the relaunched process never relaunches", () => {
    assert.equal(heapRelaunch(['audit', 'big.log'], { NODE_OPTIONS: '--max-old-space-size=512' }, [], size), undefined);
    assert.equal(heapRelaunch(['audit', 'big.log'], { NODE_OPTIONS: '--require x --max-semi-space-size=32' }, [], size), undefined);
    assert.equal(heapRelaunch(['audit', 'big.log'], {}, ['--optimize-for-size'], size), undefined);
    assert.equal(heapRelaunch(['audit', 'big.log'], { NODE_OPTIONS: '--heap-growing-percent=300' }, [], size), undefined);
    assert.equal(heapRelaunch(['audit', 'big.log'], { [RELAUNCHED_ENV]: '1' }, [], size), undefined);
    assert.deepEqual(heapRelaunch(['audit', 'big.log'], { NODE_OPTIONS: '--require x' }, [], size), [...HEAP_FLAGS, ...AUDIT_HEAP_FLAGS]);
  });
});

describe('bin/run.js relaunch', () => {
  // A real capture after RELAUNCH_BYTES of leading blank lines (read and skipped like any blank line).
  const big = path.join(dir, 'audit.jsonl');
  writeFileSync(big, Buffer.concat([Buffer.alloc(RELAUNCH_BYTES, '\n'), readFileSync(path.join(ROOT, 'examples/captures/deletion-loss/audit.jsonl'))]));
  // Each Node process of the command appends its node arguments and whether it is the relaunched
  // one (its main thread only: a preload runs in worker threads too, e.g. the audit reader's).
  const log = path.join(dir, 'processes.jsonl');
  const preload = path.join(dir, 'note-process.cjs');
  writeFileSync(preload, `if (require('node:worker_threads').isMainThread) require('node:fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify({ execArgv: process.execArgv, relaunched: process.env.${RELAUNCHED_ENV} ?? null, gc: typeof globalThis.gc }) + '\\n');\n`);
  const processes = () => readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { execArgv: string[]; relaunched: string | null; gc: string });

  test('a large input runs in a second Node with the heap flags; report, stderr and exit code as in one process', () => {
    writeFileSync(log, '');
    const relaunched = kexp(['audit', big, '-o', 'json'], { env: { NODE_OPTIONS: `--require ${preload}` } });
    assert.deepEqual(processes(), [{ execArgv: [], relaunched: null, gc: 'undefined' }, { execArgv: [...HEAP_FLAGS, ...AUDIT_HEAP_FLAGS], relaunched: '1', gc: 'function' }]);
    writeFileSync(log, '');
    const single = kexp(['audit', big, '-o', 'json'], { env: { NODE_OPTIONS: `--require ${preload} --max-old-space-size=4096` } });
    assert.deepEqual(processes(), [{ execArgv: [], relaunched: null, gc: 'undefined' }]);
    assert.equal(relaunched.code, single.code);
    assert.equal(relaunched.code, 4, 'the capture has a leak: its exit code is passed on');
    assert.equal(relaunched.stderr, single.stderr);
    assert.equal(relaunched.stdout, single.stdout);
    assert.match(relaunched.stdout, /"replicaSets": \[/);
  });

  test('a small input runs in one process', () => {
    writeFileSync(log, '');
    const r = kexp(['audit', path.join(ROOT, 'examples/captures/deletion-loss/audit.jsonl'), '-o', 'json'], { env: { NODE_OPTIONS: `--require ${preload}` } });
    assert.deepEqual(processes(), [{ execArgv: [], relaunched: null, gc: 'undefined' }]);
    assert.match(r.stdout, /"replicaSets": \[/);
  });
});
