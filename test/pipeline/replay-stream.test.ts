/**
 * The replay's synchronous stream (src/pipeline/replay-stream.ts) against the async-generator
 * chain it replaced (mergeSources → causalOrder): the same events in the same order with the
 * same `seq`, the same problems and warnings at the same moments, the same stop on an
 * interrupt; and the fast RFC 3339 path against the regular expression it bypasses.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { openWatchSource, mergeSources, parseRfc3339 } from '../../src/sources/watch/index.js';
import { parseRfc3339General } from '../../src/sources/watch/recording-format.js';
import { CausalOrder, causalOrder } from '../../src/timeline/causal-order.js';
import { replayStream } from '../../src/pipeline/replay-stream.js';
import type { TimelineEvent } from '../../src/timeline/event.js';

const dir = mkdtempSync(join(tmpdir(), 'kexp-replay-stream-'));

const header = (startedAt: string) =>
  JSON.stringify({ kexpRecording: 1, kexpVersion: '0.1.0', startedAt, watches: [{ resource: 'pods' }, { resource: 'replicasets' }], redacted: true });

const recv = (ms: number) => new Date(Date.UTC(2026, 10, 30, 10, 0, 0) + ms).toISOString().replace('Z', '000Z');

function podLine(ms: number, name: string, rv: number, type = 'MODIFIED'): string {
  return JSON.stringify({
    recv: recv(ms),
    src: 'pods',
    event: { type, object: { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: String(rv) } } },
  });
}

function rsLine(ms: number, rv: number): string {
  return JSON.stringify({
    recv: recv(ms),
    src: 'replicasets',
    event: { type: 'MODIFIED', object: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'ns', uid: 'uid-rs', resourceVersion: String(rv), labels: { app: 'web' } }, spec: { replicas: 2 } } },
  });
}

/** Two recordings, each longer than one 1 MiB read, with bad lines, out-of-order revisions and a cut last line. */
function writeInputs(): string[] {
  const a: string[] = [header('2026-11-30T10:00:00.000000Z')];
  const b: string[] = [header('2026-11-30T10:00:00.000000Z')];
  let rv = 1000;
  for (let i = 0; i < 12_000; i++) {
    const ms = i * 3;
    if (i % 997 === 0) a.push('{"recv": not json');
    if (i % 1500 === 0) b.push(JSON.stringify({ recv: recv(ms + 1), src: 'pods', event: { type: 'MODIFIED', object: { kind: 'Pod', metadata: { name: 'x' } } } }));
    // A pod update received before the ReplicaSet update with the lower revision (causal reorder).
    if (i % 50 === 0) {
      a.push(podLine(ms, `p${i % 40}`, rv + 2));
      a.push(rsLine(ms + 1, rv + 1));
      rv += 3;
    } else a.push(podLine(ms, `p${i % 40}`, rv++));
    b.push(podLine(ms + 1, `q${i % 30}`, rv++));
    // Padding so each file spans several 1 MiB chunks.
    a.push(podLine(ms + 2, `p${(i + 7) % 40}`, rv++).replace('"ns"', `"ns","generateName":"${'g'.repeat(40)}"`));
  }
  const fa = join(dir, 'a.kexp.jsonl');
  const fb = join(dir, 'b.kexp.jsonl');
  writeFileSync(fa, a.join('\n') + '\n');
  writeFileSync(fb, b.join('\n') + '\n' + podLine(40_000, 'q1', rv + 5).slice(0, 80));
  return [fa, fb];
}

interface Trace {
  events: string[];
  /** Problems, warnings and deliveries in the order they happened. */
  log: string[];
  moved: number;
}

function brief(e: TimelineEvent): string {
  const seq = (e as { seq?: number }).seq;
  if (e.type === 'observed') return `${seq} ${e.at} ${e.kind} ${e.watchType} ${e.object.metadata.name} ${e.object.metadata.resourceVersion} ${e.source.file.slice(-12)}:${e.source.line}`;
  return `${seq} ${e.at} ${e.type} ${e.source.line}`;
}

/** `stream-sync`: the stream read as the engine's feed reads it, `nextSync()` first and `next()` when it has nothing at hand. */
async function run(files: string[], how: 'stream' | 'stream-sync' | 'chain', stopAfter?: number): Promise<Trace> {
  const log: string[] = [];
  const diagnostics = { problem: (p: { file: string; line: number; message: string }) => log.push(`problem ${p.file.slice(-12)}:${p.line} ${p.message}`), warn: (m: string) => log.push(`warn ${m.slice(-60)}`) };
  const sources = [];
  for (const f of files) sources.push(await openWatchSource(f, { diagnostics }));
  let moved = 0;
  let seen = 0;
  const merged = (e: TimelineEvent) => {
    log.push(`merged ${brief(e)}`);
    return stopAfter === undefined || ++seen <= stopAfter;
  };
  let it: AsyncIterator<TimelineEvent> & { nextSync?: () => IteratorResult<TimelineEvent> | undefined };
  if (how !== 'chain') {
    it = replayStream(sources.map((s) => s.batches), { pulled: (e) => log.push(`pulled ${e.source.line}`), merged, causal: new CausalOrder(500, () => moved++) });
  } else {
    const tapped = sources.map((s) => ({
      ...s,
      events: (async function* () {
        for await (const e of s.events) {
          log.push(`pulled ${e.source.line}`);
          yield e;
        }
      })(),
    }));
    const gate = async function* (src: AsyncIterable<TimelineEvent>) {
      for await (const e of src) {
        if (!merged(e)) return;
        yield e;
      }
    };
    it = causalOrder(gate(mergeSources(tapped)), 500, () => moved++)[Symbol.asyncIterator]();
  }
  const events: string[] = [];
  for (;;) {
    const r = (how === 'stream-sync' ? it.nextSync!() : undefined) ?? (await it.next());
    if (r.done) break;
    events.push(brief(r.value));
    log.push(`delivered ${brief(r.value)}`);
  }
  return { events, log, moved };
}

