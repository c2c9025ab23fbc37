/**
 * Wording that only kube-controller-manager releases older than the oldest one kexp models
 * (src/model/version.ts OLDEST_K8S_MINOR, v1.25) print. controller-semantics.md §8.1: the
 * ReplicaSet controller's round lines are structured (`"Too few replicas" replicaSet=… need=…
 * creating=…`) since about v1.21; before, they were printf lines:
 *
 *   Too few replicas for ReplicaSet shop/web, need 3, creating 3
 *   Too many replicas for ReplicaSet shop/web, need 1, deleting 2
 *   Slow-start failure. Skipping creation of 2 pods, decrementing expectations for ReplicaSet shop/web
 *
 * The catalogue still reads them (the controller's own account of its rounds); this module
 * only recognises that the log is older than modelled, so the reader can say so in one line
 * instead of judging it by the verbosity rules of modelled releases.
 */
import { OLDEST_K8S_MINOR } from '../../model/version.js';

/** The newest release that prints the old wording (the round lines became structured in v1.21). */
export const OLD_WORDING_UNTIL = 'v1.20';

const OLD_WORDING: Array<[RegExp, string]> = [
  [/^Too few replicas for \w+ \S+, need -?\d+, creating -?\d+$/, '"Too few replicas for <Kind> <ns/name>, need N, creating N"'],
  [/^Too many replicas for \w+ \S+, need -?\d+, deleting -?\d+$/, '"Too many replicas for <Kind> <ns/name>, need N, deleting N"'],
  // (the DaemonSet's and Job's `… for set "ns"/"name"` / `… for job "ns"/"name"` are printed through v1.25: not this)
  [/^Slow-start failure\. Skipping creation of \d+ pods, decrementing expectations for (?!set "|job ")\w+ \S+$/, '"Slow-start failure. Skipping creation of N pods, decrementing expectations for <Kind> <ns/name>"'],
];

/** The old wording a printf message is in (a short description), or undefined. */
export function olderThanModelledWording(msg: string, structured: boolean): string | undefined {
  if (structured) return undefined;
  const c = msg.charCodeAt(0);
  if (c !== 0x54 /* T */ && c !== 0x53 /* S */) return undefined;
  for (const [re, what] of OLD_WORDING) if (re.test(msg)) return what;
  return undefined;
}

/** The one line that says a log is older than modelled. */
export function olderThanModelledNote(where: string, wording: string, lines: number): string {
  return (
    `${where}: this kube-controller-manager log is older than kexp models: ${lines} round line${lines === 1 ? '' : 's'} in the printf wording of ${OLD_WORDING_UNTIL} and earlier ` +
    `(the first is this one, ${wording}); the oldest modelled release is v1.${OLDEST_K8S_MINOR}. Its lines are read as the controller's own account; ` +
    'what they do not show (gate and expectations decisions) is unknown, not absent'
  );
}
