/**
 * Hostile input, class "size" (issue #23, Medium): an input larger than kexp's memory ends with
 * one line "FILE: input too large: …" and exit 6 (README, exit codes) — not V8's out-of-memory
 * abort with a native stack trace — even with `--rs` (the model simulates every owner; --rs
 * narrows the report). The sweep's reproduction (1 million ReplicaSets in a raw watch file) is
 * scaled to what a test can write: 60,000 ReplicaSets (29 MB) under a 64 MiB heap
 * (NODE_OPTIONS=--max-old-space-size=64), where main aborted with signal 6. Bounded (< 10 s).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kexp } from '../support/cli.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-size-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));

function replicaSets(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const labels = { app: `a${i}` };
    out.push(JSON.stringify({
      type: 'ADDED',
      object: {
        apiVersion: 'apps/v1', kind: 'ReplicaSet',
        metadata: { name: `rs-${i}`, namespace: 'ns', uid: `uid-${i}`, resourceVersion: String(100 + i), creationTimestamp: '2026-12-01T00:00:00Z', generation: 1 },
        spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
        status: { replicas: 1, observedGeneration: 1 },
      },
    }));
  }
  return out.join('\n') + '\n';
}

test('60,000 ReplicaSets under a 64 MiB heap, with --rs: one line "input too large", exit 6, no abort', () => {
  const f = path.join(tmp, 'many.json');
  fs.writeFileSync(f, replicaSets(60_000));
  const t0 = Date.now();
  const r = kexp(['replay', f, '--rs', 'ns/rs-5'], { env: { NODE_OPTIONS: '--max-old-space-size=64' } });
  assert.ok(Date.now() - t0 < 10_000, `took ${Date.now() - t0} ms`);
  assert.equal(r.code, 6, r.stderr.slice(0, 2000));
  assert.match(r.stderr, new RegExp(`^kexp: ${f.replaceAll('.', '\\.')}: input too large: (after \\d+ MiB of it|while replaying it) kexp's memory holds \\d+ MiB of the 64 MiB it may use; analyse a part \\(--rs NAMESPACE/NAME, --since/--until, fewer files\\) or give it more \\(NODE_OPTIONS=--max-old-space-size=MiB\\)\\n$`));
  assert.doesNotMatch(r.stderr, /FATAL ERROR|heap out of memory/);
});
