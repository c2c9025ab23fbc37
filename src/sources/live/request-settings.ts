/**
 * Per-invocation settings every API request of one ClusterAccess carries, beside what the
 * kubeconfig gives: impersonation (`--as`, `--as-group`, sent as kubectl sends them, as
 * Impersonate-User / Impersonate-Group headers) and the proxy chosen from the environment
 * (src/sources/live/proxy.ts). They are attached to the KubeAccess (kubeconfig) object that
 * loadClusterAccess returns, so getJSON and openWatchStream, which every live path reaches
 * with that KubeAccess, apply them without each caller passing them along.
 */
import type { KubeAccess } from './light-kubeconfig.js';
import type http from 'node:http';

export interface RequestSettings {
  impersonateUser?: string;
  impersonateGroups?: string[];
  /** The agent for this server (a CONNECT tunnel or an absolute-form HTTP proxy), if a proxy applies. */
  agent?: http.Agent;
}

const settings = new WeakMap<KubeAccess, RequestSettings>();

export function setRequestSettings(kc: KubeAccess, s: RequestSettings): void {
  settings.set(kc, s);
}

export function requestSettings(kc: KubeAccess): RequestSettings {
  return settings.get(kc) ?? {};
}

/** Adds the impersonation headers to `headers` (an empty --as-group list adds none). */
export function addImpersonation(kc: KubeAccess, headers: Record<string, string | string[]>): void {
  const s = requestSettings(kc);
  if (s.impersonateUser !== undefined) headers['Impersonate-User'] = s.impersonateUser;
  if (s.impersonateGroups?.length) headers['Impersonate-Group'] = s.impersonateGroups;
}
