/**
 * When the input first showed each pod, for reading the controller's view from its status
 * writes (controller-view.ts): a pod the input showed before the controller's previous status
 * write existed when the sync behind the current one listed its pods.
 *
 * Contract: `note` is called for every pod observation the engine delivers, before the model
 * sees it. A pod's sighting is its first observation (of its UID: a new pod under a reused name
 * is sighted again) and is forgotten at its deletion. Per ReplicaSet key the sightings of pods it
 * controls are also kept in time order until its next status write takes them (`takeRecent`),
 * so a status write is checked against the pods sighted since the previous one without walking
 * every pod of the ReplicaSet.
 *
 * Cost: O(1) per observation; one entry per live pod plus the ReplicaSet's sightings since its
 * last status write. Pure: no I/O, no clock.
 */
import type { OwnerReference, Pod } from '../../model/objects.js';
import type { SourceRef } from '../../timeline/event.js';
import type { PodSighting } from './controller-view.js';
import { REPLICA_SET_OWNER } from './engine-controller.js';

export class PodSightings {
  /** When the input first showed each pod (namespace/name), with its UID. */
  readonly byPod = new Map<string, PodSighting & { uid?: string }>();
  /**
   * Per ReplicaSet key: the pods the input first showed controlled by it since its last status
   * write, in time order — the ones a status write need not count.
   */
  private readonly recent = new Map<string, Array<{ pk: string; at: number }>>();

  /** `ownerKind`: the controllerRef kind whose pods are counted per owner (EngineOwnerKind.kind). */
  constructor(private readonly ownerKind: string = REPLICA_SET_OWNER.kind) {}

  has(pk: string): boolean {
    return this.byPod.has(pk);
  }

  get(pk: string): (PodSighting & { uid?: string }) | undefined {
    return this.byPod.get(pk);
  }

  /** An observation of pod `pk` (`ref`: its controllerRef) at `at`. */
  note(deleted: boolean, pod: Pod, pk: string, ref: OwnerReference | undefined, at: number, source: SourceRef): void {
    if (deleted) {
      this.byPod.delete(pk);
      return;
    }
    const seen = this.byPod.get(pk); // (an entry is never undefined: absent ⇔ undefined)
    if (seen === undefined || seen.uid !== pod.metadata.uid) {
      this.byPod.set(pk, { at, source, uid: pod.metadata.uid });
      if (ref?.kind === this.ownerKind) {
        const rk = `${pod.metadata.namespace}/${ref.name}`;
        let r = this.recent.get(rk);
        if (!r) this.recent.set(rk, (r = []));
        r.push({ pk, at });
      }
    }
  }

  /** A status write of `rsKey` at `at`: the sightings since the previous one (those from `at` on are kept for the next). */
  takeRecent(rsKey: string, at: number): Array<{ pk: string; at: number }> | undefined {
    const recent = this.recent.get(rsKey);
    if (recent) this.recent.set(rsKey, recent.filter((r) => r.at >= at));
    return recent;
  }
}
