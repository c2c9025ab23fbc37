/**
 * What the replay keeps of a pod once it enters the engine: the look-ahead buffer, the write
 * ledger and the informer cache all hold the projection `cachedPod` makes (src/model/objects.ts),
 * never the full object.
 *
 * Mirrors the transform kube-controller-manager installs on its shared informers
 * (informers.WithTransform stripping managedFields, cmd/kube-controller-manager/app/
 * controllermanager.go) and goes further: the model reads a pod's metadata, spec.nodeName, the
 * init containers' restartPolicy and its status, so containers, volumes and tolerations are
 * dropped too. Without it a burst of 50,000 pod creates inside the 60 s look-ahead held about
 * 450 MB of pod bodies (request and response of each create). Pure.
 */
import { cachedPod, isRecord, type Pod } from '../../model/objects.js';
import type { TimelineEvent } from '../../timeline/event.js';

function isPod(v: unknown): v is Pod {
  return isRecord(v) && isRecord(v.metadata);
}

/** `e` with its pod bodies projected (a new event; other events unchanged). */
export function informerView(e: TimelineEvent): TimelineEvent {
  if (e.type === 'observed') return e.kind === 'Pod' && isPod(e.object) ? { ...e, object: cachedPod(e.object) } : e;
  if (e.type !== 'write' || e.resource !== 'pods') return e;
  const req = e.verb === 'create' && isPod(e.requestObject) ? cachedPod(e.requestObject) : e.requestObject;
  const resp = isPod(e.responseObject) && (e.responseObject as { kind?: unknown }).kind !== 'Status' ? cachedPod(e.responseObject) : e.responseObject;
  return req === e.requestObject && resp === e.responseObject ? e : { ...e, requestObject: req, responseObject: resp };
}
