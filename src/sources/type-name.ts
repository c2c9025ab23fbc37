/** How a JSON value's type is named in one-line input errors ("a string", "an array", "null"). */
export function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return typeof v === 'undefined' ? 'undefined' : `a ${typeof v}`;
}
