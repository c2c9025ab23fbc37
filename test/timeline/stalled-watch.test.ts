/** A stalled watch of the recorder put back in resourceVersion order (src/timeline/stalled-watch.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CausalOrder, MOVED_AHEAD_MS } from '../../src/timeline/causal-order.js';
import { ownTimeBound, StalledWatchMoves, StalledWatchOrder, StallsBeyondHorizon } from '../../src/timeline/stalled-watch.js';
import type { TimelineEvent } from '../../src/timeline/event.js';

const T0 = Date.parse('2026-12-01T22:05:54.000Z');

interface Opts {
  file?: string;
  basis?: 'received' | 'object-timestamp';
  listed?: 'initial-list' | 'relist';
  /** The newest managedFields time (the object's own write time, to the second). */
  wrote?: string;
  /** An Event's involvedObject.resourceVersion (the version of the object it names). */
  involvedRv?: string;
}

/** One change as a recording's line becomes it: kind, watch type, resourceVersion, receive time (ms after T0). */
const ev = (ms: number, kind: 'Pod' | 'ReplicaSet' | 'Event', watchType: 'ADDED' | 'MODIFIED' | 'DELETED', rv: string, name: string, o: Opts = {}): TimelineEvent =>
  ({
    type: 'observed', at: T0 + ms, atBasis: o.basis ?? 'received', source: { file: o.file ?? 'rec.kexp.jsonl', line: ms }, kind, watchType,
    ...(o.listed ? { listed: o.listed } : {}),
    object: {
      metadata: { name, namespace: 'ns', resourceVersion: rv, creationTimestamp: '2026-12-01T22:05:52Z', ...(o.wrote ? { managedFields: [{ manager: 'kube-controller-manager', operation: 'Update', time: o.wrote }] } : {}) },
      ...(o.involvedRv !== undefined ? { involvedObject: { kind: 'ReplicaSet', namespace: 'ns', name: 'rs', resourceVersion: o.involvedRv } } : {}),
    },
  }) as TimelineEvent;

const gap = (ms: number, kinds: string[]): TimelineEvent => ({ type: 'gap', at: T0 + ms, atBasis: 'received', source: { file: 'rec.kexp.jsonl', line: ms }, reason: 'watch-relist', kinds }) as TimelineEvent;

function order(events: TimelineEvent[]): { out: string[]; moves: StalledWatchMoves } {
  const moves = new StalledWatchMoves();
  const stage = new StalledWatchOrder(new CausalOrder(), (e, before) => moves.see(e, before), (e, at) => moves.seeRetimed(e, at));
  const out: TimelineEvent[] = [];
  for (const e of events) stage.push(e, out);
  stage.end(out);
  return { out: out.map((e) => `${+(e.at - T0).toFixed(4)}:${e.type === 'observed' ? (e.object.metadata as { name?: string }).name : e.type}`), moves };
}

test('a ReplicaSet update and its pods received 3.9 s after the SuccessfulCreate Events of higher revisions are replayed before them (record-through-faults, lines 5-15)', () => {
  const { out, moves } = order([
    ev(480, 'Event', 'ADDED', '1925', 'created-pw89d'),
    ev(496, 'Event', 'ADDED', '1927', 'created-rstw8'),
    ev(4398, 'ReplicaSet', 'MODIFIED', '1922', 'rs-scaled-to-4'),
    ev(4399.9, 'Pod', 'ADDED', '1923', 'web-pw89d'),
    ev(4400.1, 'Pod', 'ADDED', '1924', 'web-rstw8'),
    ev(4400.3, 'Pod', 'ADDED', '1926', 'web-fhxwx'),
  ]);
  const names = out.map((l) => l.split(':')[1]);
  assert.deepEqual(names, ['rs-scaled-to-4', 'web-pw89d', 'web-rstw8', 'created-pw89d', 'web-fhxwx', 'created-rstw8']);
  const at = out.map((l) => Number(l.split(':')[0]));
  assert.equal(at[0], 480 - MOVED_AHEAD_MS);
  assert.ok(at[0]! < at[1]! && at[1]! < at[2]! && at[2]! < at[3]! && at[3] === 480, String(at));
  assert.equal(at[4], 496 - MOVED_AHEAD_MS);
  assert.equal(moves.count, 4);
  assert.match(moves.note(), /first at rec\.kexp\.jsonl:4398\): 4 change\(s\) were received up to 3\.9 s after a higher resourceVersion.*upper bounds \(inferred\)/);
});

