/**
 * The reflector against a hostile API server (test/support/fake-apiserver.ts): whatever the
 * server sends, an abort ends `run()` at once and leaves no timer or connection behind, a
 * sink that throws ends the loop with its error, an endless line is refused at the line
 * bound, and LIST/WATCH answers that are not what was asked for are errors or gaps, never
 * silently recorded.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterError } from '../../src/sources/live/cluster-error.js';
import { loadClusterAccess } from '../../src/sources/live/kubeconfig.js';
import { Reflector, type ReflectorSink } from '../../src/sources/live/reflector.js';
import { startFakeApiServer, type FakeApiOptions, type FakeApiServer } from '../support/fake-apiserver.js';
import { waitFor } from '../support/spawn-cli.js';

const servers: FakeApiServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function server(o: FakeApiOptions): Promise<FakeApiServer> {
  const s = await startFakeApiServer(o);
  servers.push(s);
  return s;
}

interface Seen {
  events: string[];
  gaps: string[];
  reconnects: string[];
  afterAbort: number;
}

async function reflector(srv: FakeApiServer, ac: AbortController, extra: Partial<ConstructorParameters<typeof Reflector>[0]> = {}, sink?: Partial<ReflectorSink>): Promise<{ r: Reflector; seen: Seen }> {
  const access = await loadClusterAccess({ kubeconfig: srv.kubeconfig });
  const seen: Seen = { events: [], gaps: [], reconnects: [], afterAbort: 0 };
  const r = new Reflector({
    kc: access.kc, path: '/api/v1/namespaces/shop/pods', kind: 'Pod', apiVersion: 'v1', signal: ac.signal, now: () => Date.now(),
    sink: {
      event: (type, obj, _at, synthetic) => {
        if (ac.signal.aborted) seen.afterAbort++;
        seen.events.push(`${type} ${(obj.metadata as { resourceVersion?: string }).resourceVersion}${synthetic ? ` (${synthetic})` : ''}`);
        sink?.event?.(type, obj, _at, synthetic);
      },
      gap: (reason, detail) => seen.gaps.push(`${reason}: ${detail}`),
      reconnect: (detail) => seen.reconnects.push(detail),
    },
    ...extra,
  });
  return { r, seen };
}

const timers = () => process.getActiveResourcesInfo().filter((x) => x === 'Timeout').length;

for (const mode of ['bookmarks', 'stream', 'no-headers', 'quiet'] as const) {
  test(`abort ends run() at once on a "${mode}" watch; no timer, connection or sink call is left after it`, { timeout: 15_000 }, async () => {
    const srv = await server({ watch: { pods: mode } });
    const baseline = timers();
    const ac = new AbortController();
    const { r, seen } = await reflector(srv, ac);
    const run = r.run();
    await waitFor('the watch to be open', 5000, () => srv.openWatches() === 1);
    await new Promise((res) => setTimeout(res, 350));
    const t0 = performance.now();
    ac.abort();
    await run;
    assert.ok(performance.now() - t0 < 200, `run() took ${Math.round(performance.now() - t0)} ms after the abort`);
    assert.equal(seen.afterAbort, 0, 'no event reached the sink after the abort');
    await waitFor('the server to see the watch closed', 2000, () => srv.openWatches() === 0);
    await new Promise((res) => setTimeout(res, 300));
    assert.equal(seen.afterAbort, 0);
    // The 90 s idle timer (and every other timer of the reflector) is gone: nothing keeps the
    // process alive. (The server's own stream intervals end when it sees the connection close.)
    assert.equal(timers(), baseline, `active handles: ${process.getActiveResourcesInfo().join(', ')}`);
    assert.equal(seen.events[0], 'ADDED 101 (initial-list)');
    if (mode === 'bookmarks') assert.ok(seen.events.filter((e) => e.startsWith('BOOKMARK')).length >= 2, seen.events.join(', '));
    if (mode === 'stream') assert.ok(seen.events.filter((e) => e.startsWith('MODIFIED')).length >= 20, `${seen.events.length} events`);
  });
}

test('a sink that throws mid-watch ends run() with that error at once; nothing is delivered or armed afterwards', { timeout: 15_000 }, async () => {
  const srv = await server({ watch: { pods: 'stream' } });
  const baseline = timers();
  const ac = new AbortController();
  const boom = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  let calls = 0;
  const { r } = await reflector(srv, ac, {}, {
    event: () => {
      if (++calls === 10) throw boom;
    },
  });
  const t0 = performance.now();
  await assert.rejects(r.run(), (err) => err === boom);
  assert.ok(performance.now() - t0 < 3000);
  const at = calls;
  await new Promise((res) => setTimeout(res, 300));
  assert.equal(calls, at, 'no event after the failing one');
  assert.equal(calls, 10);
  await waitFor('the server to see the watch closed', 2000, () => srv.openWatches() === 0);
  await new Promise((res) => setTimeout(res, 100));
  assert.equal(timers(), baseline, `active handles: ${process.getActiveResourcesInfo().join(', ')}`);
});

test('a sink that throws during the initial list ends run() with that error', { timeout: 15_000 }, async () => {
  const srv = await server({});
  const boom = new Error('EIO');
  const { r } = await reflector(srv, new AbortController(), {}, { event: () => { throw boom; } });
  await assert.rejects(r.run(), (err) => err === boom);
});

test('an endless watch line is refused at the line bound: ClusterError naming the watch, connection closed', { timeout: 15_000 }, async () => {
  const srv = await server({ watch: { pods: 'endless-line' } });
  const { r, seen } = await reflector(srv, new AbortController(), { maxLineBytes: 1024 * 1024 });
  const t0 = performance.now();
  await assert.rejects(r.run(), (err: unknown) => {
    assert.ok(err instanceof ClusterError);
    assert.equal(err.kind, 'http');
    assert.match(err.message, /^WATCH \/api\/v1\/namespaces\/shop\/pods: the server sent a watch line longer than 1 MiB without a newline \(line 1\); .*etcd/);
    return true;
  });
  assert.ok(performance.now() - t0 < 5000);
  assert.deepEqual(seen.events, ['ADDED 101 (initial-list)']);
  await waitFor('the server to see the watch closed', 2000, () => srv.openWatches() === 0);
  const streamed = srv.streamedBytes();
  await new Promise((res) => setTimeout(res, 300));
  assert.equal(srv.streamedBytes(), streamed, 'nothing more is read');
});

test('a LIST answered with an HTML page (200) is a ClusterError naming the LIST, not an empty recording', { timeout: 15_000 }, async () => {
  const srv = await server({ list: { pods: 'html' } });
  const { r, seen } = await reflector(srv, new AbortController());
  await assert.rejects(r.run(), (err: unknown) => {
    assert.ok(err instanceof ClusterError);
    assert.equal(err.kind, 'response');
    assert.match(err.message, /^GET \/api\/v1\/namespaces\/shop\/pods returned 200 with content-type "text\/html", not JSON/);
    return true;
  });
  assert.deepEqual(seen.events, []);
  assert.equal(srv.openWatches(), 0);
});

test('a LIST answered with another kind (a SecretList) is refused: its items are never delivered as pods', { timeout: 15_000 }, async () => {
  const srv = await server({ list: { pods: 'wrong-kind' } });
  const { r, seen } = await reflector(srv, new AbortController());
  await assert.rejects(r.run(), (err: unknown) => {
    assert.ok(err instanceof ClusterError);
    assert.equal(err.kind, 'response');
    assert.match(err.message, /SecretList/);
    assert.match(err.message, /PodList/);
    return true;
  });
  assert.deepEqual(seen.events, []);
});

test('a watch line that is not JSON ends the watch; it resumes from the last resourceVersion, which loses nothing, so it is no gap', { timeout: 15_000 }, async () => {
  const srv = await server({ watch: { pods: 'bad-line' } });
  const ac = new AbortController();
  const { r, seen } = await reflector(srv, ac);
  const run = r.run();
  await waitFor('the second watch', 5000, () => srv.requests.filter((q) => q.includes('watch=true')).length >= 2);
  ac.abort();
  await run;
  assert.deepEqual(seen.gaps, []);
  assert.equal(seen.reconnects[0], 'watch line 1 is not JSON ("<html>proxy error</html>")');
  // Resumed from the list's resourceVersion: nothing was lost.
  assert.ok(srv.requests.filter((q) => q.includes('watch=true'))[1]!.includes('resourceVersion=200'));
});

test('a server that closes every watch at once is not hammered: re-watches back off', { timeout: 15_000 }, async () => {
  const srv = await server({ watch: { pods: 'close' } });
  const ac = new AbortController();
  const { r } = await reflector(srv, ac);
  const run = r.run();
  await new Promise((res) => setTimeout(res, 1500));
  ac.abort();
  await run;
  const n = srv.requests.filter((q) => q.includes('watch=true')).length;
  // 1 s then 2 s of backoff (±20 %): two or three watches in 1.5 s, not hundreds.
  assert.ok(n >= 1 && n <= 3, `${n} watch requests in 1.5 s`);
});
