/**
 * How a snapshot's report cites its evidence: `live:KIND/NAME#field` for a live snapshot
 * (LIVE_REFS, `kexp explain`); FILE:LINE of the item for a snapshot read from a file (kubectl
 * get -o json, a List, a cluster-info dump; src/pipeline/snapshot-files.ts builds those).
 *
 * Pure; O(1) per citation.
 */
import type { CoreEvent, Pod } from '../../model/objects.js';

export interface SnapshotRefs {
  rs(name: string, field?: string): string;
  ns(name: string, field: string): string;
  pod(p: Pod | string): string;
  event(e: CoreEvent): string;
  quota(name: string): string;
}

export const LIVE_REFS: SnapshotRefs = {
  rs: (name, field) => `live:replicasets/${name}${field ? `#${field}` : ''}`,
  ns: (name, field) => `live:namespaces/${name}#${field}`,
  pod: (p) => `live:pods/${typeof p === 'string' ? p : (p.metadata.name ?? '?')}`,
  event: (e) => `live:events/${e.metadata.name ?? '?'}`,
  quota: (name) => `live:resourcequotas/${name}`,
};

/** A live snapshot of a ReplicationController (`kexp explain rc/NAME`): its fields cited as the RC's. */
export const LIVE_RC_REFS: SnapshotRefs = {
  ...LIVE_REFS,
  rs: (name, field) => `live:replicationcontrollers/${name}${field ? `#${field}` : ''}`,
};
