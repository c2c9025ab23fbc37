/**
 * Hostile input, class "time plausibility" (issue #23): one far-future timestamp in any input
 * form must not stretch the timeline or fabricate a leak. Each case is the sweep's
 * reproduction in one form — a raw watch file (`kubectl get -w -o json --output-watch-events`:
 * times from the objects), a recording (receive times, its end line), an audit log
 * (stageTimestamp), a KCM log (JSON `ts`) — run through the built CLI; asserted for each:
 * bounded (< 10 s), a problem naming FILE:LINE and the value, exit 6 (input problems, README's
 * exit-code table), the covered time still the input's own, and no leak reported that the
 * unmutated input does not report. Plus the case that must stay quiet: a list of month-old
 * objects beside a change made now (object times are lower bounds, not neighbours to judge by).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp, type CliResult } from '../support/cli.js';

const BOUND_MS = 10_000;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-time-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

type Obj = Record<string, any>;
const RECORDING = 'examples/scale-up-gated.kexp.jsonl';
const recLines = (): Obj[] => fs.readFileSync(RECORDING, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Obj);

/** The recording as a raw watch-events file (what `kubectl get -w -o json --output-watch-events` writes). */
function rawWatch(mutate: (events: Obj[]) => void): { file: string; eventLine: number } {
  const events = recLines().filter((l) => l.event).map((l) => l.event as Obj);
  mutate(events);
  const file = path.join(tmp, `watch-${Math.random().toString(36).slice(2)}.json`);
  fs.writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  return { file, eventLine: 0 };
}

function firstEvent(events: Obj[]): { ev: Obj; line: number } {
  const i = events.findIndex((e) => e.object.kind === 'Event');
  return { ev: events[i]!.object, line: i + 1 };
}

function run(args: string[]): CliResult & { ms: number } {
  const t0 = Date.now();
  const r = kexp(args);
  return { ...r, ms: Date.now() - t0 };
}

function assertHonest(r: CliResult & { ms: number }, where: string, value: string, baseline: CliResult): void {
  assert.ok(r.ms < BOUND_MS, `took ${r.ms} ms`);
  assert.equal(r.code, 6, `exit ${r.code}; stderr: ${r.stderr}`);
  assert.ok(r.stderr.includes(`${where}:`) && r.stderr.includes(value), `no problem naming ${where} and ${value}: ${r.stderr}`);
  // The report proper (its Problems section quotes the problem) holds no far time.
  const report = r.stdout.split('\nProblems:')[0]!;
  assert.doesNotMatch(report, /2126|876576h|\d{5,}h|\d{3,}d\d+h/);
  const leaks = (s: string): number => (s.match(/Expectations leaked/g) ?? []).length;
  assert.equal(leaks(r.stdout), leaks(baseline.stdout), 'a leak the unmutated input does not show');
  // Covered from the input's own start, to its last plausible time (the baseline's, or earlier
  // when the implausible time was the input's last).
  const covered = (s: string): string | undefined => /Covered: (\S+ \S+)/.exec(s)?.[1];
  assert.equal(covered(r.stdout), covered(baseline.stdout));
}

const baseWatch = rawWatch(() => {});
const watchBaseline = kexp(['replay', baseWatch.file]);

test('raw watch file: an Event lastTimestamp 100 years ahead is a problem at its line, not a 100-year timeline', () => {
  let line = 0;
  const { file } = rawWatch((events) => {
    const f = firstEvent(events);
    f.ev.lastTimestamp = '2126-11-30T02:39:01Z';
    line = f.line;
  });
  const r = run(['replay', file]);
  assertHonest(r, `${file}:${line}`, 'lastTimestamp 2126-11-30T02:39:01.000Z', watchBaseline);
  assert.match(r.stderr, /after this input was read/);
});

