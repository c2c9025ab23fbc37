/**
 * What kexp needs of an audit log: writes (create/update/patch/delete/deletecollection) to the
 * resources the ReplicaSet controller model consumes or reports — pods (with their subresources
 * that write the pod), replicasets, core Events, namespaces, resourcequotas, deployments — and
 * which of them carry object bodies the model observes.
 *
 * Contract: the one table both the byte prefilters (prefilter.ts, the envelopes' filters) and
 * the source's semantic check read, so the two never disagree on what is relevant. Constant
 * tables and one check on a record's bodies; no cost.
 */
import { isRecord } from '../../model/objects.js';
import { actorOf } from './attribution.js';
import type { AuditRecord } from './record.js';

/** The verbs that change an object. */
export const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

export interface ResourceInfo {
  groups: readonly string[];
  /** Kind of the ObservedEvent produced from its bodies, when the model consumes it. */
  observed?: 'Pod' | 'ReplicaSet' | 'ReplicationController' | 'Event' | 'Namespace';
  kind: string;
}

/** The resources whose writes kexp reads, by objectRef.resource. */
export const RESOURCES: Record<string, ResourceInfo> = {
  pods: { groups: [''], observed: 'Pod', kind: 'Pod' },
  replicasets: { groups: ['apps', 'extensions'], observed: 'ReplicaSet', kind: 'ReplicaSet' },
  replicationcontrollers: { groups: [''], observed: 'ReplicationController', kind: 'ReplicationController' },
  events: { groups: [''], observed: 'Event', kind: 'Event' },
  namespaces: { groups: [''], observed: 'Namespace', kind: 'Namespace' },
  resourcequotas: { groups: [''], kind: 'ResourceQuota' },
  deployments: { groups: ['apps', 'extensions'], kind: 'Deployment' },
};
export const RESOURCE_NAMES = new Set(Object.keys(RESOURCES));
/** Pod subresources that are not writes to the pod object. */
export const NON_WRITE_POD_SUBRESOURCES = new Set(['exec', 'attach', 'portforward', 'proxy', 'log']);

/**
 * A write to replicationcontrollers concerns the RC analysis when it carries an object body (the
 * RC's states are what the model observes) or the RC controller made it (its status writes). A
 * body-less write by anyone else — e.g. the namespace controller's Metadata-level
 * `deletecollection` sweep of a terminating namespace, which every namespace deletion makes for
 * every resource — shows no RC, so a log without RCs reads as it did before RCs were modelled.
 */
export function rcWriteIsRelevant(rec: AuditRecord): boolean {
  if (actorOf(rec).controller === 'replication-controller') return true;
  return isRecord(rec.requestObject) || isRecord(rec.responseObject);
}

/**
 * A core Event write concerns a modelled controller when the RS or RC controller made it or the
 * Event is about a ReplicaSet or a ReplicationController.
 */
export function eventIsAboutRs(rec: AuditRecord): boolean {
  const c = actorOf(rec).controller;
  if (c === 'replicaset-controller' || c === 'replication-controller') return true;
  for (const body of [rec.requestObject, rec.responseObject]) {
    if (!isRecord(body)) continue;
    const io = isRecord(body.involvedObject) ? body.involvedObject : isRecord(body.regarding) ? body.regarding : undefined;
    if (io && (io.kind === 'ReplicaSet' || io.kind === 'ReplicationController')) return true;
  }
  return false;
}
