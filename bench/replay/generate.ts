/**
 * Generates a kexp recording for the replay benchmark: one ReplicaSet with `pods` pods and
 * `events` watch events in total — the initial list, then a realistic churn of pod status
 * updates (readiness flapping, restarts), occasional deletions that the ReplicaSet replaces
 * (each replacement an ADD of a new pod) and the ReplicaSet's status writes. Deterministic.
 *
 * Usage: npx tsx bench/replay/generate.ts OUT.jsonl [events=1000000] [pods=500]
 */
import fs from 'node:fs';
import { RecordingBuilder } from '../../test/support/recording-builder.js';

const out = process.argv[2];
const total = Number(process.argv[3] ?? 1_000_000);
const podCount = Number(process.argv[4] ?? 500);
if (!out) {
  console.error('usage: generate.ts OUT.jsonl [events] [pods]');
  process.exit(2);
}
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);

const fd = fs.openSync(out, 'w');
const b = new RecordingBuilder('bench', 'web-7d9c6b8f5d');
b.namespace().replicaSet(podCount, 'ADDED');
const names: string[] = [];
for (let i = 0; i < podCount; i++) names.push(b.advance(2).addPod(i, { nodeName: `node-${i % 20}` }));
let written = 0;
const flush = () => {
  fs.writeSync(fd, b.lines.join(''));
  written += b.lines.length;
  b.lines = [];
};
flush();
let n = podCount;
while (written < total) {
  b.advance(1 + Math.floor(rand() * 3));
  const r = rand();
  const name = names[Math.floor(rand() * names.length)]!;
  if (r < 0.002) {
    // a pod is deleted (e.g. evicted) and replaced by the controller
    b.deletePod(name);
    names.splice(names.indexOf(name), 1);
    b.advance(20);
    names.push(b.addPod(++n, { nodeName: `node-${n % 20}` }));
  } else if (r < 0.02) {
    b.rsStatus(names.length, Math.floor(names.length * 0.9));
  } else {
    b.updatePod(name, (p) => {
      const ready = rand() < 0.9;
      p.status = { phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: new Date(Math.floor(b.t / 1000) * 1000).toISOString() }], containerStatuses: [{ name: 'app', restartCount: Math.floor(rand() * 3), ready }] };
    });
  }
  if (b.lines.length >= 5000) flush();
}
b.end();
flush();
fs.closeSync(fd);
console.error(`wrote ${written} lines to ${out}`);
