/**
 * Which pod the controller lacked (view-alignment.ts `namedWithheld` / `swapNamed`): a status write
 * counting fewer pods than the input showed makes kexp withhold the newest (a lagging informer
 * delivers in order); a later write naming that pod as listed — by UID (a Job's
 * status.uncountedTerminatedPods) or by its ready count (status.ready) — shows the cache had it, so
 * the pod it lacked was another, whose ADD was lost; that pod's next update reaches the informer as
 * an add (client-go processDeltas).
 *
 * Input: the real capture examples/captures/job-dropped-add (the proxy dropped work-9dtz6's ADD),
 * with the one proof kexp reads there taken out or left in, to show each proof alone decides.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { replayFiles } from '../../../src/pipeline/replay-files.js';

const CAPTURE = 'examples/captures/job-dropped-add/recording.kexp.jsonl';
const LOST = 'kexp-job-dropped-add/work-9dtz6';
const NEWEST = 'kexp-job-dropped-add/work-ktzm8';

/** The capture with each Job status write passed through `edit` (its 1-based line number given). */
async function replayEdited(edit: (status: Record<string, unknown>, line: number) => void) {
  const lines = fs.readFileSync(CAPTURE, 'utf8').split('\n').filter((l) => l !== '');
  const out = lines.map((l, i) => {
    const d = JSON.parse(l);
    const o = d.event?.object;
    if (o?.kind === 'Job' && o.status) edit(o.status, i + 1);
    return JSON.stringify(d);
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-view-swap-'));
  const file = path.join(dir, 'recording.kexp.jsonl');
  fs.writeFileSync(file, out.join('\n') + '\n');
  try {
    const { report } = await replayFiles({ files: [file] });
    const job = report.replicaSets.find((r) => r.kind === 'Job')!;
    return { job, behind: job.findings.find((f) => f.id === 'informer-behind')! };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('view swap: the ready count alone (status.ready 1 while only work-ktzm8 was ready) names the pod the cache had', async () => {
  const { job, behind } = await replayEdited((s) => void (s.uncountedTerminatedPods = {}));
  assert.match(behind.explanation, new RegExp(`not the newest: ${LOST} — its status write at 2026-12-05T07:59:16\\.548Z shows it listed ${NEWEST}`));
  assert.equal(job.gatedWindows.find((w) => w.endedBy === 'expired')?.remaining?.add, 1);
});

test('view swap: the UIDs of status.uncountedTerminatedPods alone name the pod the cache had', async () => {
  const { job, behind } = await replayEdited((s) => void (s.ready = 0));
  assert.match(behind.explanation, new RegExp(`not the newest: ${LOST} — its status write at 2026-12-05T07:59:18\\.560Z shows it listed ${NEWEST}`));
  assert.match(behind.explanation, /a lost watch event, not a lag/);
  assert.match(behind.explanation, new RegExp(`${LOST} \\(2026-12-05T08:04:22\\.425Z\\) reached the informer as an add`));
  const leak = job.gatedWindows.find((w) => w.endedBy === 'expired')!;
  assert.deepEqual([leak.remaining?.add, leak.remaining?.del], [1, 0]);
  assert.deepEqual(job.viewUnknown ?? [], [], 'the swap keeps every gate decision known');
});

test('view swap: with neither proof, kexp keeps the newest as the pod the cache lacked and says the input cannot tell lag from loss', async () => {
  const { behind } = await replayEdited((s) => {
    s.ready = 0;
    s.uncountedTerminatedPods = {};
  });
  assert.match(behind.explanation, new RegExp(`\\(the newest: ${NEWEST}\\)`));
  assert.match(behind.explanation, /a lagging informer, or a watch event it never received/);
  assert.doesNotMatch(behind.explanation, /reached the informer as an add/);
});
