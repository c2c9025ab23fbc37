/**
 * A redacted recording must replay exactly like the original: the allow-list of
 * src/sources/live/redaction-keep.ts has to hold everything the analysis reads. For every
 * recording under examples/ (and any kexp recording in examples/captures/<name>/), and for
 * synthetic recordings that exercise what the examples do not (deletion cost, node spreading,
 * restarts, sidecars, failure reasons, minReadySeconds, ReplicaFailure conditions, a
 * terminating namespace) with hostile pod specs, a copy is written with every object passed
 * through redactObject and both are replayed through the real pipeline (replayFiles, what
 * `kexp replay` runs), alone and fused with the capture's kube-controller-manager log. The
 * reports, problems and warnings must be deep-equal once the input file's path is replaced.
 *
 * So that equality is not vacuous, the last test removes, one at a time, each field the
 * allow-list keeps for the replay and checks the corpus notices (some report changes).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { isDeepStrictEqual } from 'node:util';
import { redactObject } from '../../src/sources/live/redaction.js';
import { replayFiles } from '../../src/pipeline/replay-files.js';
import { RecordingBuilder } from '../support/recording-builder.js';
import { hostileAnnotations, hostileContainer, hostileManagedFields, hostilePodSpec, TOKEN } from './redaction-hostile.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kexp-redact-replay-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function readText(file: string): string {
  const raw = fs.readFileSync(file);
  return (file.endsWith('.gz') ? zlib.gunzipSync(raw) : raw).toString('utf8');
}

function writeText(file: string, text: string): void {
  fs.writeFileSync(file, file.endsWith('.gz') ? zlib.gzipSync(text) : text);
}

/** Applies `f` to the object of every event line; other lines (header, gaps, end, a truncated last line) stay byte for byte. */
function mapObjects(text: string, f: (o: any) => any): string {
  return text.split('\n').map((line) => {
    let v: any;
    try {
      v = JSON.parse(line);
    } catch {
      return line;
    }
    if (!v || typeof v.event?.object !== 'object' || v.event.object === null) return line;
    v.event.object = f(v.event.object);
    return JSON.stringify(v);
  }).join('\n');
}

/** Writes `text` mapped by `f` beside the temp corpus under the same base name (same compression). */
function variant(src: string, text: string, tag: string, f: (o: any) => any): string {
  const dir = path.join(tmp, tag);
  fs.mkdirSync(dir, { recursive: true });
  const out = path.join(dir, path.basename(src));
  writeText(out, mapObjects(text, f));
  return out;
}

/** The replay of `file` as JSON with the file's own path (cited in inputs, evidence, problems) replaced. */
async function replayed(file: string, kcmLogs: string[] = []): Promise<unknown> {
  const res = await replayFiles({ files: [file], kcmLogs });
  const text = JSON.stringify({ report: res.report, problems: res.problems, warnings: res.warnings });
  return JSON.parse(text.split(JSON.stringify(file).slice(1, -1)).join('<input>'));
}

function isRecording(file: string): boolean {
  const first = readText(file).split('\n', 1)[0] ?? '';
  try {
    return typeof JSON.parse(first)?.kexpRecording === 'number';
  } catch {
    return false;
  }
}

// ---- the corpus -------------------------------------------------------------------------

interface Entry {
  name: string;
  file: string;
  /** kube-controller-manager logs captured with the recording. */
  kcmLogs: string[];
  synthetic?: boolean;
}

const examples: Entry[] = fs.readdirSync('examples').filter((f) => /\.kexp\.jsonl(\.gz)?$/.test(f)).sort().map((f) => {
  const name = f.replace(/\.kexp\.jsonl(\.gz)?$/, '');
  const dir = path.join('examples', 'captures', name);
  const kcmLogs = fs.existsSync(dir) ? fs.readdirSync(dir).filter((x) => /^kcm\.log(\.gz)?$/.test(x)).map((x) => path.join(dir, x)) : [];
  return { name, file: path.join('examples', f), kcmLogs };
});
// examples/captures/<name>/ holds audit and controller logs today; any kexp recording put there is covered too.
const captured: Entry[] = fs.readdirSync(path.join('examples', 'captures')).sort().flatMap((d) => {
  const dir = path.join('examples', 'captures', d);
  return fs.readdirSync(dir).sort().map((f) => path.join(dir, f)).filter(isRecording).map((file) => ({ name: `captures/${d}/${path.basename(file)}`, file, kcmLogs: [] }));
});

