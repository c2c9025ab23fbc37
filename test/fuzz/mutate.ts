/**
 * Seeded mutations of real inputs for the fuzz suite: type swaps in any field, hostile control
 * sequences in strings, far timestamps, truncated lines and files, duplicated and reordered
 * lines. Deterministic (mulberry32), so a failure names a seed that reproduces it.
 */

export type Rng = () => number;

/** mulberry32: a tiny, well-distributed 32-bit PRNG; enough to pick mutations reproducibly. */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** Control sequences a hostile name or message could carry: title, clear, OSC 8 hyperlink, C1 CSI, NUL, BEL. */
export const HOSTILE = [
  '\u001b]0;owned\u0007',
  '\u001b[2J\u001b[H',
  '\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007',
  '\u009b31m',
  '\u0000\u0007\u0008\r',
  '\u001bP+q544e\u001b\\',
];

const SWAPS: unknown[] = [42, -1, 0, 1e308, 3.5, '', 'x', true, false, null, [], {}, [1, 'a'], { a: 1 }, 'y'.repeat(10_000), '-1', '2126-01-01T00:00:00Z'];

type Path = Array<string | number>;

/** Every path to a value in `v` (depth-bounded), the root excluded. */
function paths(v: unknown, depth = 0, prefix: Path = [], out: Path[] = []): Path[] {
  if (depth > 10 || typeof v !== 'object' || v === null) return out;
  const entries: Array<[string | number, unknown]> = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
  for (const [k, x] of entries) {
    const p = [...prefix, k];
    out.push(p);
    paths(x, depth + 1, p, out);
  }
  return out;
}

function setAt(root: unknown, p: Path, value: unknown): void {
  let o = root as Record<string | number, unknown>;
  for (const k of p.slice(0, -1)) o = o[k] as Record<string | number, unknown>;
  o[p[p.length - 1]!] = value;
}

function getAt(root: unknown, p: Path): unknown {
  let o = root as Record<string | number, unknown> | undefined;
  for (const k of p) o = o?.[k] as Record<string | number, unknown> | undefined;
  return o;
}

export type LineMutation = 'type-swap' | 'control-chars' | 'far-time' | 'truncate-line';

/**
 * Mutates one JSON line (returns undefined when the line offers nothing to mutate for this kind).
 * The kinds: a value of another type at any path; hostile control sequences in a string; a
 * timestamp moved to 2126, 9999, 1970 or 0001; the line cut short.
 */
export function mutateJsonLine(line: string, kind: LineMutation, r: Rng): string | undefined {
  if (kind === 'truncate-line') return line.length > 2 ? line.slice(0, 1 + Math.floor(r() * (line.length - 2))) : undefined;
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  const all = paths(v);
  if (kind === 'type-swap') {
    if (all.length === 0) return undefined;
    setAt(v, pick(r, all), pick(r, SWAPS));
    return JSON.stringify(v);
  }
  const strings = all.filter((p) => typeof getAt(v, p) === 'string');
  if (kind === 'control-chars') {
    if (strings.length === 0) return undefined;
    const p = pick(r, strings);
    const s = getAt(v, p) as string;
    const at = Math.floor(r() * (s.length + 1));
    setAt(v, p, s.slice(0, at) + pick(r, HOSTILE) + s.slice(at));
    return JSON.stringify(v);
  }
  const times = strings.filter((p) => /^\d{4}-\d\d-\d\dT/.test(getAt(v, p) as string));
  if (times.length === 0) return undefined;
  const p = pick(r, times);
  setAt(v, p, (getAt(v, p) as string).replace(/^\d{4}/, pick(r, ['2126', '9999', '1970', '0001', '2036'])));
  return JSON.stringify(v);
}

/** Mutates one plain-text (klog) line. */
export function mutateTextLine(line: string, kind: LineMutation, r: Rng): string | undefined {
  if (line.length < 2) return undefined;
  const at = Math.floor(r() * line.length);
  switch (kind) {
    case 'truncate-line':
      return line.slice(0, at);
    case 'control-chars':
      return line.slice(0, at) + pick(r, HOSTILE) + line.slice(at);
    case 'far-time':
      // klog header `I1130 02:39:01.123456`: month/day/hour out of range, or a JSON ts far away.
      return line.replace(/^([IWEF])\d{4} \d\d/, (_m, s: string) => `${s}${pick(r, ['1399', '0230', '1232', '0000'])} ${pick(r, ['25', '99', '00'])}`)
        .replace(/"ts":\d+(\.\d+)?/, `"ts":${pick(r, ['1e20', '-5', '253402300800000', '"x"'])}`);
    case 'type-swap': {
      // A key=value pair with its value replaced by a hostile or odd one.
      const kv = [...line.matchAll(/ (\w+)=("[^"]*"|\S+)/g)];
      if (kv.length === 0) return undefined;
      const m = pick(r, kv);
      const repl = pick(r, ['""', '"\u001b[2J"', '{}', '-1', 'null', '"a/b/c/d"', `"${'z'.repeat(5000)}"`]);
      return line.slice(0, m.index!) + ` ${m[1]}=${repl}` + line.slice(m.index! + m[0].length);
    }
  }
}

export type FileMutation = 'duplicate-line' | 'swap-lines' | 'truncate-file' | 'drop-line';

/** Whole-file mutations over lines `from..` (a header line before `from` is left alone). */
export function mutateFile(lines: string[], kind: FileMutation, r: Rng, from = 0): string[] {
  const out = [...lines];
  const n = out.length - from;
  if (n < 2) return out;
  const i = from + Math.floor(r() * n);
  const j = from + Math.floor(r() * n);
  switch (kind) {
    case 'duplicate-line':
      out.splice(j, 0, out[i]!);
      return out;
    case 'swap-lines':
      [out[i], out[j]] = [out[j]!, out[i]!];
      return out;
    case 'drop-line':
      out.splice(i, 1);
      return out;
    case 'truncate-file': {
      const text = out.join('\n');
      return text.slice(0, Math.floor(r() * text.length)).split('\n');
    }
  }
}
