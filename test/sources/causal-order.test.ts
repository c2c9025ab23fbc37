/** Updates from separate watches of one cluster, put back in resourceVersion order (src/timeline/causal-order.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { causalOrder } from '../../src/timeline/causal-order.js';
import type { TimelineEvent } from '../../src/timeline/event.js';

const ev = (at: number, kind: 'Pod' | 'ReplicaSet', watchType: 'ADDED' | 'MODIFIED' | 'DELETED', rv: string, name: string): TimelineEvent =>
  ({ type: 'observed', at, atBasis: 'received', source: { file: 'f', line: at }, kind, watchType, object: { metadata: { name, namespace: 'ns', resourceVersion: rv } } }) as TimelineEvent;

async function order(events: TimelineEvent[], windowMs?: number): Promise<string[]> {
  async function* src() {
    yield* events;
  }
  const out: string[] = [];
  for await (const e of causalOrder(src(), windowMs)) out.push(`${e.at}:${e.type === 'observed' ? (e.object.metadata as { name?: string }).name : e.type}`);
  return out;
}

test('a pod update received before the ReplicaSet update that caused it is moved behind it, at the earlier receive time', async () => {
  assert.deepEqual(await order([
    ev(1000, 'Pod', 'MODIFIED', '120', 'pod-a'), // the deletion the scale-down caused, received first
    ev(1010, 'ReplicaSet', 'MODIFIED', '119', 'rs'),
    ev(1020, 'Pod', 'MODIFIED', '121', 'pod-b'),
  ]), ['1000:rs', '1000:pod-a', '1020:pod-b']);
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

