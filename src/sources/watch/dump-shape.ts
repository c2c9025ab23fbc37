/**
 * The shape of an object dump given as a file: a point-in-time SNAPSHOT (one state of the
 * cluster, analysed as a directory dump is) or a STREAM of changes (replayed through the model).
 * The format alone decides most files; bare objects need their content.
 *
 * - `list` (a JSON or YAML List, `kind: XList` or `kind: List` with `items`, compact or not) is a
 *   snapshot: `kubectl get … -o json|yaml` reads every item at one resourceVersion.
 * - `kexp-recording` and `watch-events` (`{"type":"ADDED","object":…}` lines) are streams, and so
 *   is YAML whose first document wraps its object (`type:`/`object:`, `--output-watch-events`).
 * - Bare objects (`kubectl get -w -o json|yaml` prints them without event types; one object, or
 *   several documents of `kubectl get X -o yaml` joined with `---`) cannot be told apart by their
 *   first document. The rule chosen: the file is a STREAM as soon as one uid is seen again with
 *   another resourceVersion (an object that changed: what a watch prints after its initial list),
 *   or kubectl's watch ended with a `kind: Status`; a file whose objects are all distinct is a
 *   SNAPSHOT. Why: a watch's first lines ARE its initial list — one state, the same thing a List
 *   holds — and what makes it a history is only a later version of an object it already printed.
 *   A repeated uid at the same resourceVersion (an initial list printed twice after kubectl
 *   restarted, a must-gather's per-pod copy) is no change and does not make a stream.
 *
 * Contract: `dumpShape(file)` never throws for bad input (the reader that opens the file next
 * reports it) and never reads stdin (`-` cannot be read twice: its shape is its format's).
 * Cost: a list or a wrapped stream is decided on the first bytes (the sniff); bare objects are
 * read up to the first changed object — the whole file when it is a snapshot (then read again by
 * the snapshot analysis), at most the watch's initial list plus one object when it is a stream.
 */
import { readHead } from '../input-stream.js';
import { InputError, type Diagnostics } from '../source.js';
import { openWatchSource } from './watch-source.js';
import { yamlFirstDocKeys } from './sniff.js';

export type DumpShape = 'snapshot' | 'stream';

/** The shape a format has on its own (stdin, a forced --format); undefined when content decides. */
export function shapeOfFormat(format: string): DumpShape | undefined {
  if (format === 'list') return 'snapshot';
  if (format === 'kexp-recording' || format === 'watch-events') return 'stream';
  return undefined;
}

const HEAD_BYTES = 256 * 1024;

/** True when the first YAML document of the file wraps its object (`type:` / `object:` keys). */
async function yamlWrapsObjects(file: string): Promise<boolean> {
  const text = await readHead(file, HEAD_BYTES);
  return yamlFirstDocKeys(text.replace(/^\uFEFF/, '') + '\n').keys.has('object');
}

/** The shape of one input file; `format` is a forced --format (then the format decides alone). */
export async function dumpShape(file: string, format?: string): Promise<DumpShape> {
  if (format !== undefined) return shapeOfFormat(format) ?? 'stream';
  if (file === '-') return 'stream';
  const quiet: Diagnostics = { problem: () => undefined, warn: () => undefined };
  try {
    const src = await openWatchSource(file, { diagnostics: quiet, snapshot: true });
    const byFormat = shapeOfFormat(src.format);
    if (byFormat !== undefined || (src.format === 'yaml' && (await yamlWrapsObjects(file)))) {
      await src.events[Symbol.asyncIterator]().return?.(undefined);
      return byFormat ?? 'stream';
    }
    for await (const e of src.events) {
      // A gap here is kubectl's watch ending (`kind: Status`); MODIFIED is an object seen again
      // with another resourceVersion (the normaliser infers it), DELETED an explicit event.
      if (e.type === 'gap' || (e.type === 'observed' && e.watchType !== 'ADDED')) return 'stream';
    }
    return 'snapshot';
  } catch (err) {
    if (err instanceof InputError) return 'stream';
    throw err;
  }
}
