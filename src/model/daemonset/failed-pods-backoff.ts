/**
 * The DaemonSet controller's backoff for killing failed daemon pods: one entry per (DaemonSet UID,
 * observedGeneration, node), so a node whose kubelet keeps rejecting the daemon pod is not hot-looped.
 *
 * Mirrors client-go util/flowcontrol.Backoff (backoff.go, v0.37.2) as kube-controller-manager builds it
 * for the DaemonSet controller: flowcontrol.NewBackOff(1*time.Second, 15*time.Minute)
 * (cmd/kube-controller-manager/app/apps.go), no jitter:
 * - `next(id, now)`: a new entry, or one not updated for more than 2 × max, starts at 1 s;
 *   otherwise the delay doubles, capped at 15 min; lastUpdate = now;
 * - `isInBackOffSinceUpdate(id, now)`: an entry exists, is not expired (2 × max), and
 *   now − lastUpdate < its delay;
 * - `get(id)`: the current delay (0 without an entry).
 * The controller's periodic GC of entries older than 2 × max is not modelled: an expired entry
 * already answers as absent. Used by podsShouldBeOnNode (daemon_controller.go) through
 * failedPodsBackoffKey.
 *
 * Cost: O(1) per call; one entry per (DaemonSet, generation, node) that ever had a failed pod.
 * No I/O; times are the caller's (epoch ms).
 */
export const FAILED_PODS_BACKOFF_INITIAL_MS = 1000;
export const FAILED_PODS_BACKOFF_MAX_MS = 15 * 60 * 1000;

export class FailedPodsBackoff {
  private readonly entries = new Map<string, { backoffMs: number; lastUpdate: number }>();

  constructor(
    private readonly initialMs = FAILED_PODS_BACKOFF_INITIAL_MS,
    private readonly maxMs = FAILED_PODS_BACKOFF_MAX_MS,
  ) {}

  private expired(now: number, lastUpdate: number): boolean {
    return now - lastUpdate > 2 * this.maxMs;
  }

  get(id: string): number {
    return this.entries.get(id)?.backoffMs ?? 0;
  }

  next(id: string, now: number): void {
    const e = this.entries.get(id);
    if (!e || this.expired(now, e.lastUpdate)) {
      this.entries.set(id, { backoffMs: this.initialMs, lastUpdate: now });
      return;
    }
    e.backoffMs = Math.min(e.backoffMs * 2, this.maxMs);
    e.lastUpdate = now;
  }

  isInBackOffSinceUpdate(id: string, now: number): boolean {
    const e = this.entries.get(id);
    if (!e || this.expired(now, e.lastUpdate)) return false;
    return now - e.lastUpdate < e.backoffMs;
  }
}

/** failedPodsBackoffKey in daemon_controller.go: `<uid>/<status.observedGeneration>/<node>`. */
export function failedPodsBackoffKey(uid: string, observedGeneration: number, node: string): string {
  return `${uid}/${observedGeneration}/${node}`;
}
