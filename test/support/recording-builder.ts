/**
 * Builds realistic kexp recordings in memory for tests and benchmarks: a ReplicaSet, its
 * pods (generateName-style names, UIDs, resourceVersions, ownerReferences), Events and the
 * namespace, each as a recording line with a receive time.
 */
import { formatRecordingLine, formatRecvTime, recordingHeader } from '../../src/sources/watch/recording-format.js';

let uidCounter = 0;
export function uid(prefix = 'a'): string {
  uidCounter++;
  const hex = uidCounter.toString(16).padStart(12, '0');
  return `${prefix.padEnd(8, '0').slice(0, 8)}-4b1c-4d2e-9f3a-${hex}`;
}

const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
export function suffix(n: number): string {
  let s = '';
  let x = n * 7919 + 12345;
  for (let i = 0; i < 5; i++) {
    s += ALPHABET[x % ALPHABET.length];
    x = Math.floor(x / ALPHABET.length) + i * 31;
  }
  return s;
}

export class RecordingBuilder {
  lines: string[] = [];
  rv = 1000;
  t: number;
  readonly rsUid = uid('rs');
  rs: any;
  pods = new Map<string, any>();
  private events = new Map<string, any>();
  private eventSeq = 0;

  constructor(readonly ns = 'shop', readonly rsName = 'web-7d9c6b8f5d', start = Date.UTC(2026, 10, 30, 10, 0, 0), watches = ['replicasets', 'pods', 'events', 'namespaces']) {
    this.t = start;
    this.lines.push(formatRecordingLine(recordingHeader({
      kexpVersion: '0.1.0', serverVersion: 'v1.37.2', namespace: ns, replicaSet: rsName, startedAt: formatRecvTime(start),
      watches: watches.map((r) => (r === 'namespaces' ? { resource: r, name: ns } : { resource: r, namespace: ns })), redacted: true,
    })));
  }

  advance(ms: number): this {
    this.t += ms;
    return this;
  }

  private iso(ms = this.t): string {
    return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  }

  emit(src: string, type: string, object: any): this {
    this.lines.push(JSON.stringify({ recv: formatRecvTime(this.t), src, event: { type, object: structuredClone(object) } }) + '\n');
    return this;
  }

  namespace(phase: 'Active' | 'Terminating' = 'Active'): this {
    const obj: any = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: this.ns, uid: 'ns-uid-0001', resourceVersion: String(++this.rv), creationTimestamp: this.iso(this.t - 3600_000) }, status: { phase } };
    if (phase === 'Terminating') obj.metadata.deletionTimestamp = this.iso();
    return this.emit('namespaces', phase === 'Active' ? 'ADDED' : 'MODIFIED', obj);
  }

  replicaSet(replicas: number, type = this.rs ? 'MODIFIED' : 'ADDED', status?: any): this {
    this.rs = {
      apiVersion: 'apps/v1', kind: 'ReplicaSet',
      metadata: {
        name: this.rsName, namespace: this.ns, uid: this.rsUid, resourceVersion: String(++this.rv), generation: (this.rs?.metadata.generation ?? 0) + (this.rs && this.rs.spec.replicas === replicas ? 0 : 1),
        creationTimestamp: this.rs?.metadata.creationTimestamp ?? this.iso(), labels: { app: 'web', 'pod-template-hash': '7d9c6b8f5d' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep-uid-0001', controller: true, blockOwnerDeletion: true }],
      },
      spec: { replicas, selector: { matchLabels: { app: 'web', 'pod-template-hash': '7d9c6b8f5d' } }, template: { metadata: { labels: { app: 'web', 'pod-template-hash': '7d9c6b8f5d' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } },
      status: status ?? this.rs?.status ?? { replicas: 0, observedGeneration: 1 },
    };
    return this.emit('replicasets', type, this.rs);
  }

  rsStatus(replicas: number, ready = 0): this {
    this.rs = structuredClone(this.rs);
    this.rs.metadata.resourceVersion = String(++this.rv);
    this.rs.status = { replicas, fullyLabeledReplicas: replicas, readyReplicas: ready, availableReplicas: ready, observedGeneration: this.rs.metadata.generation };
    return this.emit('replicasets', 'MODIFIED', this.rs);
  }

  addPod(n: number, opts: { nodeName?: string; owned?: boolean; name?: string; labels?: Record<string, string> } = {}): string {
    const name = opts.name ?? `${this.rsName}-${suffix(n)}`;
    const pod: any = {
      apiVersion: 'v1', kind: 'Pod',
      metadata: {
        name, generateName: `${this.rsName}-`, namespace: this.ns, uid: uid('pod'), resourceVersion: String(++this.rv), creationTimestamp: this.iso(),
        labels: opts.labels ?? { app: 'web', 'pod-template-hash': '7d9c6b8f5d' },
        ownerReferences: opts.owned === false ? undefined : [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: this.rsName, uid: this.rsUid, controller: true, blockOwnerDeletion: true }],
      },
      spec: { nodeName: opts.nodeName, containers: [{ name: 'app', image: 'nginx:1.27' }] },
      status: { phase: 'Pending' },
    };
    this.pods.set(name, pod);
    this.emit('pods', 'ADDED', pod);
    return name;
  }

  updatePod(name: string, mutate: (p: any) => void, type = 'MODIFIED'): this {
    const p = structuredClone(this.pods.get(name));
    mutate(p);
    p.metadata.resourceVersion = String(++this.rv);
    if (type === 'DELETED') this.pods.delete(name);
    else this.pods.set(name, p);
    return this.emit('pods', type, p);
  }

  ready(name: string): this {
    return this.updatePod(name, (p) => {
      p.status = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: this.iso() }] };
    });
  }

  gracefulDelete(name: string, grace = 30): this {
    return this.updatePod(name, (p) => {
      p.metadata.deletionTimestamp = this.iso(this.t + grace * 1000);
      p.metadata.deletionGracePeriodSeconds = grace;
    });
  }

  deletePod(name: string): this {
    return this.updatePod(name, () => undefined, 'DELETED');
  }

  event(reason: string, message: string, type = 'Normal'): this {
    const key = `${reason}:${message.startsWith('Error creating') ? 'err' : message}`;
    let ev = this.events.get(key);
    if (ev) {
      ev = structuredClone(ev);
      ev.count++;
      ev.lastTimestamp = this.iso();
      ev.metadata.resourceVersion = String(++this.rv);
      this.events.set(key, ev);
      return this.emit('events', 'MODIFIED', ev);
    }
    ev = {
      apiVersion: 'v1', kind: 'Event',
      metadata: { name: `${this.rsName}.${this.t.toString(16)}${(++this.eventSeq).toString(16).padStart(4, "0")}`, namespace: this.ns, uid: uid('ev'), resourceVersion: String(++this.rv) },
      involvedObject: { kind: 'ReplicaSet', namespace: this.ns, name: this.rsName, uid: this.rsUid, apiVersion: 'apps/v1', resourceVersion: this.rs?.metadata.resourceVersion },
      reason, message, type, count: 1, firstTimestamp: this.iso(), lastTimestamp: this.iso(), source: { component: 'replicaset-controller' },
    };
    this.events.set(key, ev);
    return this.emit('events', 'ADDED', ev);
  }

  end(reason = 'duration'): this {
    this.lines.push(formatRecordingLine({ recv: formatRecvTime(this.t), end: { reason: reason as 'duration' } }));
    return this;
  }

  text(): string {
    return this.lines.join('');
  }
}
