/**
 * Finding rules of the controllers' Events about one ReplicaSet (in a snapshot, or Events alone):
 * the desired-count changes the Deployment controller's ScalingReplicaSet Events show, and, for
 * a ReplicaSet the input knows only from Events, its failed writes and the fact that its state
 * is not in the input.
 *
 * Each rule reads EventFacts. Pure: no I/O, no clock; each rule is O(Events of the ReplicaSet).
 */
import { iso } from '../iso.js';
import type { CountRange, RoundReport } from '../report-types.js';
import type { DesiredChange } from '../report/scaling-events.js';
import type { SnapshotRefs } from '../report/snapshot-refs.js';
import { plural } from '../report/wording.js';
import type { FindingRule } from './finding-rule.js';

/** What the controllers' Events tell about one ReplicaSet. */
export interface EventFacts {
  rsRef: { namespace: string; name: string };
  /** Its desired-count changes (ScalingReplicaSet Events), oldest first. */
  changes: DesiredChange[];
  /** Its rounds (the ReplicaSet controller's Events). */
  rounds: RoundReport[];
  /** The desired count's range from the changes alone. */
  desired?: CountRange;
  /** The time of the input (a snapshot's time). */
  at?: number;
  refs: SnapshotRefs;
}

export const desiredChanges: FindingRule<EventFacts> = {
  name: 'desired-changes',
  ids: ['desired-changes'],
  reads: 'the Deployment controller\'s ScalingReplicaSet Events about the ReplicaSet',
  fires: 'any such Event: the demand the ReplicaSet controller was following (observed: the Deployment controller\'s own Events)',
  find({ changes, refs }) {
    if (changes.length === 0) return undefined;
    const steps = changes.map((c) => `${c.from !== undefined ? `${c.from}→` : '→'}${c.to}${c.at !== undefined ? ` at ${iso(c.at)}` : ''}${c.count > 1 ? ` (×${c.count})` : ''}`);
    const last = changes[changes.length - 1]!;
    const deps = [...new Set(changes.map((c) => c.deployment.name))];
    return {
      id: 'desired-changes', severity: 'info', basis: 'observed', ...(last.at !== undefined ? { at: iso(last.at) } : {}),
      title: `Desired count changed ${plural(changes.length, 'time')} by Deployment ${deps.join(', ')}: ${steps.slice(-5).join(', ')}${steps.length > 5 ? ` (and ${steps.length - 5} earlier)` : ''}`,
      explanation: 'ScalingReplicaSet Events of the Deployment controller: each is one write of this ReplicaSet\'s spec.replicas (a rollout or a scale of the Deployment). The ReplicaSet controller then creates or deletes pods towards the new count; its own Events are the rounds.',
      nextStep: 'None: this is the demand the ReplicaSet controller was following.',
      evidence: changes.slice(-5).map((c) => refs.event(c.event)),
    };
  },
};

export const failedWrites: FindingRule<EventFacts> = {
  name: 'failed-writes',
  ids: ['failed-writes'],
  reads: 'the FailedCreate / FailedDelete Events of a ReplicaSet known only from Events',
  fires: 'any such Event (whether it still fails is not visible)',
  find({ rounds, rsRef }) {
    const failures = rounds.filter((r) => r.errors.length > 0);
    if (!failures.length) return undefined;
    const lastF = failures[failures.length - 1]!;
    return {
      id: 'failed-writes', severity: 'warning', basis: 'observed', at: lastF.at,
      title: `${plural(failures.reduce((s, r) => s + r.n, 0), 'failed pod write')} (FailedCreate / FailedDelete Events)`,
      explanation: `The ReplicaSet controller reported: ${lastF.errors[0] ?? '?'}. Without the ReplicaSet and its pods kexp cannot tell whether it is still failing.`,
      nextStep: `Read the ReplicaSet's current state: \`kexp explain ${rsRef.name} -n ${rsRef.namespace}\`, or add \`kubectl get rs,pods -n ${rsRef.namespace} -o json\` to the input.`,
      evidence: failures.slice(-3).map((r) => r.evidence),
    };
  },
};

export const replicaSetNotInInput: FindingRule<EventFacts> = {
  name: 'replicaset-not-in-input',
  ids: ['replicaset-not-in-input'],
  reads: 'that the input holds Events about the ReplicaSet but not the ReplicaSet itself',
  fires: 'always, for a ReplicaSet known only from Events: its state is unknown',
  find({ at, desired, rsRef }) {
    return {
      id: 'replicaset-not-in-input', severity: 'info', basis: 'unknown', ...(at !== undefined ? { at: iso(at) } : {}),
      title: 'Only Events: the ReplicaSet object and its pods are not in the input, so its state is unknown',
      explanation: `The rounds come from the controllers' Events (one write per occurrence; Events are aggregated after 9 similar ones in 10 minutes, rate-limited, and expire after an hour, so some writes may be missing). Desired${desired ? ' (from ScalingReplicaSet Events only)' : ''}, active and ready pods and the controller's expectations at the end are not visible.`,
      nextStep: `Include the objects: \`kubectl get rs,pods,events -n ${rsRef.namespace} -o json\` (or a cluster-info dump), or record a watch with \`kexp record\`.`,
      evidence: [],
    };
  },
};
