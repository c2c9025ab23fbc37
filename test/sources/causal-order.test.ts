/** Updates from separate watches of one cluster, put back in resourceVersion order (src/timeline/causal-order.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { causalOrder, MOVED_AHEAD_MS } from '../../src/timeline/causal-order.js';
import type { TimelineEvent } from '../../src/timeline/event.js';

const ev = (at: number, kind: 'Pod' | 'ReplicaSet' | 'Node', watchType: 'ADDED' | 'MODIFIED' | 'DELETED', rv: string, name: string): TimelineEvent =>
  ({ type: 'observed', at, atBasis: 'received', source: { file: 'f', line: at }, kind, watchType, object: { metadata: { name, namespace: 'ns', resourceVersion: rv } } }) as TimelineEvent;

async function order(events: TimelineEvent[], windowMs?: number): Promise<string[]> {
  async function* src() {
    yield* events;
  }
  const out: string[] = [];
  for await (const e of causalOrder(src(), windowMs)) out.push(`${e.at}:${e.type === 'observed' ? (e.object.metadata as { name?: string }).name : e.type}`);
  return out;
}

test('a pod update received before the ReplicaSet update that caused it is moved behind it, 1 µs before the earlier receive time', async () => {
  assert.deepEqual(await order([
    ev(1000, 'Pod', 'MODIFIED', '120', 'pod-a'), // the deletion the scale-down caused, received first
    ev(1010, 'ReplicaSet', 'MODIFIED', '119', 'rs'),
    ev(1020, 'Pod', 'MODIFIED', '121', 'pod-b'),
  ]), [`${1000 - MOVED_AHEAD_MS}:rs`, '1000:pod-a', '1020:pod-b']);
});

test('a moved event stays apart from the one it precedes, never before the one released ahead of it', async () => {
  // Two updates moved ahead of one pod update: each strictly between its neighbours, in order.
  const out = await order([
    ev(1000, 'Pod', 'MODIFIED', '130', 'pod-a'),
    ev(1100, 'ReplicaSet', 'MODIFIED', '120', 'rs'),
    ev(1200, 'Node', 'MODIFIED', '125', 'node') as TimelineEvent,
  ]);
  assert.deepEqual(out.map((l) => l.split(':')[1]), ['rs', 'node', 'pod-a']);
  const times = out.map((l) => Number(l.split(':')[0]));
  assert.ok(times[0]! < times[1]! && times[1]! < times[2]! && times[2] === 1000, String(times));
  // An event released at 999.9995 leaves half the distance to 1000.
  const near = await order([ev(999.9995, 'Pod', 'MODIFIED', '110', 'p0'), ev(1000, 'Pod', 'MODIFIED', '120', 'pod-a'), ev(1010, 'ReplicaSet', 'MODIFIED', '119', 'rs')]);
  assert.deepEqual(near, ['999.9995:p0', '999.99975:rs', '1000:pod-a']);
  // Released at the very same time: no room, the moved event shares it.
  const same = await order([ev(1000, 'Pod', 'MODIFIED', '110', 'p0'), ev(1000, 'Pod', 'MODIFIED', '120', 'pod-a'), ev(1010, 'ReplicaSet', 'MODIFIED', '119', 'rs')]);
  assert.deepEqual(same, ['1000:p0', '1000:rs', '1000:pod-a']);
});

test('events of one watch keep their order; far apart, ADDED (list) and non-numeric resourceVersions are never moved', async () => {
  assert.deepEqual(await order([ev(0, 'Pod', 'MODIFIED', '9', 'p1'), ev(5, 'Pod', 'MODIFIED', '8', 'p2')]), ['0:p1', '5:p2']);
  assert.deepEqual(await order([ev(0, 'Pod', 'MODIFIED', '20', 'p'), ev(900, 'ReplicaSet', 'MODIFIED', '10', 'rs')]), ['0:p', '900:rs']);
  assert.deepEqual(await order([ev(0, 'Pod', 'ADDED', '20', 'p'), ev(5, 'ReplicaSet', 'ADDED', '10', 'rs')]), ['0:p', '5:rs']);
  assert.deepEqual(await order([ev(0, 'Pod', 'MODIFIED', 'abc', 'p'), ev(5, 'ReplicaSet', 'MODIFIED', '10', 'rs')]), ['0:p', '5:rs']);
});

test('a gap ends the window: nothing moves across a relist', async () => {
  const gap = { type: 'gap', at: 3, atBasis: 'received', source: { file: 'f', line: 3 }, reason: 'watch-relist' } as TimelineEvent;
  assert.deepEqual(await order([ev(0, 'Pod', 'MODIFIED', '20', 'p'), gap, ev(5, 'ReplicaSet', 'MODIFIED', '10', 'rs')]), ['0:p', '3:gap', '5:rs']);
});

