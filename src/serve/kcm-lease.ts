/**
 * The kube-controller-manager's leadership, as `kexp serve` sees it in its Lease
 * (kube-system/kube-controller-manager, coordination.k8s.io/v1): who holds it, whether the holder
 * still renews it, and how often it changed hands. Upstream the controller-manager's leader
 * elector (client-go tools/leaderelection/leaderelection.go, tryAcquireOrRenew) renews the Lease
 * every RetryPeriod (2 s) and a candidate takes it once `renewTime + leaseDurationSeconds` has
 * passed; a holderIdentity is `hostname_<uuid>` (cmd/kube-controller-manager/app/
 * controllermanager.go: `id + "_" + string(uuid.NewUUID())`), a new uuid per process.
 *
 * Contract: `sink` is a ReflectorSink for the Lease watch (fieldSelector metadata.name=…);
 * `state(now)` says whether the Lease is observed at all, whether it is held (renewed within its
 * duration at `now`: `leading`), the holder's host part; `leaderChanges` counts holder changes
 * kexp saw (the first sighting is not a change), `restarts` those where the host stayed the same
 * but the process (uuid) changed — a restart of the same kube-controller-manager. Both start at
 * serve's start: what happened before is unknown. Cost: O(1) per Lease event.
 */
import type { ReflectorSink } from '../sources/live/reflector.js';

export const KCM_LEASE = { namespace: 'kube-system', name: 'kube-controller-manager' } as const;

export interface LeaseState {
  observed: boolean;
  holder?: string;
  /** Renewed within leaseDurationSeconds at the time asked (undefined: no renewTime to judge). */
  leading?: boolean;
  renewedAt?: number;
  transitions?: number;
}

function hostOf(identity: string): string {
  const i = identity.lastIndexOf('_');
  return i > 0 ? identity.slice(0, i) : identity;
}

export class KcmLease {
  leaderChanges = 0;
  restarts = 0;
  private holder?: string;
  private renewedAt?: number;
  private durationMs?: number;
  private transitions?: number;
  private observed = false;

  readonly sink: ReflectorSink = {
    event: (type, object) => {
      if (type === 'BOOKMARK') return;
      if (type === 'DELETED') {
        this.observed = false;
        this.holder = undefined;
        return;
      }
      this.observed = true;
      const spec = (object.spec ?? {}) as { holderIdentity?: unknown; renewTime?: unknown; leaseDurationSeconds?: unknown; leaseTransitions?: unknown };
      const holder = typeof spec.holderIdentity === 'string' && spec.holderIdentity ? spec.holderIdentity : undefined;
      if (holder !== undefined && this.holder !== undefined && holder !== this.holder) {
        this.leaderChanges++;
        if (hostOf(holder) === hostOf(this.holder)) this.restarts++;
      }
      if (holder !== undefined) this.holder = holder;
      const renewed = typeof spec.renewTime === 'string' ? Date.parse(spec.renewTime) : NaN;
      this.renewedAt = Number.isNaN(renewed) ? undefined : renewed;
      this.durationMs = typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds * 1000 : undefined;
      this.transitions = typeof spec.leaseTransitions === 'number' ? spec.leaseTransitions : undefined;
    },
    gap: () => {},
  };

  state(now: number): LeaseState {
    if (!this.observed) return { observed: false };
    const leading = this.holder === undefined
      ? false
      : this.renewedAt !== undefined && this.durationMs !== undefined ? now <= this.renewedAt + this.durationMs : undefined;
    return {
      observed: true,
      ...(this.holder !== undefined ? { holder: hostOf(this.holder) } : {}),
      ...(leading !== undefined ? { leading } : {}),
      ...(this.renewedAt !== undefined ? { renewedAt: this.renewedAt } : {}),
      ...(this.transitions !== undefined ? { transitions: this.transitions } : {}),
    };
  }
}
