/**
 * TimelineEvent: the only thing that crosses from sources (src/sources) to the engine
 * (src/model, src/analysis). Every source — a live watch, a recording, a watch dump, an
 * audit log, a kube-controller-manager log — produces a time-ordered stream of these.
 *
 * Times are epoch milliseconds (number, may carry a fraction for µs sources).
 * `source` names the evidence (file and 1-based line, or a stream offset) so every
 * finding can cite it.
 */
import type { CoreEvent, DaemonSet, Job, Namespace, Node, Pod, ReplicaSet, ReplicationController } from '../model/objects.js';

export interface SourceRef {
  /** File path as given by the user, `-` for stdin, or a stream name for live input. */
  file: string;
  /** 1-based line (or first line of a multi-line document). */
  line: number;
}

/**
 * How `at` was obtained:
 * - `received`: kexp stamped the watch event when it arrived (recording, live watch);
 * - `object-timestamp`: no receive time in the input; derived from the object's own
 *   metadata (creationTimestamp, deletionTimestamp − grace, condition times): whole seconds,
 *   and missing for most MODIFIED events, so ordering within a second is the file order;
 * - `audit-stage`: the stageTimestamp of the audit event (µs, apiserver clock);
 * - `log`: the timestamp of a kube-controller-manager log line.
 */
export type TimeBasis = 'received' | 'object-timestamp' | 'audit-stage' | 'log';

export type WatchType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface Base {
  /** Epoch milliseconds. */
  at: number;
  atBasis: TimeBasis;
  source: SourceRef;
}

/**
 * What an informer would deliver for one object change. `listed`: the event is an item of a
 * watch's initial LIST (a kexp recording's `synthetic: "initial-list"`), so the object's own
 * history (an Event's count, its timestamps) is from before the input began; or of a relist
 * (`synthetic: "relist"`: its revision is the object's last write's, not the time it was read).
 */
export type ObservedEvent = Base & { type: 'observed'; listed?: 'initial-list' | 'relist' } & (
  | { kind: 'Pod'; watchType: WatchType; object: Pod }
  | { kind: 'ReplicaSet'; watchType: WatchType; object: ReplicaSet }
  /** core/v1, as the API serves it (its selector a label map); the RC manager converts it (model/replicationcontroller/). */
  | { kind: 'ReplicationController'; watchType: WatchType; object: ReplicationController }
  | { kind: 'DaemonSet'; watchType: WatchType; object: DaemonSet }
  | { kind: 'Node'; watchType: WatchType; object: Node }
  | { kind: 'Job'; watchType: WatchType; object: Job }
  | { kind: 'Event'; watchType: WatchType; object: CoreEvent }
  | { kind: 'Namespace'; watchType: WatchType; object: Namespace }
);

export interface StatusCause {
  type?: string;
  message?: string;
  field?: string;
}

/** How the owner of a pod write was determined. */
export type OwnerBasis = 'request' | 'response' | 'patch' | 'earlier-state';

/** The controller owner of the pod a write concerns: owned by kind/name/uid, none, or unknown. */
export type WriteOwner =
  | { state: 'owned'; kind: string; name: string; uid: string; basis: OwnerBasis }
  | { state: 'none'; basis: OwnerBasis }
  | { state: 'unknown' };

/**
 * The pod-owning controllers of kube-controller-manager, named as their API client is: the
 * service account (`system:serviceaccount:kube-system:NAME`, with
 * `--use-service-account-credentials`) or the user-agent suffix (without it) —
 * controllerContext.NewClient("replicaset-controller") in
 * cmd/kube-controller-manager/app/apps.go, and likewise "replication-controller" (core.go),
 * "daemon-set-controller" (apps.go) and "job-controller" (batch.go). A write carries the name of
 * the component that made it, so a reader selects one controller's writes by name
 * (`e.actor.controller === 'replicaset-controller'`), whatever controller kinds kexp models.
 */
export type ControllerComponent = 'replicaset-controller' | 'replication-controller' | 'daemon-set-controller' | 'job-controller';

