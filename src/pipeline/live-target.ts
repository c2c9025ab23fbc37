/**
 * The live target: which object `kexp record` and `kexp explain` follow, parsed from the command
 * line in kubectl's forms — `TYPE/NAME` or `TYPE NAME` (two arguments, the kubectl habit), the
 * type by any of the names kubectl accepts for it (short name, singular, plural, `plural.group`
 * and `singular.group`; case-insensitive, as kubectl's RESTMapper matches them) — or a bare NAME,
 * which is a ReplicaSet as it always was:
 *
 *   rs | replicaset | replicasets | replicaset.apps | replicasets.apps                  ReplicaSet
 *   rc | replicationcontroller | replicationcontrollers                                 ReplicationController
 *   ds | daemonset | daemonsets | daemonset.apps | daemonsets.apps                       DaemonSet
 *   job | jobs | job.batch | jobs.batch                                                  Job
 *   deploy | deployment | deployments | deployment.apps | deployments.apps               Deployment
 *
 * Contract: `parseLiveTarget(args)` returns `{ kind, name }` with the name checked as the API
 * server checks it (a DNS-1123 subdomain: names.ts checkObjectName, an InvalidNameError) or
 * throws an Error whose one line names the accepted forms. One parser for every live command;
 * a command that takes only some kinds says so with `requireKinds`. Pure, O(length of the args).
 */
import { checkObjectName } from '../sources/live/names.js';

/** kubectl's short resource name of each kind a live command can follow. */
export type LiveTargetKind = 'rs' | 'rc' | 'ds' | 'job' | 'deployment';

export interface LiveTarget {
  kind: LiveTargetKind;
  name: string;
}

/** The type names kubectl accepts, per kind (all lower case). */
const TYPE_NAMES: Readonly<Record<LiveTargetKind, readonly string[]>> = {
  rs: ['rs', 'replicaset', 'replicasets', 'replicaset.apps', 'replicasets.apps'],
  rc: ['rc', 'replicationcontroller', 'replicationcontrollers'],
  ds: ['ds', 'daemonset', 'daemonsets', 'daemonset.apps', 'daemonsets.apps'],
  job: ['job', 'jobs', 'job.batch', 'jobs.batch'],
  deployment: ['deploy', 'deployment', 'deployments', 'deployment.apps', 'deployments.apps'],
};

const BY_TYPE_NAME: ReadonlyMap<string, LiveTargetKind> = new Map(
  (Object.entries(TYPE_NAMES) as Array<[LiveTargetKind, readonly string[]]>).flatMap(([kind, names]) => names.map((n) => [n, kind] as const)),
);

/** The API kind of each target kind (messages, not-found errors). */
export const KIND_NAMES: Readonly<Record<LiveTargetKind, string>> = {
  rs: 'ReplicaSet',
  rc: 'ReplicationController',
  ds: 'DaemonSet',
  job: 'Job',
  deployment: 'Deployment',
};

/** The accepted forms, for error messages. */
export const TARGET_FORMS = 'NAME (a ReplicaSet), rs/NAME, rc/NAME, ds/NAME, job/NAME, deployment/NAME, or TYPE NAME';

/** The kind a type name stands for, or undefined. */
export function kindOfTypeName(type: string): LiveTargetKind | undefined {
  return BY_TYPE_NAME.get(type.toLowerCase());
}

/**
 * Parses the target from the command's one or two arguments. Throws Error (a usage error for the
 * commands) naming the accepted forms; InvalidNameError when the name is not a valid object name.
 */
export function parseLiveTarget(args: readonly string[]): LiveTarget {
  const [first, second, ...rest] = args;
  if (first === undefined || first === '') throw new Error(`no target given: expected ${TARGET_FORMS}`);
  if (rest.length > 0) throw new Error(`too many arguments (${JSON.stringify(args.join(' ')).slice(0, 80)}): expected ${TARGET_FORMS}`);
  let type: string | undefined;
  let name: string;
  if (second !== undefined) {
    if (first.includes('/')) throw new Error(`"${first}" already names its object: give TYPE/NAME or TYPE NAME, not both (expected ${TARGET_FORMS})`);
    if (second.includes('/')) throw new Error(`"${second}" is not an object name: give TYPE NAME or TYPE/NAME (expected ${TARGET_FORMS})`);
    type = first;
    name = second;
  } else {
    const slash = first.indexOf('/');
    if (slash >= 0) {
      type = first.slice(0, slash);
      name = first.slice(slash + 1);
      if (name.includes('/')) throw new Error(`"${first}" has more than one "/": expected ${TARGET_FORMS}`);
    } else {
      name = first;
    }
  }
  let kind: LiveTargetKind = 'rs';
  if (type !== undefined) {
    const k = kindOfTypeName(type);
    if (!k) throw new Error(`"${type}" is not a resource type kexp follows: expected ${TARGET_FORMS}`);
    kind = k;
  }
  if (name === '') throw new Error(`no ${KIND_NAMES[kind]} name after "${type}/": expected ${TARGET_FORMS}`);
  return { kind, name: checkObjectName(name, KIND_NAMES[kind]) };
}

/** Throws Error when `t` is of a kind the command does not take, naming what it does take. */
export function requireKinds(t: LiveTarget, kinds: readonly LiveTargetKind[], command: string): void {
  if (kinds.includes(t.kind)) return;
  throw new Error(`kexp ${command} does not take a ${KIND_NAMES[t.kind]} (${t.kind}/${t.name}): it takes ${kinds.map((k) => (k === 'rs' ? 'NAME or rs/NAME' : `${k}/NAME`)).join(', ')}`);
}
