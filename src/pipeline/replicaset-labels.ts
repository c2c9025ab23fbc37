/**
 * The labels of every ReplicaSet an input showed (its newest version; a deleted ReplicaSet keeps
 * the labels it had), collected while the events pass by, so that `-l/--selector` can choose
 * ReplicaSets from the finished report without the analysis knowing about selectors.
 */
import type { TimelineEvent } from '../timeline/event.js';

export type ReplicaSetLabels = Map<string, Record<string, string>>;

export async function* tapReplicaSetLabels<T extends TimelineEvent>(src: AsyncIterable<T>, into: ReplicaSetLabels): AsyncGenerator<T> {
  for await (const e of src) {
    seeReplicaSetLabels(e, into);
    yield e;
  }
}

/** Notes the labels of one event's ReplicaSet (the tap's per-event step, for synchronous pipelines). */
export function seeReplicaSetLabels(e: TimelineEvent, into: ReplicaSetLabels): void {
  if (e.type === 'observed' && e.kind === 'ReplicaSet') {
    const md = e.object.metadata;
    // A deletion may carry only the name (an audit delete has no body): keep what was known.
    if (e.watchType === 'DELETED' && into.has(`${md.namespace ?? ''}/${md.name ?? ''}`)) return;
    into.set(`${md.namespace ?? ''}/${md.name ?? ''}`, { ...(md.labels ?? {}) });
  }
}
