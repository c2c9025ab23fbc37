/**
 * A real control plane whose kube-controller-manager reaches the apiserver only through a
 * FaultProxy: the one way every e2e test and capture script puts the proxy in front of the
 * controller (fault scenarios, workload scenarios, serve's Prometheus test).
 *
 * The proxy presents its own serving certificate (pki/proxy.crt), forwards the controller's
 * requests as the admin identity, and writes every fault it injects to `faultLog`. If the control
 * plane fails to start, the proxy is closed before the error is rethrown, so a failed start leaves
 * nothing listening. Cost: one extra TLS hop per controller request.
 */
import path from 'node:path';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from '../control-plane/control-plane.js';
import { FaultProxy } from './fault-proxy.js';

export interface BehindProxyOptions extends Omit<ControlPlaneOptions, 'kcmServer'> {
  /** Where the proxy appends the faults it injects (JSON lines). */
  faultLog: string;
  /** The proxy's one-line warnings; default stderr. */
  warn?: (line: string) => void;
}

export async function startControlPlaneBehindProxy(opts: BehindProxyOptions): Promise<{ cp: ControlPlane; proxy: FaultProxy }> {
  const { faultLog, warn, ...cpOptions } = opts;
  let proxy: FaultProxy | undefined;
  const cp = await startControlPlane({
    ...cpOptions,
    kcmServer: async ({ apiURL, caPath, pkiDir }) => {
      proxy = await FaultProxy.start({
        upstream: apiURL,
        caFile: caPath,
        certFile: path.join(pkiDir, 'proxy.crt'),
        keyFile: path.join(pkiDir, 'proxy.key'),
        identities: [{ certFile: path.join(pkiDir, 'admin.crt'), keyFile: path.join(pkiDir, 'admin.key') }],
        faultLog,
        ...(warn ? { warn } : {}),
      });
      return proxy.url;
    },
  }).catch(async (e) => {
    await proxy?.close();
    throw e;
  });
  if (!proxy) throw new Error('control plane started without calling kcmServer: no fault proxy in front of the controller');
  return { cp, proxy };
}