/** Adds hostile, unread content (tokens in args, env, probes, volumes, annotations, statuses, Events about pods) to a recording's objects. */
function decorate(o: any): any {
  o = structuredClone(o);
  const meta = o.metadata ?? {};
  if (o.kind === 'Pod' || o.kind === 'ReplicaSet') {
    meta.annotations = { ...hostileAnnotations(), ...(meta.annotations ?? {}) };
    meta.managedFields = hostileManagedFields();
  }
  const podSpec = (spec: any) => {
    const h = hostilePodSpec();
    spec.containers = (spec.containers ?? []).map((c: any) => ({ ...hostileContainer(c.name), name: c.name }));
    spec.initContainers = (spec.initContainers ?? []).map((c: any) => ({ ...hostileContainer(c.name), ...c }));
    spec.ephemeralContainers = h.ephemeralContainers;
    spec.volumes = h.volumes;
    spec.imagePullSecrets = h.imagePullSecrets;
  };
  if (o.kind === 'Pod') {
    o.spec ??= {};
    podSpec(o.spec);
    o.status = { ...(o.status ?? {}), message: `evicted ${TOKEN}`, podIP: '10.1.2.3' };
    o.status.containerStatuses = (o.status.containerStatuses ?? []).map((s: any) => ({ ...s, image: TOKEN, state: { terminated: { exitCode: 1, message: TOKEN } } }));
  }
  if (o.kind === 'ReplicaSet' && o.spec?.template) {
    o.spec.template.metadata = { ...(o.spec.template.metadata ?? {}), annotations: hostileAnnotations() };
    o.spec.template.spec ??= {};
    podSpec(o.spec.template.spec);
  }
  return o;
}

/** A kubelet Event about a pod echoing a command line (its message is not read). */
function kubeletEvent(b: RecordingBuilder, pod: string): void {
  b.emit('events', 'ADDED', {
    apiVersion: 'v1', kind: 'Event',
    metadata: { name: `${pod}.kubelet`, namespace: b.ns, uid: `ev-kubelet-${pod}`, resourceVersion: String(++b.rv) },
    involvedObject: { kind: 'Pod', namespace: b.ns, name: pod, uid: b.pods.get(pod)?.metadata.uid, apiVersion: 'v1', fieldPath: 'spec.containers{app}' },
    reason: 'Failed', type: 'Warning', count: 1, message: `Error: failed to start container "app": exec: "migrate --password=${TOKEN}": not found`,
    source: { component: 'kubelet', host: 'node-a' }, firstTimestamp: '2026-11-30T10:00:03Z', lastTimestamp: '2026-11-30T10:00:03Z',
  });
}

const READY_AT = '2026-11-30T10:00:02Z';

/**
 * Scale 6 → 2 one pod at a time, each victim chosen by a different ranking rule: deletion cost
 * (node-c alone), the most crowded node, container restarts, restarts again (other node), and a
 * restartable init container's restarts; then a pod fails (Evicted) and is replaced.
 */
