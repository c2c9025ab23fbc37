/**
 * Loads cluster access the way kubectl does, on @kubernetes/client-node's KubeConfig:
 * `--kubeconfig FILE` (that file only), else `$KUBECONFIG` (files joined with the path
 * delimiter; current-context from the first file, as kubectl does — client-node would take
 * the last, #579), else `~/.kube/config`, else in-cluster service-account config.
 * Then `--context` and `-n/--namespace` (default: the context's namespace, else "default").
 * Never falls back silently to http://localhost:8080 (client-node's last resort): a missing
 * or broken kubeconfig is a ClusterError with one clear line. Credentials never appear in
 * messages.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { ClusterError } from './api-client.js';

export interface AccessOptions {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  /** Environment and home directory (injected for tests). */
  env?: NodeJS.ProcessEnv;
  home?: string;
}

export interface ClusterAccess {
  kc: KubeConfig;
  namespace: string;
  context: string;
  server: string;
  /** Where the config came from, for messages. */
  origin: string;
}

function loadFile(kc: KubeConfig, file: string): void {
  if (!fs.existsSync(file)) throw new ClusterError('config', `kubeconfig ${file} does not exist`);
  try {
    kc.loadFromFile(file);
  } catch (err) {
    throw new ClusterError('config', `kubeconfig ${file} cannot be read: ${(err as Error).message.split('\n')[0]}`);
  }
}

export function loadClusterAccess(o: AccessOptions): ClusterAccess {
  const env = o.env ?? process.env;
  const home = o.home ?? os.homedir();
  const kc = new KubeConfig();
  let origin: string;
  if (o.kubeconfig) {
    loadFile(kc, o.kubeconfig);
    origin = o.kubeconfig;
  } else if (env.KUBECONFIG) {
    const files = env.KUBECONFIG.split(path.delimiter).filter(Boolean);
    const existing = files.filter((f) => fs.existsSync(f));
    if (existing.length === 0) throw new ClusterError('config', `none of the files in KUBECONFIG exist (${files.join(', ')})`);
    try {
      kc.loadFromDefault(undefined, true);
    } catch (err) {
      throw new ClusterError('config', `KUBECONFIG cannot be read: ${(err as Error).message.split('\n')[0]}`);
    }
    origin = `KUBECONFIG=${env.KUBECONFIG}`;
  } else if (fs.existsSync(path.join(home, '.kube', 'config'))) {
    origin = path.join(home, '.kube', 'config');
    loadFile(kc, origin);
  } else if (env.KUBERNETES_SERVICE_HOST && fs.existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token')) {
    kc.loadFromCluster();
    origin = 'in-cluster service account';
  } else {
    throw new ClusterError('config', 'no kubeconfig found: pass --kubeconfig, set KUBECONFIG, or create ~/.kube/config');
  }
  if (o.context) {
    if (!kc.getContextObject(o.context)) throw new ClusterError('config', `context "${o.context}" not found in ${origin}`);
    kc.setCurrentContext(o.context);
  }
  const ctxName = kc.getCurrentContext();
  const ctx = ctxName ? kc.getContextObject(ctxName) : null;
  if (!ctxName || !ctx) throw new ClusterError('config', `${origin} has no current context; pass --context`);
  const cluster = kc.getCurrentCluster();
  if (!cluster || !cluster.server) throw new ClusterError('config', `context "${ctxName}" in ${origin} names no cluster server`);
  if (ctxName === 'loaded-context' && /localhost:8080/.test(cluster.server)) {
    throw new ClusterError('config', 'no usable kubeconfig (refusing the http://localhost:8080 fallback)');
  }
  return { kc, namespace: o.namespace ?? ctx.namespace ?? 'default', context: ctxName, server: cluster.server, origin };
}
