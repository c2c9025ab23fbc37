/**
 * A relist in a typed watch dump (`kubectl get -w -o json --output-watch-events`, restarted, or
 * after a 410): the objects it does not list were deleted while the watch was down, and kexp
 * ends them at the relist (DELETED, inferred) — bug-cases #26, kubernetes#115658.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collect } from './watch-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'kexp-relist-'));

const pod = (name: string, rv: number, ns = 'shop') => ({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name, namespace: ns, uid: `uid-${ns}-${name}`, resourceVersion: String(rv), creationTimestamp: '2026-11-30T10:00:00Z', labels: { app: 'web' } },
  spec: { containers: [{ name: 'app', image: 'x' }] }, status: { phase: 'Running' },
});
const line = (type: string, object: unknown) => JSON.stringify({ type, object });

function dump(name: string, lines: string[]): string {
  const f = join(dir, name);
  writeFileSync(f, lines.join('\n') + '\n');
  return f;
}

const kinds = (evs: Awaited<ReturnType<typeof collect>>['events']) =>
  evs.map((e) => (e.type === 'observed' ? `${e.watchType} ${e.object.metadata.name}` : `gap ${e.type === 'gap' ? e.reason : ''}`));

test('kubectl restarted: the second initial list lacks a pod — DELETED at the relist, said once', async () => {
  const r = await collect(dump('restart.json', [
    line('ADDED', pod('web-a', 10)), line('ADDED', pod('web-b', 11)), line('ADDED', pod('web-c', 12)),
    line('MODIFIED', pod('web-a', 20)),
    // kubectl get -w restarted: its initial list again, web-c gone meanwhile
    line('ADDED', pod('web-a', 30)), line('ADDED', pod('web-b', 11)),
    line('MODIFIED', pod('web-b', 31)),
  ]));
  assert.deepEqual(r.problems, []);
  assert.deepEqual(kinds(r.events), ['ADDED web-a', 'ADDED web-b', 'ADDED web-c', 'MODIFIED web-a', 'gap watch-relist', 'ADDED web-a', 'DELETED web-c', 'MODIFIED web-b']);
  assert.ok(r.warnings.some((w) => /:5: a relist of Pods did not list 1 that was live before it \(shop\/web-c\): deleted while the watch was down; kexp ends it at the relist \(DELETED, inferred\)/.test(w)), r.warnings.join('\n'));
});

test('after a 410: the relist ends at the input\'s end too; another namespace is left alone; no relist, no synthetic delete', async () => {
  const r = await collect(dump('gone.json', [
    line('ADDED', pod('web-a', 10)), line('ADDED', pod('web-b', 11)), line('ADDED', pod('db-a', 12, 'data')),
    JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 410, reason: 'Expired', message: 'too old resource version' } }),
    line('ADDED', pod('web-b', 40)), line('ADDED', pod('web-d', 41)),
  ]));
  assert.deepEqual(kinds(r.events), ['ADDED web-a', 'ADDED web-b', 'ADDED db-a', 'gap watch-relist', 'ADDED web-b', 'ADDED web-d', 'DELETED web-a']);
  const plain = await collect(dump('plain.json', [line('ADDED', pod('web-a', 10)), line('MODIFIED', pod('web-a', 11)), line('ADDED', pod('web-b', 12)), line('DELETED', pod('web-a', 13))]));
  assert.deepEqual(kinds(plain.events), ['ADDED web-a', 'MODIFIED web-a', 'ADDED web-b', 'DELETED web-a']);
  assert.ok(!plain.warnings.some((w) => /relist/.test(w)));
});
