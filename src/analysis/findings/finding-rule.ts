/**
 * A finding rule: one named check of the findings catalogue (catalogue.ts). It says what it
 * reads of its input and when it fires, and yields the Finding — severity, basis, explanation,
 * next step and evidence — for what it found. A rule that tells two cases apart (an expired
 * leak or only informer lag) names every finding id it may yield in `ids`.
 *
 * A rule looks at its input once, or at each of its subjects in turn (`each`: a track's
 * windows, its divergences, a snapshot's unreadable resources). Contract of applyRules:
 * findings come in catalogue order; consecutive rules that share one `each` (the same function)
 * read each subject in turn — for each window, every window rule — so the findings of one
 * subject stay together, as one loop over the subjects would write them.
 *
 * Pure: no I/O, no clock. applyRules costs the sum of its rules (each is O(its input)).
 */
import type { Finding } from '../report-types.js';

export interface FindingRule<C, S = C> {
  /** The rule's name, unique among the rules of its input: the id of the finding it yields (the first of `ids`). */
  readonly name: string;
  /** Every finding id the rule may yield. */
  readonly ids: readonly string[];
  /** What it reads of its input. */
  readonly reads: string;
  /** When it fires. */
  readonly fires: string;
  /** The subjects it looks at in turn; absent: the input itself, once. */
  readonly each?: (input: C) => Iterable<S>;
  /** The finding(s) for one subject; undefined (or none) when the rule does not fire. */
  find(subject: S, input: C): Finding | Finding[] | undefined;
}

/** The findings of `rules` on `input`, in rule order (see the module comment for `each`). */
export function applyRules<C>(rules: ReadonlyArray<FindingRule<C, unknown>>, input: C): Finding[] {
  const out: Finding[] = [];
  const add = (f: Finding | Finding[] | undefined) => {
    if (Array.isArray(f)) out.push(...f);
    else if (f) out.push(f);
  };
  for (let i = 0; i < rules.length;) {
    const each = rules[i]!.each;
    let j = i + 1;
    if (!each) {
      add(rules[i]!.find(input, input));
    } else {
      while (j < rules.length && rules[j]!.each === each) j++;
      for (const subject of each(input)) for (let k = i; k < j; k++) add(rules[k]!.find(subject, input));
    }
    i = j;
  }
  return out;
}

const SEVERITY_ORDER = { critical: 0, warning: 1, info: 2 } as const;

/**
 * Findings that explain another's consequence more precisely, so that of equal severity they come
 * first (and are the report's Cause): the workqueue backoff inflated by failed creates explains
 * how long the failing creates stalled the ReplicaSet (kubernetes#98656).
 */
const REFINES: Readonly<Record<string, readonly string[]>> = {
  'backoff-inflated': ['create-failures'],
};

function refines(a: Finding, b: Finding): boolean {
  return REFINES[a.id]?.includes(b.id) ?? false;
}

/** Findings in report order: most severe first, then the more precise of two explanations, then by time. */
export function compareFindings(a: Finding, b: Finding): number {
  return SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]
    || (refines(a, b) ? -1 : refines(b, a) ? 1 : 0)
    || (a.at ?? '').localeCompare(b.at ?? '');
}

/** Sorts findings in place in report order (compareFindings; stable: rule order within a tie). */
export function sortFindings(findings: Finding[]): Finding[] {
  return findings.sort(compareFindings);
}
