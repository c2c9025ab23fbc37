/**
 * The machine-readable outputs, `-o json` and `-o yaml` (kubectl's two): the same document,
 * JSON with two-space indent, YAML through the `yaml` package (a YAML 1.2 document; strings that
 * would read as another type are quoted). Both keep every string exactly as the input had it:
 * escaping is the format's own, never the terminal sanitiser's.
 */
import { stringify } from 'yaml';

export type StructuredOutput = 'json' | 'yaml';

export function isStructured(output: string | undefined): output is StructuredOutput {
  return output === 'json' || output === 'yaml';
}

export function renderStructured(value: unknown, output: StructuredOutput): string {
  if (output === 'yaml') return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
  return JSON.stringify(value, null, 2) + '\n';
}
