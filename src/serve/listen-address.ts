/**
 * The listen address of `kexp serve --listen`: `HOST:PORT`, `[IPv6]:PORT` or `PORT` alone (the
 * loopback address then). kexp serve binds to loopback unless told otherwise: a bare port never
 * means every interface; to serve the pod network say so (`0.0.0.0:9797`, `[::]:9797`).
 *
 * Contract: `parseListen(s)` returns `{ host, port }` (port 0: any free port) or throws an Error
 * whose one line says what is expected. Pure, O(length).
 */
export const DEFAULT_LISTEN = '127.0.0.1:9797';

export interface ListenAddress {
  host: string;
  port: number;
}

export function parseListen(s: string): ListenAddress {
  const bad = (why: string) => new Error(`--listen "${s.slice(0, 80)}" ${why}: expected HOST:PORT, [IPv6]:PORT or PORT (e.g. 127.0.0.1:9797, 0.0.0.0:9797)`);
  let host = '127.0.0.1';
  let port: string;
  const v6 = /^\[([0-9a-fA-F:.]+)\]:(\d+)$/.exec(s);
  if (v6) {
    host = v6[1]!;
    port = v6[2]!;
  } else if (/^\d+$/.test(s)) {
    port = s;
  } else {
    const i = s.lastIndexOf(':');
    if (i <= 0) throw bad(i === 0 ? 'has no host (a bare port binds to loopback: give PORT alone, or 0.0.0.0:PORT for every interface)' : 'has no port');
    host = s.slice(0, i);
    port = s.slice(i + 1);
    if (host.includes(':')) throw bad('is an IPv6 address without brackets');
    if (!/^[A-Za-z0-9.-]+$/.test(host)) throw bad('has an invalid host');
  }
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) throw bad('has an invalid port');
  return { host, port: Number(port) };
}
