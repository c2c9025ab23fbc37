/**
 * Recognition of a kube-controller-manager log by its content, for a log whose path says
 * nothing kexp knows (a trimmed must-gather's `kube-controller-manager/current.log`, a
 * `current.log` given on the command line, a saved `kubectl logs` output named anything).
 *
 * A file is the KCM log when its first records are log records (klog text or JSON lines, bare
 * or in a log pipeline's envelope: CRI, docker json-file, `kubectl logs --timestamps`) AND they
 * are kube-controller-manager's: a caller only KCM has (controllermanager.go, replica_set.go,
 * the replication manager), its controllers' start-up (`Starting "replicaset"`), its logger
 * names (`replicaset-controller`), its leader lease — or the path names it (a path segment
 * `kube-controller-manager`, as a must-gather's folder does). Lines before the first record (a
 * container's shell preamble: `+ exec hyperkube kube-controller-manager …`, at most
 * MAX_PREAMBLE lines, none opening an object) are skipped; after it, most lines must be records
 * (a text file that quotes a klog line is not a log). A file that frames container logs among
 * Lists (a stdout `kubectl cluster-info dump`) is not a log: its block is read as one by
 * dump-log-blocks.ts.
 *
 * Contract: never throws for an unreadable or damaged file (false: its reader reports it);
 * never reads stdin. Cost: the first HEAD_BYTES of the file (decompressed), one regex per line.
 */
import { readHead } from './input-stream.js';
import { InputError } from './source.js';
import { sniffLogLine } from './envelope/registry.js';
import { KLOG_RE } from './kcm-log/klog-text.js';

/** Bytes read at most to decide. */
const HEAD_BYTES = 64 * 1024;
/** Records looked at after the first one. */
const MAX_RECORDS = 400;
/** Records needed to call it a log at all. */
const MIN_RECORDS = 3;
/** Non-record lines allowed before the first record (a container's shell preamble). */
const MAX_PREAMBLE = 64;
/**
 * A line that opens an object dump: a file of Lists with log blocks in it (a `kubectl
 * cluster-info dump` printed to stdout, dump-log-blocks.ts) holds KCM records but is no log.
 */
const OBJECT_LINE_RE = /^(?:[{[]|---$|apiVersion:|kind:|==== START logs for container )/;

/** What only kube-controller-manager logs (klog callers, start-up lines, logger names, its lease). */
const KCM_MARKER_RE =
  /\b(?:controllermanager\.go:\d+|replica_set\.go:\d+|replication_controller\.go:\d+)|Starting "(?:replicaset|replicationcontroller|deployment)"|\blogger[=":]+"?(?:replicaset-controller|replicationcontroller-controller)|leader lease [\w-]+\/kube-controller-manager\b/;

/** A path segment that names kube-controller-manager (a folder, or a file `kube-controller-manager*.log`). */
export function pathNamesKcm(file: string): boolean {
  return file.split(/[/\\]/).some((seg) => seg === 'kube-controller-manager' || /^kube-controller-manager[^/\\]*\.(log|txt)(\.gz)?$/.test(seg));
}

function isRecord(line: string): boolean {
  const inner = sniffLogLine(line);
  if (KLOG_RE.test(inner)) return true;
  return inner.startsWith('{') && /"ts":/.test(inner) && /"msg":/.test(inner);
}

/** The verdict on a file's first lines (exported for tests on text). */
export function recogniseKcmLog(head: string, file: string): boolean {
  const lines = head.split('\n');
  // The last line may be cut by HEAD_BYTES.
  if (lines.length > 1) lines.pop();
  let records = 0;
  let afterFirst = 0;
  let marker = false;
  let preamble = 0;
  for (const raw of lines) {
    const l = raw.trim();
    if (l === '') continue;
    const rec = isRecord(l);
    if (records === 0 && !rec) {
      // A preamble before the first record is a few shell lines, never objects or a dump's frames.
      if (++preamble > MAX_PREAMBLE || OBJECT_LINE_RE.test(l)) return false;
      continue;
    }
    if (l.startsWith('==== START logs for container ')) return false;
    afterFirst++;
    if (rec) {
      records++;
      if (!marker && KCM_MARKER_RE.test(l)) marker = true;
    }
    if (afterFirst >= MAX_RECORDS) break;
  }
  return records >= MIN_RECORDS && records * 2 > afterFirst && (marker || pathNamesKcm(file));
}

/**
 * True when `file` is a kube-controller-manager log by its content (and, failing a marker, its
 * path: `named`, the path inside a walked directory, else the path as given).
 */
export async function isKcmLogByContent(file: string, named: string = file): Promise<boolean> {
  if (file === '-') return false;
  let head = '';
  try {
    head = await readHead(file, HEAD_BYTES);
  } catch (err) {
    if (err instanceof InputError) return false;
    throw err;
  }
  return recogniseKcmLog(head, named);
}
