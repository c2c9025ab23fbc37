/**
 * EvidenceWindow.ownStatusWriteAfter (src/analysis/engine/evidence-window.ts) reads the owner's
 * status writes through the look-ahead's index (`stw:NS/NAME`) while the buffer is in order: on
 * the DaemonSet audit captures in examples/ it returns, at every point of the replay, the same
 * event as the scan of the whole window it replaced, with writes taken and delivered on the way;
 * and whole DaemonSet replays give the same result with the index as with the oracle scanning.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EvidenceWindow, type Lookahead } from '../../../src/analysis/engine/evidence-window.js';
import { LookaheadBuffer } from '../../../src/analysis/engine/lookahead-buffer.js';
import type { EngineOwnerKind } from '../../../src/analysis/engine/engine-controller.js';
import { openAuditSource } from '../../../src/sources/audit/audit-source.js';
import { mergeSources } from '../../../src/sources/watch/merge.js';
import { replayOwnerKinds } from '../../../src/pipeline/owner-kind-replay.js';
import { DS_COMPONENT } from '../../../src/pipeline/owner-kind-views.js';
import { parseK8sVersion, DEFAULT_K8S_VERSION } from '../../../src/model/version.js';
import type { ReplayResult } from '../../../src/analysis/engine/replay-result.js';
import type { TimelineEvent, WriteEvent } from '../../../src/timeline/event.js';

const CAPTURES = ['examples/captures/ds-deletion-loss/audit.jsonl', 'examples/captures/ds-scale-nodes/audit.jsonl'];
const DS_OWNER: EngineOwnerKind = { kind: 'DaemonSet', component: DS_COMPONENT, syncEndsAtStatusWrite: true };
const quiet = { problem: () => undefined, warn: () => undefined };

async function eventsOf(file: string): Promise<TimelineEvent[]> {
  const s = await openAuditSource(file, { diagnostics: quiet as never });
  const out: TimelineEvent[] = [];
  for await (const e of s.events) out.push(e);
  return out;
}

const tag = (e: WriteEvent | undefined) => (e ? `${e.source.file}:${e.source.line}` : 'none');

test('EvidenceWindow.ownStatusWriteAfter: the indexed read returns the event the scan of the window returns', async () => {
  let compared = 0;
  let found = 0;
  let indexedReads = 0;
  for (const file of CAPTURES) {
    const events = await eventsOf(file);
    const owners = new Set<string>();
    for (const e of events) if (e.type === 'write' && e.subresource === 'status' && e.actor.controller === DS_COMPONENT) owners.add(`${e.namespace ?? ''}/${e.name ?? ''}`);
    assert.ok(owners.size > 0, `${file}: the DaemonSet controller's status writes`);
    // Short and long windows: the window's end cuts the answer off, or not.
    for (const windowMs of [1000, 5000, 60_000]) {
      const buf = new LookaheadBuffer(DS_OWNER);
      const withIndex: Lookahead = { upcoming: () => buf.iterate(), exhausted: () => true, keyed: (k, f, t, s) => buf.keyed(k, f, t, s), ordered: () => buf.ordered() };
      const scanOnly: Lookahead = { upcoming: () => buf.iterate(), exhausted: () => true };
      const a = new EvidenceWindow(withIndex, windowMs, DS_OWNER);
      const b = new EvidenceWindow(scanOnly, windowMs, DS_OWNER);
      for (const e of events) buf.push(e);
      let step = 0;
      while (buf.length > 0) {
        const next = buf.peek()!;
        if (a.indexed('stw:', next.at, 0) !== undefined) indexedReads++;
        // Sync starts at, just before and just after each event, and its receipt for a write (the
        // window's start falls on the write, before it, or between its receipt and completion).
        const req = next.type === 'write' ? next.receivedAt : undefined;
        const times = [next.at - 1, next.at - 0.5, next.at, next.at + 1, ...(req !== undefined ? [req - 0.5, req, (req + next.at) / 2] : [])];
        for (const key of [...owners, 'kube-system/absent']) {
          for (const at of times) {
            const got = a.ownStatusWriteAfter(key, at);
            const want = b.ownStatusWriteAfter(key, at);
            assert.equal(tag(got), tag(want), `${file} window ${windowMs} owner ${key} at ${at}`);
            assert.equal(got, want);
            compared++;
            if (got) found++;
            // Every other answer is taken (as a sync ending at it does): later reads must skip it.
            if (got && (++step) % 2 === 0) {
              a.take(got);
              b.take(got);
            }
          }
        }
        const x = buf.shift()!;
        if (x.type === 'write') {
          a.delivered(x);
          b.delivered(x);
        }
      }
    }
  }
  assert.ok(compared > 5000 && found > 100, `compared ${compared}, found ${found}`);
  assert.ok(indexedReads > 500, `reads the index answered: ${indexedReads}`);
});

/** A replay result as comparable data (Maps as entries). */
function comparable(r: ReplayResult | undefined): string {
  return JSON.stringify(r, (_k, v) => (v instanceof Map ? [...v.entries()] : v instanceof Set ? [...v] : v));
}

test('replay: DaemonSet audit captures give the same result with the indexed look-ahead as with the full scan', async () => {
  let rounds = 0;
  for (const file of CAPTURES) {
    const run = async (scanLookahead: boolean) => {
      const s = await openAuditSource(file, { diagnostics: quiet as never });
      const v = parseK8sVersion(DEFAULT_K8S_VERSION);
      return replayOwnerKinds(mergeSources([s]), { version: v, matchWindowMs: 60_000, eventsWatched: true, writeEvidence: 'audit', scanLookahead });
    };
    const a = await run(false);
    const b = await run(true);
    assert.ok(a.daemonSets, `${file}: a DaemonSet replay`);
    assert.equal(comparable(a.daemonSets), comparable(b.daemonSets), file);
    for (const t of a.daemonSets.tracks.values()) rounds += t.rounds.length;
  }
  assert.ok(rounds > 5, `DaemonSet rounds replayed: ${rounds}`);
});
