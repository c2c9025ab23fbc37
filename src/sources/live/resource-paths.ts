/**
 * API request paths, made and read back in one place:
 *
 * - `resourcePath` builds `/api/v1/…` or `/apis/GROUP/VERSION/…` from its parts, each segment
 *   passed through encodeURIComponent, so no value can add a segment, a query or a fragment;
 * - `expectedKindOf` reads a path back (the reverse) and says what the API server answers to
 *   it — `PodList` of `v1` for `/api/v1/namespaces/shop/pods`, `ReplicaSet` of `apps/v1` for
 *   `/apis/apps/v1/namespaces/shop/replicasets/web` — so the client can refuse a response
 *   of another kind (a proxy, a crafted path or a hostile server answering with Secrets)
 *   instead of stamping its items with the kind it asked for. Paths of resources kexp does
 *   not read (and non-resource paths such as `/version`) have no expectation.
 */

export interface ResourceRef {
  /** API group; absent or '' for the core group (`/api/v1`). */
  group?: string;
  version: string;
  /** Plural resource name, e.g. `pods`. */
  resource: string;
  namespace?: string;
  name?: string;
}

/** Kinds of the resources kexp reads, by plural resource name and group. */
const KINDS: Record<string, { group: string; kind: string }> = {
  pods: { group: '', kind: 'Pod' },
  events: { group: '', kind: 'Event' },
  namespaces: { group: '', kind: 'Namespace' },
  resourcequotas: { group: '', kind: 'ResourceQuota' },
  nodes: { group: '', kind: 'Node' },
  replicationcontrollers: { group: '', kind: 'ReplicationController' },
  replicasets: { group: 'apps', kind: 'ReplicaSet' },
  daemonsets: { group: 'apps', kind: 'DaemonSet' },
  controllerrevisions: { group: 'apps', kind: 'ControllerRevision' },
  jobs: { group: 'batch', kind: 'Job' },
  deployments: { group: 'apps', kind: 'Deployment' },
  leases: { group: 'coordination.k8s.io', kind: 'Lease' },
};

/**
 * The request path of a collection (no `name`) or an object; every segment URI-encoded.
 * An empty, `.` or `..` segment is a RangeError (a bug: callers check names first): URL
 * parsing would resolve it (encoded or not) into another path.
 */
export function resourcePath(r: ResourceRef): string {
  const seg = (v: string) => {
    if (v === '' || v === '.' || v === '..') throw new RangeError(`resourcePath: refusing the path segment ${JSON.stringify(v)}`);
    return encodeURIComponent(v);
  };
  const root = r.group ? `/apis/${seg(r.group)}/${seg(r.version)}` : `/api/${seg(r.version)}`;
  const ns = r.namespace !== undefined ? `/namespaces/${seg(r.namespace)}` : '';
  const name = r.name !== undefined ? `/${seg(r.name)}` : '';
  return `${root}${ns}/${seg(r.resource)}${name}`;
}

export interface ExpectedKind {
  /** `PodList` for a collection, `Pod` for an object. */
  kind: string;
  /** `v1`, `apps/v1`, … */
  apiVersion: string;
  /** For a collection: the kind its items carry when they carry one. */
  itemKind?: string;
}

/** What the API server answers to `path` (query ignored), or undefined when kexp has no expectation. */
export function expectedKindOf(path: string): ExpectedKind | undefined {
  const pathname = path.split(/[?#]/, 1)[0];
  let segs: string[];
  try {
    segs = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return undefined;
  }
  let group = '';
  let version: string;
  let rest: string[];
  if (segs[0] === 'api' && segs.length >= 2) {
    version = segs[1];
    rest = segs.slice(2);
  } else if (segs[0] === 'apis' && segs.length >= 3) {
    group = segs[1];
    version = segs[2];
    rest = segs.slice(3);
  } else {
    return undefined;
  }
  // namespaces/NS/RESOURCE[/NAME] or RESOURCE[/NAME]; `namespaces/NS` alone is the Namespace object.
  if (rest[0] === 'namespaces' && rest.length >= 3) rest = rest.slice(2);
  if (rest.length < 1 || rest.length > 2) return undefined; // subresources are not read by kexp
  const known = KINDS[rest[0]];
  if (!known || known.group !== group) return undefined;
  const apiVersion = group ? `${group}/${version}` : version;
  return rest.length === 1 ? { kind: `${known.kind}List`, apiVersion, itemKind: known.kind } : { kind: known.kind, apiVersion };
}
