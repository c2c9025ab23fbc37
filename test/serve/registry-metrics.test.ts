/**
 * kexp serve's registry and metrics on recorded captures of the real v1.37.2 controllers: each
 * recording is fed to the registry as its reflectors would have delivered it (its own receive
 * times; test/support/serve-feed.ts), evaluated at chosen times, and the exposition read back.
 *
 * - examples/deletion-loss.kexp.jsonl: the ReplicaSet's deletion never reaches the controller's
 *   informer; del=1 stays outstanding until the 5-minute expiry. Gated (in flight) first, then a
 *   leak only the timeout clears, then expired: the series go and the gated seconds stay counted.
 * - examples/captures/ds-deletion-loss: the same for a DaemonSet.
 * - examples/quota-rejected.kexp.jsonl: creates rejected by the quota: write failures by reason.
 * - the journal's fold: evaluated long after, every object starts unknown again and nothing is
 *   claimed (no false leak).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ServeRegistry } from '../../src/serve/registry.ts';
import { ServeMetrics, failureReason } from '../../src/serve/metrics.ts';
import { feed, readRecording, type RecordingLines } from '../support/serve-feed.ts';
import { churnStream } from '../support/serve-churn.ts';

const MIN = 60_000;

/** `name{labels} value` lines of the exposition, for lookups by name and label subset. */
function series(text: string): Array<{ name: string; labels: Record<string, string>; value: number }> {
  const out: Array<{ name: string; labels: Record<string, string>; value: number }> = [];
  for (const l of text.split('\n')) {
    if (!l || l.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(l);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const p of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[p[1]!] = p[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

function pick(text: string, name: string, labels: Record<string, string> = {}): number[] {
  return series(text).filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).map((s) => s.value);
}

function registryFor(rec: RecordingLines, historyMs = 15 * MIN): { reg: ServeRegistry; metrics: ServeMetrics } {
  const reg = new ServeRegistry({ historyMs, watches: rec.header.watches, ...(rec.header.serverVersion ? { serverVersion: rec.header.serverVersion } : {}) });
  return { reg, metrics: new ServeMetrics(reg) };
}

const NO_LEASE = { observed: false } as const;

/** The expired window of the whole recording (start, end), read from a full evaluation. */
async function expiredWindow(rec: RecordingLines, id: string): Promise<{ start: number; end: number }> {
  const { reg } = registryFor(rec);
  feed(reg, rec, Infinity);
  const ev = await reg.evaluate(rec.end!);
  reg.close();
  const w = ev.objects.get(id)?.gatedWindows.find((x) => x.endedBy === 'expired');
  assert.ok(w, `${id} has an expired window in the whole recording`);
  return { start: Date.parse(w.start), end: Date.parse(w.end!) };
}

async function leakSequence(file: string, id: string, labels: Record<string, string>): Promise<void> {
  const rec = readRecording(file);
  const w = await expiredWindow(rec, id);
  assert.ok(w.end - w.start > 5 * MIN && w.end - w.start < 5 * MIN + 30_000, 'the record expired after the 5-minute timeout');
  // One registry, fed as time goes on: in flight, leaked (timeout only), expired.
  const { reg, metrics } = registryFor(rec);
  const times = [w.start + MIN, w.start + 5 * MIN + (w.end - w.start - 5 * MIN) / 2, rec.end!];
  let from = -Infinity;
  const texts: string[] = [];
  for (const t of times) {
    feed(reg, rec, t, from);
    from = t;
    const ev = await reg.evaluate(t);
    metrics.update(ev, NO_LEASE, { leaderChanges: 0, restarts: 0 });
    texts.push(await metrics.text());
  }
  reg.close();
  const [inFlight, leaked, expired] = texts as [string, string, string];
  // A minute in: gated, one deletion outstanding, not (yet) a leak.
  assert.deepEqual(pick(inFlight, 'kexp_controller_gated', labels), [1]);
  assert.deepEqual(pick(inFlight, 'kexp_expectations_outstanding', { ...labels, op: 'del' }), [1]);
  assert.deepEqual(pick(inFlight, 'kexp_expectations_outstanding', { ...labels, op: 'add' }), [0]);
  assert.deepEqual(pick(inFlight, 'kexp_controller_gated_since_timestamp_seconds', labels), [w.start / 1000]);
  assert.deepEqual(pick(inFlight, 'kexp_expectations_leaked', labels), []);
  // Past the timeout, before the next sync: a leak only the timeout clears.
  assert.deepEqual(pick(leaked, 'kexp_expectations_leaked', { ...labels, finding: 'expectation-leak-open', clears: 'timeout' }), [1]);
  assert.deepEqual(pick(leaked, 'kexp_object_verdict', { ...labels, verdict: 'leaked' }), [1]);
  // Expired: no longer gated nor leaked now; the expiry is a cleared leak; the gated time counted once.
  assert.deepEqual(pick(expired, 'kexp_controller_gated', labels), []);
  assert.deepEqual(pick(expired, 'kexp_expectations_leaked', { ...labels, clears: 'timeout' }), []);
  assert.deepEqual(pick(expired, 'kexp_expectations_leaked', { ...labels, finding: 'expectation-leak-expired', clears: 'expired' }), [1]);
  const gated = pick(expired, 'kexp_controller_gated_seconds_total', labels);
  assert.equal(gated.length, 1);
  // Every window of the object within the history, the expired one whole.
  assert.ok(gated[0]! >= (w.end - w.start) / 1000 && gated[0]! < (w.end - w.start) / 1000 + 5, `gated seconds ${gated[0]} cover the expired window`);
  assert.ok(pick(leaked, 'kexp_controller_gated_seconds_total', labels)[0]! <= gated[0]!, 'the counter only grows');
}

test('deletion-loss: gated, then a leak only the timeout clears, then expired — the series follow', { timeout: 60_000 }, async () => {
  await leakSequence('examples/deletion-loss.kexp.jsonl', 'ReplicaSet/kexp-deletion-loss/web', { kind: 'ReplicaSet', namespace: 'kexp-deletion-loss', name: 'web' });
});

test('ds-deletion-loss: the same sequence for a DaemonSet', { timeout: 60_000 }, async () => {
  await leakSequence('examples/captures/ds-deletion-loss/recording.kexp.jsonl', 'DaemonSet/kexp-ds-deletion-loss/agent', { kind: 'DaemonSet', namespace: 'kexp-ds-deletion-loss', name: 'agent' });
});

test('quota-rejected: failing creates counted by reason, equal to the report\'s failed writes; writes by verb', { timeout: 60_000 }, async () => {
  const rec = readRecording('examples/quota-rejected.kexp.jsonl');
  const { reg, metrics } = registryFor(rec);
  feed(reg, rec, Infinity);
  const ev = await reg.evaluate(rec.end!);
  metrics.update(ev, NO_LEASE, { leaderChanges: 0, restarts: 0 });
  // A second evaluation of the same journal adds nothing to the counters.
  metrics.update(await reg.evaluate(rec.end!), NO_LEASE, { leaderChanges: 0, restarts: 0 });
  reg.close();
  const text = await metrics.text();
  const r = ev.objects.get('ReplicaSet/kexp-quota-rejected/web')!;
  assert.equal(r.verdict.state, 'failing');
  assert.equal(r.accounting.failed, 11);
  const l = { kind: 'ReplicaSet', namespace: 'kexp-quota-rejected', name: 'web' };
  assert.deepEqual(pick(text, 'kexp_controller_write_failures_total', { ...l, verb: 'create', reason: 'quota' }), [11]);
  assert.deepEqual(pick(text, 'kexp_controller_writes_total', { kind: 'ReplicaSet', verb: 'create' }), [r.accounting.byKind.create]);
  assert.deepEqual(pick(text, 'kexp_object_verdict', { ...l, verdict: 'failing' }), [1]);
  assert.deepEqual(pick(text, 'kexp_objects', { kind: 'ReplicaSet', verdict: 'failing' }), [1]);
  assert.deepEqual(pick(text, 'kexp_findings', { kind: 'ReplicaSet', finding: 'create-failures', severity: 'warning' }), [1]);
  assert.deepEqual(pick(text, 'kexp_objects_tracked', { kind: 'ReplicaSet' }), [1]);
  assert.ok(pick(text, 'kexp_events_processed_total', { resource: 'pods' })[0]! > 0);
});

test('a healthy idle object has no per-object series', { timeout: 60_000 }, async () => {
  const rec = readRecording('examples/scale-up-gated.kexp.jsonl');
  const { reg, metrics } = registryFor(rec);
  feed(reg, rec, Infinity);
  // Long after the last event, with the history folded: the state is the starting state, unknown before.
  const late = rec.end! + 20 * MIN;
  const ev = await reg.evaluate(late);
  metrics.update(ev, NO_LEASE, { leaderChanges: 0, restarts: 0 });
  reg.close();
  const text = await metrics.text();
  assert.ok(ev.objects.size > 0);
  for (const r of ev.objects.values()) {
    assert.equal(r.initialState.basis, 'unknown', `${r.key}: before the fold is unknown`);
    assert.deepEqual(r.gatedWindows, [], `${r.key}: no window claimed after the fold`);
    assert.ok(!r.findings.some((f) => f.id.startsWith('expectation-leak')), `${r.key}: no leak claimed after the fold`);
  }
  for (const name of ['kexp_controller_gated', 'kexp_expectations_outstanding', 'kexp_expectations_leaked', 'kexp_object_verdict', 'kexp_controller_write_failures_total']) {
    assert.deepEqual(pick(text, name), [], `${name} has no series for healthy idle objects`);
  }
  assert.equal(ev.report.inputs[0]!.file, 'serve-journal');
});

test('failure reasons: the API server\'s messages map to a fixed set', () => {
  assert.equal(failureReason('pods "web-b9thq" is forbidden: exceeded quota: pods, requested: pods=1'), 'quota');
  assert.equal(failureReason('admission webhook "deny.example.com" denied the request: no'), 'admission');
  assert.equal(failureReason('pods "x" is forbidden: unable to create new content in namespace shop because it is being terminated'), 'namespace-terminating');
  assert.equal(failureReason('pods "x" is forbidden: User cannot create'), 'forbidden');
  assert.equal(failureReason('the server was unable to return a response in the time allotted (504)'), 'timeout');
  assert.equal(failureReason('Timeout: request did not complete within 60s'), 'timeout');
  assert.equal(failureReason('something else entirely'), 'other');
});

test('cardinality: in churn a healthy object carries at most its gated-seconds counter; idle, none', { timeout: 120_000 }, async () => {
  const rec = churnStream({ rs: 30, pods: 2, minutes: 10, intervalS: 30 });
  const history = 5 * MIN;
  const { reg, metrics } = registryFor(rec, history);
  const perObject = (text: string) => series(text).filter((s) => s.labels.name !== undefined && s.labels.namespace !== undefined);
  feed(reg, rec, Infinity);
  let ev = await reg.evaluate(rec.end!);
  metrics.update(ev, NO_LEASE, { leaderChanges: 0, restarts: 0 });
  const busy = perObject(await metrics.text());
  // Every ReplicaSet is healthy; those scaled within their journal keep their gated seconds only.
  assert.ok([...ev.objects.values()].every((r) => r.verdict.state === 'healthy'), 'no false finding in the churn');
  assert.deepEqual([...new Set(busy.map((s) => s.name))], ['kexp_controller_gated_seconds_total']);
  const scaled = [...ev.objects.values()].filter((r) => r.gatedWindows.length > 0).length;
  assert.equal(busy.length, scaled, 'one series per object with a gated window in its journal');
  assert.ok(scaled > 0 && scaled < 30);
  // Idle for longer than 2 × the history: every journal folded, no per-object series left.
  for (const t of [rec.end! + 2 * history + MIN, rec.end! + 2 * history + 2 * MIN]) {
    ev = await reg.evaluate(t);
    metrics.update(ev, NO_LEASE, { leaderChanges: 0, restarts: 0 });
  }
  const idle = await metrics.text();
  assert.deepEqual(perObject(idle), []);
  assert.deepEqual(pick(idle, 'kexp_objects', { kind: 'ReplicaSet', verdict: 'healthy' }), [30]);
  reg.close();
});
