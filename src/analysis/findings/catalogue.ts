/**
 * The findings catalogue: every finding rule kexp applies, named, in the order its findings are
 * reported, by the input it reads. Each pipeline selects the rules that apply to its input:
 *
 * - `replay` — a ReplicaSet's replayed track (`kexp replay` of a watch recording, `kexp audit`,
 *   and the watch of `kexp explain --watch`); report-builder.ts;
 * - `snapshot` — one ReplicaSet's state in a snapshot (a snapshot file, `kexp explain`'s live
 *   read; the live-only rules fire on what only a live read holds); snapshot-analysis.ts;
 * - `events` — the controllers' Events about a ReplicaSet of a snapshot, and `events-only` —
 *   the rules added for a ReplicaSet known only from Events; report/snapshot-report.ts;
 * - `controller-log` — a kube-controller-manager log fused into a report; controller-log.ts.
 *
 * Adding a finding is one rule (finding-rule.ts: name, ids, what it reads, when it fires, the
 * Finding it yields) in the module of its concern, listed here where it belongs in the order.
 * Rules of different inputs may yield the same finding id (a ReplicaSet being deleted is seen
 * in a replay and in a snapshot), each worded for what its input shows.
 *
 * Pure: no I/O, no clock. findingsFor costs what its rules cost.
 */
import type { ReplayedTrack } from '../report/replayed-track.js';
import type { SnapshotState } from '../report/snapshot-state.js';
import type { Finding } from '../report-types.js';
import { consistencyGateSkips, controllerLogClock, controllerLogDisagrees, controllerLogGated, controllerLogLeak, informerLag, type ControllerLogFacts } from './controller-log-rules.js';
import { desiredChanges, failedWrites, replicaSetNotInInput, type EventFacts } from './event-rules.js';
import {
  clobberedDeleteKeys, deleteSatisfiedByNameReuse, expectationLeakExpired, expiryOverCreate, inputDisagreesWithModel, leakNamespaceTerminating, leakOpen,
} from './expectation-rules.js';
import { applyRules, type FindingRule } from './finding-rule.js';
import { jobFinalizerHeld, jobStatusRejected } from './job-tracking-rules.js';
import { excessDaemonPods } from './daemonset-rules.js';
import {
  controllerRestarted, heldDeletion, noLeader, informerBehind, invalidSelector, recordContradicted, rsBeingDeleted, rsRecreated, standaloneRsErrorLine, surplusPods, terminatingOrphansAtEnd, terminatingPods,
} from './replicaset-rules.js';
import * as snapshot from './snapshot-rules.js';
import { adoption, adoptionBlocked, backoffInflated, createFailures, otherActorWrites, replacementChurn, slowApiCalls, unexplainedWrites, writesWithheld } from './write-rules.js';

/** What each input's rules read. */
export interface FindingInputs {
  replay: ReplayedTrack;
  snapshot: SnapshotState;
  events: EventFacts;
  'events-only': EventFacts;
  'controller-log': ControllerLogFacts;
}

export type FindingInput = keyof FindingInputs;

type Catalogue = { readonly [I in FindingInput]: ReadonlyArray<FindingRule<FindingInputs[I], unknown>> };

const CATALOGUE: Catalogue = {
  replay: [
    expectationLeakExpired,
    leakNamespaceTerminating,
    leakOpen,
    heldDeletion,
    createFailures,
    slowApiCalls,
    surplusPods,
    expiryOverCreate,
    deleteSatisfiedByNameReuse,
    rsRecreated,
    clobberedDeleteKeys,
    terminatingPods,
    jobFinalizerHeld,
    jobStatusRejected,
    excessDaemonPods,
    terminatingOrphansAtEnd,
    rsBeingDeleted,
    adoptionBlocked,
    invalidSelector,
    inputDisagreesWithModel,
    recordContradicted,
    controllerRestarted,
    noLeader,
    unexplainedWrites,
    replacementChurn,
    backoffInflated,
    adoption,
    otherActorWrites,
    writesWithheld,
    informerBehind,
    standaloneRsErrorLine,
  ],
  snapshot: [
    snapshot.rsBeingDeleted,
    snapshot.namespaceTerminating,
    snapshot.writeFailures,
    snapshot.quotaExhausted,
    snapshot.statusStale,
    snapshot.heldDeletionSnapshot,
    snapshot.noProgress,
    snapshot.terminatingPods,
    snapshot.orphansToAdopt,
    snapshot.terminatingOrphans,
    snapshot.overlappingSelector,
    snapshot.ownerMissing,
    snapshot.controllerLeader,
    snapshot.readForbidden,
    snapshot.podsNotInInput,
  ],
  events: [desiredChanges],
  'events-only': [failedWrites, replicaSetNotInInput],
  'controller-log': [controllerLogLeak, controllerLogGated, consistencyGateSkips, controllerLogDisagrees, controllerLogClock, informerLag],
};

/** The rules that apply to `input`, in report order. */
export function findingRules<I extends FindingInput>(input: I): ReadonlyArray<FindingRule<FindingInputs[I], unknown>> {
  return CATALOGUE[input];
}

/** The findings of `input`'s rules on `facts`, in rule order (unsorted). */
export function findingsFor<I extends FindingInput>(input: I, facts: FindingInputs[I]): Finding[] {
  return applyRules(findingRules(input), facts);
}

/** Every rule of the catalogue with the input it reads (for documentation and tests). */
export function catalogueEntries(): Array<{ input: FindingInput; name: string; ids: readonly string[]; reads: string; fires: string }> {
  return (Object.keys(CATALOGUE) as FindingInput[]).flatMap((input) =>
    (CATALOGUE[input] as ReadonlyArray<Pick<FindingRule<unknown>, 'name' | 'ids' | 'reads' | 'fires'>>).map((r) => ({ input, name: r.name, ids: r.ids, reads: r.reads, fires: r.fires })));
}