test('the rest of the stalled watch\'s backlog takes the time its own managedFields allow, in its place in the input', () => {
  const { out, moves } = order([
    ev(480, 'Event', 'ADDED', '1925', 'created'),
    ev(564, 'Event', 'ADDED', '1931', 'created-last'),
    ev(4398, 'ReplicaSet', 'MODIFIED', '1922', 'rs-scaled'),
    ev(4399.2, 'ReplicaSet', 'MODIFIED', '1930', 'rs-status-0', { wrote: '2026-12-01T22:05:54Z' }),
    ev(4399.5, 'ReplicaSet', 'MODIFIED', '1932', 'rs-status-4', { wrote: '2026-12-01T22:05:54Z' }),
    ev(5682, 'Event', 'ADDED', '1954', 'deleted'),
  ]);
  assert.deepEqual(out, [`${480 - MOVED_AHEAD_MS}:rs-scaled`, '480:created', `${564 - MOVED_AHEAD_MS}:rs-status-0`, '564:created-last', '1000:rs-status-4', '5682:deleted']);
  assert.equal(moves.retimed, 1);
  assert.match(moves.note(), /1 more change\(s\) the same stalled watch delivered with them were replayed at the time their own timestamps allow \(up to 3\.4 s/);
});

test('a stalled watch\'s backlog is re-timed only where a change of its watch was moved back, and never ahead of an event', () => {
  // Late by its own timestamp, but no revision shows its watch stalled: its receive time stands.
  assert.deepEqual(order([ev(0, 'Event', 'ADDED', '10', 'e'), ev(4000, 'ReplicaSet', 'MODIFIED', '20', 'rs', { wrote: '2026-12-01T22:05:54Z' })]).out, ['0:e', '4000:rs']);
  // In the backlog, bounded before the event released ahead of it: just after that event.
  const { out } = order([
    ev(3000, 'Event', 'ADDED', '30', 'e'),
    ev(4000, 'ReplicaSet', 'MODIFIED', '20', 'rs-a'),
    ev(4000.2, 'ReplicaSet', 'MODIFIED', '40', 'rs-b', { wrote: '2026-12-01T22:05:54Z' }),
  ]);
  assert.deepEqual(out, [`${3000 - MOVED_AHEAD_MS}:rs-a`, '3000:e', `${3000 + MOVED_AHEAD_MS}:rs-b`]);
});

test('ordinary skew, other files, initial lists and object-timestamp inputs are left as received', () => {
  // Within the causal window an ADDED is not moved (ordinary skew between watches).
  assert.deepEqual(order([ev(0, 'Event', 'ADDED', '30', 'e'), ev(400, 'Pod', 'ADDED', '20', 'p')]).out, ['0:e', '400:p']);
  // Two files: two clusters' revisions need not be comparable.
  assert.deepEqual(order([ev(0, 'Event', 'ADDED', '30', 'e'), ev(3000, 'Pod', 'ADDED', '20', 'p', { file: 'other.kexp.jsonl' })]).out, ['0:e', '3000:p']);
  // An initial list's items carry their last write's revision, not the list's.
  assert.deepEqual(order([ev(0, 'Event', 'ADDED', '30', 'e'), ev(3000, 'Pod', 'ADDED', '20', 'p', { listed: 'initial-list' })]).out, ['0:e', '3000:p']);
  // Times that are the objects' own (no recorder's receive time) have no stall to repair.
  assert.deepEqual(order([ev(0, 'Event', 'ADDED', '30', 'e', { basis: 'object-timestamp' }), ev(3000, 'Pod', 'ADDED', '20', 'p', { basis: 'object-timestamp' })]).out, ['0:e', '3000:p']);
  // Beyond the horizon the late change keeps its place.
  assert.deepEqual(order([ev(0, 'Event', 'ADDED', '30', 'e'), ev(11_000, 'Pod', 'ADDED', '20', 'p')]).out, ['0:e', '11000:p']);
});

test('nothing moves across a gap, and a relisted watch is compared again only from its first MODIFIED', () => {
  assert.deepEqual(order([ev(0, 'Event', 'ADDED', '30', 'e'), gap(100, ['Pod']), ev(3000, 'Pod', 'ADDED', '20', 'p')]).out, ['0:e', '100:gap', '3000:p']);
  // After the gap: the relist's ADDED and a DELETED it derives carry old revisions and stay; the watch's MODIFIED is compared again.
  const { out } = order([
    gap(0, ['Pod']),
    ev(10, 'Event', 'ADDED', '50', 'e'),
    ev(1000, 'Pod', 'ADDED', '20', 'relisted'),
    ev(1001, 'Pod', 'DELETED', '21', 'derived-deletion'),
    ev(1500, 'Event', 'ADDED', '60', 'e2'),
    ev(2600, 'Pod', 'MODIFIED', '55', 'updated'),
  ]);
  assert.deepEqual(out, ['0:gap', '10:e', '1000:relisted', '1001:derived-deletion', `${1500 - MOVED_AHEAD_MS}:updated`, '1500:e2']);
});

test('ownTimeBound: the second after creationTimestamp for an ADDED, after the newest managedFields time for a MODIFIED, none for a DELETED', () => {
  assert.equal(ownTimeBound(ev(0, 'Pod', 'ADDED', '1', 'p')), Date.parse('2026-12-01T22:05:53Z'));
  assert.equal(ownTimeBound(ev(0, 'Pod', 'MODIFIED', '1', 'p', { wrote: '2026-12-01T22:05:59Z' })), Date.parse('2026-12-01T22:06:00Z'));
  assert.equal(ownTimeBound(ev(0, 'Pod', 'MODIFIED', '1', 'p')), undefined);
  assert.equal(ownTimeBound(ev(0, 'Pod', 'DELETED', '1', 'p', { wrote: '2026-12-01T22:05:59Z' })), undefined);
});

test('a watch no other one scans holds no released change (memory bounded by the horizon)', () => {
  const stage = new StalledWatchOrder(new CausalOrder());
  const out: TimelineEvent[] = [];
  for (let i = 0; i < 5000; i++) stage.push(ev(i * 100, 'Pod', 'MODIFIED', String(1000 + i), `p${i}`), out);
  const held = (stage as unknown as { byWatch: Map<string, { length: number }> }).byWatch.get('rec.kexp.jsonl\0Pod')!.length;
  // 10 s of input at 10 changes/s, plus the causal window's.
  assert.ok(held <= 110, `held ${held}`);
  stage.end(out);
  assert.equal(out.length, 5000);
});

/** The stage with StallsBeyondHorizon collecting what it leaves in place. */
function beyond(events: TimelineEvent[]): { out: string[]; stalls: StallsBeyondHorizon } {
  const stalls = new StallsBeyondHorizon();
  const stage = new StalledWatchOrder(new CausalOrder(), undefined, undefined, (e, from) => stalls.see(e, from));
  const out: TimelineEvent[] = [];
  for (const e of events) stage.push(e, out);
  stage.end(out);
  return { out: out.map((e) => `${+(e.at - T0).toFixed(4)}:${e.type === 'observed' ? (e.object.metadata as { name?: string }).name : e.type}`), stalls };
}

test('a stall beyond the horizon keeps the recorder\'s order and is named: its watch, its backlog\'s lines, from the last revision below its first change to its last', () => {
  const events: TimelineEvent[] = [];
  // The ReplicaSet watch delivers revisions 100, 102, 104, … every 100 ms; the pods watch stalls
  // after its change at 500 ms (rev 109) and delivers its backlog (revs 111, 121) at 30 s.
  for (let i = 0; i < 100; i++) events.push(ev(i * 100, 'ReplicaSet', 'MODIFIED', String(100 + 2 * i), `rs${i}`));
  events.push(ev(450, 'Pod', 'MODIFIED', '109', 'p-before'));
  events.push(ev(30_000, 'Pod', 'MODIFIED', '111', 'p-late-1'));
  events.push(ev(30_000.01, 'Pod', 'MODIFIED', '121', 'p-late-2'));
  events.push(ev(30_000.02, 'Pod', 'MODIFIED', '400', 'p-current'));
  events.sort((a, b) => a.at - b.at);
  const { out, stalls } = beyond(events);
  // Left in place: after every ReplicaSet change, received at 30 s.
  assert.deepEqual(out.slice(-3), ['30000:p-late-1', '30000.01:p-late-2', '30000.02:p-current']);
  assert.equal(stalls.intervals.length, 1);
  const iv = stalls.intervals[0]!;
  assert.deepEqual([iv.file, iv.kind, iv.count, iv.firstLine, iv.lastLine, Math.round((iv.until - T0) * 100) / 100], ['rec.kexp.jsonl', 'Pod', 2, 30_000, 30_000.01, 30_000.01]);
  // Rev 111 lies above the ReplicaSet's 110 (at 500 ms): no earlier than the checkpoint at or before it
  // (every 250 ms), and not before the pod watch's own previous change (450 ms).
  assert.ok(iv.from - T0 >= 450 && iv.from - T0 <= 500, String(iv.from - T0));
  assert.deepEqual([...iv.namespaces!], ['ns']);
});

test('no stall beyond the horizon: within it (repaired), in order, across files, initial lists, relists, Events', () => {
  // 3.9 s: repaired, not named.
  assert.equal(beyond([ev(480, 'Pod', 'MODIFIED', '1925', 'p'), ev(4398, 'ReplicaSet', 'MODIFIED', '1922', 'rs')]).stalls.intervals.length, 0);
  // 9.9 s: still within the horizon.
  assert.equal(beyond([ev(0, 'ReplicaSet', 'MODIFIED', '30', 'rs'), ev(9900, 'Pod', 'MODIFIED', '20', 'p')]).stalls.intervals.length, 0);
  // 11 s: beyond.
  assert.equal(beyond([ev(0, 'ReplicaSet', 'MODIFIED', '30', 'rs'), ev(11_000, 'Pod', 'MODIFIED', '20', 'p')]).stalls.intervals.length, 1);
  // In revision order, however far apart.
  assert.equal(beyond([ev(0, 'ReplicaSet', 'MODIFIED', '10', 'rs'), ev(60_000, 'Pod', 'MODIFIED', '20', 'p')]).stalls.intervals.length, 0);
  // Another file's revisions, an initial list's items, a relist's ADDED: not compared.
  assert.equal(beyond([ev(0, 'ReplicaSet', 'MODIFIED', '30', 'rs'), ev(11_000, 'Pod', 'MODIFIED', '20', 'p', { file: 'other.kexp.jsonl' })]).stalls.intervals.length, 0);
  assert.equal(beyond([ev(0, 'ReplicaSet', 'MODIFIED', '30', 'rs'), ev(11_000, 'Pod', 'ADDED', '20', 'p', { listed: 'initial-list' })]).stalls.intervals.length, 0);
  assert.equal(beyond([ev(0, 'ReplicaSet', 'MODIFIED', '30', 'rs'), gap(10_000, ['Pod']), ev(11_000, 'Pod', 'ADDED', '20', 'relisted')]).stalls.intervals.length, 0);
  // A relist's items (a recording's `synthetic: "relist"`), its MODIFIED and the DELETED of an object it no longer lists included: their revisions are their last writes'.
  assert.equal(beyond([
    ev(0, 'ReplicaSet', 'MODIFIED', '30', 'rs'), gap(10_000, ['Pod']),
    ev(10_500, 'Pod', 'MODIFIED', '25', 'relisted', { listed: 'relist' }), ev(11_000, 'Pod', 'DELETED', '20', 'gone', { listed: 'relist' }),
  ]).stalls.intervals.length, 0);
  // Events only against Events: an apiserver may keep them in an etcd of their own, whose revisions order nothing against a pod's.
  assert.equal(beyond([ev(0, 'Event', 'ADDED', '30', 'e'), ev(11_000, 'Pod', 'MODIFIED', '20', 'p')]).stalls.intervals.length, 0);
  assert.equal(beyond([ev(0, 'Pod', 'MODIFIED', '30', 'p'), ev(11_000, 'Event', 'ADDED', '20', 'e')]).stalls.intervals.length, 0);
});

test('two stalls of one watch are two intervals; a cluster-scoped late object names every namespace', () => {
  const stalls = new StallsBeyondHorizon();
  const late = (ms: number, kind: 'Pod' | 'ReplicaSet', clusterScoped = false) => {
    const e = ev(ms, kind, 'MODIFIED', '1', 'x');
    if (clusterScoped) delete (e as { object: { metadata: { namespace?: string } } }).object.metadata.namespace;
    return e;
  };
  stalls.see(late(30_000, 'Pod'), T0);
  stalls.see(late(30_001, 'Pod'), T0 + 30_000);
  stalls.see(late(90_000, 'Pod'), T0 + 60_000);
  stalls.see(late(90_000, 'ReplicaSet', true), T0 + 70_000);
  assert.deepEqual(stalls.intervals.map((i) => [i.kind, i.from - T0, i.until - T0, i.count, i.namespaces ? [...i.namespaces] : 'all']), [
    ['Pod', 0, 30_001, 2, ['ns']],
    ['Pod', 60_000, 90_000, 1, ['ns']],
    ['ReplicaSet', 70_000, 90_000, 1, 'all'],
  ]);
});

test('Events of an etcd of their own (an Event older than the version it names) are ordered against Events only, from that Event on', () => {
  // One counter: an Event's revision is above its object's, and the repair moves the stalled ReplicaSet watch (as record-through-faults).
  assert.deepEqual(order([
    ev(0, 'Event', 'ADDED', '1925', 'created', { involvedRv: '1922' }),
    ev(3900, 'ReplicaSet', 'MODIFIED', '1922', 'rs-scaled'),
  ]).out, [`${-MOVED_AHEAD_MS}:rs-scaled`, '0:created']);
  // --etcd-servers-overrides=/events#…: the Event's revision (another etcd's) is below its object's.
  // Without the proof its "lower" revision would move it 2 s back, ahead of the ReplicaSet change.
  const separate = order([
    ev(0, 'ReplicaSet', 'MODIFIED', '1930', 'rs-scaled'),
    ev(2000, 'Event', 'ADDED', '512', 'created', { involvedRv: '1930' }),
    ev(2100, 'Event', 'ADDED', '514', 'created-2', { involvedRv: '1930' }),
    ev(6000, 'Pod', 'MODIFIED', '1931', 'web-a'),
  ]);
  assert.deepEqual(separate.out, ['0:rs-scaled', '2000:created', '2100:created-2', '6000:web-a']);
  assert.equal(separate.moves.count, 0);
  // The proof is per file: another file's Events are still compared.
  const other = order([
    ev(0, 'ReplicaSet', 'MODIFIED', '1930', 'rs-scaled', { file: 'a.kexp.jsonl' }),
    ev(1000, 'Event', 'ADDED', '512', 'proof', { file: 'b.kexp.jsonl', involvedRv: '1930' }),
    ev(2000, 'Event', 'ADDED', '1920', 'created', { file: 'a.kexp.jsonl' }),
  ]);
  assert.deepEqual(other.out, [`${-MOVED_AHEAD_MS}:created`, '0:rs-scaled', '1000:proof']);
});

test('the causal order compares an Event update with other resources only while no Event of its file showed an etcd of its own', () => {
  const run = (events: TimelineEvent[]): string[] => {
    const stage = new CausalOrder();
    const out: TimelineEvent[] = [];
    for (const e of events) stage.push(e, out);
    stage.end(out);
    return out.map((e) => (e.type === 'observed' ? String((e.object.metadata as { name?: string }).name) : e.type));
  };
  // One counter: the Event's count update (lower revision) arrived 200 ms after the pod update: it goes first.
  assert.deepEqual(run([ev(0, 'Pod', 'MODIFIED', '1940', 'web-a'), ev(200, 'Event', 'MODIFIED', '1935', 'created-count-2', { involvedRv: '1930' })]), ['created-count-2', 'web-a']);
  // Another etcd, shown by the Event itself (its revision below its object's): received order stands.
  assert.deepEqual(run([ev(0, 'Pod', 'MODIFIED', '1940', 'web-a'), ev(200, 'Event', 'MODIFIED', '515', 'created-count-2', { involvedRv: '1930' })]), ['web-a', 'created-count-2']);
  // Shown by an earlier ADDED Event (never reordered itself): the later update is not compared either.
  assert.deepEqual(run([
    ev(0, 'Event', 'ADDED', '510', 'created', { involvedRv: '1930' }),
    ev(1000, 'Pod', 'MODIFIED', '1940', 'web-a'),
    ev(1200, 'Event', 'MODIFIED', '511', 'created-count-2'),
  ]), ['created', 'web-a', 'created-count-2']);
});