function scaleDownRanked(): RecordingBuilder {
  const b = new RecordingBuilder('shop', 'web-7d9c6b8f5d');
  b.namespace().replicaSet(0, 'ADDED');
  b.advance(1000).replicaSet(6);
  const nodes = ['node-c', 'node-a', 'node-a', 'node-a', 'node-b', 'node-b'];
  const names = nodes.map((nodeName, i) => {
    b.advance(5);
    const n = b.addPod(i, { nodeName });
    b.event('SuccessfulCreate', `Created pod: ${n}`);
    return n;
  });
  b.advance(20).rsStatus(6);
  b.advance(1000);
  names.forEach((n, i) => b.updatePod(n, (p) => {
    if (i === 0) p.metadata.annotations = { 'controller.kubernetes.io/pod-deletion-cost': '-5' };
    if (i === 3) p.spec.initContainers = [{ name: 'proxy', restartPolicy: 'Always' }];
    p.status = {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: READY_AT }],
      containerStatuses: [{ name: 'app', ready: true, restartCount: i === 1 ? 4 : i === 4 ? 9 : 0 }],
      ...(i === 3 ? { initContainerStatuses: [{ name: 'proxy', ready: true, restartCount: 2 }] } : {}),
    };
  }));
  kubeletEvent(b, names[2]!);
  b.advance(20).rsStatus(6, 6);
  let replicas = 6;
  for (const i of [0, 1, 4, 3]) {
    b.advance(2000).replicaSet(--replicas);
    b.advance(15).gracefulDelete(names[i]!);
    b.event('SuccessfulDelete', `Deleted pod: ${names[i]}`);
    b.advance(20).rsStatus(replicas, replicas);
    b.advance(500).deletePod(names[i]!);
  }
  b.advance(2000).updatePod(names[5]!, (p) => {
    p.status = { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' };
  });
  b.advance(30);
  const r = b.addPod(9, { nodeName: 'node-b' });
  b.event('SuccessfulCreate', `Created pod: ${r}`);
  b.advance(20).rsStatus(2, 1);
  return b.advance(3000).end();
}

/** Pods rejected by the node seconds after creation, again and again (replacement churn by reason). */
function replacementChurn(): RecordingBuilder {
  const b = new RecordingBuilder('jobs', 'worker-5c8d7f9b4');
  b.namespace().replicaSet(0, 'ADDED');
  b.advance(1000).replicaSet(1);
  for (let i = 0; i < 4; i++) {
    b.advance(30);
    const n = b.addPod(i, { nodeName: 'node-a' });
    b.event('SuccessfulCreate', `Created pod: ${n}`);
    b.advance(20).rsStatus(1);
    b.advance(1500).updatePod(n, (p) => {
      p.status = { phase: 'Failed', reason: 'OutOfpods', message: 'Pod was rejected: Node didn\'t have enough resource: pods' };
    });
    b.advance(10).rsStatus(0);
  }
  return b.advance(3000).end();
}

/** A create rejected by a ResourceQuota: FailedCreate Event and the ReplicaFailure condition, with and without the Event. */
function quotaRejected(withEvent: boolean): RecordingBuilder {
  const b = new RecordingBuilder('shop', 'api-6b7f9c');
  b.namespace().replicaSet(0, 'ADDED');
  b.advance(2000).replicaSet(3);
  for (const i of [1, 2]) {
    b.advance(20);
    const p = b.addPod(i);
    if (withEvent) b.event('SuccessfulCreate', `Created pod: ${p}`);
  }
  const quotaMsg = 'pods "api-6b7f9c-x" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2';
  b.advance(10);
  if (withEvent) b.event('FailedCreate', `Error creating: ${quotaMsg}`, 'Warning');
  b.advance(5);
  b.rs = structuredClone(b.rs);
  b.rs.metadata.resourceVersion = String(++b.rv);
  b.rs.status = { replicas: 2, observedGeneration: 2, conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: quotaMsg, lastTransitionTime: READY_AT }] };
  b.emit('replicasets', 'MODIFIED', b.rs);
  return b.advance(3000).end();
}

/** Creates in a terminating namespace: counted as successes, never observed. */
function namespaceTerminating(): RecordingBuilder {
  const b = new RecordingBuilder('old', 'web-55d8f');
  b.namespace().replicaSet(0, 'ADDED');
  b.advance(1000).namespace('Terminating');
  b.advance(10).replicaSet(2);
  return b.advance(4000).end();
}

