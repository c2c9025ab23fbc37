/**
 * What a replay is given: the modelled version, what the input shows and declares about itself
 * (its Events, how it shows the controller's writes, its coverage, the controller's start-ups),
 * and the bounds on what is kept. Read by the driver (replay.ts), which hands each stage its part.
 *
 * Cost: none (a type). No I/O.
 */
import type { ControllerFactory } from '../../model/controller/controller.js';
import type { ReplicaSet } from '../../model/objects.js';
import type { K8sVersion } from '../../model/version.js';
import type { SourceRef } from '../../timeline/event.js';
import type { EngineOwnerKind } from './engine-controller.js';
import type { LeaseLine, LeaseObservation } from './leadership.js';

export interface ReplayOptions {
  version: K8sVersion;
  /** Builds the controller model the engine drives (e.g. replicaSetControllerFactory(version) in model/replicaset/). */
  controller: ControllerFactory<ReplicaSet>;
  /**
   * The owner kind the controller runs as, as the input names it (default the ReplicaSet). Its
   * owners must reach the engine as ReplicaSet-shaped events (converted before the engine).
   */
  owner?: EngineOwnerKind;
  /**
   * Called after each event is replayed; may throw to stop the replay (the pipeline's memory
   * bound, src/sources/memory-bound.ts: the model holds every owner of the input).
   */
  onEventReplayed?: () => void;
  /** Only report these ReplicaSets (`namespace/name`); the model still simulates every one. */
  rsFilter?: string;
  matchWindowMs?: number;
  /** The input declares it watched core/v1 Events (a missing FailedCreate then means none happened). */
  eventsWatched?: boolean;
  /**
   * What shows the controller's writes: `audit` — the controller's own requests (audit logs);
   * `watch` (default) — new pods with its controllerRef and its Events (see write-ledger.ts).
   */
  writeEvidence?: 'audit' | 'watch';
  /**
   * Audit inputs: whether the log records the controller's pod writes at all (known from a
   * pre-scan). Undefined: decided from the look-ahead (any such write seen so far).
   */
  writesRecorded?: boolean;
  /** kube-controller-manager start-ups from its own log: each resets every expectation record. */
  controllerStarts?: Array<{ at: number; source: SourceRef }>;
  /** The ends of the controller's pod-informer relists from its own log (reflector "Caches populated"): its view catches up there (view-alignment.ts). */
  podInformerRelists?: Array<{ at: number; source: SourceRef }>;
  /** kube-controller-manager leader-election lines from its own log (leadership.ts): no sync runs while nobody leads. */
  leaseLines?: LeaseLine[];
  /** Writes of the kube-controller-manager Lease (audit logs; leadership.ts): who led when. */
  leaseWrites?: LeaseObservation[];
  /** Max expectation changes kept per ReplicaSet (older ones are counted, not kept). */
  maxExpectationChanges?: number;
  /** Max series points kept per ReplicaSet. */
  maxSeriesPoints?: number;
  /**
   * End of what the input covers (epoch ms), read after the input is consumed — e.g. a
   * recording's end line, later than its last event. Syncs due until then still run.
   */
  coverageEnd?: () => number | undefined;
  /** Start of what the input covers (epoch ms), if earlier than its first event (e.g. the first audit record read). */
  coverageStart?: () => number | undefined;
  /** Receives events whose object the model cannot use (wrong shapes); they are not delivered. */
  onInvalidEvent?: (source: SourceRef, message: string) => void;
  /**
   * Tests only: answer the oracle by scanning the whole look-ahead instead of its index, to show
   * both give the same replay (test/analysis/lookahead-buffer.test.ts).
   */
  scanLookahead?: boolean;
}
