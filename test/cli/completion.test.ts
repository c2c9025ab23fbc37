/**
 * `kubectl kexp <TAB>`: bin/kubectl_complete-kexp.js spawned the way kubectl runs a plugin's
 * completion executable (the words after `kubectl kexp`, the last the one being completed),
 * answering Cobra's protocol (one candidate a line, `:DIRECTIVE` last): commands, flags, `-o`
 * values, namespaces and names from the cluster (a stand-in `kubectl` on the PATH that logs its
 * arguments) and from the input files on the command line when the command reads files.
 * Needs `npm run build`.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { completeWords, namesInInput, type CompletionSources, type Manifest } from '../../src/cli/completion.js';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
const BIN = path.join(ROOT, 'bin', 'kubectl_complete-kexp.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-complete-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A `kubectl` that answers `get namespaces` and `get replicasets|daemonsets` and logs each call. */
function fakeKubectl(): { dir: string; log: string } {
  const dir = path.join(tmp, 'bin');
  const log = path.join(tmp, 'kubectl.log');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'kubectl'), `#!/bin/sh
echo "$*" >> ${JSON.stringify(log)}
case "$2" in
  namespaces) printf 'default kube-system shop' ;;
  replicasets) printf 'web-7d9c6b8f5d api-5f4d8' ;;
  daemonsets) printf 'node-agent' ;;
  *) exit 1 ;;
esac
`, { mode: 0o755 });
  return { dir, log };
}

function complete(words: string[], env: NodeJS.ProcessEnv = process.env): { candidates: string[]; directive: string } {
  const r = spawnSync(process.execPath, [BIN, ...words], { cwd: ROOT, encoding: 'utf8', env, timeout: 20_000 });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n').filter(Boolean);
  const directive = lines.pop()!;
  assert.match(directive, /^:\d+$/);
  return { candidates: lines, directive };
}

test('kubectl_complete-kexp: commands, flags and -o values by Cobra\'s protocol', () => {
  assert.deepEqual(complete(['']).candidates, ['adopt', 'audit', 'explain', 'kcm-log', 'record', 'replay', 'serve']);
  assert.deepEqual(complete(['re']).candidates, ['record', 'replay']);
  const flags = complete(['replay', 'x.jsonl', '--']).candidates;
  for (const f of ['--namespace', '--output', '--html', '--kcm-log']) assert.ok(flags.includes(f), f);
  assert.deepEqual(complete(['replay', 'x.jsonl', '-o', '']).candidates, ['json', 'name', 'table', 'wide', 'yaml']);
  assert.deepEqual(complete(['kcm-log', 'x.log', '--output', 'j']), { candidates: ['json'], directive: ':4' });
  // A file argument: the shell's own file completion (directive 0).
  assert.deepEqual(complete(['replay', '']), { candidates: [], directive: ':0' });
  assert.deepEqual(complete(['replay', 'x.jsonl', '--html', '']), { candidates: [], directive: ':0' });
});

test('kubectl_complete-kexp: namespaces and names from the cluster for the live commands (its --context passed on)', () => {
  const k = fakeKubectl();
  const env = { ...process.env, PATH: `${k.dir}:${process.env.PATH}` };
  assert.deepEqual(complete(['explain', '-n', ''], env).candidates, ['default', 'kube-system', 'shop']);
  assert.deepEqual(complete(['explain', '--context', 'prod', '-n', 'shop', 'rs', 'w'], env).candidates, ['web-7d9c6b8f5d']);
  assert.deepEqual(complete(['explain', '-n', 'shop', 'ds/'], env).candidates, ['ds/node-agent']);
  const first = complete(['adopt', '-n', 'shop', ''], env).candidates;
  assert.ok(first.includes('web-7d9c6b8f5d') && first.includes('api-5f4d8'), first.join(' '));
  const calls = fs.readFileSync(k.log, 'utf8');
  assert.match(calls, /^get replicasets --context prod -n shop -o jsonpath=\{\.items\[\*\]\.metadata\.name\} --request-timeout=3s$/m);
  // No cluster (kubectl fails): nothing, never an error.
  const none = complete(['explain', '-n', ''], { ...process.env, PATH: path.join(tmp, 'empty') + ':/usr/bin:/bin', KUBECONFIG: path.join(tmp, 'none') });
  assert.ok(Array.isArray(none.candidates));
});

