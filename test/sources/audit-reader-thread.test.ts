/**
 * The audit reader on a thread (src/sources/audit/threaded-lines.ts, reader-thread.ts) gives what
 * the reader on the main thread gives: the same events with their FILE:LINE, the same problems and
 * warnings in the same order, the same summary and coverage — on every capture, the audit
 * fixtures, the real files of ../shared/realdata and hostile inputs (over-long lines across chunks,
 * a cut-off last line, damaged and trailing gzip data, blank lines before the content, CRLF, a BOM,
 * lines that are not JSON) — and it is really used (`readerThreadsStarted`).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { openAuditSource, type AuditSourceOptions } from '../../src/sources/audit/audit-source.js';
import { MAX_IN_FLIGHT, readerThreadMode, readerThreadsStarted, ThreadedLines } from '../../src/sources/audit/threaded-lines.js';
import { InputReader } from '../../src/sources/audit/line-reader.js';
import { InputError, type InputProblem } from '../../src/sources/source.js';
import { fx } from '../fixtures/audit/helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REAL = join(ROOT, '..', 'shared', 'realdata');

/** Everything the audit source tells, as one comparable value (or the error it threw). */
async function run(path: string, mode: 'on' | 'off', opts: Partial<AuditSourceOptions> = {}): Promise<unknown> {
  const problems: InputProblem[] = [];
  const warnings: string[] = [];
  try {
    const source = await openAuditSource(path, { diagnostics: { problem: (p) => problems.push(p), warn: (m) => warnings.push(m) }, readerThread: mode, ...opts });
    const events: unknown[] = [];
    for await (const ev of source.events) events.push(ev);
    return { events, problems, warnings, summary: source.summary(), coverage: source.coverage() };
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { error: e.message, problems, warnings };
  }
}

async function same(path: string, opts: Partial<AuditSourceOptions> = {}): Promise<unknown> {
  const before = readerThreadsStarted();
  const off = await run(path, 'off', opts);
  const on = await run(path, 'on', opts);
  assert.deepEqual(on, off, path);
  return { off, threads: readerThreadsStarted() - before };
}

function auditFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /(^|\/)audit[^/]*\.jsonl(\.gz)?$|\.log$|\.ndjson$|\.json$/.test(f) && !f.includes('faults'))
    .map((f) => join(dir, f));
}

