/**
 * Runs the built CLI under a real pseudo-terminal (python3's `pty` module) the way a person
 * at a terminal does: stdin, stdout and stderr are the pty slave with a 120×40 window (or the
 * size asked for), so
 * kexp's ora spinner is on (given no CI in the environment); when `file` contains `needle`,
 * Ctrl-C is typed ONCE (the byte 0x03 on the master: the terminal's line discipline turns it
 * into SIGINT for the foreground process, as a keyboard does). Reports the exact wait status:
 * an exit code, or the signal that killed the process — which `script(1)` would fold into
 * 128+N and make a death by SIGINT look like a clean exit 130.
 *
 * Async (spawn, not spawnSync) because the fake API server runs in the test process.
 */
import { spawn, spawnSync } from 'node:child_process';
import { BIN } from './spawn-cli.js';

export const HAS_PYTHON_PTY = spawnSync('python3', ['-c', 'import pty, termios, fcntl'], { stdio: 'ignore' }).status === 0;
// CI must run the terminal tests, never skip them (.ci/run sets KEXP_REQUIRE_PTY=1).
if (!HAS_PYTHON_PTY && process.env.KEXP_REQUIRE_PTY) throw new Error('KEXP_REQUIRE_PTY is set but python3 with the pty module is not available');

const DRIVER = String.raw`
import fcntl, json, os, pty, select, struct, sys, termios, time
cfg = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', cfg['rows'], cfg['cols'], 0, 0))
    os.execve(cfg['argv'][0], cfg['argv'], cfg['env'])
out = bytearray()
start = time.monotonic()
sent_at = None
status = None
def ready():
    if not cfg['needle']:
        return False
    try:
        with open(cfg['file'], 'rb') as f:
            return cfg['needle'].encode() in f.read()
    except OSError:
        return False
eof = False
while True:
    r = []
    if not eof:
        r, _, _ = select.select([fd], [], [], 0.05)
    else:
        time.sleep(0.05)
    if r:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b''
        if data:
            out += data
        else:
            eof = True
    if sent_at is None and ready():
        time.sleep(cfg['delay'])
        os.write(fd, b'\x03')
        sent_at = time.monotonic()
    if status is None:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
            exited_at = time.monotonic()
    if status is not None and (eof or not r):
        break
    if status is None and time.monotonic() - start > cfg['timeout']:
        os.kill(pid, 9)
        _, status = os.waitpid(pid, 0)
        exited_at = time.monotonic()
        break
print(json.dumps({
    'code': os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
    'signal': os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
    'output': out.decode('utf-8', 'replace'),
    'msAfterCtrlC': None if sent_at is None else round((exited_at - sent_at) * 1000),
}))
`;

export interface PtyResult {
  /** Exit code, or null when killed by a signal. */
  code: number | null;
  /** The number of the signal that killed it (2 = SIGINT), or null. */
  signal: number | null;
  /** Everything written to the terminal (stdout and stderr interleaved, CRLF line ends). */
  output: string;
  /** Time from Ctrl-C to exit; null if Ctrl-C was never typed. */
  msAfterCtrlC: number | null;
}

/**
 * `file`/`needle`: when `file` contains `needle`, Ctrl-C is typed (no needle: never). `rows` ×
 * `cols`: the window (default 40×120). `shell`: run this `bash -c` command line instead of kexp
 * with `args` (a shell function `kexp` in it runs the built CLI), e.g. to pipe kexp's output
 * through `cat`.
 */
export function runInPty(args: string[], o: { env: NodeJS.ProcessEnv; file?: string; needle?: string; delayMs?: number; timeoutMs?: number; rows?: number; cols?: number; shell?: string }): Promise<PtyResult> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(o.env)) if (v !== undefined) env[k] = v;
  if (o.shell !== undefined) Object.assign(env, { KEXP_NODE: process.execPath, KEXP_BIN: BIN });
  const argv = o.shell !== undefined ? ['/bin/bash', '-c', `kexp() { "$KEXP_NODE" "$KEXP_BIN" "$@"; }; ${o.shell}`] : [process.execPath, BIN, ...args];
  const cfg = { argv, env, file: o.file ?? '', needle: o.needle ?? '', delay: (o.delayMs ?? 300) / 1000, timeout: (o.timeoutMs ?? 60_000) / 1000, rows: o.rows ?? 40, cols: o.cols ?? 120 };
  const child = spawn('python3', ['-c', DRIVER, JSON.stringify(cfg)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((resolve, reject) => {
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`pty driver failed (${code}): ${stderr}`));
      resolve(JSON.parse(stdout) as PtyResult);
    });
  });
}

/**
 * What a terminal shows for `output` (a PtyResult's): the lines as a screen holds them, with the
 * cursor moves and erases a spinner writes applied (CR, `ESC[nG` to column n, `ESC[K`/`ESC[0K`
 * erase to the end of the line; other escape sequences take no room). Enough for kexp's output
 * and ora's spinner, not a full VT100.
 */
export function screenText(output: string): string[] {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  for (let i = 0; i < output.length; i++) {
    const ch = output[i]!;
    if (ch === '\x1b') {
      const m = /^\x1b\[([?\d;]*)([A-Za-z])/.exec(output.slice(i, i + 32)) ?? /^\x1b\][^\x07]*\x07/.exec(output.slice(i, i + 256));
      if (!m) continue;
      if (m[2] === 'G') col = Math.max(0, Number(m[1] || '1') - 1);
      else if (m[2] === 'K' && (m[1] === '' || m[1] === '0')) lines[row]!.length = Math.min(lines[row]!.length, col);
      i += m[0].length - 1;
    } else if (ch === '\r') col = 0;
    else if (ch === '\n') {
      row++;
      col = 0;
      lines[row] ??= [];
    } else {
      const line = lines[row]!;
      while (line.length < col) line.push(' ');
      line[col++] = ch;
    }
  }
  return lines.map((l) => l.join(''));
}
