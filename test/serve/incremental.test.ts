/**
 * kexp serve's incremental evaluation against a replay of the whole stream: the registry keeps
 * one journal per owner and replays only the owners whose report may have changed
 * (src/serve/registry.ts, line-routing.ts); every object's report it gives must be the one the
 * replay engine gives for the whole stream up to the same time (`kexp replay` of serve's whole
 * journal as one recording, cited the same way), at every evaluation — while events arrive, at
 * the end, and long after (the settled owners then are not replayed: their reports are kept).
 *
 * Inputs: every recording of examples/ and examples/captures/ (captures of the real v1.37.2
 * controllers and reproductions of the public incidents: ReplicaSets, RCs, DaemonSets, Jobs,
 * adoption, relists, restarts, namespace termination), fed as serve's reflectors deliver them
 * (test/support/serve-feed.ts), and a generated namespace of many ReplicaSets with churn
 * (test/support/serve-churn.ts, the stream of bench/serve/memory.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Journal } from '../../src/serve/journal.ts';
import { replayJournal, ServeRegistry, type Evaluation } from '../../src/serve/registry.ts';
import { ownerKindOf } from '../../src/analysis/report/owner-kind.ts';
import { KEXP_VERSION } from '../../src/version.ts';
import type { Report } from '../../src/analysis/report-types.ts';
import { feed, readRecording, type RecordingLines } from '../support/serve-feed.ts';
import { churnStream } from '../support/serve-churn.ts';

const MIN = 60_000;
const DAY = 24 * 60 * MIN;

/** Feeds the same lines to a plain journal (no fold): the whole stream as one recording. */
function feedWhole(j: Journal, rec: RecordingLines, until: number, from: number): void {
  for (const l of rec.lines) {
    if (l.at < from || l.at >= until) continue;
    if (l.event) j.event(l.src, l.event.type, l.event.object, l.at, l.synthetic);
    else if (l.gap) j.gap(l.src, l.gap.reason, l.gap.detail ?? '', l.at);
  }
}

function byId(report: Report): Map<string, Report['replicaSets'][number]> {
  return new Map(report.replicaSets.map((r) => [`${ownerKindOf(r)}/${r.namespace}/${r.name}`, r]));
}

/** Evaluates the registry and the whole-stream replay at each time; returns how many owners the registry replayed at each. */
async function compare(name: string, rec: RecordingLines, times: number[]): Promise<number[]> {
  const reg = new ServeRegistry({ historyMs: DAY, watches: rec.header.watches, ...(rec.header.serverVersion ? { serverVersion: rec.header.serverVersion } : {}) });
  const whole = new Journal(DAY);
  const replayed: number[] = [];
  let from = -Infinity;
  for (const t of times) {
    feed(reg, rec, t, from);
    feedWhole(whole, rec, t, from);
    from = t;
    const ev: Evaluation = await reg.evaluate(t);
    const ref = (await replayJournal(whole.recording(t, { kexpVersion: KEXP_VERSION, ...(rec.header.serverVersion ? { serverVersion: rec.header.serverVersion } : {}), watches: rec.header.watches }))).report;
    const want = byId(ref);
    const at = `${name} at ${new Date(t).toISOString()}`;
    assert.deepEqual([...ev.objects.keys()].sort(), [...want.keys()].sort(), `${at}: the same objects`);
    for (const [id, r] of want) {
      assert.deepEqual(ev.objects.get(id), r, `${at}: ${id} as the whole stream's replay reports it`);
      const f = ev.frames.get(id)!.frame;
      assert.equal(f.coverage.start, ref.coverage.start, `${at}: ${id} coverage start`);
      assert.equal(f.coverage.end, ref.coverage.end, `${at}: ${id} coverage end`);
    }
    replayed.push(ev.replayed);
  }
  return replayed;
}

const recordings = [
  ...fs.readdirSync('examples').filter((f) => /\.kexp\.jsonl(\.gz)?$/.test(f)).map((f) => `examples/${f}`),
  ...fs.readdirSync('examples/captures').map((d) => `examples/captures/${d}/recording.kexp.jsonl`).filter((f) => fs.existsSync(f)),
].sort();

for (const file of recordings) {
  test(`incremental = whole replay: ${file}`, { timeout: 120_000 }, async () => {
    const rec = readRecording(file);
    const first = rec.lines[0]!.at;
    const end = rec.end ?? rec.lines[rec.lines.length - 1]!.at;
    const q = (x: number) => Math.round(first + (end - first) * x);
    // While events arrive, at the end, and long after (settled owners are kept, not replayed).
    const times = [q(0.25), q(0.5), q(0.75), end, end + 7 * MIN, end + 9 * MIN];
    const replayed = await compare(file, rec, times);
    assert.ok(replayed.some((n) => n > 0), 'owners were replayed');
  });
}

test('incremental = whole replay: 60 ReplicaSets with churn; only the owners with new lines or unsettled reports are replayed', { timeout: 300_000 }, async () => {
  const rec = churnStream({ rs: 60, pods: 3, minutes: 14, intervalS: 30 });
  const start = rec.lines[0]!.at;
  const times: number[] = [];
  for (let s = 60; s <= 14 * 60; s += 60) times.push(start + s * 1000);
  // After the churn: every owner settled (replayed once more to prove its report stable), then none.
  times.push(start + 22 * MIN, start + 23 * MIN, start + 24 * MIN);
  const replayed = await compare('churn', rec, times);
  // The first evaluation replays every owner; later ones those touched since the evaluation before
  // (four a minute here) and at the one after (to prove their report stable); once all are stable, none.
  assert.equal(replayed[0], 60);
  const churn = replayed.slice(8, 14);
  assert.ok(churn.every((n) => n > 0 && n <= 12), `in the churn, only the owners touched are replayed: ${replayed.join(', ')}`);
  assert.equal(replayed[replayed.length - 1], 0, `once every owner is stable nothing is replayed: ${replayed.join(', ')}`);
});
