/**
 * Reflector lines of kube-controller-manager (client-go tools/cache/reflector.go, v0.37.2 and
 * v0.21.14) read as the relists of the controller's Pod / ReplicaSet / ReplicationController
 * informers: catalogue.ts classifyReflectorLine, informer-relists.ts, the source's stats, what
 * `replay`/`audit` get (readControllerLogs) and `kexp kcm-log` (text and JSON), on small
 * real-shaped lines and on the real capture examples/captures/relist-mid-round/kcm.log.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classifyReflectorLine } from '../../src/sources/kcm-log/catalogue.js';
import { parseKlogKV } from '../../src/sources/kcm-log/klog-text.js';
import { openKcmLogSource } from '../../src/sources/kcm-log/kcm-log-source.js';
import { readControllerLogs } from '../../src/pipeline/controller-log-files.js';
import { kexp } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'kexp-kcm-relists-'));
function file(name: string, lines: string[]): string {
  const f = join(dir, name);
  writeFileSync(f, lines.join('\n') + '\n');
  return f;
}
const quiet = { problem: () => {}, warn: () => {} };
const REL = 'reflector="k8s.io/client-go@v0.37.2/tools/cache/reflector.go:343"';

test('classifyReflectorLine: the four 1.37 lines and the 1.21 printf forms, for the Pod / ReplicaSet / RC informers only', () => {
  const kv = (s: string) => () => parseKlogKV(s, 0, s.length);
  assert.deepEqual(classifyReflectorLine('Watch closed', true, kv(` ${REL} type="*v1.Pod" err="too old resource version: 769 (769)"`)), { phase: 'watch-closed', informer: 'Pod', err: 'too old resource version: 769 (769)' });
  assert.deepEqual(classifyReflectorLine('Warning: watch ended with error', true, kv(` ${REL} type="*v1.ReplicaSet" err="an error on the server"`)), { phase: 'watch-ended', informer: 'ReplicaSet', err: 'an error on the server' });
  assert.deepEqual(classifyReflectorLine('Listing and watching', true, kv(` type="*v1.ReplicationController" ${REL}`)), { phase: 'listing', informer: 'ReplicationController' });
  assert.deepEqual(classifyReflectorLine('Caches populated', true, kv(` type="*v1.Pod" ${REL}`)), { phase: 'populated', informer: 'Pod' });
  // Other informers are not the controller's.
  assert.equal(classifyReflectorLine('Caches populated', true, kv(` type="*v1.Secret" ${REL}`)), undefined);
  assert.equal(classifyReflectorLine('Watch close', true, kv(` type="*v1.Pod" totalItems=370`)), undefined);
  const none = () => ({});
  assert.deepEqual(classifyReflectorLine('k8s.io/client-go/informers/factory.go:134: watch of *v1.Pod closed with: too old resource version: 5 (9)', false, none), { phase: 'watch-closed', informer: 'Pod', err: 'too old resource version: 5 (9)' });
  assert.deepEqual(classifyReflectorLine('k8s.io/client-go/informers/factory.go:134: watch of *v1.ReplicaSet ended with: an error on the server ("unknown") has prevented the request from succeeding', false, none), { phase: 'watch-ended', informer: 'ReplicaSet', err: 'an error on the server ("unknown") has prevented the request from succeeding' });
  assert.deepEqual(classifyReflectorLine('Listing and watching *v1.Pod from k8s.io/client-go/informers/factory.go:134', false, none), { phase: 'listing', informer: 'Pod' });
  assert.equal(classifyReflectorLine('Listing and watching *v1.Node from k8s.io/client-go/informers/factory.go:134', false, none), undefined);
});

test('the source pairs each informer\'s lines into relists: cause, LIST start, cache populated, file:line; what is not logged stays absent', async () => {
  const f = file('kcm-137.log', [
    `I1205 02:03:30.000000   17973 reflector.go:472] "Listing and watching" type="*v1.Pod" ${REL}`,
    `I1205 02:03:30.050000   17973 reflector.go:507] "Caches populated" type="*v1.Pod" ${REL}`,
    `I1205 02:03:38.166213   17973 reflector.go:221] "Watch closed" ${REL} type="*v1.Pod" err="too old resource version: 769 (769)"`,
    `I1205 02:03:38.200000   17973 reflector.go:664] "Warning: watch ended with error" ${REL} type="*v1.ReplicaSet" err="very short watch"`,
    `I1205 02:03:39.129285   17973 reflector.go:472] "Listing and watching" type="*v1.Pod" ${REL}`,
    `I1205 02:03:39.155638   17973 reflector.go:507] "Caches populated" type="*v1.Pod" ${REL}`,
    `I1205 02:03:39.300000   17973 reflector.go:472] "Listing and watching" type="*v1.ReplicaSet" ${REL}`,
  ]);
  const src = await openKcmLogSource(f, { diagnostics: quiet, year: 2026 });
  for await (const _ of src.events) void _;
  const rs = src.stats().informerRelists;
  const at = (s: string) => Date.parse(`2026-12-05T${s}Z`);
  assert.deepEqual(rs.map((r) => [r.informer, r.cause, r.watchEnded?.source.line, r.start?.source.line, r.end?.source.line]), [
    ['Pod', 'unknown', undefined, 1, 2],
    ['Pod', 'too-old-resource-version', 3, 5, 6],
    ['ReplicaSet', 'watch-error', 4, 7, undefined],
  ]);
  assert.equal(Math.floor(rs[1]!.end!.at), at('02:03:39.155'));
  assert.equal(rs[1]!.watchEnded!.err, 'too old resource version: 769 (769)');
  // What replay and audit get: the relists with the rest of the log's input.
  const input = await readControllerLogs([f], { diagnostics: quiet, year: 2026 });
  assert.deepEqual(input.relists?.map((r) => [r.informer, r.end?.source.line ?? null]), [['Pod', 2], ['Pod', 6], ['ReplicaSet', null]]);
});

test('1.21 printf lines: the relist has no logged end (1.21 prints no "Caches populated")', async () => {
  const f = file('kcm-121.log', [
    'I0803 09:31:14.164317       1 reflector.go:219] Starting reflector *v1.Pod (10m0s) from k8s.io/client-go/informers/factory.go:134',
    'I0803 09:40:00.000000       1 reflector.go:530] k8s.io/client-go/informers/factory.go:134: watch of *v1.Pod closed with: too old resource version: 5 (9)',
    'W0803 09:41:00.000000       1 reflector.go:436] k8s.io/client-go/informers/factory.go:134: watch of *v1.ReplicaSet ended with: an error on the server ("") has prevented the request from succeeding',
    'I0803 09:40:01.000000       1 reflector.go:255] Listing and watching *v1.Pod from k8s.io/client-go/informers/factory.go:134',
  ]);
  const src = await openKcmLogSource(f, { diagnostics: quiet, year: 2021 });
  for await (const _ of src.events) void _;
  assert.deepEqual(src.stats().informerRelists.map((r) => [r.informer, r.cause, r.watchEnded?.source.line, r.start?.source.line, r.end === undefined]), [
    ['Pod', 'too-old-resource-version', 2, 4, true],
    ['ReplicaSet', 'watch-error', 3, undefined, true],
  ]);
});

test('kexp kcm-log lists the informer relists of the real capture relist-mid-round (lines 134, 190, 192), text and JSON', () => {
  const log = 'examples/captures/relist-mid-round/kcm.log';
  const j = kexp(['kcm-log', log, '-o', 'json', '--year', '2026']);
  const out = JSON.parse(j.stdout);
  assert.deepEqual(out.informerRelists, [{
    informer: 'Pod', cause: 'too-old-resource-version',
    watchEnded: { at: '2026-12-05T02:03:38.166Z', evidence: `${log}:134`, err: 'too old resource version: 769 (769)' },
    start: { at: '2026-12-05T02:03:39.129Z', evidence: `${log}:190` },
    end: { at: '2026-12-05T02:03:39.155Z', evidence: `${log}:192` },
  }]);
  assert.equal('informerRelists' in out.inputs[0].stats, false, 'not repeated in the input stats');
  const t = kexp(['kcm-log', log, '--year', '2026']);
  assert.equal(t.code, j.code);
  const text = t.stdout.replace(/\s+/g, ' ');
  assert.match(text, /Informer relists/);
  assert.match(text, /- Pod: listed 2026-12-05 02:03:39\.129 → populated 2026-12-05 02:03:39\.155; watch closed: too old resource version \(410\)/);
  // A log without reflector lines has no such section.
  const q = kexp(['kcm-log', 'examples/captures/quota-rejected/kcm.log', '-o', 'json']);
  assert.equal(JSON.parse(q.stdout).informerRelists, undefined);
});
