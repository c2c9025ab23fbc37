/**
 * Redaction applied to every object before it is written to a recording (on by default;
 * `kexp record --no-redact` turns it off). It works by ALLOW-LIST: only the fields kexp's
 * analysis reads keep their values (src/sources/live/redaction-keep.ts lists them per kind);
 * every other string or number, at any depth, becomes "REDACTED". A deny-list (env values,
 * Secret data, credential-looking annotation names) missed tokens in container args and
 * command, probe httpHeaders, lifecycle exec hooks, flexVolume options, CSI volumeAttributes and
 * DSN-style annotations; an allow-list cannot miss a field it has never heard of.
 *
 * What is kept, in short: apiVersion/kind; metadata identity (name, generateName, namespace,
 * uid, resourceVersion, generation, creation/deletion timestamps, deletion grace,
 * ownerReferences, finalizers), labels, and the values of a few annotations
 * (`controller.kubernetes.io/pod-deletion-cost`, `deployment.kubernetes.io/revision…`);
 * managedFields' manager/operation/time/subresource with `fieldsV1` cut to its top-level keys;
 * a Pod's nodeName, container names, init containers' restartPolicy, phase, status reason,
 * condition types/statuses/times, container restart counts and readiness; a ReplicaSet's or
 * Deployment's replicas, minReadySeconds, selector, template labels and status counts and
 * conditions (with messages); a Namespace's phase and conditions; an Event's object reference,
 * reason, type, counts, times and source component, and its message only when it is about a
 * ReplicaSet or Deployment. Kinds kexp does not analyse (Secret, ConfigMap, …) keep identity only.
 *
 * Why keys are kept and only values replaced (rather than dropping subtrees): an operator
 * reading a redacted recording still sees what was there (`"args": ["REDACTED", "REDACTED"]`,
 * an `env` entry named `DB_PASSWORD`, which annotations a pod had), which helps tell "absent"
 * from "hidden". Booleans and null are kept (one bit cannot carry a credential). Map keys
 * (annotation names, env var names, Secret data keys) are therefore NOT secret-free, and neither
 * are label values, names and the Event/condition messages kexp quotes.
 *
 * Nesting deeper than MAX_DEPTH (nothing kexp reads is deeper than 8) is replaced whole, so a
 * hostile object cannot exhaust the stack here or in the JSON writer.
 *
 * Returns a new object; the input is not modified (kept strings are shared, which is safe: they
 * are immutable).
 */
import { isRecord } from '../../model/objects.js';
import { keepSetFor, LEAF, type Keep } from './redaction-keep.js';

export const REDACTED = 'REDACTED';

const MAX_DEPTH = 64;

type Obj = Record<string, unknown>;

/**
 * Sets a property as an own data property. Plain assignment of the key `__proto__` (a legal
 * JSON key, which JSON.parse makes an own property) would set the prototype instead.
 */
function put(o: Obj, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** Everything in `v` replaced: strings and numbers → REDACTED; booleans and null kept; keys kept. */
function scrub(v: unknown, depth: number): unknown {
  if (v === null || typeof v === 'boolean') return v;
  if (depth > MAX_DEPTH) return REDACTED;
  if (Array.isArray(v)) return v.map((x) => scrub(x, depth + 1));
  if (isRecord(v)) {
    const out: Obj = {};
    for (const k of Object.keys(v)) put(out, k, scrub(v[k], depth + 1));
    return out;
  }
  return REDACTED;
}

function isScalar(v: unknown): boolean {
  return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

/** `v` filtered by the keep-set `keep` (undefined: nothing is kept). */
function apply(v: unknown, keep: Keep | undefined, depth: number): unknown {
  if (keep === undefined || depth > MAX_DEPTH) return scrub(v, depth);
  if (Array.isArray(v)) return v.map((x) => apply(x, keep, depth + 1));
  if (keep === LEAF) return isScalar(v) ? v : scrub(v, depth);
  if (typeof keep === 'function') return keep(v, (x) => scrub(x, depth));
  if (!isRecord(v)) return scrub(v, depth);
  const out: Obj = {};
  const other = Object.hasOwn(keep, '*') ? keep['*'] : undefined;
  for (const k of Object.keys(v)) put(out, k, apply(v[k], Object.hasOwn(keep, k) ? keep[k] : other, depth + 1));
  return out;
}

/** The redacted copy of one API object (see the module comment for what is kept). */
export function redactObject(obj: Obj): Obj {
  return apply(obj, keepSetFor(obj), 0) as Obj;
}
