/**
 * Hostile objects for the redaction tests: one unique token hidden in every place a
 * credential has been seen to hide in pod specs, templates, annotations, statuses and
 * managedFields (and a few that no deny-list would think of).
 */

/** Appears nowhere else in the repository: finding it in output means it leaked. */
export const TOKEN = 'tok-9f1c2e7a-hunter2-S3CR3T';

export function hostileContainer(name: string): any {
  return {
    name,
    image: `registry.example.com/${TOKEN}/app:1.0`,
    command: ['sh', '-c', `curl -H "Authorization: Bearer ${TOKEN}" https://api.example.com`],
    args: [`--token=${TOKEN}`, '--verbose'],
    env: [
      { name: 'API_TOKEN', value: TOKEN },
      { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: `db-${TOKEN}`, key: 'password' } } },
    ],
    ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
    readinessProbe: { httpGet: { path: '/healthz', port: 8080, httpHeaders: [{ name: 'Authorization', value: `Bearer ${TOKEN}` }] }, periodSeconds: 5 },
    livenessProbe: { exec: { command: ['check', `--password=${TOKEN}`] } },
    lifecycle: { postStart: { exec: { command: ['register', TOKEN] } }, preStop: { httpGet: { path: `/drain?key=${TOKEN}`, port: 8080 } } },
    securityContext: { privileged: false, readOnlyRootFilesystem: true },
  };
}

export function hostilePodSpec(): any {
  return {
    nodeName: 'node-a',
    containers: [hostileContainer('app')],
    initContainers: [{ ...hostileContainer('proxy'), restartPolicy: 'Always' }, { ...hostileContainer('migrate') }],
    ephemeralContainers: [{ ...hostileContainer('debugger'), targetContainerName: 'app' }],
    volumes: [
      { name: 'flex', flexVolume: { driver: 'example.com/cifs', options: { username: 'svc', password: TOKEN } } },
      { name: 'csi', csi: { driver: 'secrets-store.csi.k8s.io', volumeAttributes: { secretProviderClass: 'vault', token: TOKEN }, nodePublishSecretRef: { name: `creds-${TOKEN}` } } },
      { name: 'cfg', configMap: { name: 'app-config' } },
    ],
    imagePullSecrets: [{ name: `pull-${TOKEN}` }],
    hostAliases: [{ ip: '10.0.0.1', hostnames: [`${TOKEN}.internal`] }],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    unknownFutureField: { deep: [{ deeper: TOKEN }] },
  };
}

export const POD_LABELS = { app: 'web', 'pod-template-hash': '7d9c6b8f5d' };

/** Annotations: a DSN, a copy of the object, a label-looking name, a cost (kept) and a revision (kept). */
export function hostileAnnotations(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'db-url': `postgres://app:${TOKEN}@db.example.com:5432/orders`,
    'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ spec: { containers: [{ env: [{ name: 'X', value: TOKEN }] }] } }),
    app: TOKEN, // looks like a label, is an annotation
    'example.com/team': `payments ${TOKEN}`,
    'kubernetes.io/change-cause': `kubectl set env deploy/web API_TOKEN=${TOKEN}`,
    ...extra,
  };
}

export function hostileManagedFields(): any[] {
  return [{
    manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'v1', time: '2026-11-30T10:00:01Z', fieldsType: 'FieldsV1',
    fieldsV1: { 'f:metadata': { 'f:annotations': { [`f:${TOKEN}`]: {} } }, 'f:spec': { 'f:containers': { [`k:{"name":"${TOKEN}"}`]: {} } } },
  }];
}

