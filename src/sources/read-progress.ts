/**
 * How far the readers are through their input files, for the progress line file commands show
 * on a terminal (src/cli/progress.ts). Each reader registers the stream it reads the file with;
 * the byte count is the stream's own (`fs.ReadStream.bytesRead`: compressed bytes for a gzip
 * file, so the fraction of the file read is right). Standard input has no size: bytes and rate only.
 * Process-wide on purpose (the readers sit several layers below the command); it holds numbers
 * and, while a reader is open, its getter.
 *
 * Contract: `trackRead(p)` registers an open reader and returns `release`, which the reader calls
 * when its stream closes: the reader's last count is kept as a number and the getter (which holds
 * the stream and its buffers) is dropped. Memory is O(distinct files) plus O(open readers), so a
 * long-running process that reads the same file again and again (`kexp serve` replays its journal
 * every evaluation) does not keep every stream it ever opened — it did, ~0.15 MB of ArrayBuffers
 * per read (bench/README.md, "kexp serve").
 */
export interface FileProgress {
  file: string;
  /** File size in bytes, when known (not for stdin or a FIFO). */
  size?: number;
  read(): number;
}

interface FileRead {
  size?: number;
  /** The furthest count of the readers already released. */
  settled: number;
  live: Set<FileProgress>;
}

const files = new Map<string, FileRead>();

/** Registers an open reader; the returned function releases it (call it when the stream closes; more than once is harmless). */
export function trackRead(p: FileProgress): () => void {
  let f = files.get(p.file);
  if (!f) files.set(p.file, (f = { ...(p.size !== undefined ? { size: p.size } : {}), settled: 0, live: new Set() }));
  f.live.add(p);
  const entry = f;
  return () => {
    if (!entry.live.delete(p)) return;
    entry.settled = Math.max(entry.settled, p.read());
  };
}

/**
 * Totals over every file opened so far: bytes read, and the total size when every size is known.
 * A file opened more than once (a sniff or pre-scan, then the real read) counts once, at its
 * furthest read.
 */
export function readTotals(): { files: number; read: number; size?: number } {
  let read = 0;
  let size: number | undefined = 0;
  for (const f of files.values()) {
    let r = f.settled;
    for (const p of f.live) r = Math.max(r, p.read());
    read += r;
    size = size !== undefined && f.size !== undefined ? size + f.size : undefined;
  }
  return { files: files.size, read, ...(size !== undefined && files.size > 0 ? { size } : {}) };
}

/** Readers registered and not yet released (each holds its stream). */
export function openReaders(): number {
  let n = 0;
  for (const f of files.values()) n += f.live.size;
  return n;
}
