/**
 * Which ReplicaSets a file command (replay, audit) reports, chosen the kubectl way:
 *
 * - `-n NS NAME FILE…`: NAME (the first argument, when no file or directory of that name exists)
 *   is one ReplicaSet, the same as `--rs NS/NAME` (kept as an alias; both given and disagreeing
 *   is a usage error);
 * - `-n NS` alone: only the ReplicaSets in that namespace;
 * - `-A/--all-namespaces`: every namespace — the default for files, since a file has no
 *   current context; with -n, NAME or --rs it is a contradiction (usage error);
 * - `-l/--selector SEL`: only ReplicaSets whose labels (their newest version in the input)
 *   match the kubectl label selector SEL (parsed by src/model/selector.ts).
 *
 * One ReplicaSet (NAME or --rs) narrows the replay itself; the namespace and the selector filter
 * the finished report, and the exit code rests on the ReplicaSets reported.
 */
import fs from 'node:fs';
import type { Report } from '../analysis/report-types.js';
import type { LabelSelector } from '../model/objects.js';
import { labelSelectorMatches, parseSelectorString } from '../model/selector.js';
import { dns1123LabelProblem, dns1123SubdomainProblem } from '../sources/live/names.js';

export interface Selection {
  /** One ReplicaSet, namespace/name. */
  rs?: string;
  /** Only this namespace. */
  namespace?: string;
  selector?: LabelSelector;
  /** The selector as given, for messages. */
  selectorText?: string;
}

export interface SelectionFlags {
  rs?: string;
  namespace?: string;
  'all-namespaces'?: boolean;
  selector?: string;
}

/** `--rs`: namespace/name, each part non-empty without `/` or white space; throws Error for the usage line. */
export function checkRsFlag(rs: string | undefined): void {
  if (rs !== undefined && !/^[^/\s]+\/[^/\s]+$/.test(rs)) throw new Error(`--rs must be namespace/name, got "${rs}"`);
}

/** Splits the arguments into the ReplicaSet NAME (if any) and the inputs; throws Error for the usage line. */
export function resolveSelection(argv: string[], flags: SelectionFlags, exists: (p: string) => boolean = fs.existsSync): { selection: Selection; files: string[] } {
  let files = argv;
  let name: string | undefined;
  const ns = flags.namespace;
  if (ns !== undefined) {
    const bad = dns1123LabelProblem(ns);
    if (bad) throw new Error(`-n/--namespace "${ns}" ${bad}`);
    const first = argv[0];
    // Not a ReplicaSet name (upper case, `_`, a path): left as an input, reported missing as such.
    if (first !== undefined && argv.length > 1 && first !== '-' && !exists(first) && !dns1123SubdomainProblem(first)) {
      name = first;
      files = argv.slice(1);
    }
  }
  checkRsFlag(flags.rs);
  const rs = name !== undefined ? `${ns}/${name}` : flags.rs;
  if (name !== undefined && flags.rs !== undefined && flags.rs !== rs) throw new Error(`--rs ${flags.rs} and -n ${ns} ${name} name different ReplicaSets; give one`);
  if (ns !== undefined && flags.rs !== undefined && !flags.rs.startsWith(`${ns}/`)) throw new Error(`--rs ${flags.rs} is not in namespace ${ns} given by -n`);
  if (flags['all-namespaces'] && (ns !== undefined || rs !== undefined)) throw new Error(`-A/--all-namespaces cannot be combined with ${ns !== undefined ? '-n/--namespace' : '--rs'}`);
  const selection: Selection = {};
  if (rs !== undefined) selection.rs = rs;
  else if (ns !== undefined) selection.namespace = ns;
  if (flags.selector !== undefined) {
    selection.selector = parseSelectorString(flags.selector);
    selection.selectorText = flags.selector;
  }
  return { selection, files };
}

/** Keeps, in `report`, only the ReplicaSets (and audit write tallies) the selection chooses. */
export function applySelection(report: Report, sel: Selection, labels: Map<string, Record<string, string>>): void {
  const keep = (key: string): boolean => {
    if (sel.namespace !== undefined && !key.startsWith(`${sel.namespace}/`)) return false;
    // A ReplicaSet whose object the input never showed has no known labels: a selector cannot choose it.
    if (sel.selector && !(labels.has(key) && labelSelectorMatches(sel.selector, labels.get(key)!))) return false;
    return true;
  };
  if (sel.namespace === undefined && !sel.selector) return;
  report.replicaSets = report.replicaSets.filter((r) => keep(r.key));
  if (report.coverage.controllerWrites) report.coverage.controllerWrites = report.coverage.controllerWrites.filter((w) => keep(w.replicaSet));
}

/** What was asked for, for the "nothing matched" warning: `in namespace shop`, `matching app=web`. */
export function describeSelection(sel: Selection): string {
  return [sel.namespace !== undefined ? `in namespace ${sel.namespace}` : '', sel.selectorText !== undefined ? `matching -l ${sel.selectorText}` : ''].filter(Boolean).join(' ');
}
