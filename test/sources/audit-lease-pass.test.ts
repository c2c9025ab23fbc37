/**
 * The lease pass on a worker (src/sources/audit/lease-pass.ts, lease-thread.ts) gives what the pass
 * on the main thread gives: the same kube-controller-manager Lease writes in the same order with
 * their FILE:LINE, over several files, gzip, CloudWatch lines, the captures and the real files of
 * others; the same one-line InputError; the bytes read counted for the progress line — and the
 * worker is really used (`leaseThreadsUsed`), only above its size threshold in `auto`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { leaseThreadsUsed, startLeasePass, type LeaseThreadMode } from '../../src/sources/audit/lease-pass.js';
import { readTotals } from '../../src/sources/read-progress.js';
import { InputError } from '../../src/sources/source.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REAL = join(ROOT, '..', 'shared', 'realdata');
const micro = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');

/** A Lease update as client-go's LeaseLock.Update makes it, of `name` in `ns` (the KCM's: kube-system/kube-controller-manager). */
function leaseLine(i: number, at: number, holder: string, opts: { ns?: string; name?: string; code?: number } = {}): string {
  const ns = opts.ns ?? 'kube-system';
  const name = opts.name ?? 'kube-controller-manager';
  const lease = {
    kind: 'Lease', apiVersion: 'coordination.k8s.io/v1',
    metadata: { name, namespace: ns, uid: `lease-${ns}-${name}`, resourceVersion: String(1000 + i) },
    spec: { holderIdentity: holder, leaseDurationSeconds: 15, acquireTime: micro(at - 60_000), renewTime: micro(at), leaseTransitions: 1 },
  };
  return JSON.stringify({
    kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'RequestResponse', auditID: `lease-${i}`, stage: 'ResponseComplete',
    requestURI: `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${name}?timeout=5s`, verb: 'update',
    user: { username: 'system:kube-controller-manager' }, userAgent: 'kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/6d1a2b3/leader-election',
    objectRef: { resource: 'leases', namespace: ns, name, apiGroup: 'coordination.k8s.io', apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: opts.code ?? 200 }, requestObject: lease, responseObject: lease,
    requestReceivedTimestamp: micro(at - 3), stageTimestamp: micro(at),
  });
}

/** Other traffic: configmap writes that name no lease. */
function otherLine(i: number, at: number): string {
  return JSON.stringify({
    kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: 'Metadata', auditID: `cm-${i}`, stage: 'ResponseComplete',
    requestURI: `/api/v1/namespaces/default/configmaps/c-${i}`, verb: 'update', user: { username: 'someone' },
    objectRef: { resource: 'configmaps', namespace: 'default', name: `c-${i}`, apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: 200 }, stageTimestamp: micro(at), requestReceivedTimestamp: micro(at - 1),
  });
}

/** A log of `n` lines from `t0`: every 7th a KCM Lease renewal (holder changing every 100), every 11th a node's Lease, a failed write, the rest other traffic. */
function log(n: number, t0: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const at = t0 + i * 50;
    if (i % 7 === 0) out.push(leaseLine(i, at, `kcm-${Math.floor(i / 100)}`, i % 91 === 0 ? { code: 409 } : {}));
    else if (i % 11 === 0) out.push(leaseLine(i, at, `node-${i % 5}`, { ns: 'kube-node-lease', name: `node-${i % 5}` }));
    else out.push(otherLine(i, at));
  }
  return out.join('\n') + '\n';
}

async function pass(files: string[], mode: LeaseThreadMode): Promise<unknown> {
  try {
    return { writes: await startLeasePass(files, { mode }).writes() };
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { error: e.message, file: e.file, line: e.line };
  }
}

async function same(files: string[]): Promise<{ writes?: unknown[]; error?: string }> {
  const before = leaseThreadsUsed();
  const off = await pass(files, 'off');
  const on = await pass(files, 'on');
  assert.deepEqual(on, off, files.join(' '));
  if ((off as { error?: string }).error === undefined) assert.equal(leaseThreadsUsed(), before + 1, 'the worker made the pass');
  return off as { writes?: unknown[]; error?: string };
}

describe('lease pass on a worker', () => {
  it('gives the same writes, in file order, over several files and gzip', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kexp-lease-pass-'));
    const t0 = Date.UTC(2026, 0, 1);
    const a = join(dir, 'a.log');
    const b = join(dir, 'b.log.gz');
    writeFileSync(a, log(20_000, t0));
    writeFileSync(b, gzipSync(log(5_000, t0 + 20_000 * 50)));
    const r = await same([a, b]);
    const writes = r.writes as Array<{ holder: string; source: { file: string; line: number } }>;
    // Every 7th line but the failed ones (every 91st line: 7 × 13), of the KCM's Lease only.
    const expected = (n: number) => Math.ceil(n / 7) - Math.ceil(n / 91);
    assert.equal(writes.length, expected(20_000) + expected(5_000));
    assert.deepEqual(writes[0]!.source, { file: a, line: 8 }, 'line 1 is a failed write (409)');
    assert.equal(writes[1]!.holder, 'kcm-0');
    assert.equal(writes.at(-1)!.source.file, b);
    assert.ok(writes.every((w) => !w.holder.startsWith('node-')), 'only the kube-controller-manager Lease');
  });

  it('gives the same on the captures and the real files of others', async () => {
    const caps = readdirSync(join(ROOT, 'examples', 'captures')).map((d) => join(ROOT, 'examples', 'captures', d, 'audit.jsonl')).filter(existsSync);
    assert.ok(caps.length >= 10);
    const files = [...caps];
    if (existsSync(REAL)) {
      for (const d of ['audit2rbac-v1', 'audit2rbac-v1beta1', 'falco-k8s-audit']) {
        const dir = join(REAL, d);
        if (existsSync(dir)) files.push(...readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(log|jsonl|ndjson)$/.test(f)).map((f) => join(dir, f)));
      }
    }
    for (const f of files) await same([f]);
    await same(caps.slice(0, 3));
  });

  it('throws the same one-line InputError, and counts the bytes read for the progress line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kexp-lease-pass-'));
    const bad = join(dir, 'not-audit.log');
    writeFileSync(bad, 'just some text\nand more\n');
    const r = await same([bad]);
    assert.match(r.error ?? '', /not-audit\.log/);
    const f = join(dir, 'counted.log');
    const text = log(2_000, Date.UTC(2026, 0, 2));
    writeFileSync(f, text);
    const before = readTotals().read;
    await startLeasePass([f], { mode: 'on' }).writes();
    assert.equal(readTotals().read - before, Buffer.byteLength(text));
  });

  it('reads small files on the main thread in auto, and returns what was read when the signal stops it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kexp-lease-pass-'));
    const f = join(dir, 'small.log');
    writeFileSync(f, log(700, Date.UTC(2026, 0, 3)));
    const before = leaseThreadsUsed();
    const auto = await startLeasePass([f], { mode: 'auto' }).writes();
    assert.equal(leaseThreadsUsed(), before, 'a small file is not worth a worker');
    assert.equal(auto.length, 100 - 8);
    const stopped = new AbortController();
    stopped.abort();
    assert.deepEqual(await startLeasePass([f], { mode: 'on', signal: stopped.signal }).writes(), []);
    assert.deepEqual(await startLeasePass([f], { mode: 'off', signal: stopped.signal }).writes(), []);
  });
});
