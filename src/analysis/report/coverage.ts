/**
 * The report's inputs as its coverage lists them: one InputSummary per input file (times as
 * RFC 3339), and one line per time basis saying where the times of such an input come from.
 * Shared by the replay's report, a snapshot's, and the fusion of a kube-controller-manager log
 * (whose files are inputs too).
 *
 * Pure; O(1) per input.
 */
import type { FileCoverage } from '../../sources/source.js';
import { iso } from '../iso.js';
import type { InputSummary } from '../report-types.js';

export function inputSummary(i: FileCoverage): InputSummary {
  return { file: i.file, format: i.format, timeBasis: i.timeBasis, start: iso(i.start), end: iso(i.end), events: i.events, problems: i.problems, endMarker: i.endMarker };
}

/** Where the times of inputs with this time basis come from. */
export function timeBasisLine(b: FileCoverage['timeBasis']): string {
  return b === 'received'
    ? 'received: events are stamped with kexp\'s receive time, taken as the time kube-controller-manager\'s informers saw them'
    : b === 'object-timestamp'
      ? 'object-timestamp: the input has no receive times; times come from object metadata (whole seconds, missing for many updates), so window edges are approximate and ordering within a second follows the file'
      : b === 'audit-stage'
        ? 'audit-stage: times are the apiserver\'s stageTimestamp (µs) of each write'
        : 'log: times are kube-controller-manager log timestamps';
}
