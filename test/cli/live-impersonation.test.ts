/** `--as USER` / `--as-group GROUP` (repeatable) are sent, as kubectl sends them, on every request. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runKexp, startHostileApi, tempDir, writeKubeconfig, type HostileApi } from '../support/hostile-api.js';

let api: HostileApi;
let dir: string;

before(async () => {
  api = await startHostileApi();
  dir = tempDir('live-as');
});

after(async () => {
  await api.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('explain --watch: every GET and every watch carries Impersonate-User and both Impersonate-Group headers', async () => {
  const kc = writeKubeconfig(dir, 'as', { server: api.url, namespace: 'shop' });
  api.requests.length = 0;
  const r = await runKexp(['explain', 'web', '--kubeconfig', kc, '--watch', '1s', '--as', 'jane', '--as-group', 'dev', '--as-group', 'system:authenticated']);
  assert.ok(r.code !== 1 && r.code !== null, r.stderr);
  assert.ok(api.requests.some((q) => q.url.includes('watch=true')), 'a watch was opened');
  assert.ok(api.requests.length > 3);
  for (const q of api.requests) {
    assert.equal(q.impersonateUser, 'jane', q.url);
    assert.deepEqual(q.impersonateGroups, ['dev', 'system:authenticated'], q.url);
  }
});

test('record and adopt impersonate too; without --as nothing is sent', async () => {
  const kc = writeKubeconfig(dir, 'as2', { server: api.url, namespace: 'shop' });
  api.requests.length = 0;
  const rec = await runKexp(['record', 'web', '--kubeconfig', kc, '--duration', '1s', '--file', path.join(dir, 'r.jsonl'), '--as', 'ops']);
  assert.ok(rec.code !== 1 && rec.code !== null, rec.stderr);
  assert.ok(api.requests.length > 0);
  for (const q of api.requests) assert.equal(q.impersonateUser, 'ops', q.url);
  api.requests.length = 0;
  const ad = await runKexp(['adopt', 'web', '--kubeconfig', kc, '--as', 'auditor']);
  assert.ok(ad.code !== 1 && ad.code !== null, ad.stderr);
  assert.ok(api.requests.length > 0);
  for (const q of api.requests) assert.equal(q.impersonateUser, 'auditor', q.url);
  api.requests.length = 0;
  await runKexp(['explain', 'web', '--kubeconfig', kc]);
  assert.ok(api.requests.length > 0);
  for (const q of api.requests) {
    assert.equal(q.impersonateUser, undefined);
    assert.equal(q.impersonateGroups, undefined);
  }
});

test('--as-group without --as: one line, exit 2, no request', async () => {
  const kc = writeKubeconfig(dir, 'as3', { server: api.url, namespace: 'shop' });
  api.requests.length = 0;
  const r = await runKexp(['explain', 'web', '--kubeconfig', kc, '--as-group', 'dev']);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /--as/);
  assert.equal(api.requests.length, 0);
});