/** The verbs that change an object: the only ones a write event carries (sources/audit/relevance.ts WRITE_VERBS). */
export type WriteVerb = 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** A request some client made to the apiserver (audit logs). */
export interface WriteEvent extends Base {
  type: 'write';
  auditID?: string;
  actor: {
    /** The authenticated user (with impersonation, the real one). */
    username: string;
    /** The user the request impersonated (audit `impersonatedUser`): never the controller's write. */
    impersonated?: string;
    userAgent?: string;
    /**
     * The kube-controller-manager controller whose client made the request, when it is one of the
     * pod-owning controllers (ControllerComponent); absent for anyone else.
     */
    controller?: ControllerComponent;
    /**
     * The credential the request was authenticated with (audit `user.extra`
     * `authentication.kubernetes.io/credential-id`: a token's JTI, a certificate's hash). A new
     * one for the controller's service account means a new token: a restarted
     * kube-controller-manager, or a token rotation.
     */
    credential?: string;
  };
  /** Pod writes: the pod's controller owner as the source determined it (audit attribution). */
  owner?: WriteOwner;
  verb: WriteVerb;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  /** Epoch ms the apiserver received the request (µs precision). */
  receivedAt?: number;
  status: { code: number; reason?: string; message?: string; causes?: StatusCause[] };
  level?: 'Metadata' | 'Request' | 'RequestResponse';
  requestObject?: unknown;
  responseObject?: unknown;
}

/** Kinds of kube-controller-manager log lines kexp understands (see controller-semantics.md §8). */
export type ControllerLogKind =
  | 'setting-expectations'
  | 'lowered-expectations'
  | 'raised-expectations'
  | 'expectations-fulfilled'
  | 'expectations-expired'
  | 'still-waiting'
  | 'never-recorded'
  | 'waiting-on-deletions'
  | 'clobbering-delete-keys'
  | 'received-delete'
  | 'too-few-replicas'
  | 'too-many-replicas'
  | 'slow-start-failure'
  | 'failed-create'
  | 'failed-delete'
  | 'finished-syncing'
  | 'sync-failed'
  | 'rs-deleted-sync'
  | 'controller-started'
  | 'lease-attempt'
  | 'lease-acquired'
  | 'lease-lost'
  | 'controller-created-pod'
  | 'deleting-pod'
  | 'status-update'
  | 'controller-event'
  | 'finalizers-expected'
  | 'finalizer-removal-observed'
  | 'other';

/**
 * An Event a controller recorded, as its event broadcaster logs it (client-go tools/record
 * event.go: StartStructuredLogging's "Event occurred", StartLogging's `Event(%#v): type: … reason: …`).
 */
export interface LoggedEvent {
  /** The involved object's kind (`ReplicaSet`, `Deployment`, …). */
  involvedKind: string;
  type: string;
  reason: string;
  /** The Event's message (`Created pod: web-x7k2p`, `Error creating: pods "web-" is forbidden: exceeded quota: …`). */
  note: string;
  /** `namespace/name` of the pod a SuccessfulCreate / SuccessfulDelete / FailedDelete message names. */
  pod?: string;
}

/** One parsed kube-controller-manager log line about a ReplicaSet. */
export interface ControllerLogEvent extends Base {
  type: 'controller-log';
  logKind: ControllerLogKind;
  /**
   * The kind of the controller the line is about when it is not a ReplicaSet: a line of the
   * ReplicationController manager (logger `replicationcontroller-controller`, `kind="ReplicationController"`,
   * or a key only RC lines name), which runs the ReplicaSet code (same messages, same keys); of the
   * DaemonSet or Job controller (their logger, caller file, message, or a key only their lines name;
   * src/sources/kcm-log/attribute.ts).
   */
  ownerKind?: 'ReplicationController' | 'DaemonSet' | 'Job';
  /** `namespace/name` of the ReplicaSet the line is about, when it names one. */
  rsKey?: string;
  add?: number;
  del?: number;
  /** Delete keys (`ns/name`) for waiting-on-deletions / clobbering lines. */
  keys?: string[];
  /** need / creating / deleting / podsSkipped numbers when the line has them. */
  numbers?: Record<string, number>;
  /** logKind `controller-event`: the Event the line logs. */
  event?: LoggedEvent;
  message: string;
}

/** The source itself lost continuity; the engine cannot know what happened inside. */
export interface GapEvent extends Base {
  type: 'gap';
  /** e.g. `watch-relist` (410 Expired), `watch-reconnect`, `file-boundary`, `stream-error`. */
  reason: string;
  /** Epoch ms the gap ends, when known (otherwise it ends at `at`). */
  until?: number;
  detail?: string;
  /** Kinds whose continuity is affected, if known. */
  kinds?: string[];
  /**
   * The one owner whose objects the gap hides (an audited create that lost its object names its
   * controllerRef); unset: the objects of every owner of `kinds`.
   */
  owner?: { kind: string; namespace: string; name: string };
}

export type TimelineEvent = ObservedEvent | WriteEvent | ControllerLogEvent | GapEvent;

/** Stable ordering: by time, then by the order sources produced them (seq). */
export function compareTimeline(a: { at: number; seq?: number }, b: { at: number; seq?: number }): number {
  return a.at - b.at || (a.seq ?? 0) - (b.seq ?? 0);
}