test('kubectl_complete-kexp: namespaces and names from the input files on the command line', () => {
  assert.deepEqual(complete(['replay', 'examples/deletion-loss.kexp.jsonl', '-n', '']).candidates, ['kexp-deletion-loss']);
  assert.deepEqual(complete(['replay', 'examples/deletion-loss.kexp.jsonl', '--rs', '']).candidates, ['kexp-deletion-loss/web']);
  assert.deepEqual(complete(['audit', 'examples/captures/burst-600/audit.jsonl.gz', '-n', '']).candidates, ['kexp-burst-600']);
  assert.deepEqual(complete(['adopt', '--from', 'examples/scale-up-gated.kexp.jsonl', '']).candidates, ['web']);
});

test('namesInInput: objects and owner references, by namespace and kind', () => {
  const text = [
    '{"type":"ADDED","object":{"kind":"ReplicaSet","apiVersion":"apps/v1","metadata":{"name":"web","namespace":"shop"}}}',
    '{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"p","namespace":"shop","ownerReferences":[{"apiVersion":"apps/v1","kind":"DaemonSet","name":"agent","uid":"u"}]}}}',
    '{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"q","namespace":"other"}}}',
  ].join('\n');
  const all = namesInInput(text, undefined, undefined);
  assert.deepEqual([...all.namespaces].sort(), ['other', 'shop']);
  assert.deepEqual([...all.keys].sort(), ['shop/agent', 'shop/web']);
  assert.deepEqual([...namesInInput(text, 'other', undefined).names], []);
  assert.deepEqual([...namesInInput(text, 'shop', 'DaemonSet').names], ['agent']);
});

test('completeWords with stand-in sources: a slow or absent cluster is never asked for a file command', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as Manifest;
  const asked: string[] = [];
  const sources: CompletionSources = { cluster: (r) => (asked.push(r), ['x']), readHead: () => undefined };
  assert.deepEqual(completeWords(['replay', 'missing.jsonl', '-n', ''], manifest, sources).candidates, []);
  assert.deepEqual(asked, []);
  assert.deepEqual(completeWords(['record', 'job', ''], manifest, { ...sources, cluster: (r) => (asked.push(r), ['backup']) }).candidates, ['backup']);
  assert.deepEqual(asked, ['jobs']);
});

const KUBECTL = spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0;

test('the real kubectl (≥ 1.26) finds kubectl_complete-kexp on the PATH and relays its answer: `kubectl kexp re<TAB>`', { skip: KUBECTL ? false : 'kubectl is not on PATH' }, () => {
  const dir = fs.mkdtempSync(path.join(tmp, 'path-'));
  fs.symlinkSync(path.join(ROOT, 'bin', 'run.js'), path.join(dir, 'kubectl-kexp'));
  fs.symlinkSync(BIN, path.join(dir, 'kubectl_complete-kexp'));
  const env = { ...process.env, PATH: `${dir}:${path.dirname(process.execPath)}:${process.env.PATH}` };
  const r = spawnSync('kubectl', ['__complete', 'kexp', 're'], { encoding: 'utf8', env, timeout: 20_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.split('\n').filter(Boolean), ['record', 'replay', ':4']);
  const o = spawnSync('kubectl', ['__complete', 'kexp', 'audit', 'a.jsonl', '-o', ''], { encoding: 'utf8', env, timeout: 20_000 });
  assert.deepEqual(o.stdout.split('\n').filter(Boolean), ['json', 'name', 'table', 'wide', 'yaml', ':4']);
});