describe('audit reader thread', () => {
  it('gives the same events, problems and summaries on every capture', async () => {
    const files = auditFilesUnder(join(ROOT, 'examples', 'captures')).filter((f) => /audit[^/]*\.jsonl(\.gz)?$/.test(f));
    assert.ok(files.length >= 10, `${files.length} captures`);
    let threads = 0;
    let events = 0;
    for (const f of files) {
      const r = (await same(f)) as { off: { events: unknown[] }; threads: number };
      threads += r.threads;
      events += r.off.events.length;
    }
    assert.equal(threads, files.length, 'every capture was read on a thread');
    assert.ok(events > 1000, `${events} events`);
  });

  it('gives the same on the audit fixtures and the real files of others', async () => {
    const files = readdirSync(fx('.'))
      .filter((f) => /\.(log|ndjson)$/.test(f))
      .map(fx);
    if (existsSync(REAL)) files.push(...auditFilesUnder(join(REAL, 'audit2rbac-v1')), ...auditFilesUnder(join(REAL, 'audit2rbac-v1beta1')), ...auditFilesUnder(join(REAL, 'falco-k8s-audit')));
    assert.ok(files.length >= 8);
    for (const f of files) await same(f);
    for (const f of files.filter((x) => x.startsWith(fx('.')))) {
      await same(f, { allEvents: true });
      await same(f, { prefilter: false });
    }
  });

  it('keeps line numbers, over-long lines, blank lines, CRLF, a BOM and bad lines as the main thread does, across chunks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kexp-reader-thread-'));
    const base = (i: number) =>
      JSON.stringify({
        kind: 'Event',
        apiVersion: 'audit.k8s.io/v1',
        level: 'Metadata',
        auditID: `id-${i}`,
        stage: 'ResponseComplete',
        requestURI: `/api/v1/namespaces/default/pods/p-${i}`,
        verb: i % 3 === 0 ? 'delete' : 'create',
        user: { username: 'system:serviceaccount:kube-system:replicaset-controller' },
        objectRef: { resource: i % 2 === 0 ? 'pods' : 'configmaps', namespace: 'default', name: `p-${i}`, apiVersion: 'v1' },
        responseStatus: { metadata: {}, code: 201 },
        requestReceivedTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)).toISOString().replace('Z', '000Z'),
        stageTimestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i + 1)).toISOString().replace('Z', '000Z'),
        annotations: { pad: 'x'.repeat(i % 997) },
      });
    const body: string[] = ['', '  ', '\uFEFF' + base(0)];
    for (let i = 1; i < 6000; i++) {
      if (i % 1500 === 7) body.push(base(i).replace('{', '{"big":"' + 'y'.repeat(3 << 20) + '",')); // over-long, spans chunks
      else if (i % 1000 === 3) body.push('not json at all');
      else if (i % 700 === 5) body.push(base(i).slice(0, 200)); // cut off
      else if (i % 500 === 1) body.push(base(i) + '\r');
      else if (i % 450 === 2) body.push('');
      else body.push(base(i));
    }
    const text = body.join('\n');
    const plain = join(dir, 'audit.log');
    writeFileSync(plain, text + '\n');
    const cut = join(dir, 'cut.log');
    writeFileSync(cut, text + '\n' + base(7000).slice(0, 300)); // last line without newline, cut
    const gz = join(dir, 'audit.log.gz');
    writeFileSync(gz, Buffer.concat([gzipSync(text.slice(0, text.length / 2)), gzipSync(text.slice(text.length / 2) + '\n')]));
    const damaged = join(dir, 'damaged.log.gz');
    const whole = gzipSync(text + '\n');
    writeFileSync(damaged, whole.subarray(0, Math.floor(whole.length * 0.7)));
    const trailing = join(dir, 'trailing.log.gz');
    writeFileSync(trailing, Buffer.concat([whole, Buffer.from('garbage after the member\n')]));
    for (const f of [plain, cut, gz, damaged, trailing]) {
      const r = (await same(f, { maxLineBytes: 2 << 20 })) as { off: { problems: InputProblem[]; events: unknown[] }; threads: number };
      assert.equal(r.threads, 1, f);
      assert.ok(r.off.problems.length >= 8, `${f}: ${r.off.problems.length} problems`);
      assert.ok(r.off.events.length > 1000, `${f}: ${r.off.events.length} events`);
    }
    const tooLong = (await run(plain, 'on', { maxLineBytes: 2 << 20 })) as { problems: InputProblem[] };
    assert.deepEqual(
      tooLong.problems.filter((p) => p.message.includes('longer than the limit')).map((p) => p.line),
      [10, 1510, 3010, 4510],
    );
  });

  it('stops the thread when the reading stops early, and reads small files on the main thread', async () => {
    const f = auditFilesUnder(join(ROOT, 'examples', 'captures')).find((x) => x.endsWith('audit.jsonl'))!;
    const before = readerThreadsStarted();
    const source = await openAuditSource(f, { diagnostics: { problem: () => undefined, warn: () => undefined }, readerThread: 'on' });
    let n = 0;
    for await (const _ of source.events) if (++n === 5) break;
    assert.equal(n, 5);
    assert.equal(readerThreadsStarted(), before + 1);
    const auto = await run(f, 'auto' as 'on');
    assert.equal(readerThreadsStarted(), before + 1, 'a small file is not worth a thread');
    assert.deepEqual(auto, await run(f, 'off'));
  });

  it('is off unless KEXP_READER_THREAD asks for it', () => {
    const saved = process.env.KEXP_READER_THREAD;
    try {
      delete process.env.KEXP_READER_THREAD;
      assert.equal(readerThreadMode(), 'off');
      for (const v of ['on', 'auto', 'off'] as const) {
        process.env.KEXP_READER_THREAD = v;
        assert.equal(readerThreadMode(), v);
      }
      process.env.KEXP_READER_THREAD = 'yes';
      assert.equal(readerThreadMode(), 'off');
    } finally {
      if (saved === undefined) delete process.env.KEXP_READER_THREAD;
      else process.env.KEXP_READER_THREAD = saved;
    }
  });

  it('holds at most MAX_IN_FLIGHT batches when the consumer is slower than the thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kexp-reader-thread-'));
    const f = join(dir, 'many.log');
    const line = JSON.stringify({ kind: 'Event', apiVersion: 'audit.k8s.io/v1', pad: 'z'.repeat(900) });
    writeFileSync(f, (line + '\n').repeat(48_000)); // ~44 MB, every line passes: ~44 batches of 1 MiB
    const t = new ThreadedLines(new InputReader(f), { kind: 'none' });
    const it = t.lines();
    const first = await it.next();
    assert.equal((first.value as { no: number }[])[0]!.no, 1);
    let most = 0;
    for (let i = 0; i < 30; i++) {
      await new Promise((r) => setTimeout(r, 50));
      most = Math.max(most, t.pendingBatches);
    }
    assert.ok(most >= 1 && most <= MAX_IN_FLIGHT, `${most} batches waiting`);
    let next = (first.value as unknown[]).length + 1;
    for (let r = await it.next(); !r.done; r = await it.next()) for (const l of r.value) assert.equal(l.no, next++);
    assert.equal(next - 1, 48_000);
    assert.equal(t.stats.lines, 48_000);
    t.close();
  });
});
