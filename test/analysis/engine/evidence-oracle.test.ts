/**
 * The evidence oracle and its parts (src/analysis/engine/): the window it reads
 * (evidence-window.ts), Event occurrences (event-occurrences.ts), create rounds
 * (create-evidence.ts), scale-down victims (deletion-victims.ts), and the oracle's settings,
 * all given to its constructor.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EvidenceWindow } from '../../../src/analysis/engine/evidence-window.js';
import { EventOccurrences } from '../../../src/analysis/engine/event-occurrences.js';
import { CreateEvidence } from '../../../src/analysis/engine/create-evidence.js';
import { chooseDeletions } from '../../../src/analysis/engine/deletion-victims.js';
import { EvidenceOracle } from '../../../src/analysis/engine/evidence-oracle.js';
import { LookaheadBuffer } from '../../../src/analysis/engine/lookahead-buffer.js';
import { WriteLedger } from '../../../src/analysis/engine/write-ledger.js';
import type { TimelineEvent } from '../../../src/timeline/event.js';
import { coreEvent, fixedLookahead, observed, podObj, podWrite, rsObj, T0 } from '../../support/timeline-events.js';

const rs = rsObj('web', 3);
const noFacts = { writesRecorded: () => false, namespaceTerminating: () => undefined };

test('EvidenceWindow: a scan covers [at − before, at + window] and stops at the first event past it', () => {
  const evs = [T0 - 100, T0 - 10, T0, T0 + 4000, T0 + 5000, T0 + 5001, T0 + 10].map((at, i) => observed(at, 'Pod', 'ADDED', podObj(`p${i}`, rs)));
  const w = new EvidenceWindow(fixedLookahead(evs), 5000);
  assert.deepEqual([...w.scan(T0, 50)].map((e) => e.at - T0), [-10, 0, 4000, 5000]);
  assert.deepEqual([...w.scan(T0)].map((e) => e.at - T0), [0, 4000, 5000]);
});

test('EvidenceWindow: the index answers only while the look-ahead is in order, with the scan\'s events', () => {
  const buf = new LookaheadBuffer();
  const evs = [observed(T0, 'Pod', 'ADDED', podObj('a', rs)), observed(T0 + 10, 'Pod', 'ADDED', podObj('b', undefined)), observed(T0 + 20, 'Pod', 'ADDED', podObj('c', rs))];
  for (const e of evs) buf.push(e);
  const look = { upcoming: () => buf.iterate(), exhausted: () => true, keyed: buf.keyed.bind(buf), ordered: () => buf.ordered() };
  const w = new EvidenceWindow(look, 5000);
  const indexed = w.indexed(`own:${rs.metadata.uid}`, T0, 0);
  assert.ok(indexed);
  assert.deepEqual([...indexed].map((e) => (e as { object: { metadata: { name: string } } }).object.metadata.name), ['a', 'c']);
  assert.equal(new EvidenceWindow(fixedLookahead(evs), 5000).indexed('pod:shop/a', T0, 0), undefined, 'no index supplied: the caller scans');
  buf.push(observed(T0 - 1, 'Pod', 'ADDED', podObj('late', rs)));
  assert.equal(w.indexed('pod:shop/a', T0, 0), undefined, 'out of order: the caller scans');
});

test('EvidenceWindow: a taken write stays taken until delivered', () => {
  const w = new EvidenceWindow(fixedLookahead([]));
  const e = podWrite(T0, 'create', podObj('a', rs));
  assert.equal(w.matchWindowMs, 5000, 'the default window');
  assert.equal(w.taken(e), false);
  w.take(e);
  assert.equal(w.taken(e), true);
  w.delivered(e);
  assert.equal(w.taken(e), false);
});

test('EventOccurrences: each occurrence of an aggregated Event explains one call; delivered ones none', () => {
  const ev = coreEvent('web.1', 'FailedCreate', 'Error creating: quota', rs, 3);
  const occ = new EventOccurrences(new EvidenceWindow(fixedLookahead([])));
  assert.equal(occ.sawEvents, false);
  assert.equal(occ.take(ev, 2), 2);
  assert.equal(occ.take(ev, 2), 1, 'one left of count 3');
  assert.equal(occ.take(ev, 2), 0);
  const ev2 = coreEvent('web.2', 'FailedCreate', 'x', rs, 2);
  occ.observe(ev2);
  assert.equal(occ.sawEvents, true);
  assert.equal(occ.take(ev2, 5), 0, 'both occurrences were delivered before this sync');
  occ.observe({ ...ev2, count: 4 });
  assert.equal(occ.take({ ...ev2, count: 5 }, 5), 1, 'only the occurrence after the delivered count');
});

test('EventOccurrences: takeWarnings takes this ReplicaSet\'s occurrences of one reason in the window, with their messages', () => {
  const other = rsObj('api', 1);
  const evs = [
    observed(T0 + 10, 'Event', 'ADDED', coreEvent('web.a', 'FailedCreate', '(combined from similar events): Error creating: quota', rs, 2)),
    observed(T0 + 20, 'Event', 'ADDED', coreEvent('api.a', 'FailedCreate', 'Error creating: other', other)),
    observed(T0 + 30, 'Event', 'ADDED', coreEvent('web.b', 'SuccessfulCreate', 'Created pod: web-x', rs)),
  ];
  const occ = new EventOccurrences(new EvidenceWindow(fixedLookahead(evs)));
  const sources: Array<{ file: string; line: number }> = [];
  const messages: string[] = [];
  assert.equal(occ.takeWarnings(rs, 'FailedCreate', T0, 5, sources, messages), 2);
  assert.deepEqual(messages, ['Error creating: quota', 'Error creating: quota']);
  assert.deepEqual(sources, [evs[0]!.source]);
  assert.equal(occ.takeWarnings(rs, 'FailedCreate', T0, 5, [], []), 0, 'used up');
});

test('CreateEvidence (watch): the round takes the ADDs of its new pods; the rest is unknown; evidence is handed over once', () => {
  const evs = [observed(T0 + 40, 'Pod', 'ADDED', podObj('web-a', rs)), observed(T0 + 70, 'Pod', 'ADDED', podObj('web-b', rs))];
  const window = new EvidenceWindow(fixedLookahead(evs));
  const creates = new CreateEvidence(window, new EventOccurrences(window), noFacts);
  const results = [0, 1, 2].map((index) => creates.createPod(rs, { round: 7, index, n: 3, at: T0 }, undefined));
  assert.deepEqual(results.map((r) => r.ok && (r.unknown ? 'unknown' : r.pod)), ['web-a', 'web-b', 'unknown']);
  const ev = creates.takeRoundEvidence(7);
  assert.equal(ev?.basis, 'inferred');
  assert.deepEqual(ev?.pods, ['shop/web-a', 'shop/web-b']);
  assert.match(ev?.note ?? '', /1 create\(s\) not shown by the input before it ends/);
  assert.equal(creates.takeRoundEvidence(7), undefined);
  assert.equal(creates.informerBehindOwnWrites('shop/web'), true, 'attributed pods not yet delivered');
  creates.observePod('uid-web-a');
  creates.observePod('uid-web-b');
  assert.equal(creates.informerBehindOwnWrites('shop/web'), false);
  assert.equal(creates.seen('uid-web-a'), true);
});

test('CreateEvidence (watch): a round longer than the window takes later ADDs and reports its progress', () => {
  const progress: Array<[string, number]> = [];
  const window = new EvidenceWindow(fixedLookahead([observed(T0 + 100, 'Pod', 'ADDED', podObj('web-a', rs))], false));
  const creates = new CreateEvidence(window, new EventOccurrences(window), noFacts, undefined, (key, at) => progress.push([key, at - T0]));
  for (let index = 0; index < 3; index++) creates.createPod(rs, { round: 1, index, n: 3, at: T0 }, undefined);
  creates.beforeSyncs(observed(T0 + 900, 'Pod', 'ADDED', podObj('web-b', rs)));
  creates.beforeSyncs(observed(T0 + 1500, 'Pod', 'ADDED', podObj('web-c', rs)));
  assert.deepEqual(progress, [['shop/web', 1900], ['shop/web', 2000]], 'a call per ADD, then the status write');
  creates.beforeSyncs(observed(T0 + 1800, 'ReplicaSet', 'MODIFIED', rs));
  assert.deepEqual(progress.at(-1), ['shop/web', 1800], 'the status write ends the sync');
});

test('CreateEvidence (audit): the controller\'s create writes, batch by batch, with their statuses', () => {
  const ledger = new WriteLedger('audit');
  const a = podObj('web-a', rs);
  const b = podObj('web-b', rs);
  const c = podObj('web-c', rs);
  const evs: TimelineEvent[] = [podWrite(T0 + 10, 'create', a), podWrite(T0 + 20, 'create', b, 403), podWrite(T0 + 30, 'create', c)];
  for (const e of evs) ledger.enter(e);
  const window = new EvidenceWindow(fixedLookahead(evs));
  const creates = new CreateEvidence(window, new EventOccurrences(window), noFacts, ledger);
  const results = [0, 1, 2, 3].map((index) => creates.createPod(rs, { round: 2, index, n: 4, at: T0 }, undefined));
  assert.deepEqual(results.map((r) => r.ok), [true, false, true, false]);
  assert.equal(results[1]!.ok === false && 'error' in results[1]! && results[1].error, 'HTTP 403');
  assert.deepEqual(results[3], { ok: false, error: 'not attempted' }, 'the round stops after its failing batch (1, then 2 calls)');
  assert.equal(results[2]!.doneAt, T0 + 30 + 500, 'the sync lasts until its status write');
  assert.equal(creates.takeRoundEvidence(2)?.basis, 'observed');
  assert.ok(evs.every((e) => window.taken(e)));
  assert.deepEqual(ledger.writes.map((w) => w.round), [2, 2, 2]);
});

test('chooseDeletions: the input\'s victims replace the prediction; a tie of the ranking is told apart', () => {
  const a = podObj('web-a', rs);
  const b = podObj('web-b', rs);
  const window = new EvidenceWindow(fixedLookahead([observed(T0 + 100, 'Pod', 'MODIFIED', { ...b, metadata: { ...b.metadata, deletionTimestamp: new Date(T0 + 30_000).toISOString() } })]));
  assert.deepEqual(chooseDeletions(new EvidenceWindow(fixedLookahead([])), rs, [a], [a, b], T0, true), { pods: [a] }, 'nothing in the input: the prediction');
  const r = chooseDeletions(window, rs, [a], [a, b], T0, true);
  assert.deepEqual(r.pods, [b]);
  assert.match(r.note ?? '', /^tie: shop\/web-b ranked equal/);
  const pending = podObj('web-b', rs, { phase: 'Pending' });
  const notTied = chooseDeletions(new EvidenceWindow(fixedLookahead([observed(T0 + 100, 'Pod', 'DELETED', a)])), rs, [pending], [a, pending], T0, true);
  assert.deepEqual(notTied.pods, [a]);
  assert.match(notTied.note ?? '', /kexp's ranking did not predict/);
});

test('chooseDeletions: a tie at the time the victim\'s deletion shows is read the same from the index as from a scan', () => {
  // x (created at T0) is newer than d (T0 − 1 s): at the sync (T0 + 1.2 s) their ages fall in
  // different log2 buckets and the ranking deletes x; d's deletionTimestamp (minus its grace
  // period) puts the controller's ranking in [T0 + 1 s, T0 + 2 s), where both are in one bucket.
  const x = podObj('web-x', rs, { createdAt: T0, uid: 'uid-b' });
  const d = podObj('web-d', rs, { createdAt: T0 - 1000, uid: 'uid-a' });
  const other = podObj('web-o', rs, { createdAt: T0 - 1000 });
  const deleting = (p: typeof x, ts: number) => ({ ...p, metadata: { ...p.metadata, deletionTimestamp: new Date(ts).toISOString(), deletionGracePeriodSeconds: 30 } });
  const at = T0 + 1200;
  const evs: TimelineEvent[] = [
    observed(T0 + 300, 'Pod', 'MODIFIED', deleting(other, T0 + 30_000)), // before the sync: not the victims' deletion
    observed(at + 100, 'Pod', 'MODIFIED', deleting(d, T0 + 31_000)),
    podWrite(at + 2500, 'delete', other), // the controller deleting another pod later in the window
    observed(at + 3000, 'Pod', 'MODIFIED', deleting(other, T0 + 20_000)),
  ];
  const buf = new LookaheadBuffer();
  for (const e of evs) buf.push(e);
  const indexedWindow = new EvidenceWindow({ upcoming: () => buf.iterate(), exhausted: () => true, keyed: buf.keyed.bind(buf), ordered: () => buf.ordered() });
  assert.ok(indexedWindow.indexed('rscw:delete', at, 1000), 'the index answers');
  const scanned = chooseDeletions(new EvidenceWindow(fixedLookahead(evs)), rs, [x], [x, d, other], at, true);
  const indexed = chooseDeletions(indexedWindow, rs, [x], [x, d, other], at, true);
  assert.deepEqual(scanned.pods, [d]);
  assert.match(scanned.note ?? '', /^tie: shop\/web-d ranked first or equal to kexp's choice at the time its deletion shows/);
  assert.deepEqual(indexed, scanned);
  // The controller's own DELETE of d (before the sync, so only the span reads it) is what puts the
  // ranking early enough; d's deletionTimestamp alone would say after the sync. A DELETE of a pod
  // of that name in another namespace is not d's.
  const elsewhere = { ...d, metadata: { ...d.metadata, namespace: 'other' } };
  const byWrite: TimelineEvent[] = [
    podWrite(T0 + 600, 'delete', elsewhere),
    podWrite(T0 + 700, 'delete', d),
    observed(at + 100, 'Pod', 'MODIFIED', deleting(d, T0 + 32_000)),
    podWrite(at + 2500, 'delete', elsewhere),
  ];
  const buf2 = new LookaheadBuffer();
  for (const e of byWrite) buf2.push(e);
  const indexedWindow2 = new EvidenceWindow({ upcoming: () => buf2.iterate(), exhausted: () => true, keyed: buf2.keyed.bind(buf2), ordered: () => buf2.ordered() });
  const scanned2 = chooseDeletions(new EvidenceWindow(fixedLookahead(byWrite)), rs, [x], [x, d, other], at, true);
  assert.match(scanned2.note ?? '', /^tie: shop\/web-d ranked first or equal to kexp's choice at the time its deletion shows/);
  assert.deepEqual(chooseDeletions(indexedWindow2, rs, [x], [x, d, other], at, true), scanned2);
  const withoutWrite = byWrite.filter((e) => e.type !== 'write');
  assert.match(chooseDeletions(new EvidenceWindow(fixedLookahead(withoutWrite)), rs, [x], [x, d, other], at, true).note ?? '', /kexp's ranking did not predict/, 'the deletionTimestamp alone: after the sync');
});

test('EvidenceOracle: its settings come through the constructor', () => {
  const ledger = new WriteLedger('audit');
  const look = fixedLookahead([]);
  // An audit log known (pre-scan) to record the controller's writes and showing none: no round.
  assert.equal(new EvidenceOracle({ look, ledger, writesRecorded: true }).madeNoWrites(rs, -1, T0), true);
  assert.equal(new EvidenceOracle({ look, ledger, writesRecorded: false }).madeNoWrites(rs, -1, T0), false);
  assert.deepEqual(new EvidenceOracle({ look, ledger, writesRecorded: true }).createPod(rs, { round: 0, index: 0, n: 1, at: T0 }), { ok: false, unmade: true });
  // A watch input that declares it watches Events, whose status shows a count the model's sync
  // would change, and whose whole window shows no sign of it: the controller did not sync then.
  const rsWritten = rsObj('web', 3, { status: { replicas: 2, observedGeneration: 1 } });
  const quiet = { upcoming: () => [], exhausted: () => true, coverageEnd: () => T0 + 60_000 };
  assert.equal(new EvidenceOracle({ look: quiet, eventsWatched: true }).madeNoWrites(rsWritten, -2, T0), true);
  assert.equal(new EvidenceOracle({ look: quiet }).madeNoWrites(rsWritten, -2, T0), false, 'Events not watched: the input cannot tell');
});

test('EvidenceOracle: an older pod\'s ADD is a round\'s create only when the engine forced the sync at it', () => {
  const old = observed(T0 + 100, 'Pod', 'ADDED', podObj('web-old', rs, { createdAt: T0 - 60_000 }));
  const oracle = new EvidenceOracle({ look: fixedLookahead([old]) });
  const r0 = oracle.createPod(rs, { round: 0, index: 0, n: 1, at: T0 });
  assert.equal(r0.ok && r0.unknown, true, 'not this round\'s pod: the outcome is unknown');
  const forced = new EvidenceOracle({ look: fixedLookahead([old]) });
  forced.setForcedEvent(old);
  const r = forced.createPod(rs, { round: 0, index: 0, n: 1, at: T0 });
  forced.setForcedEvent(undefined);
  assert.equal(r.ok && r.pod, 'web-old');
  assert.deepEqual(forced.takeRoundEvidence(0)?.pods, ['shop/web-old']);
});
