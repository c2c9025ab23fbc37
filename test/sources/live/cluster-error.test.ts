/**
 * ClusterError (src/sources/live/cluster-error.ts): the value every live module fails with,
 * and its own module importing nothing — so src/sources/live has no import cycle around it
 * (it had one of five files when the error lived in the API client). The walk below follows
 * every import of the folder, `import type` included, as a cycle check over the import graph does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ClusterError } from '../../../src/sources/live/cluster-error.js';

const LIVE = path.resolve(new URL('../../../src/sources/live', import.meta.url).pathname);

test('a ClusterError carries its kind, one-line message, status and body', () => {
  const body = { kind: 'Status', code: 403 };
  const e = new ClusterError('forbidden', 'cannot list resource "pods"', 403, body);
  assert.ok(e instanceof Error);
  assert.equal(e.name, 'ClusterError');
  assert.equal(e.kind, 'forbidden');
  assert.equal(e.message, 'cannot list resource "pods"');
  assert.equal(e.status, 403);
  assert.equal(e.body, body);
  const bare = new ClusterError('config', 'no kubeconfig found');
  assert.equal(bare.status, undefined);
  assert.equal(bare.body, undefined);
});

test('cluster-error.ts imports nothing', () => {
  const text = fs.readFileSync(path.join(LIVE, 'cluster-error.ts'), 'utf8');
  assert.doesNotMatch(text, /^\s*(import|export\s[^;]*\sfrom)\b/m);
});

test('src/sources/live has no import cycle', () => {
  const files = fs.readdirSync(LIVE).filter((f) => f.endsWith('.ts'));
  const deps = new Map<string, string[]>();
  for (const f of files) {
    const text = fs.readFileSync(path.join(LIVE, f), 'utf8');
    deps.set(f, [...text.matchAll(/\bfrom\s+'\.\/([\w-]+)\.js'/g)].map((m) => `${m[1]}.ts`));
  }
  const done = new Set<string>();
  const visit = (f: string, stack: string[]): void => {
    if (stack.includes(f)) assert.fail(`import cycle: ${[...stack.slice(stack.indexOf(f)), f].join(' → ')}`);
    if (done.has(f)) return;
    for (const d of deps.get(f) ?? []) visit(d, [...stack, f]);
    done.add(f);
  };
  for (const f of files) visit(f, []);
  assert.ok(done.size >= 15, `walked ${done.size} modules`);
});