/** minReadySeconds=10: readiness is followed by an availability check 10 s later. */
class MinReadyBuilder extends RecordingBuilder {
  override emit(src: string, type: string, object: any): this {
    return super.emit(src, type, object.kind === 'ReplicaSet' ? { ...object, spec: { ...object.spec, minReadySeconds: 10 } } : object);
  }
}
function minReady(): RecordingBuilder {
  const b = new MinReadyBuilder('shop', 'slow-77f9d');
  b.namespace().replicaSet(0, 'ADDED');
  b.advance(1000).replicaSet(2);
  const pods = [0, 1].map((i) => {
    b.advance(20);
    return b.addPod(i, { nodeName: 'node-a' });
  });
  b.advance(20).rsStatus(2);
  b.advance(2000);
  for (const p of pods) b.ready(p);
  b.advance(20).rsStatus(2, 2);
  return b.advance(15_000).end();
}

const synthetic: Entry[] = Object.entries({
  'scale-down-ranked': scaleDownRanked(),
  'replacement-churn': replacementChurn(),
  'quota-rejected-events': quotaRejected(true),
  'quota-rejected-condition-only': quotaRejected(false),
  'namespace-terminating': namespaceTerminating(),
  'min-ready-seconds': minReady(),
}).map(([name, b]) => {
  const file = path.join(tmp, 'synthetic', `${name}.kexp.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeText(file, mapObjects(b.text(), decorate));
  return { name, file, kcmLogs: [], synthetic: true };
});

const corpus = [...examples, ...captured, ...synthetic];

// ---- the tests --------------------------------------------------------------------------

test('the corpus: every example recording, each with its captured kube-controller-manager log', () => {
  assert.ok(examples.length >= 4, `found ${examples.length} examples`);
  for (const d of fs.readdirSync(path.join('examples', 'captures'))) {
    const e = examples.find((x) => x.name === d);
    // The DaemonSet and Job captures (#22) keep their watch dump beside their logs (examples/captures/<d>/recording.kexp.jsonl).
    const own = captured.find((x) => x.name.startsWith(`captures/${d}/`));
    assert.ok(e || own, `examples/captures/${d} has a recording examples/${d}.kexp.jsonl(.gz) or one of its own`);
    if (e) assert.equal(e.kcmLogs.length, 1, `examples/captures/${d} has a kcm.log`);
    else assert.ok(['kcm.log', 'kcm.log.gz'].some((f) => fs.existsSync(path.join('examples', 'captures', d, f))), `examples/captures/${d} has a kcm.log`);
  }
});

for (const e of corpus) {
  test(`redacted ${e.synthetic ? 'synthetic ' : ''}${e.name} replays to the same report`, async () => {
    const text = readText(e.file);
    const red = variant(e.file, text, 'redacted', redactObject);
    const redText = readText(red);
    if (redText === text) {
      // Redaction is idempotent: a recording kexp redacted with today's allow-list (the captures
      // under faults) is unchanged; the other recordings prove the kept fields suffice.
      assert.equal(JSON.parse(text.slice(0, text.indexOf('\n'))).redacted, true, 'only an already-redacted recording is unchanged by redaction');
      return;
    }
    if (e.synthetic) {
      assert.ok(text.includes(TOKEN), 'the original carries the token');
      assert.equal(redText.includes(TOKEN), false, 'the redacted copy does not');
    }
    const original = await replayed(e.file);
    assert.deepEqual((original as any).problems, (await replayed(e.file)).problems, 'replay is deterministic');
    assert.deepEqual(await replayed(red), original);
    if (e.kcmLogs.length) assert.deepEqual(await replayed(red, e.kcmLogs), await replayed(e.file, e.kcmLogs));
  });
}

/**
 * Fields the allow-list keeps because the replay reads them, each with a mutation removing it.
 * Removing any of them from the redacted copy must change some report: the equality above
 * is then evidence that redaction keeps them.
 */
const KEPT_AND_READ: Array<[string, (o: any) => void]> = [
  ['Event message', (o) => { if (o.kind === 'Event') delete o.message; }],
  ['Event involvedObject', (o) => { if (o.kind === 'Event') delete o.involvedObject; }],
  ['Event reason', (o) => { if (o.kind === 'Event') delete o.reason; }],
  ['Event count', (o) => { if (o.kind === 'Event') delete o.count; }],
  ['Event source component', (o) => { if (o.kind === 'Event') o.source = { component: 'kubelet' }; }],
  ['labels', (o) => { delete o.metadata?.labels; }],
  ['ownerReferences', (o) => { delete o.metadata?.ownerReferences; }],
  ['creationTimestamp', (o) => { delete o.metadata?.creationTimestamp; }],
  ['resourceVersion', (o) => { delete o.metadata?.resourceVersion; }],
  ['Pod deletionTimestamp', (o) => { if (o.kind === 'Pod') delete o.metadata.deletionTimestamp; }],
  ['Pod pod-deletion-cost annotation', (o) => { delete o.metadata?.annotations?.['controller.kubernetes.io/pod-deletion-cost']; }],
  ['Pod nodeName', (o) => { if (o.kind === 'Pod') delete o.spec?.nodeName; }],
  ['Pod initContainers restartPolicy', (o) => { for (const c of o.spec?.initContainers ?? []) delete c.restartPolicy; }],
  ['Pod phase', (o) => { if (o.kind === 'Pod') delete o.status?.phase; }],
  ['Pod status reason', (o) => { if (o.kind === 'Pod') delete o.status?.reason; }],
  ['Pod conditions', (o) => { if (o.kind === 'Pod') delete o.status?.conditions; }],
  ['Pod containerStatuses restartCount', (o) => { for (const s of o.status?.containerStatuses ?? []) delete s.restartCount; }],
  ['Pod initContainerStatuses restartCount', (o) => { for (const s of o.status?.initContainerStatuses ?? []) delete s.restartCount; }],
  ['ReplicaSet replicas', (o) => { if (o.kind === 'ReplicaSet') delete o.spec.replicas; }],
  ['ReplicaSet selector', (o) => { if (o.kind === 'ReplicaSet') delete o.spec.selector; }],
  ['ReplicaSet minReadySeconds', (o) => { if (o.kind === 'ReplicaSet') delete o.spec.minReadySeconds; }],
  ['ReplicaSet deletionTimestamp', (o) => { if (o.kind === 'ReplicaSet') delete o.metadata.deletionTimestamp; }],
  ['ReplicaSet status conditions', (o) => { if (o.kind === 'ReplicaSet') delete o.status?.conditions; }],
  ['Namespace phase and deletionTimestamp', (o) => { if (o.kind === 'Namespace') { delete o.status; delete o.metadata.deletionTimestamp; } }],
];

test('each field kept for the replay matters to some recording of the corpus (the equality is not vacuous)', async () => {
  // Small recordings first; stop at the first that notices.
  const ordered = [...synthetic, ...examples.filter((e) => !e.file.endsWith('.gz'))];
  const baseline = new Map<string, { red: string; text: string; report: unknown }>();
  for (const e of ordered) {
    const red = variant(e.file, readText(e.file), 'redacted', redactObject);
    baseline.set(e.name, { red, text: readText(red), report: await replayed(red) });
  }
  const unnoticed: string[] = [];
  for (const [field, remove] of KEPT_AND_READ) {
    let noticed = false;
    for (const e of ordered) {
      const b = baseline.get(e.name)!;
      const mutated = variant(b.red, b.text, `without-${field.replace(/\W+/g, '-')}`, (o) => {
        const c = structuredClone(o);
        remove(c);
        return c;
      });
      if (readText(mutated) === b.text) continue;
      if (!isDeepStrictEqual(await replayed(mutated), b.report)) {
        noticed = true;
        break;
      }
    }
    if (!noticed) unnoticed.push(field);
  }
  assert.deepEqual(unnoticed, []);
});
