/**
 * Lost objects: findings that rest on an owner's pods after the input lost one of them.
 *
 * A create the apiserver answered 2xx without the object it created (an audited create whose
 * responseObject is null or damaged) names the owner it was made for but not the pod: from
 * that moment kexp's pods of that owner are not the controller's (the controller's informer
 * delivered the pod; kexp never saw it), so every count-based conclusion kexp draws after it —
 * a surplus create, a status write "counting a deleted pod", a withheld write — is not proven.
 * The source marks the loss as a gap scoped to the owner (GapEvent.owner, reason
 * `object-missing`); this rule turns each finding of that owner at or after the first such gap
 * into basis `unknown` and says why, so the verdict and the exit code (report-exit.ts) no
 * longer rest on it. Findings before the loss keep their basis.
 *
 * Pure; cost O(gaps + findings) per owner.
 */
import type { GapEvent } from '../../timeline/event.js';
import type { Finding } from '../report-types.js';
import { iso } from '../iso.js';

/** Reason of the gap an audited create without its object leaves (audit-source.ts). */
export const OBJECT_MISSING = 'object-missing';

/** The first gap at which the input lost an object of owner `kind` `key` (`ns/name`), if any. */
export function firstLostObject(gaps: readonly GapEvent[], kind: string, key: string): GapEvent | undefined {
  let first: GapEvent | undefined;
  for (const g of gaps) {
    if (g.reason !== OBJECT_MISSING || !g.owner || g.owner.kind !== kind || `${g.owner.namespace}/${g.owner.name}` !== key) continue;
    if (!first || g.at < first.at) first = g;
  }
  return first;
}

/** `findings` with each one at or after `lost` made unknown (a new array; findings before it unchanged). */
export function unprovenAfterLoss(findings: readonly Finding[], lost: GapEvent | undefined): Finding[] {
  if (!lost) return [...findings];
  const from = iso(lost.at)!;
  const cite = `${lost.source.file}:${lost.source.line}`;
  return findings.map((f) => {
    if (f.basis === 'unknown' || f.at === undefined || f.at < from) return f;
    return {
      ...f,
      basis: 'unknown',
      explanation: `${f.explanation} Not proven: at ${from} the input lost the object of one of this owner's creates (${cite}), so from then on kexp's pods are not the controller's.`,
      evidence: f.evidence.includes(cite) ? f.evidence : [...f.evidence, cite],
    };
  });
}