test('raw watch file: an Event lastTimestamp 2 days ahead (before the read time) is judged by the Event\'s own server times', () => {
  for (const count of [1, 3]) {
    let line = 0;
    const { file } = rawWatch((events) => {
      const f = firstEvent(events);
      f.ev.lastTimestamp = '2026-12-02T02:39:01Z';
      f.ev.count = count;
      line = f.line;
    });
    const r = run(['replay', file]);
    // count 1: written once, at its creationTimestamp; count 3: its managedFields time is its last write.
    assertHonest(r, `${file}:${line}`, 'lastTimestamp 2026-12-02T02:39:01.000Z is 2 days after its last write', watchBaseline);
  }
});

test('raw watch file: a pod condition far ahead of the pod\'s last write (managedFields) is dropped with FILE:LINE', () => {
  let line = 0;
  const { file } = rawWatch((events) => {
    const i = events.findIndex((e) => e.object.kind === 'Pod' && e.object.metadata.managedFields);
    const pod = events[i]!.object;
    pod.status ??= {};
    pod.status.conditions = [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-12-03T00:00:00Z' }];
    line = i + 1;
  });
  const r = run(['replay', file]);
  assertHonest(r, `${file}:${line}`, 'status.conditions[PodScheduled].lastTransitionTime 2026-12-03T00:00:00.000Z', watchBaseline);
});

test('raw watch file: month-old listed objects beside a change made now raise no problem', () => {
  const { file } = rawWatch((events) => {
    // The initial list: the namespace and ReplicaSet created 30 days before the pods.
    for (const e of events.slice(0, 2)) {
      const m = e.object.metadata;
      m.creationTimestamp = '2026-10-31T02:38:59Z';
      for (const f of m.managedFields ?? []) f.time = '2026-10-31T02:38:59Z';
    }
  });
  const r = run(['replay', file]);
  assert.doesNotMatch(r.stderr, /not used|not a plausible|after its last write/);
  assert.notEqual(r.code, 6, r.stderr);
});

test('recording: an end line 100 years ahead is a problem at its line; the coverage ends with the events', () => {
  const lines = recLines();
  const end = lines.findIndex((l) => l.end);
  lines[end]!.recv = '2126-11-30T02:39:03.196656Z';
  const file = path.join(tmp, 'end.kexp.jsonl');
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const r = run(['replay', file]);
  assertHonest(r, `${file}:${end + 1}`, 'receive time 2126-11-30T02:39:03.196Z', kexp(['replay', RECORDING]));
});

test('recording: an Event lastTimestamp 100 years ahead of its receive time is dropped with FILE:LINE', () => {
  const lines = recLines();
  const i = lines.findIndex((l) => l.event?.object?.kind === 'Event');
  lines[i]!.event.object.lastTimestamp = '2126-11-30T02:39:01Z';
  const file = path.join(tmp, 'event.kexp.jsonl');
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const r = run(['replay', file]);
  assertHonest(r, `${file}:${i + 1}`, 'lastTimestamp 2126-11-30T02:39:01.000Z', kexp(['replay', RECORDING]));
});

test('audit log: the last record\'s stageTimestamp 100 years ahead is a problem at its line', () => {
  const src = 'examples/captures/scale-up-gated/audit.jsonl';
  const lines = fs.readFileSync(src, 'utf8').trim().split('\n');
  const last = JSON.parse(lines[lines.length - 1]!) as Obj;
  last.stageTimestamp = '2126-11-30T02:39:05.000000Z';
  last.requestReceivedTimestamp = '2126-11-30T02:39:05.000000Z';
  lines[lines.length - 1] = JSON.stringify(last);
  const file = path.join(tmp, 'audit.jsonl');
  fs.writeFileSync(file, lines.join('\n') + '\n');
  const r = run(['audit', file]);
  assert.ok(r.ms < BOUND_MS);
  assert.equal(r.code, 6, r.stderr);
  assert.ok(r.stderr.includes(`${file}:${lines.length}`) && r.stderr.includes('stageTimestamp 2126-11-30T02:39:05.000Z'), r.stderr);
  assert.doesNotMatch(r.stdout.split('\nProblems:')[0]!, /2126/);
});

test('KCM log: a JSON record 100 years ahead is left out with FILE:LINE', () => {
  const src = 'test/fixtures/kcm-log/sim-v1.37.2-json.log';
  const lines = fs.readFileSync(src, 'utf8').split('\n');
  const i = lines.findIndex((l, n) => n > 100 && l.startsWith('{'));
  const o = JSON.parse(lines[i]!) as Obj;
  o.ts = Date.UTC(2126, 10, 30);
  lines[i] = JSON.stringify(o);
  const file = path.join(tmp, 'kcm.log');
  fs.writeFileSync(file, lines.join('\n'));
  const base = kexp(['kcm-log', src]);
  const r = run(['kcm-log', file]);
  assert.ok(r.ms < BOUND_MS);
  assert.equal(r.code, 6, r.stderr);
  assert.ok(r.stderr.includes(`${file}:${i + 1}: record time 2126-11-30T00:00:00.000Z is 100 years after this input was read`), r.stderr);
  assert.doesNotMatch(r.stdout.split('\nProblems:')[0]!, /2126/);
  const range = (s: string): string | undefined => /(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\s+→\s+\d{4}-\d\d-\d\d\s+\d\d:\d\d:\d\d\.\d+)/.exec(s.replace(/\n/g, ' '))?.[1];
  assert.equal(range(r.stdout), range(base.stdout));
});

/** The recording with the receive times of lines [from, to) (1-based) moved by `ms`. */
function shiftedRecording(name: string, from: number, to: number, ms: number): string {
  const lines = recLines();
  for (let i = from - 1; i < to - 1; i++) {
    const l = lines[i]!;
    if (typeof l.recv === 'string') l.recv = new Date(Date.parse(l.recv) + ms).toISOString().replace('Z', '000Z');
  }
  const file = path.join(tmp, name);
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

test('recording: one receive time skewed ahead by under a day is a problem at its line; the rest keep their times and the report is the unskewed one', () => {
  const base = kexp(['replay', RECORDING]);
  const mid = Math.floor(recLines().length / 2) + 1;
  for (const [label, ms] of [['30 minutes', 30 * 60_000], ['5 hours', 5 * 3600_000], ['20 hours', 20 * 3600_000]] as const) {
    const file = shiftedRecording(`skew-${ms}.kexp.jsonl`, mid, mid + 1, ms);
    const r = run(['replay', file]);
    assertHonest(r, `${file}:${mid}`, `is ${label} after the times that follow it`, base);
    // Same rounds and syncs as the unskewed input: nothing squeezed into one instant.
    const syncs = (s: string): string | undefined => /syncs \d+[^;\n]*/.exec(s)?.[0];
    assert.equal(syncs(r.stdout), syncs(base.stdout), label);
    assert.doesNotMatch(r.stderr, /clamped/, label);
  }
});

test('recording: a clock stepped back (NTP) or a paused recording is no problem', () => {
  const lines = recLines().length;
  const mid = Math.floor(lines / 2) + 1;
  // Everything from the middle on an hour earlier: the lines before are not "ahead".
  const back = shiftedRecording('stepped-back.kexp.jsonl', mid, lines + 1, -3600_000);
  const rb = run(['replay', back]);
  assert.doesNotMatch(rb.stderr, /ran ahead|not a plausible|after the times/, rb.stderr);
  assert.match(rb.stderr, /clamped to the previous time/);
  assert.notEqual(rb.code, 6, rb.stderr);
  // Everything from the middle on two hours later: a pause, not a skew.
  const pause = shiftedRecording('paused.kexp.jsonl', mid, lines + 1, 2 * 3600_000);
  const rp = run(['replay', pause]);
  assert.doesNotMatch(rp.stderr, /ran ahead|not a plausible|after the times/, rp.stderr);
  assert.notEqual(rp.code, 6, rp.stderr);
});
