/**
 * How far the readers are through their input files, for the progress line file commands show
 * on a terminal (src/cli/progress.ts). Each reader registers the stream it reads the file with;
 * the byte count is the stream's own (`fs.ReadStream.bytesRead`: compressed bytes for a gzip
 * file, so the fraction of the file read is right). Standard input has no size: bytes and rate only.
 * Process-wide on purpose (the readers sit several layers below the command); it holds numbers
 * and getters only.
 */
export interface FileProgress {
  file: string;
  /** File size in bytes, when known (not for stdin or a FIFO). */
  size?: number;
  read(): number;
}

const tracked: FileProgress[] = [];

export function trackRead(p: FileProgress): void {
  tracked.push(p);
}

/**
 * Totals over every file opened so far: bytes read, and the total size when every size is known.
 * A file opened more than once (a sniff or pre-scan, then the real read) counts once, at its
 * furthest read.
 */
export function readTotals(): { files: number; read: number; size?: number } {
  const byFile = new Map<string, { read: number; size?: number }>();
  for (const p of tracked) {
    const cur = byFile.get(p.file);
    const read = p.read();
    if (!cur) byFile.set(p.file, { read, ...(p.size !== undefined ? { size: p.size } : {}) });
    else cur.read = Math.max(cur.read, read);
  }
  let read = 0;
  let size: number | undefined = 0;
  for (const f of byFile.values()) {
    read += f.read;
    size = size !== undefined && f.size !== undefined ? size + f.size : undefined;
  }
  return { files: byFile.size, read, ...(size !== undefined && byFile.size > 0 ? { size } : {}) };
}
