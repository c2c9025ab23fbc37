/**
 * What kexp needs of an audit log: writes (create/update/patch/delete/deletecollection) to the
 * resources the controller models consume or report — pods (with their subresources that write
 * the pod), replicasets, replicationcontrollers, daemonsets, jobs, core Events, namespaces,
 * resourcequotas, deployments — which of them carry object bodies the models observe, and the
 * nodes, whose bodies the DaemonSet model observes (their writes are nobody's the models track:
 * only their states are read, and only from a response body).
 *
 * Contract: the one table both the byte prefilters (prefilter.ts, the envelopes' filters) and
 * the source's semantic check read, so the two never disagree on what is relevant. Constant
 * tables and one check on a record's bodies; no cost.
 */
import { isRecord } from '../../model/objects.js';
import { actorOf } from './attribution.js';
import type { AuditRecord } from './record.js';
import type { WriteVerb } from '../../timeline/event.js';

/** The verbs that change an object (a write event's, timeline/event.ts WriteVerb). */
export const WRITE_VERBS: ReadonlySet<string> = new Set<WriteVerb>(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** Whether `verb` changes an object (WRITE_VERBS). */
export function isWriteVerb(verb: string): verb is WriteVerb {
  return WRITE_VERBS.has(verb);
}

export interface ResourceInfo {
  groups: readonly string[];
  /** Kind of the ObservedEvent produced from its bodies, when the model consumes it. */
  observed?: 'Pod' | 'ReplicaSet' | 'ReplicationController' | 'DaemonSet' | 'Job' | 'Node' | 'Event' | 'Namespace';
  kind: string;
  /**
   * Only the object states matter, not the writes: no write event is made (no modelled controller
   * writes the resource), and a write is relevant only with a response body (nodeWriteIsRelevant).
   */
  statesOnly?: true;
}

/** The resources whose writes kexp reads, by objectRef.resource. */
export const RESOURCES: Record<string, ResourceInfo> = {
  pods: { groups: [''], observed: 'Pod', kind: 'Pod' },
  replicasets: { groups: ['apps', 'extensions'], observed: 'ReplicaSet', kind: 'ReplicaSet' },
  replicationcontrollers: { groups: [''], observed: 'ReplicationController', kind: 'ReplicationController' },
  daemonsets: { groups: ['apps', 'extensions'], observed: 'DaemonSet', kind: 'DaemonSet' },
  jobs: { groups: ['batch'], observed: 'Job', kind: 'Job' },
  nodes: { groups: [''], observed: 'Node', kind: 'Node', statesOnly: true },
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

/** The same for daemonsets: with an object body, or made by the DaemonSet controller (its status writes). */
export function dsWriteIsRelevant(rec: AuditRecord): boolean {
  if (actorOf(rec).controller === 'daemon-set-controller') return true;
  return isRecord(rec.requestObject) || isRecord(rec.responseObject);
}

/**
 * The same for jobs: with an object body, or made by the Job controller (its status writes, which a
 * Metadata-level policy logs without one). A body-less write by anyone else — the namespace
 * controller's sweep, the CronJob controller's or a user's delete at Metadata level — shows no Job.
 */
export function jobWriteIsRelevant(rec: AuditRecord): boolean {
  if (actorOf(rec).controller === 'job-controller') return true;
  return isRecord(rec.requestObject) || isRecord(rec.responseObject);
}

/**
 * A write to nodes concerns the DaemonSet model only through the node's state after it, which only
 * a response body shows (RequestResponse level): a Request- or Metadata-level write — the kubelet's
 * status heartbeats under most audit policies — shows no node and is not read, so a log whose node
 * writes carry no bodies reads as it did before nodes were modelled. (A request body is a patch or
 * a whole object the apiserver may still change: not a state.)
 */
export function nodeWriteIsRelevant(rec: AuditRecord): boolean {
  return isRecord(rec.responseObject);
}

/** The kinds whose Events concern a modelled controller, and the controllers (client names) that record them. */
const EVENT_OWNER_KINDS: ReadonlySet<unknown> = new Set(['ReplicaSet', 'ReplicationController', 'DaemonSet', 'Job']);
const EVENT_RECORDERS: ReadonlySet<unknown> = new Set(['replicaset-controller', 'replication-controller', 'daemon-set-controller', 'job-controller']);

/**
 * A core Event write concerns a modelled controller when the RS, RC, DaemonSet or Job controller
 * made it or the Event is about a ReplicaSet, a ReplicationController, a DaemonSet or a Job.
 */
export function eventIsAboutOwner(rec: AuditRecord): boolean {
  if (EVENT_RECORDERS.has(actorOf(rec).controller)) return true;
  for (const body of [rec.requestObject, rec.responseObject]) {
    if (!isRecord(body)) continue;
    const io = isRecord(body.involvedObject) ? body.involvedObject : isRecord(body.regarding) ? body.regarding : undefined;
    if (io && EVENT_OWNER_KINDS.has(io.kind)) return true;
  }
  return false;
}
