/**
 * The machine-readable outputs, `-o json` and `-o yaml` (kubectl's two): the same document,
 * JSON with two-space indent, YAML through the `yaml` package (a YAML 1.2 document; strings that
 * would read as another type are quoted). Both keep every string exactly as the input had it:
 * escaping is the format's own, never the terminal sanitiser's.
 *
 * JSON is rendered in pieces (`jsonChunks`, written by src/cli/output.ts): the report of a
 * multi-gigabyte audit log is tens of megabytes of JSON, and one `JSON.stringify` of it holds
 * the whole text (and its growth buffers) in memory at the end of the run, the command's peak.
 * The pieces are byte for byte `JSON.stringify(value, null, 2)` (test/render/structured.test.ts).
 * Written here rather than with a streaming-JSON library because none promises byte identity
 * with JSON.stringify's layout, which the golden reports and users' diffs rely on; it is a
 * short walk over arrays and objects. Pure: no I/O.
 */
import { stringify } from 'yaml';

export type StructuredOutput = 'json' | 'yaml';

export function renderStructured(value: unknown, output: StructuredOutput): string {
  if (output === 'yaml') return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
  return JSON.stringify(value, null, 2) + '\n';
}

/** Containers nested deeper than this are stringified whole (the pieces stay small enough). */
const SPLIT_DEPTH = 4;

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
function omitted(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

function hasToJSON(v: unknown): boolean {
  return (typeof v === 'object' || typeof v === 'function') && v !== null && typeof (v as { toJSON?: unknown }).toJSON === 'function';
}

/**
 * True when every value down to SPLIT_DEPTH is plain JSON data — arrays, objects whose prototype
 * is Object's (or none), primitives — and none has a toJSON: then splitting at those levels
 * gives exactly JSON.stringify's text. Anything else (a Date, a boxed string, a toJSON that
 * depends on its key or returns undefined) is left to one JSON.stringify of the whole value.
 */
function splittable(v: unknown, depth = 0): boolean {
  if (hasToJSON(v)) return false;
  if (v === null || typeof v !== 'object' || depth >= SPLIT_DEPTH) return true;
  if (Array.isArray(v)) return v.every((x) => splittable(x, depth + 1));
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k in v) if (Object.hasOwn(v, k) && !splittable((v as Record<string, unknown>)[k], depth + 1)) return false;
  return true;
}

/**
 * `JSON.stringify(value, null, 2)`, in pieces. Values that are not plain data near the top come
 * out as one piece (see `splittable`).
 */
export function* jsonChunks(value: unknown): Generator<string> {
  if (splittable(value)) yield* chunks(value, '', 0);
  else yield JSON.stringify(value, null, 2) ?? 'null';
}

/** The pieces of plain data; `indent` is the current line's indentation. */
function* chunks(v: unknown, indent: string, depth: number): Generator<string> {
  if (depth >= SPLIT_DEPTH || v === null || typeof v !== 'object') {
    const s = JSON.stringify(v, null, 2);
    yield s === undefined ? 'null' : indent ? s.replace(/\n/g, '\n' + indent) : s;
    return;
  }
  const inner = indent + '  ';
  if (Array.isArray(v)) {
    if (!v.length) return void (yield '[]');
    yield '[\n';
    for (let i = 0; i < v.length; i++) {
      yield inner;
      if (omitted(v[i])) yield 'null';
      else yield* chunks(v[i], inner, depth + 1);
      yield i < v.length - 1 ? ',\n' : '\n';
    }
    yield indent + ']';
    return;
  }
  const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => !omitted(x));
  if (!entries.length) return void (yield '{}');
  yield '{\n';
  for (let i = 0; i < entries.length; i++) {
    const [k, x] = entries[i]!;
    yield `${inner}${JSON.stringify(k)}: `;
    yield* chunks(x, inner, depth + 1);
    yield i < entries.length - 1 ? ',\n' : '\n';
  }
  yield indent + '}';
}
