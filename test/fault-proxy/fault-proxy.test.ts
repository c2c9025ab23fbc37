/**
 * The fault proxy (test/e2e/fault-proxy) against a fake apiserver (fake-upstream.ts), with
 * the control plane's own PKI and no control plane: whose credentials reach the upstream,
 * which Accept it sees, and every fault — delay (timing and order), drop, hide-deletion in a
 * LIST, a paged LIST and a watch-list, 410 Gone, stall, ended and reset watches — with the
 * fault log line each one writes; the control endpoint's answers; start-up and upstream errors.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { generatePKI } from '../e2e/control-plane/control-plane.js';
import { FaultProxy } from '../e2e/fault-proxy/fault-proxy.js';
import { bookmark, pod, startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import { call, sleep, until, watch, type Caller, type ClientWatch } from './client.js';

const INFORMER_UA = 'kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/abcdef0/shared-informers';
const KEXP_UA = 'kexp/0.1.0 (linux/amd64)';
const PROTOBUF = 'application/vnd.kubernetes.protobuf, application/json';
/** The delay under test; "at once" means well under half of it (the machine may be busy). */
const D = 700;
const AT_ONCE = 350;

let dir: string;
let pki: string;
let upstream: FakeUpstream;
let proxy: FaultProxy;
let warnings: string[] = [];
let faultLog: string;
let admin: { cert: Buffer; key: Buffer; fingerprint: string };
let ca: Buffer;

const informer = (): Caller => ({ ca, cert: admin.cert, key: admin.key, headers: { 'User-Agent': INFORMER_UA } });
const kexp = (): Caller => ({ ca, headers: { 'User-Agent': KEXP_UA, Authorization: 'Bearer kexp-token' } });
/** The proxy asks the apiserver to keep watches open 30 minutes (fault-proxy.ts, WATCH_TIMEOUT_S). */
const upstreamWatchPath = (p: string) => p + (p.includes('?') ? '&' : '?') + 'timeoutSeconds=1800';
const names = (w: ClientWatch) => w.lines.map((l) => `${l.ev.type} ${l.ev.object?.metadata?.namespace ?? ''}/${l.ev.object?.metadata?.name ?? l.ev.object?.metadata?.resourceVersion}`);
const faultsOf = (ns: string) => proxy.log.entries.filter((e) => e.namespace === ns && !e.action.startsWith('rule-'));

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

function control(method: string, p: string, body?: unknown): Promise<{ status: number; json: any; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(p, proxy.controlURL), { method }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
  });
}

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-fault-proxy-'));
  pki = path.join(dir, 'pki');
  generatePKI(pki);
  // A client certificate from the same CA that the proxy holds no key pair for.
  const o = (args: string[]) => execFileSync('openssl', args, { cwd: pki, stdio: 'ignore' });
  o(['genrsa', '-out', 'stranger.key', '2048']);
  o(['req', '-new', '-key', 'stranger.key', '-subj', '/CN=stranger', '-out', 'stranger.csr']);
  o(['x509', '-req', '-in', 'stranger.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAserial', 'ca.srl', '-out', 'stranger.crt', '-days', '2', '-sha256', '-extfile', 'client.ext']);
  ca = fs.readFileSync(path.join(pki, 'ca.crt'));
  const cert = fs.readFileSync(path.join(pki, 'admin.crt'));
  admin = { cert, key: fs.readFileSync(path.join(pki, 'admin.key')), fingerprint: new crypto.X509Certificate(cert).fingerprint256 };
});

before(async () => {
  upstream = await startFakeUpstream(pki);
  faultLog = path.join(dir, 'faults.jsonl');
  proxy = await FaultProxy.start({
    upstream: upstream.url,
    caFile: path.join(pki, 'ca.crt'),
    certFile: path.join(pki, 'proxy.crt'),
    keyFile: path.join(pki, 'proxy.key'),
    identities: [{ certFile: path.join(pki, 'admin.crt'), keyFile: path.join(pki, 'admin.key') }],
    faultLog,
    controlPort: 0,
    warn: (l) => warnings.push(l),
  });
});