test('replayStream delivers what mergeSources → causalOrder delivered, with every side effect at the same moment', async () => {
  const files = writeInputs();
  const chain = await run(files, 'chain');
  const stream = await run(files, 'stream');
  const sync = await run(files, 'stream-sync');
  assert.ok(chain.events.length > 30_000, `events: ${chain.events.length}`);
  assert.ok(chain.moved > 100, `moved: ${chain.moved}`);
  assert.ok(chain.log.some((l) => l.includes('truncated line')), 'the cut last line is a problem');
  assert.ok(chain.log.filter((l) => l.startsWith('problem')).length > 20);
  assert.deepEqual(stream.events, chain.events);
  assert.equal(stream.moved, chain.moved);
  assert.deepEqual(stream.log, chain.log);
  assert.deepEqual(sync.events, chain.events);
  assert.equal(sync.moved, chain.moved);
  assert.deepEqual(sync.log, chain.log);
});

test('replayStream stops where the chain stopped when the merged tap says so (an interrupt)', async () => {
  const files = writeInputs();
  for (const stopAfter of [0, 1, 4321, 20_000]) {
    const chain = await run(files, 'chain', stopAfter);
    const stream = await run(files, 'stream', stopAfter);
    assert.equal(stream.events.length, chain.events.length, `stopAfter ${stopAfter}`);
    assert.deepEqual(stream.log, chain.log, `stopAfter ${stopAfter}`);
    assert.deepEqual((await run(files, 'stream-sync', stopAfter)).log, chain.log, `nextSync, stopAfter ${stopAfter}`);
  }
});

test('parseRfc3339: the fast path equals the general one', () => {
  const reference = parseRfc3339General;
  assert.equal(parseRfc3339('2026-11-30T10:15:02.134512Z'), Date.UTC(2026, 10, 30, 10, 15, 2) + 134.512);
  assert.equal(parseRfc3339('2026-11-30t10:15:02z'), Date.UTC(2026, 10, 30, 10, 15, 2));
  const cases = [
    '2026-11-30T10:15:02Z', '2026-11-30T10:15:02.1Z', '2026-11-30T10:15:02.123456789Z', '2026-11-30T10:15:02.1234567890Z',
    '2026-11-30T10:15:02.Z', '2026-11-30T10:15:60Z', '2026-11-30T10:99:02Z', '2026-13-30T10:15:02Z', '0050-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999999Z', '2026-11-30T10:15:02+01:00', '2026-11-30 10:15:02Z', '2026-11-3aT10:15:02Z', '2026-11-30T1a:15:02Z',
    '2026-11-30T10:15:0aZ', '2026-11-30T10:15:02.12a4Z', '+26-11-30T10:15:02Z', '2026-11-30T10:15:02', '',
  ];
  // Same hour prefix as a valid time, so a cached hour cannot vouch for a bad string.
  for (let i = 0; i < 2000; i++) {
    const d = new Date(Date.UTC(2020, 0, 1) + i * 7_919_131);
    cases.push(d.toISOString(), d.toISOString().replace('Z', `${i % 1000}Z`), d.toISOString().replace(/\.\d+Z$/, 'Z'));
  }
  for (const s of cases) assert.equal(parseRfc3339(s), reference(s), s);
});

test('a source that throws: the other sources are closed and the error reaches the engine, as mergeSources did', async () => {
  const ev = (at: number, line: number): TimelineEvent => ({ type: 'gap', at, atBasis: 'received', source: { file: 'f', line }, reason: 'watch-relist' });
  const make = (name: string, log: string[], fail: boolean) =>
    async function* (): AsyncGenerator<TimelineEvent[]> {
      try {
        yield [ev(1, 1), ev(3, 2)];
        if (fail) throw new Error(`${name} broke`);
        yield [ev(5, 3)];
      } finally {
        log.push(`${name} closed`);
      }
    };
  const viaStream: string[] = [];
  const it = replayStream([make('a', viaStream, true)(), make('b', viaStream, false)()], { causal: new CausalOrder(0) });
  await assert.rejects(async () => {
    for (;;) {
      const r = await it.next();
      if (r.done) break;
      viaStream.push(`event ${r.value.at}`);
    }
  }, /a broke/);
  const viaChain: string[] = [];
  const flat = (g: AsyncGenerator<TimelineEvent[]>) => (async function* () {
    for await (const b of g) yield* b;
  })();
  const sources = [make('a', viaChain, true)(), make('b', viaChain, false)()].map((g) => ({ file: 'f', format: 'x', timeBasis: 'received' as const, events: flat(g), coverage: () => ({ file: 'f', format: 'x', timeBasis: 'received' as const, events: 0, problems: 0 }) }));
  await assert.rejects(async () => {
    for await (const e of causalOrder(mergeSources(sources), 0)) viaChain.push(`event ${e.at}`);
  }, /a broke/);
  assert.deepEqual(viaStream, viaChain);
  assert.deepEqual(viaStream.filter((l) => l.endsWith('closed')), ['a closed', 'b closed']);
});
