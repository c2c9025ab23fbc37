/**
 * The one place kexp makes a @kubernetes/client-node KubeConfig. kubeconfig.ts loads this module
 * with `await import()` once a kubeconfig has passed its checks, so that errors before that never
 * pay for the Kubernetes client (see kubeconfig.ts). A module of its own rather than
 * `await import('@kubernetes/client-node')` there: a dynamic import of the package keeps its
 * whole namespace (every generated API class, ~14 MB in the bundle), where this static named
 * import lets esbuild keep only KubeConfig and what it uses.
 */
import { KubeConfig, type Cluster, type Context, type User } from '@kubernetes/client-node';

export function newKubeConfig(o: { clusters: Cluster[]; users: User[]; contexts: Context[]; currentContext: string }): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions(o);
  return kc;
}