after(async () => {
  await proxy?.close();
  await upstream?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('credentials', () => {
  test('a bearer token goes upstream unchanged, with no client certificate', async () => {
    const r = await call(proxy.url, '/api/v1/namespaces/cred/configmaps', kexp());
    assert.equal(r.status, 200);
    assert.deepEqual(r.json(), { kind: 'Other', path: '/api/v1/namespaces/cred/configmaps' });
    const seen = upstream.requests.at(-1)!;
    assert.equal(seen.path, '/api/v1/namespaces/cred/configmaps');
    assert.equal(seen.authorization, 'Bearer kexp-token');
    assert.equal(seen.certFingerprint, undefined);
    assert.equal(seen.userAgent, KEXP_UA);
  });

  test('a caller with the admin certificate is forwarded with the admin certificate', async () => {
    const r = await call(proxy.url, '/api/v1/namespaces/cred/secrets', informer());
    assert.equal(r.status, 200);
    const seen = upstream.requests.at(-1)!;
    assert.equal(seen.path, '/api/v1/namespaces/cred/secrets');
    assert.equal(seen.certFingerprint, admin.fingerprint);
    assert.equal(seen.authorization, undefined);
  });

  test('a certificate the proxy holds no key for: 502 with one line, and the upstream never sees the request', async () => {
    const before = upstream.requests.length;
    warnings = [];
    const r = await call(proxy.url, '/api/v1/namespaces/cred/pods', { ca, cert: fs.readFileSync(path.join(pki, 'stranger.crt')), key: fs.readFileSync(path.join(pki, 'stranger.key')) });
    assert.equal(r.status, 502);
    const body = r.json();
    assert.equal(body.kind, 'Status');
    assert.equal(body.code, 502);
    assert.equal(body.message, "fault proxy: client certificate CN=stranger is not one the proxy holds a key for, so it cannot forward the caller's identity");
    assert.deepEqual(warnings, [body.message]);
    assert.equal(upstream.requests.length, before);
  });

  test('a malformed escape in a pod path passes through and the proxy keeps serving', async () => {
    const r = await call(proxy.url, '/api/v1/namespaces/%E0/pods', kexp());
    assert.equal(r.status, 200);
    assert.equal(upstream.requests.at(-1)!.path, '/api/v1/namespaces/%E0/pods');
    assert.equal((await call(proxy.url, '/api/v1/namespaces/cred/pods', kexp())).status, 200);
  });
});

describe('Accept', () => {
  const accepted = async (p: string, method = 'GET') => {
    const r = await call(proxy.url, p, { ...kexp(), headers: { ...kexp().headers, Accept: PROTOBUF } }, method, method === 'GET' ? undefined : '{}');
    assert.ok(r.status < 300, `${method} ${p}: ${r.status}`);
    return upstream.requests.at(-1)!.accept;
  };

  test('pods and replicasets LIST and WATCH are asked upstream as JSON', async () => {
    assert.equal(await accepted('/api/v1/namespaces/acc/pods'), 'application/json');
    assert.equal(await accepted('/api/v1/pods?limit=500'), 'application/json');
    assert.equal(await accepted('/apis/apps/v1/namespaces/acc/replicasets'), 'application/json');
    const w = await watch(proxy.url, '/apis/apps/v1/replicasets?watch=true', { ...kexp(), headers: { ...kexp().headers, Accept: PROTOBUF } });
    assert.equal(upstream.requests.at(-1)!.accept, 'application/json');
    assert.equal(w.status, 200);
    w.close();
  });

  test('a watch is asked upstream with timeoutSeconds=1800 (held-back events must not be cut off by the apiserver ending it); a LIST is untouched', async () => {
    const w = await watch(proxy.url, '/api/v1/pods?watch=true&timeoutSeconds=300&resourceVersion=5', kexp());
    assert.equal(upstream.requests.at(-1)!.path, '/api/v1/pods?watch=true&timeoutSeconds=1800&resourceVersion=5');
    w.close();
    const long = await watch(proxy.url, '/api/v1/pods?watch=true&timeoutSeconds=3600', kexp());
    assert.equal(upstream.requests.at(-1)!.path, '/api/v1/pods?watch=true&timeoutSeconds=3600');
    long.close();
    await call(proxy.url, '/api/v1/pods?timeoutSeconds=5', kexp());
    assert.equal(upstream.requests.at(-1)!.path, '/api/v1/pods?timeoutSeconds=5');
  });

  test('everything else keeps the Accept the caller sent', async () => {
    upstream.objects.pods.set('acc/one', pod('acc', 'one', '7'));
    assert.equal(await accepted('/api/v1/namespaces/acc/pods/one'), PROTOBUF);
    assert.equal(await accepted('/api/v1/namespaces/acc/configmaps'), PROTOBUF);
    assert.equal(await accepted('/api/v1/namespaces/acc/pods', 'POST'), PROTOBUF);
    upstream.objects.pods.delete('acc/one');
  });
});

describe('delay', () => {
  test('the delayed namespace arrives ≥ D late, another namespace at once; order is kept after the rule goes; bookmarks never overtake', async () => {
    const w = await watch(proxy.url, '/api/v1/pods?watch=true&allowWatchBookmarks=true', informer());
    const other = await watch(proxy.url, '/api/v1/pods?watch=true', kexp());
    const rule = { action: 'delay', resource: 'pods', namespace: 'lag', client: 'shared-informers', delayMs: D } as const;
    const id = await proxy.add(rule);
    const t0 = Date.now();
    upstream.push('pods', { type: 'ADDED', object: pod('lag', 'a', '10') });
    upstream.push('pods', bookmark('11'));
    upstream.push('pods', { type: 'ADDED', object: pod('calm', 'b', '12') });
    const calmB = await w.next((e) => e.object?.metadata?.name === 'b');
    assert.ok(calmB.at - t0 < AT_ONCE, `calm/b took ${calmB.at - t0} ms`);
    // The kexp watch is not the rule's client: lag/a reaches it at once.
    const kexpA = await other.next((e) => e.object?.metadata?.name === 'a');
    assert.ok(kexpA.at - t0 < AT_ONCE, `kexp saw lag/a after ${kexpA.at - t0} ms`);
    assert.ok(proxy.remove(id));
    upstream.push('pods', { type: 'MODIFIED', object: pod('lag', 'a', '13') });
    upstream.push('pods', { type: 'ADDED', object: pod('calm', 'c', '14') });
    const calmC = await w.next((e) => e.object?.metadata?.name === 'c');
    assert.ok(calmC.at - t0 < AT_ONCE, `calm/c took ${calmC.at - t0} ms`);
    const lagMod = await w.next((e) => e.type === 'MODIFIED' && e.object.metadata.name === 'a', 5000);
    const lagAdd = w.lines.find((l) => l.ev.type === 'ADDED' && l.ev.object.metadata.name === 'a')!;
    assert.ok(lagAdd.at - t0 >= D - 5, `lag/a arrived after ${lagAdd.at - t0} ms, not ≥ ${D}`);
    assert.ok(lagMod.at >= lagAdd.at);
    await w.next((e) => e.type === 'BOOKMARK' && e.object.metadata.resourceVersion === '11');
    assert.deepEqual(names(w), ['ADDED calm/b', 'ADDED calm/c', 'ADDED lag/a', 'BOOKMARK /11', 'MODIFIED lag/a']);
    // With nothing held back, a bookmark passes at once even while a delay rule is in force.
    const id2 = await proxy.add(rule);
    const t1 = Date.now();
    upstream.push('pods', bookmark('20'));
    const b20 = await w.next((e) => e.type === 'BOOKMARK' && e.object.metadata.resourceVersion === '20');
    assert.ok(b20.at - t1 < AT_ONCE, `an idle bookmark took ${b20.at - t1} ms`);
    proxy.remove(id2);
    // One fault log line, for the one event that was held back.
    assert.deepEqual(
      faultsOf('lag').map((e) => [e.action, e.resource, e.namespace, e.name, e.event, e.resourceVersion, e.detail]),
      [['delay', 'pods', 'lag', 'a', 'ADDED', '10', `${D} ms`]],
    );
    w.close();
    other.close();
  });
});

describe('flush', () => {
  test('delivers the held events of one namespace now, in order; another namespace stays held', async () => {
    const w = await watch(proxy.url, '/api/v1/pods?watch=true', informer());
    const id = await proxy.add({ action: 'delay', resource: 'pods', client: 'shared-informers', delayMs: 60_000 });
    upstream.push('pods', { type: 'ADDED', object: pod('fl', 'a', '90') });
    upstream.push('pods', { type: 'ADDED', object: pod('keep', 'k', '91') });
    upstream.push('pods', { type: 'MODIFIED', object: pod('fl', 'a', '92') });
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(names(w), []);
    proxy.remove(id);
    const t0 = Date.now();
    assert.equal(proxy.flush({ resource: 'pods', namespace: 'fl' }), 2);
    const mod = await w.next((e) => e.type === 'MODIFIED' && e.object.metadata.name === 'a');
    assert.ok(mod.at - t0 < AT_ONCE, `flushed events took ${mod.at - t0} ms`);
    assert.deepEqual(names(w), ['ADDED fl/a', 'MODIFIED fl/a']);
    assert.equal(proxy.flush({ resource: 'pods' }), 1);
    await w.next((e) => e.object?.metadata?.name === 'k');
    assert.deepEqual(names(w), ['ADDED fl/a', 'MODIFIED fl/a', 'ADDED keep/k']);
    assert.deepEqual(proxy.log.entries.filter((e) => e.action === 'flush').map((e) => [e.namespace, e.detail]), [['fl', '2 held event(s) delivered'], [undefined, '1 held event(s) delivered']]);
    w.close();
  });
});

describe('drop', () => {
  test('drops matching events until its count is used up, then the rule is gone', async () => {
    const w = await watch(proxy.url, '/api/v1/namespaces/drops/pods?watch=true', informer());
    const rule = { action: 'drop', resource: 'pods', namespace: 'drops', events: ['ADDED'], count: 2 };
    const id = await proxy.add(rule);
    upstream.push('pods', { type: 'ADDED', object: pod('drops', 'x1', '40') });
    upstream.push('pods', { type: 'ADDED', object: pod('drops', 'x2', '41') });
    upstream.push('pods', { type: 'MODIFIED', object: pod('drops', 'x1', '42') });
    upstream.push('pods', { type: 'ADDED', object: pod('drops', 'x3', '43') });
    await w.next((e) => e.object?.metadata?.name === 'x3');
    assert.deepEqual(names(w), ['MODIFIED drops/x1', 'ADDED drops/x3']);
    assert.equal(proxy.list().some((r) => r.id === id), false, 'a used-up drop rule is removed');
    assert.equal(rule.count, 2, "the caller's rule object is not counted down");
    assert.deepEqual(
      faultsOf('drops').map((e) => [e.action, e.name, e.event, e.resourceVersion]),
      [['drop', 'x1', 'ADDED', '40'], ['drop', 'x2', 'ADDED', '41']],
    );
    w.close();
  });
});

describe('hide-deletion', () => {
  test('the DELETED is dropped; a later LIST, a paged LIST and a watch-list relist still hold the last state seen', async () => {
    upstream.objects.pods.set('hide/victim', pod('hide', 'victim', '30'));
    upstream.objects.pods.set('hide/keeper', pod('hide', 'keeper', '31'));
    const w = await watch(proxy.url, '/api/v1/pods?watch=true', informer());
    const before = upstream.requests.length;
    const id = await proxy.add({ action: 'hide-deletion', resource: 'pods', namespace: 'hide', name: 'victim', client: 'shared-informers' });
    // The proxy read the object's current state with the identity it holds.
    const fetched = upstream.requests.slice(before);
    assert.deepEqual(fetched.map((r) => [r.method, r.path, r.certFingerprint]), [['GET', '/api/v1/namespaces/hide/pods/victim', admin.fingerprint]]);

    upstream.push('pods', { type: 'MODIFIED', object: pod('hide', 'victim', '32', { status: { phase: 'Running' } }) });
    upstream.push('pods', { type: 'DELETED', object: pod('hide', 'victim', '33', { status: { phase: 'Succeeded' } }) });
    upstream.push('pods', { type: 'MODIFIED', object: pod('hide', 'keeper', '34') });
    await w.next((e) => e.object?.metadata?.name === 'keeper');
    assert.deepEqual(names(w), ['MODIFIED hide/victim', 'MODIFIED hide/keeper']);
    upstream.objects.pods.delete('hide/victim');
    upstream.objects.pods.set('hide/other', pod('hide', 'other', '35'));

    const list = (await call(proxy.url, '/api/v1/namespaces/hide/pods', informer())).json();
    assert.deepEqual(list.items.map((i: any) => `${i.metadata.name}@${i.metadata.resourceVersion}`), ['keeper@31', 'other@35', 'victim@32']);
    assert.equal(list.items[2].status.phase, 'Running');

    // Paged: the hidden pod once, on the last page.
    const p1 = (await call(proxy.url, '/api/v1/pods?limit=1', informer())).json();
    const pages = [p1];
    while (pages.at(-1).metadata.continue) {
      pages.push((await call(proxy.url, `/api/v1/pods?limit=1&continue=${pages.at(-1).metadata.continue}`, informer())).json());
    }
    assert.deepEqual(pages.map((p) => p.items.map((i: any) => i.metadata.name)), [['keeper'], ['other', 'victim']]);

    // Watch-list: the hidden pod among the initial events, before the initial-events-end bookmark.
    const wl = await watch(proxy.url, '/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true', informer());
    await wl.next((e) => e.type === 'BOOKMARK');
    assert.deepEqual(names(wl), ['ADDED hide/keeper', 'ADDED hide/other', 'ADDED hide/victim', 'BOOKMARK /500']);
    assert.equal(wl.lines[2].ev.object.metadata.resourceVersion, '32');

    // Not for other clients, nor for a LIST filtered by a selector the proxy does not evaluate.
    const forKexp = (await call(proxy.url, '/api/v1/namespaces/hide/pods', kexp())).json();
    assert.deepEqual(forKexp.items.map((i: any) => i.metadata.name), ['keeper', 'other']);
    const selected = (await call(proxy.url, '/api/v1/namespaces/hide/pods?labelSelector=app%3Dweb', informer())).json();
    assert.deepEqual(selected.items.map((i: any) => i.metadata.name), ['keeper', 'other']);

    assert.deepEqual(
      faultsOf('hide').map((e) => [e.action, e.name, e.event, e.resourceVersion ?? '']),
      [['hide-deletion', 'victim', 'DELETED', '33'], ['hide-deletion', 'victim', 'LIST', ''], ['hide-deletion', 'victim', 'LIST', ''], ['hide-deletion', 'victim', 'ADDED', '']],
    );
    proxy.remove(id);
    const afterRemove = (await call(proxy.url, '/api/v1/namespaces/hide/pods', informer())).json();
    assert.deepEqual(afterRemove.items.map((i: any) => i.metadata.name), ['keeper', 'other']);
    w.close();
    wl.close();
    upstream.objects.pods.clear();
  });

  test('a graceful deletion (MODIFIED with deletionTimestamp, then DELETED) is hidden whole; a relist serves the state before it', async () => {
    upstream.objects.pods.set('grace/victim', pod('grace', 'victim', '60'));
    const w = await watch(proxy.url, '/api/v1/pods?watch=true', informer());
    const id = await proxy.add({ action: 'hide-deletion', resource: 'pods', namespace: 'grace', name: 'victim', client: 'shared-informers' });
    const terminating = pod('grace', 'victim', '61');
    terminating.metadata.deletionTimestamp = '2026-12-01T00:00:00Z';
    upstream.push('pods', { type: 'MODIFIED', object: terminating });
    upstream.push('pods', { type: 'DELETED', object: pod('grace', 'victim', '62') });
    upstream.push('pods', { type: 'ADDED', object: pod('grace', 'marker', '63') });
    await w.next((e) => e.object?.metadata?.name === 'marker');
    assert.deepEqual(names(w), ['ADDED grace/marker']);
    upstream.objects.pods.delete('grace/victim');
    const list = (await call(proxy.url, '/api/v1/namespaces/grace/pods', informer())).json();
    const victim = list.items.find((i: any) => i.metadata.name === 'victim');
    assert.equal(victim.metadata.resourceVersion, '60');
    assert.equal(victim.metadata.deletionTimestamp, undefined);
    assert.deepEqual(faultsOf('grace').filter((e) => e.action === 'hide-deletion').map((e) => [e.event, e.resourceVersion ?? '']), [['MODIFIED', '61'], ['DELETED', '62'], ['LIST', '']]);
    proxy.remove(id);
    w.close();
    upstream.objects.pods.clear();
  });

  test('a rule for an object the upstream does not have is refused with one line', async () => {
    await assert.rejects(proxy.add({ action: 'hide-deletion', resource: 'pods', namespace: 'hide', name: 'nobody' }), {
      message: 'fault proxy: hide-deletion: GET pods hide/nobody: HTTP 404',
    });
  });
});

describe('gone', () => {
  test('the next N watches get 410 Expired and never reach the upstream; LISTs and the watch after them pass', async () => {
    const id = await proxy.add({ action: 'gone', resource: 'pods', client: 'shared-informers', count: 2 });
    const path0 = '/api/v1/pods?watch=true&resourceVersion=77';
    const seenBefore = upstream.requests.filter((r) => r.path === upstreamWatchPath(path0)).length;
    for (let i = 0; i < 2; i++) {
      assert.equal((await call(proxy.url, '/api/v1/pods', informer())).status, 200, 'a LIST is no watch');
      const r = await call(proxy.url, path0, informer());
      assert.equal(r.status, 410);
      assert.deepEqual(r.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 77 (77)', reason: 'Expired', code: 410 });
    }
    assert.equal(upstream.requests.filter((r) => r.path === upstreamWatchPath(path0)).length, seenBefore);
    assert.equal(proxy.list().some((r) => r.id === id), false);
    const w = await watch(proxy.url, path0, informer());
    assert.equal(w.status, 200);
    assert.equal(upstream.requests.filter((r) => r.path === upstreamWatchPath(path0)).length, seenBefore + 1);
    w.close();
    const gone = proxy.log.entries.filter((e) => e.action === 'gone' && e.rule === id);
    assert.deepEqual(gone.map((e) => [e.resource, e.event, e.resourceVersion, e.client]), [['pods', 'WATCH', '77', INFORMER_UA], ['pods', 'WATCH', '77', INFORMER_UA]]);
  });

  test('with a namespace, only watches of that namespace', async () => {
    await proxy.add({ action: 'gone', resource: 'pods', namespace: 'g1', count: 1 });
    const all = await watch(proxy.url, '/api/v1/pods?watch=1', kexp());
    assert.equal(all.status, 200);
    all.close();
    const g2 = await watch(proxy.url, '/api/v1/namespaces/g2/pods?watch=1', kexp());
    assert.equal(g2.status, 200);
    g2.close();
    const r = await call(proxy.url, '/api/v1/namespaces/g1/pods?watch=1', kexp());
    assert.equal(r.status, 410);
    assert.deepEqual(faultsOf('g1').map((e) => e.action), ['gone']);
  });
});

describe('stall', () => {
  test('holds the requests and watch events of matching clients for ~T, others pass', async () => {
    const w = await watch(proxy.url, '/api/v1/namespaces/stall/pods?watch=true', kexp());
    const T = 800;
    const t0 = Date.now();
    proxy.stall(T, 'kexp/');
    const held = call(proxy.url, '/api/v1/namespaces/stall/configmaps', kexp()).then(() => Date.now() - t0);
    const free = call(proxy.url, '/api/v1/namespaces/stall/configmaps', informer()).then(() => Date.now() - t0);
    upstream.push('pods', { type: 'ADDED', object: pod('stall', 's', '60') });
    const ev = await w.next((e) => e.object?.metadata?.name === 's', 5000);
    const [heldMs, freeMs] = await Promise.all([held, free]);
    assert.ok(freeMs < AT_ONCE, `another client waited ${freeMs} ms`);
    assert.ok(heldMs >= T - 5 && heldMs < T + 1500, `a stalled request took ${heldMs} ms, not ~${T}`);
    assert.ok(ev.at - t0 >= T - 5, `a watch event reached a stalled client after ${ev.at - t0} ms`);
    assert.deepEqual(proxy.log.entries.filter((e) => e.action === 'stall').map((e) => [e.client, e.detail]), [['kexp/', `${T} ms`]]);
    w.close();
  });
});

describe('endWatches', () => {
  test('end closes the response cleanly, reset drops the connection; the upstream watch is closed either way', async () => {
    const k = await watch(proxy.url, '/api/v1/namespaces/ew/pods?watch=true', kexp());
    const i = await watch(proxy.url, '/api/v1/namespaces/ew/pods?watch=true&x=informer', informer());
    const rs = await watch(proxy.url, '/apis/apps/v1/namespaces/ew/replicasets?watch=true', informer());
    const upOf = (p: string) => upstream.watches.find((w) => w.path === upstreamWatchPath(p))!;
    assert.equal(proxy.endWatches({ client: 'kexp/', mode: 'end' }), 1);
    assert.equal(await k.ended, 'end');
    await until('the upstream kexp watch to close', () => upOf('/api/v1/namespaces/ew/pods?watch=true').closed);
    assert.equal(upOf('/api/v1/namespaces/ew/pods?watch=true&x=informer').closed, false);
    assert.equal(proxy.endWatches({ resource: 'pods', mode: 'reset' }), 1);
    assert.equal(await i.ended, 'error');
    await until('the upstream informer watch to close', () => upOf('/api/v1/namespaces/ew/pods?watch=true&x=informer').closed);
    assert.equal(upOf('/apis/apps/v1/namespaces/ew/replicasets?watch=true').closed, false, 'a replicasets watch is not a pods watch');
    const ended = proxy.log.entries.filter((e) => e.action === 'watch-ended' || e.action === 'watch-reset');
    assert.deepEqual(ended.slice(-2).map((e) => [e.action, e.resource, e.client]), [['watch-ended', 'pods', KEXP_UA], ['watch-reset', 'pods', INFORMER_UA]]);
    rs.close();
  });

  test('a watch the upstream ends is ended for the client after its held-back events', async () => {
    const w = await watch(proxy.url, '/api/v1/namespaces/upend/pods?watch=true', informer());
    const id = await proxy.add({ action: 'delay', resource: 'pods', namespace: 'upend', delayMs: 300 });
    upstream.push('pods', { type: 'ADDED', object: pod('upend', 'u', '70') });
    upstream.endWatches();
    assert.equal(await w.ended, 'end');
    assert.deepEqual(names(w), ['ADDED upend/u']);
    proxy.remove(id);
  });
});

describe('control endpoint', () => {
  test('rules: add, list, remove; bad requests get 400 or 404 with one line', async () => {
    const added = await control('POST', '/rules', { action: 'drop', resource: 'replicasets', namespace: 'ctl', events: ['DELETED'] });
    assert.equal(added.status, 200);
    const id = added.json.id;
    assert.equal(typeof id, 'number');
    const listed = await control('GET', '/rules');
    assert.deepEqual(listed.json.find((r: any) => r.id === id), { id, rule: { action: 'drop', resource: 'replicasets', namespace: 'ctl', events: ['DELETED'] } });
    assert.deepEqual((await control('DELETE', `/rules/${id}`)).json, { removed: id });
    assert.equal((await control('DELETE', `/rules/${id}`)).status, 404);

    const unknown = await control('POST', '/rules', { action: 'explode', resource: 'pods' });
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.json, { error: 'fault rule: unknown action "explode" (known: delay, drop, hide-deletion, gone)' });
    const typo = await control('POST', '/rules', { action: 'delay', resource: 'pods', namspace: 'ctl', delayMs: 5 });
    assert.equal(typo.status, 400);
    assert.match(typo.json.error, /^fault rule: delay does not take "namspace" \(it takes action, resource, namespace, name, client, delayMs\)$/);
    const notJson = await control('POST', '/rules', '{nope');
    assert.deepEqual([notJson.status, notJson.json], [400, { error: 'control: the request body is not JSON' }]);
    const badMode = await control('POST', '/end-watches', { mode: 'slam' });
    assert.deepEqual([badMode.status, badMode.json], [400, { error: 'end-watches: unknown mode "slam" (known: end, reset)' }]);
    assert.equal((await control('POST', '/stall', { ms: 0 })).status, 400);
    const nowhere = await control('GET', '/nowhere');
    assert.equal(nowhere.status, 404);
    assert.match(nowhere.json.error, /^unknown control request GET \/nowhere \(POST \/rules, /);
    for (const r of [unknown, typo, notJson, badMode, nowhere]) assert.equal(r.text.trim().split('\n').length, 1);
  });

  test('end-watches, stall and log through the endpoint', async () => {
    const w = await watch(proxy.url, '/api/v1/namespaces/ctl/pods?watch=true', kexp());
    assert.deepEqual((await control('POST', '/end-watches', { client: 'kexp/', resource: 'pods' })).json, { ended: 1 });
    assert.equal(await w.ended, 'end');
    assert.deepEqual((await control('POST', '/stall', { ms: 50, client: 'nobody-here' })).json, { stalledMs: 50 });
    const log = await control('GET', '/log');
    assert.deepEqual(log.json, JSON.parse(JSON.stringify(proxy.log.entries)));
  });
});

describe('fault log file', () => {
  test('one JSON line per entry, each with time and action; faults on objects name resource, namespace and name', () => {
    const lines = fs.readFileSync(faultLog, 'utf8').trimEnd().split('\n');
    assert.equal(lines.length, proxy.log.entries.length);
    const parsed = lines.map((l) => JSON.parse(l));
    assert.deepEqual(parsed, JSON.parse(JSON.stringify(proxy.log.entries)));
    for (const e of parsed) {
      assert.match(e.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(typeof e.action, 'string');
      if (['delay', 'drop', 'hide-deletion'].includes(e.action)) {
        assert.equal(e.resource, 'pods');
        assert.equal(typeof e.namespace, 'string');
        assert.equal(typeof e.name, 'string');
      }
    }
    const actions = new Set(parsed.map((e) => e.action));
    for (const a of ['rule-added', 'rule-removed', 'delay', 'drop', 'hide-deletion', 'gone', 'stall', 'watch-ended', 'watch-reset']) assert.ok(actions.has(a), `no ${a} line`);
  });
});

describe('start-up and upstream errors', () => {
  const opts = () => ({
    upstream: upstream.url,
    caFile: path.join(pki, 'ca.crt'),
    certFile: path.join(pki, 'proxy.crt'),
    keyFile: path.join(pki, 'proxy.key'),
    identities: [{ certFile: path.join(pki, 'admin.crt'), keyFile: path.join(pki, 'admin.key') }],
    warn: () => undefined,
  });

  test('a missing certificate, CA or identity file: one line naming it', async () => {
    const missing = path.join(dir, 'missing.crt');
    await assert.rejects(FaultProxy.start({ ...opts(), certFile: missing }), { message: `fault proxy: cannot read serving certificate ${missing}: ENOENT` });
    await assert.rejects(FaultProxy.start({ ...opts(), caFile: missing }), { message: `fault proxy: cannot read CA certificate ${missing}: ENOENT` });
    await assert.rejects(FaultProxy.start({ ...opts(), identities: [{ certFile: missing, keyFile: path.join(pki, 'admin.key') }] }), {
      message: `fault proxy: cannot read client certificate ${missing}: ENOENT`,
    });
    const log = path.join(dir, 'no-such-dir', 'faults.jsonl');
    await assert.rejects(FaultProxy.start({ ...opts(), faultLog: log }), { message: `fault proxy: cannot write the fault log ${log}: ENOENT` });
  });

  test('a port in use: one line, and nothing is left listening', async () => {
    const port = Number(new URL(proxy.url).port);
    await assert.rejects(FaultProxy.start({ ...opts(), port }), { message: `fault proxy: cannot listen on 127.0.0.1:${port}: EADDRINUSE` });
    const controlPort = Number(new URL(proxy.controlURL!).port);
    const free = await closedPort();
    await assert.rejects(FaultProxy.start({ ...opts(), port: free, controlPort }), { message: `fault proxy: cannot listen on 127.0.0.1:${controlPort}: EADDRINUSE` });
    // The serving port of the failed start was closed again: it can be listened on.
    const s = net.createServer();
    await new Promise<void>((resolve, reject) => s.once('error', reject).listen(free, '127.0.0.1', () => resolve()));
    await new Promise<void>((r) => s.close(() => r()));
  });

  test('the upstream down: 502 with one line naming it', async () => {
    const port = await closedPort();
    const lines: string[] = [];
    const p = await FaultProxy.start({ ...opts(), upstream: `https://127.0.0.1:${port}`, warn: (l) => lines.push(l) });
    try {
      const r = await call(p.url, '/api/v1/namespaces/x/pods', kexp());
      assert.equal(r.status, 502);
      assert.equal(r.json().message, `fault proxy: upstream https://127.0.0.1:${port}: ECONNREFUSED`);
      assert.equal(r.json().reason, 'BadGateway');
      assert.deepEqual(lines, [`fault proxy: upstream https://127.0.0.1:${port}: ECONNREFUSED`]);
    } finally {
      await p.close();
    }
  });
});
