/**
 * How to read 5,000 pods fastest (bench/explain/run.ts `--list-modes`): the same namespace read
 * in several ways, alternating mode by mode, from one warm process with one keep-alive
 * connection, so that only the way of reading differs. For each: wall time until every pod is
 * parsed, this process's CPU time, and the API server's and etcd's CPU time (from /proc).
 *
 * - `paged500`: LIST with limit=500 and continue, one page after the other (kubectl, kexp before);
 * - `pipelined500`: the same pages, the next one requested from the continue token at the start
 *   of the current body (kexp's listAll);
 * - `paged1000`, `paged2500`: larger pages;
 * - `unpaged`: one LIST without limit;
 * - `watchlist`: a watch with sendInitialEvents=true & resourceVersionMatch=NotOlderThan (the
 *   WatchList streaming list), up to the bookmark annotated k8s.io/initial-events-end.
 */
import fs from 'node:fs';
import https from 'node:https';

export interface ListModeResult {
  mode: string;
  wallMs: number[];
  clientCpuMs: number[];
  serverCpuMs: number[];
}

function ticksOf(pids: number[]): number {
  let t = 0;
  for (const pid of pids) {
    try {
      const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      t += Number(f[11]) + Number(f[12]); // utime + stime, clock ticks (10 ms)
    } catch {
      /* gone */
    }
  }
  return t * 10;
}

export async function measureListModes(o: { apiURL: string; caPath: string; certPath: string; keyPath: string; namespace: string; serverPids: number[]; rounds: number; expect: number }): Promise<ListModeResult[]> {
  const agent = new https.Agent({ keepAlive: true, ca: fs.readFileSync(o.caPath), cert: fs.readFileSync(o.certPath), key: fs.readFileSync(o.keyPath) });
  const base = `/api/v1/namespaces/${o.namespace}/pods`;
  const get = (p: string, onHead?: (head: string) => void) => new Promise<{ items: unknown[]; metadata: { continue?: string } }>((resolve, reject) => {
    https.get(o.apiURL + p, { agent, headers: { Accept: 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      let headSent = !onHead;
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        if (!headSent) {
          headSent = true;
          onHead!(c.toString('utf8', 0, Math.min(c.length, 65536)));
        }
      });
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))) : reject(new Error(`${p}: ${res.statusCode}`))));
    }).on('error', reject);
  });
  const q = (limit: number, cont?: string) => `${base}?limit=${limit}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`;
  const paged = async (limit: number) => {
    let n = 0;
    let cont: string | undefined;
    do {
      const b = await get(q(limit, cont));
      n += b.items.length;
      cont = b.metadata.continue;
    } while (cont);
    return n;
  };
  type Body = { items: unknown[]; metadata: { continue?: string } };
  const pipelined = async (limit: number) => {
    type P = { body: Promise<Body>; next?: P };
    const page = (cont?: string): P => {
      const p: P = { body: Promise.resolve({ items: [], metadata: {} }) };
      p.body = get(q(limit, cont), (head) => {
        const m = /"continue":"([^"]+)"/.exec(head.slice(0, head.indexOf('"items"')));
        if (m) p.next = page(m[1]);
      });
      return p;
    };
    let n = 0;
    let cur: P | undefined = page();
    while (cur) {
      const b: Body = await cur.body;
      n += b.items.length;
      cur = b.metadata.continue ? (cur.next ?? page(b.metadata.continue)) : undefined;
    }
    return n;
  };
  const watchList = () => new Promise<number>((resolve, reject) => {
    let n = 0;
    let buf = '';
    const req = https.get(`${o.apiURL}${base}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=60`, { agent: new https.Agent({ ca: agent.options.ca, cert: agent.options.cert, key: agent.options.key }), headers: { Accept: 'application/json' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`watchlist: ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        buf += c;
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const ev = JSON.parse(buf.slice(0, i)) as { type: string; object: { metadata?: { annotations?: Record<string, string> } } };
          buf = buf.slice(i + 1);
          if (ev.type === 'ADDED') n++;
          else if (ev.type === 'BOOKMARK' && ev.object.metadata?.annotations?.['k8s.io/initial-events-end'] === 'true') {
            req.destroy();
            return resolve(n);
          }
        }
      });
    });
    req.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' ? undefined : reject(e)));
  });
  const modes: Array<[string, () => Promise<number>]> = [
    ['paged500', () => paged(500)],
    ['pipelined500', () => pipelined(500)],
    ['paged1000', () => paged(1000)],
    ['paged2500', () => paged(2500)],
    ['unpaged', async () => (await get(base)).items.length],
    ['watchlist', watchList],
  ];
  const out = modes.map(([mode]) => ({ mode, wallMs: [] as number[], clientCpuMs: [] as number[], serverCpuMs: [] as number[] }));
  for (const [, run] of modes) await run(); // warm-up: JIT, connection, server caches
  for (let r = 0; r < o.rounds; r++) {
    for (let i = 0; i < modes.length; i++) {
      const s0 = ticksOf(o.serverPids);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const n = await modes[i]![1]();
      const wall = performance.now() - t0;
      const c = process.cpuUsage(c0);
      if (n !== o.expect) throw new Error(`${modes[i]![0]}: ${n} pods, expected ${o.expect}`);
      out[i]!.wallMs.push(Math.round(wall));
      out[i]!.clientCpuMs.push(Math.round((c.user + c.system) / 1000));
      out[i]!.serverCpuMs.push(ticksOf(o.serverPids) - s0);
    }
  }
  agent.destroy();
  return out;
}