export function hostilePod(): any {
  const pod = JSON.parse(JSON.stringify({
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name: 'web-7d9c6b8f5d-x2k4q', generateName: 'web-7d9c6b8f5d-', namespace: 'shop', uid: 'pod-uid-0001', resourceVersion: '1234', generation: 1,
      creationTimestamp: '2026-11-30T10:00:00Z', deletionTimestamp: '2026-11-30T10:05:00Z', deletionGracePeriodSeconds: 30,
      labels: POD_LABELS,
      annotations: hostileAnnotations({ 'controller.kubernetes.io/pod-deletion-cost': '-5' }),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9c6b8f5d', uid: 'rs-uid-0001', controller: true, blockOwnerDeletion: true }],
      finalizers: ['example.com/keep'],
      managedFields: hostileManagedFields(),
      selfLink: `/api/v1/namespaces/shop/pods/x?token=${TOKEN}`,
    },
    spec: hostilePodSpec(),
    status: {
      phase: 'Failed', reason: 'Evicted', message: `evicted: ${TOKEN}`, hostIP: '10.0.0.7', podIP: '10.1.2.3', startTime: '2026-11-30T10:00:01Z',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-11-30T10:00:02Z', reason: 'X', message: TOKEN }],
      containerStatuses: [{
        name: 'app', ready: true, started: true, restartCount: 3, image: `registry/${TOKEN}`, imageID: `sha256:${TOKEN}`, containerID: 'containerd://abc',
        state: { terminated: { exitCode: 1, reason: 'Error', message: `panic: connect postgres://u:${TOKEN}@h/db` } },
        lastState: { terminated: { exitCode: 2, message: TOKEN } },
      }],
      initContainerStatuses: [{ name: 'proxy', ready: true, restartCount: 2, state: { running: { startedAt: '2026-11-30T10:00:01Z' } } }],
      ephemeralContainerStatuses: [{ name: 'debugger', state: { waiting: { reason: 'X', message: TOKEN } } }],
    },
  }));
  // A "__proto__" key is legal JSON; JSON.parse makes it an own property.
  pod.metadata.annotations = { ...pod.metadata.annotations, ...JSON.parse(`{"__proto__": "${TOKEN}"}`) };
  Object.defineProperty(pod.spec, '__proto__', { value: { token: TOKEN }, enumerable: true, writable: true, configurable: true });
  // Deeper than anything kexp reads: must not keep the token nor overflow the stack.
  let deep: any = { token: TOKEN };
  for (let i = 0; i < 1000; i++) deep = [deep];
  pod.spec.deep = deep;
  return pod;
}

function template(): any {
  return {
    metadata: { labels: POD_LABELS, annotations: hostileAnnotations({ 'controller.kubernetes.io/pod-deletion-cost': '10' }), creationTimestamp: null },
    spec: hostilePodSpec(),
  };
}

export function hostileReplicaSet(): any {
  return {
    apiVersion: 'apps/v1', kind: 'ReplicaSet',
    metadata: {
      name: 'web-7d9c6b8f5d', namespace: 'shop', uid: 'rs-uid-0001', resourceVersion: '1200', generation: 4, creationTimestamp: '2026-11-30T09:00:00Z',
      labels: POD_LABELS,
      annotations: hostileAnnotations({ 'deployment.kubernetes.io/revision': '7', 'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4' }),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'dep-uid-0001', controller: true, blockOwnerDeletion: true }],
      managedFields: hostileManagedFields(),
    },
    spec: {
      replicas: 3, minReadySeconds: 10,
      selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'pod-template-hash', operator: 'In', values: ['7d9c6b8f5d'] }] },
      template: template(),
    },
    status: {
      replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 1, availableReplicas: 1, terminatingReplicas: 0, observedGeneration: 4,
      conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'pods "web-7d9c6b8f5d-x" is forbidden: exceeded quota: pods', lastTransitionTime: '2026-11-30T10:00:03Z' }],
    },
  };
}

export function hostileDeployment(): any {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: {
      name: 'web', namespace: 'shop', uid: 'dep-uid-0001', resourceVersion: '1100', generation: 9, creationTimestamp: '2026-11-29T09:00:00Z',
      labels: { app: 'web' }, annotations: hostileAnnotations({ 'deployment.kubernetes.io/revision': '7' }), managedFields: hostileManagedFields(),
    },
    spec: {
      replicas: 3, minReadySeconds: 10, paused: false, selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: TOKEN } },
      template: template(),
    },
    status: { replicas: 3, observedGeneration: 9, conditions: [{ type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: 'ReplicaSet "web-7d9c6b8f5d" has successfully progressed.' }] },
  };
}
