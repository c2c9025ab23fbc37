// How the reader thread should hand a passing line to the main thread (issue #25 item 1): as bytes
// the main thread decodes and JSON.parses, parsed in the thread and structured-cloned over, or
// parsed and projected in the thread (the pod bodies cut to what the model keeps of a pod,
// src/model/objects.ts cachedPod: no managedFields, containers by name and image, slim container
// statuses) and handed over as a structured clone or as the projection's JSON text re-parsed.
// Measures the main thread's share of each on the lines of FILE that contain NEEDLE (default: the
// pod lines), CPU milliseconds, three rounds. Usage: node bench/audit/handover.mjs FILE [NEEDLE]
import fs from 'node:fs'; import v8 from 'node:v8';
const file = process.argv[2]; const needle = process.argv[3] ?? '"resource":"pods"';
const lines = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.includes(needle)).slice(0, 20000);
const bufs = lines.map((l) => Buffer.from(l));
const objs = lines.map((l) => JSON.parse(l));
const isRecord = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
/** cachedPod's cut (src/model/objects.ts), enough to measure its size: what the model keeps of a pod. */
function pod(p) {
  if (!isRecord(p) || !isRecord(p.metadata)) return p;
  const { managedFields: _m, ...metadata } = p.metadata;
  const out = { apiVersion: p.apiVersion, kind: p.kind, metadata };
  if (isRecord(p.spec)) {
    const s = {};
    if (p.spec.nodeName !== undefined) s.nodeName = p.spec.nodeName;
    if (Array.isArray(p.spec.containers)) s.containers = p.spec.containers.map((c) => ({ name: c.name, image: c.image }));
    if (Array.isArray(p.spec.initContainers)) s.initContainers = p.spec.initContainers.map((c) => ({ name: c.name, restartPolicy: c.restartPolicy }));
    out.spec = s;
  }
  if (isRecord(p.status)) {
    const { containerStatuses, initContainerStatuses, ...rest } = p.status;
    if (Array.isArray(containerStatuses)) rest.containerStatuses = containerStatuses.map((c) => ({ name: c.name, restartCount: c.restartCount, ready: c.ready }));
    out.status = rest;
  }
  return out;
}
const projected = objs.map((o) => ({ ...o, requestObject: pod(o.requestObject), responseObject: pod(o.responseObject) }));
const ser = v8.serialize(objs);
const serProjected = v8.serialize(projected);
const textProjected = projected.map((o) => JSON.stringify(o));
const bytes = bufs.reduce((n, b) => n + b.length, 0);
const projectedBytes = textProjected.reduce((n, t) => n + t.length, 0);
const ms = (t) => (process.cpuUsage(t).user / 1000).toFixed(0);
for (let round = 0; round < 3; round++) {
  let t = process.cpuUsage(); let n = 0;
  for (const b of bufs) n += Object.keys(JSON.parse(b.toString('utf8'))).length;
  const parse = ms(t);
  t = process.cpuUsage();
  n += v8.deserialize(ser).length;
  const clone = ms(t);
  t = process.cpuUsage();
  n += v8.serialize(objs).length;
  const serial = ms(t);
  t = process.cpuUsage();
  n += v8.deserialize(serProjected).length;
  const cloneP = ms(t);
  t = process.cpuUsage();
  for (const s of textProjected) n += Object.keys(JSON.parse(s)).length;
  const parseP = ms(t);
  console.log(`${lines.length} lines ${(bytes / 1e6).toFixed(1)} MB (projected ${(projectedBytes / 1e6).toFixed(1)} MB as JSON): decode+JSON.parse ${parse} ms; structured-clone deserialize ${clone} ms (serialize in worker ${serial} ms); projected: clone deserialize ${cloneP} ms, JSON.parse ${parseP} ms ${n > 0}`);
}
