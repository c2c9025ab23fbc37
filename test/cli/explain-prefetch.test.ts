/**
 * explain's prefetch (src/cli/explain-prefetch.ts): which command lines start the reads early,
 * that the CLI starts them before oclif is loaded and prints the same report as without them,
 * reading each path once, and that the command takes them only for its own parameters.
 *
 * "Before oclif" is seen from inside the child: a preload (`--import`) subscribes to Node's
 * `http.client.request.start` diagnostics channel and records, for every request kexp creates,
 * whether @oclif/core is in the CommonJS module cache yet.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeApiServer } from '../support/fake-apiserver.js';
import { runKexp } from '../support/spawn-cli.js';
import { abandonExplainPrefetch, prefetchKeyOf, startExplainPrefetch, takeExplainPrefetch } from '../../src/cli/explain-prefetch.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-explain-prefetch-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const preload = path.join(tmp, 'requests.mjs');
fs.writeFileSync(preload, `import dc from 'node:diagnostics_channel';
import fs from 'node:fs';
import { createRequire } from 'node:module';
const cache = createRequire(import.meta.url).cache;
dc.subscribe('http.client.request.start', ({ request }) => {
  const oclif = Object.values(cache).some((m) => m.loaded && /@oclif[\\/]core[\\/]lib[\\/]index\\.js$/.test(m.id));
  fs.appendFileSync(process.env.KEXP_TEST_REQUEST_LOG, request.path.split('?')[0] + (oclif ? ' after-oclif' : ' before-oclif') + '\\n');
});
`);

test('which command lines are read early: explain with a valid target and only the flags it understands', () => {
  assert.deepEqual(prefetchKeyOf(['explain', 'web', '-n', 'shop']), { requestTimeoutMs: 30_000, namespace: 'shop' });
  assert.deepEqual(prefetchKeyOf(['explain', 'rs', 'web', '--namespace=shop', '--kubeconfig', '/k', '--context', 'c', '-o', 'json', '-q', '--no-color', '--request-timeout', '500ms']),
    { requestTimeoutMs: 500, kubeconfig: '/k', context: 'c', namespace: 'shop' });
  assert.deepEqual(prefetchKeyOf(['explain', 'ds/agent', '--as', 'jane', '--as-group', 'a', '--as-group', 'b', '--request-timeout', '2m']),
    { requestTimeoutMs: 120_000, as: 'jane', asGroups: ['a', 'b'] });
  assert.deepEqual(prefetchKeyOf(['explain', 'job', 'backup', '--html', 'x.html']), { requestTimeoutMs: 30_000 });
  const refused: string[][] = [
    ['adopt', 'web'], // another command
    ['explain'], // no target
    ['explain', 'Web_1'], // not an object name
    ['explain', 'svc/web'], // not a kind explain takes
    ['explain', 'a', 'b', 'c'], // too many arguments
    ['explain', 'web', '--watch', '30s'], // the watch checks --record first
    ['explain', 'web', '-w'],
    ['explain', 'web', '--help'],
    ['explain', 'web', '--bogus'],
    ['explain', 'web', '-n'], // a flag without its value
    ['explain', 'web', '-n', '--quiet'],
    ['explain', 'web', '-n', 'a', '-n', 'b'], // repeated
    ['explain', 'web', '--as-group', 'g'], // needs --as
    ['explain', 'web', '--request-timeout', '1m30s'], // left to the command's parser
    ['explain', 'web', '--', '-n', 'x'],
  ];
  for (const args of refused) assert.equal(prefetchKeyOf(args), undefined, args.join(' '));
});

test('the CLI starts /version and the pod list before oclif loads, reads each path once, and prints what it prints without them', { timeout: 60_000 }, async () => {
  const srv = await startFakeApiServer({ namespace: 'shop' });
  try {
    const run = async (extra: string[], target = 'web') => {
      const log = path.join(tmp, `requests-${Math.random().toString(36).slice(2)}.log`);
      fs.writeFileSync(log, '');
      const before = srv.requests.length;
      const r = await runKexp(['explain', target, '-n', 'shop', '--kubeconfig', srv.kubeconfig, ...extra], { env: { NODE_OPTIONS: `--import ${preload}`, KEXP_TEST_REQUEST_LOG: log }, timeoutMs: 30_000 });
      return { r, created: fs.readFileSync(log, 'utf8').split('\n').filter(Boolean), served: srv.requests.slice(before).map((l) => l.split('?')[0]) };
    };
    const early = await run([]);
    // `0m30s` is the default timeout in a form the prefetch leaves to the command: no early reads.
    const late = await run(['--request-timeout', '0m30s']);
    assert.equal(early.r.code, 0, early.r.stderr);
    assert.equal(late.r.code, 0, late.r.stderr);
    assert.ok(early.created.includes('/version before-oclif'), early.created.join('\n'));
    assert.ok(early.created.includes('/api/v1/namespaces/shop/pods before-oclif'), early.created.join('\n'));
    assert.ok(early.created.includes('/apis/apps/v1/namespaces/shop/replicasets/web after-oclif'), early.created.join('\n'));
    assert.deepEqual(late.created.filter((l) => l.endsWith('before-oclif')), []);
    const once = (served: string[]) => [...served].sort();
    assert.deepEqual(once(early.served), once(late.served));
    assert.equal(new Set(early.served).size, early.served.length, `a path read twice: ${early.served.join(', ')}`);
    const times = (s: string) => s.replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}|\d\d:\d\d:\d\d\.\d{3}/g, 'T');
    assert.match(early.r.stdout, /^Verdict: /m);
    assert.equal(times(early.r.stdout), times(late.r.stdout));
    assert.equal(early.r.stderr, late.r.stderr);
    // The other kinds take the same early reads; one the server does not have fails as it always did.
    for (const target of ['ds/agent', 'job/backup', 'deployment/web', 'rc/web']) {
      const [a, b] = [await run([], target), await run(['--request-timeout', '0m30s'], target)];
      assert.ok(a.created.includes('/api/v1/namespaces/shop/pods before-oclif'), `${target}: ${a.created.join(', ')}`);
      assert.equal(a.r.code, 8, `${target}: ${a.r.stderr}`);
      assert.deepEqual([a.r.code, a.r.stdout, a.r.stderr], [b.r.code, b.r.stdout, b.r.stderr], target);
    }
  } finally {
    await srv.close();
  }
});

test('the command takes the reads only for its own parameters; an exec plugin is never run early', { timeout: 30_000 }, async () => {
  const srv = await startFakeApiServer({ namespace: 'shop' });
  const ac = new AbortController();
  try {
    startExplainPrefetch(['explain', 'web', '-n', 'shop', '--kubeconfig', srv.kubeconfig]);
    assert.equal(await takeExplainPrefetch({ kubeconfig: srv.kubeconfig, namespace: 'other', requestTimeoutMs: 30_000 }, ac.signal), undefined);
    assert.equal(await takeExplainPrefetch({ kubeconfig: srv.kubeconfig, namespace: 'shop', requestTimeoutMs: 30_000 }, ac.signal), undefined, 'the slot is emptied');

    startExplainPrefetch(['explain', 'web', '-n', 'shop', '--kubeconfig', srv.kubeconfig]);
    const got = await takeExplainPrefetch({ kubeconfig: srv.kubeconfig, namespace: 'shop', requestTimeoutMs: 30_000 }, ac.signal);
    assert.ok(got);
    assert.equal(got.access.namespace, 'shop');
    const pods = await got.reads.pods;
    assert.deepEqual(pods.map((p) => [p.kind, p.apiVersion, p.metadata.name]), [['Pod', 'v1', 'web-a']]);
    assert.equal(typeof (await got.reads.version).gitVersion, 'string');

    // An exec credential plugin: the prefetch does not run it (nor read anything); the command will.
    const marker = path.join(tmp, 'plugin-ran');
    const plugin = path.join(tmp, 'plugin.sh');
    fs.writeFileSync(plugin, `#!/bin/sh\ntouch ${marker}\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t"}}'\n`, { mode: 0o755 });
    const server = /server: (\S+)/.exec(fs.readFileSync(srv.kubeconfig, 'utf8'))![1];
    const kc = path.join(tmp, 'exec.yaml');
    fs.writeFileSync(kc, ['apiVersion: v1', 'kind: Config', 'current-context: c', `clusters: [{name: k, cluster: {server: ${server}, insecure-skip-tls-verify: true}}]`, `users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: ${plugin}}}}]`, 'contexts: [{name: c, context: {cluster: k, user: u}}]'].join('\n'));
    const before = srv.requests.length;
    startExplainPrefetch(['explain', 'web', '-n', 'shop', '--kubeconfig', kc]);
    assert.equal(await takeExplainPrefetch({ kubeconfig: kc, namespace: 'shop', requestTimeoutMs: 30_000 }, ac.signal), undefined);
    assert.equal(fs.existsSync(marker), false);
    assert.equal(srv.requests.length, before);

    // Started and never taken: abandoned, nothing left in the slot.
    startExplainPrefetch(['explain', 'web', '-n', 'shop', '--kubeconfig', srv.kubeconfig]);
    abandonExplainPrefetch();
    assert.equal(await takeExplainPrefetch({ kubeconfig: srv.kubeconfig, namespace: 'shop', requestTimeoutMs: 30_000 }, ac.signal), undefined);
  } finally {
    ac.abort();
    await srv.close();
  }
});
