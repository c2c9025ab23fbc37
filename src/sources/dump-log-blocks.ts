/**
 * The kube-controller-manager container log inside a `kubectl cluster-info dump` printed to one
 * stream (stdout, saved to a file): kubectl (pkg/cmd/clusterinfo/clusterinfo_dump.go) prints the
 * Lists, and after each namespace's PodList every container's log framed by
 *
 *   ==== START logs for container C of pod NS/POD ====
 *   …the container's log…
 *   ==== END logs for container C of pod NS/POD ====
 *
 * The watch reader (src/sources/watch/json-values.ts) reads the Lists and skips these blocks;
 * this module finds the block of container `kube-controller-manager` of a pod named
 * `kube-controller-manager-*` (the same rule as a dump directory's logs.txt, dump-dir.ts) so
 * the replay pipeline reads its lines as a controller log (openKcmLogSource with `lines`), with
 * the dump's own line numbers as evidence.
 *
 * Only a file whose first 64 KiB look like such a dump (a `NodeList`, the first List kubectl
 * prints, or a START line) is read through; stdin cannot be read a second time.
 */
import { openInputBytes, LineSplitter, readHead, type SplitLine } from './input-stream.js';
import { InputError } from './source.js';
import type { LineRange } from './kcm-log/kcm-log-source.js';

const HEAD_BYTES = 64 * 1024;
const START_RE = /^==== START logs for container (\S+) of pod ([^\s/]+)\/(\S+) ====\s*$/;
const END_PREFIX = '==== END logs for container ';
const KCM_POD_RE = /^kube-controller-manager-/;
const DUMP_HEAD_RE = /"kind"\s*:\s*"NodeList"|^==== START logs for container /m;

/** One kube-controller-manager log block of a dump file. */
export interface DumpLogBlock extends LineRange {
  file: string;
  /** `namespace/pod` the log is of. */
  pod: string;
  /** The block has no END line: it was taken to end before the next block or List, or at the end of the file. */
  unterminated?: boolean;
}

/** True when the first bytes of `file` look like a stdout `kubectl cluster-info dump`. */
async function looksLikeDump(file: string): Promise<boolean> {
  return DUMP_HEAD_RE.test(await readHead(file, HEAD_BYTES));
}

/**
 * The kube-controller-manager log blocks of a dump file, in file order (empty for anything
 * else, for stdin, and for a file that cannot be read: its reader reports that).
 */
export async function kcmLogBlocks(file: string): Promise<DumpLogBlock[]> {
  if (file === '-') return [];
  const out: DumpLogBlock[] = [];
  const splitter = new LineSplitter();
  let open: DumpLogBlock | undefined;
  try {
    if (!(await looksLikeDump(file))) return [];
    const { stream } = await openInputBytes(file);
    const lines: SplitLine[] = [];
    const close = (to: number, unterminated: boolean): void => {
      if (open && to >= open.from) out.push({ ...open, to, ...(unterminated ? { unterminated } : {}) });
      open = undefined;
    };
    const handle = (l: SplitLine): void => {
      const t = l.text;
      if (t.charCodeAt(0) !== 0x3d /* = */ && t.charCodeAt(0) !== 0x7b /* { */) return;
      const start = START_RE.exec(t.replace(/\r$/, ''));
      if (start) {
        close(l.line - 1, true);
        if (start[1] === 'kube-controller-manager' && KCM_POD_RE.test(start[3]!)) open = { file, from: l.line + 1, to: l.line, pod: `${start[2]}/${start[3]}` };
        return;
      }
      if (t.startsWith(END_PREFIX)) {
        close(l.line - 1, false);
        return;
      }
      // A block whose END line was lost ends where the next List starts (a lone "{" in column 0).
      if (open && /^\{\s*$/.test(t)) close(l.line - 1, true);
    };
    for await (const chunk of stream) {
      lines.length = 0;
      splitter.push(chunk, lines);
      for (const l of lines) handle(l);
    }
    lines.length = 0;
    splitter.end(lines);
    for (const l of lines) handle(l);
  } catch (e) {
    // Unreadable, or damaged gzip data (the watch reader reports it): the lines before it count.
    if (!(e instanceof InputError)) throw e;
  }
  // A dump that ends inside the block (cut short): its lines up to the end are the log.
  if (open && splitter.linesSeen >= open.from) out.push({ ...open, to: splitter.linesSeen, unterminated: true });
  return out;
}
