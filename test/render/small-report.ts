/** A small hand-made ReplicaSetReport (one minute, every mark kind) for the chart and HTML tests. */
import type { ReplicaSetReport } from '../../src/analysis/report-types.js';

const at = (s: number): string => new Date(Date.UTC(2026, 10, 30, 10, 0, s)).toISOString();
const range = (v: number) => ({ first: v, last: v, min: v, max: v });

export const SMALL_START = at(0);
export const SMALL_END = at(60);

export function smallReplicaSet(): ReplicaSetReport {
  return {
    key: 'shop/web-7d9c6b8f5d',
    namespace: 'shop',
    name: 'web-7d9c6b8f5d',
    uid: 'rs000000-0000-0000-0000-000000000001',
    uids: ['rs000000-0000-0000-0000-000000000001'],
    verdict: { state: 'gated', basis: 'inferred', summary: 'gated at end of input' },
    counts: { desired: range(4), active: range(3), terminating: range(0), ready: range(3) },
    series: [
      { at: at(0), desired: 0, active: 0, terminating: 0, ready: 0 },
      { at: at(10), desired: 3, active: 0, terminating: 0, ready: 0 },
      { at: at(12), desired: 3, active: 3, terminating: 0, ready: 3 },
      { at: at(30), desired: 4, active: 3, terminating: 0, ready: 3 },
      { at: at(50), desired: 2, active: 3, terminating: 0, ready: 3 },
    ],
    initialState: { basis: 'unknown', until: at(10), reason: 'no round seen before' },
    syncs: { total: 9, byOutcome: { synced: 7, gated: 2 } },
    accounting: { evidence: 'watch', writes: 5, inRounds: 5, inFindings: 0, byKind: { create: 4, delete: 1, adopt: 0, release: 0 }, failed: 1 },
    rounds: [
      { at: at(10), kind: 'create', n: 3, basis: 'inferred', writes: 3, batches: [1, 2], calls: 3, successes: 3, skipped: 0, errors: [], evidence: 'rec.jsonl:4' },
      { at: at(30), kind: 'create', n: 1, basis: 'inferred', writes: 1, batches: [1], calls: 1, successes: 0, skipped: 0, errors: ['pods "web-x" is forbidden: exceeded quota'], evidence: 'rec.jsonl:9' },
      { at: at(50), kind: 'delete', n: 1, basis: 'inferred', writes: 1, keys: ['shop/web-7d9c6b8f5d-x7k2p'], errors: [], evidence: 'rec.jsonl:14' },
    ],
    gatedWindows: [
      { start: at(10), end: at(12), endedBy: 'fulfilled', basis: 'inferred', raised: { add: 3, del: 0 }, fulfilledAt: at(12), gatedSyncs: 0, durationMs: 2000, evidence: ['rec.jsonl:4', 'rec.jsonl:6'] },
      { start: at(31), end: at(45), endedBy: 'expired', basis: 'inferred', raised: { add: 1, del: 0 }, remaining: { add: 1, del: 0 }, gatedSyncs: 1, durationMs: 14000, evidence: ['rec.jsonl:10'] },
      { start: at(50), endedBy: 'open', basis: 'inferred', raised: { add: 0, del: 1 }, remaining: { add: 0, del: 1 }, gatedSyncs: 1, expiresAt: at(350), durationMs: 10000, evidence: ['rec.jsonl:14'] },
    ],
    expectations: [],
    expectationsTruncated: false,
    findings: [],
    adoption: { rows: [] },
  };
}
