/**
 * The sync recorder (src/analysis/engine/sync-recorder.ts) and the count series it samples
 * (count-series.ts), fed SyncRecords as the model's onSync hands them over.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ControllerExpectations } from '../../../src/model/expectations.js';
import type { SyncRecord } from '../../../src/model/controller/sync-record.js';
import { CountSeries } from '../../../src/analysis/engine/count-series.js';
import type { RoundEvidence } from '../../../src/analysis/engine/create-evidence.js';
import { Provenance } from '../../../src/analysis/engine/provenance.js';
import { RsTracks } from '../../../src/analysis/engine/rs-track.js';
import { SyncRecorder } from '../../../src/analysis/engine/sync-recorder.js';
import { WindowTracker } from '../../../src/analysis/engine/window-tracker.js';
import { T0 } from '../../support/timeline-events.js';

const KEY = 'shop/web';

test('CountSeries: a point only when a count changed; thinned under the cap; copied at the end', () => {
  const tracks = new RsTracks();
  const t = tracks.of(KEY);
  const series = new CountSeries(4);
  const p = (at: number, active: number) => ({ at, desired: 3, active, terminating: 0, ready: 0 });
  series.push(t, p(0, 1));
  series.push(t, p(1, 1));
  for (let i = 2; i < 8; i++) series.push(t, p(i, i));
  assert.equal(t.series.length, 0, 'kept aside while replaying');
  assert.equal(t.seriesDropped, 3);
  series.finish();
  assert.equal(t.series.length, 4);
  assert.deepEqual(t.series[0], p(0, 1), 'the first point stays');
  assert.deepEqual(t.series.at(-1), p(7, 7));
});

function setup() {
  const expectations = new ControllerExpectations();
  const tracks = new RsTracks();
  const provenance = new Provenance();
  const windows = new WindowTracker(tracks, { expectations }, provenance, 100);
  const series = new CountSeries(100);
  const evidence = new Map<number, RoundEvidence>();
  const takeRoundEvidence = (round: number) => {
    const ev = evidence.get(round);
    evidence.delete(round);
    return ev;
  };
  const synced: Array<[string, number]> = [];
  let next: SyncRecord | undefined;
  const controller = {
    expectations,
    sync: (key: string, at: number) => {
      synced.push([key, at]);
      const s = next ?? { at, key, outcome: 'synced' as const };
      recorder.record(s);
      return s;
    },
  };
  const recorder = new SyncRecorder(tracks, controller, windows, provenance, { takeRoundEvidence }, series);
  return { expectations, tracks, provenance, recorder, evidence, synced, series, setNext: (s: SyncRecord) => (next = s) };
}

const createRound = (round: number, n: number) => ({ round, n, batches: [n], calls: n, successes: n, skipped: 0, namespaceTerminating: 0, errors: [], unknown: 0, unmade: 0 });

test('SyncRecorder: counts syncs and errors, and gives a create round its evidence and the open window its round', () => {
  const { expectations, tracks, provenance, recorder, evidence, series } = setup();
  provenance.noteTrigger(KEY, { file: 'rec', line: 3 });
  recorder.record({ at: T0, key: KEY, outcome: 'synced', error: 'boom', requeue: { kind: 'rate-limited', delayMs: 5 }, desired: 3, active: 0 });
  expectations.expectCreations(KEY, 3, T0 + 10);
  evidence.set(4, { basis: 'observed', sources: [], pods: ['shop/web-a'] });
  recorder.record({ at: T0 + 10, key: KEY, outcome: 'synced', create: createRound(4, 3), desired: 3, active: 0, ready: 0 });
  const t = tracks.of(KEY);
  assert.equal(t.syncs, 2);
  assert.deepEqual(t.syncsByOutcome, { synced: 2 });
  assert.deepEqual(t.syncErrors, [{ at: T0, error: 'boom', backoffMs: 5 }]);
  assert.deepEqual(t.rounds.map((r) => [r.round, r.modelRound, r.kind, r.evidence?.basis, r.trigger?.line, r.forced]), [[0, 4, 'create', 'observed', 3, undefined]]);
  assert.equal(evidence.size, 0, 'the round\'s evidence is taken');
  assert.equal(t.open?.round, 0, 'the Set drained before the round: its window gets the round');
  assert.equal(t.open?.basis, 'observed');
  assert.deepEqual(t.open?.remaining, { add: 3, del: 0 });
  series.finish();
  assert.deepEqual(t.series.map((p) => p.at - T0), [0], 'the same counts twice make one point');
});

test('SyncRecorder: a withheld sync, a delete round\'s chosen pods, and a forced sync\'s reason', () => {
  const { expectations, tracks, recorder, synced, setNext } = setup();
  recorder.record({ at: T0, key: KEY, outcome: 'withheld', diff: 2, recordBefore: { key: KEY, add: 1, del: 0, timestamp: T0 - 5 } });
  const t = tracks.of(KEY);
  assert.deepEqual(t.withheld, [{ at: T0, diff: 2, record: { key: KEY, add: 1, del: 0, timestamp: T0 - 5 } }]);
  expectations.expectDeletions(KEY, ['shop/web-a'], T0 + 10);
  setNext({
    at: T0 + 10, key: KEY, outcome: 'synced',
    delete: { round: 9, n: 1, keys: ['shop/web-a'], uids: ['uid-a'], failed: [], notFound: [], errors: [], unknown: [], unmade: [] },
  });
  const s = recorder.forced(KEY, T0 + 10, 'the input showed a delete');
  assert.deepEqual(synced, [[KEY, T0 + 10]]);
  assert.equal(s.delete?.round, 9);
  assert.deepEqual([...t.chosen], [['shop/web-a', 'uid-a']]);
  assert.equal(t.rounds[0]!.forced, 'the input showed a delete');
  assert.deepEqual(t.open?.raised, { add: 0, del: 1, keys: ['shop/web-a'] });
  recorder.record({ at: T0 + 20, key: KEY, outcome: 'gated' });
  assert.equal(t.rounds.length, 1, 'a gated sync makes no round');
});
