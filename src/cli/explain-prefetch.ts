/**
 * Explain's prefetch: the reads `kexp explain` will make first, started from the command line
 * before oclif and the command are loaded. Every explain lists every pod of the namespace — 12 MB
 * of JSON for 5,000 pods, ~0.5 s of the API server's CPU to encode, page after page — and its
 * parameters (kubeconfig, context, namespace, impersonation, request timeout) are all on the
 * command line. bin/run.js (and the single executable's entry, scripts/sea-entry.mjs) call
 * startExplainPrefetch with argv before importing oclif, so the API server encodes the pods while
 * kexp starts; the command then takes the reads with takeExplainPrefetch (bench/README.md,
 * "`kexp explain` on 5,000 pods").
 *
 * Contract: nothing but reads the command would make itself, and no output or exit code of its own.
 * - Only for `explain` whose every word is understood here: a target that parses and names a
 *   valid object of a kind explain takes (the checks the command makes before any request), the
 *   cluster flags, -o/--output, --html, -q/--quiet, --[no-]color; no --watch/--record (their
 *   checks come first), no --help, no repeated single flag. Anything else: no prefetch, and oclif
 *   says what is wrong.
 * - Only when the kubeconfig is usable (loadClusterAccess; its errors are left to the command,
 *   which reads it again) and needs neither an exec credential plugin nor client-node (a plugin
 *   may prompt or take long, for a command line oclif may yet refuse).
 * - The command adopts the reads only when oclif's parse gives the same parameters (the key);
 *   otherwise, and when the command never comes (bin/run.js calls abandonExplainPrefetch after
 *   oclif returns), they are aborted. The adopted promises are awaited by the snapshot in its
 *   own order (snapshot.ts EarlyReads), so an error surfaces where it always did; the command's
 *   abort signal (Ctrl-C, SIGTERM) aborts them.
 * The prefetch lives in a global slot (Symbol.for), so that the entry and the command share it
 * even if the bundler gave them two copies of this module.
 *
 * Cost: one pass over argv; the kubeconfig is read once (the command reuses the access); the
 * two reads start a few hundred ms earlier. For any other command bin/run.js does not load this.
 */
import { loadClusterAccess, type ClusterAccess } from '../sources/live/kubeconfig.js';
import { LightKubeConfig } from '../sources/live/light-kubeconfig.js';
import { startEarlyReads, type EarlyReads } from '../sources/live/snapshot.js';
import { parseLiveTarget, requireKinds } from '../pipeline/live-target.js';

/** What the reads depend on: the cluster flags as the command passes them to loadClusterAccess, and the timeout. */
export interface PrefetchKey {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  as?: string;
  asGroups?: string[];
  requestTimeoutMs: number;
}

/** The reads, started, with the access they were made with. */
export interface Prefetched {
  access: ClusterAccess;
  reads: EarlyReads;
}

interface Slot {
  key: PrefetchKey;
  ready: Promise<Prefetched | undefined>;
  controller: AbortController;
}

const SLOT = Symbol.for('kexp.explain-prefetch');
const slots = globalThis as { [SLOT]?: Slot };

/** explain's flags that take a value (oclif's names, long and short forms) → the key's field or the flag's name. */
const VALUED = new Map<string, string>([
  ['--kubeconfig', 'kubeconfig'],
  ['--context', 'context'],
  ['--namespace', 'namespace'],
  ['-n', 'namespace'],
  ['--as', 'as'],
  ['--as-group', 'as-group'],
  ['--request-timeout', 'request-timeout'],
  ['--output', 'output'],
  ['-o', 'output'],
  ['--html', 'html'],
]);
const BOOLEAN = new Set(['--quiet', '-q', '--color', '--no-color']);
/** The `--request-timeout` default (src/cli/flags.ts clusterFlags). */
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** A duration in the plain forms only (`30`, `30s`, `500ms`, `2m`, `1h`), else undefined: the command's parseDuration decides the rest. */
function plainDuration(s: string): number | undefined {
  const m = /^(\d{1,9})(ms|s|m|h)?$/.exec(s);
  if (!m) return undefined;
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
}

/** The key of an explain command line whose every word is understood, or undefined (see the header). */
export function prefetchKeyOf(args: readonly string[]): PrefetchKey | undefined {
  if (args[0] !== 'explain') return undefined;
  const values = new Map<string, string[]>();
  const positionals: string[] = [];
  for (let i = 1; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('-')) {
      positionals.push(a);
      continue;
    }
    if (BOOLEAN.has(a)) continue;
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = VALUED.get(eq > 0 ? a.slice(0, eq) : a);
    if (name === undefined) return undefined;
    let v: string | undefined;
    if (eq > 0) v = a.slice(eq + 1);
    else {
      v = args[++i];
      if (v === undefined || v.startsWith('-')) return undefined;
    }
    const list = values.get(name) ?? [];
    list.push(v);
    values.set(name, list);
  }
  for (const [name, list] of values) if (list.length > 1 && name !== 'as-group') return undefined;
  const one = (name: string) => values.get(name)?.[0];
  if (values.has('as-group') && !values.has('as')) return undefined;
  try {
    requireKinds(parseLiveTarget(positionals), ['rs', 'rc', 'deployment', 'ds', 'job'], 'explain');
  } catch {
    return undefined;
  }
  const timeout = one('request-timeout');
  const requestTimeoutMs = timeout === undefined ? DEFAULT_REQUEST_TIMEOUT_MS : plainDuration(timeout);
  if (requestTimeoutMs === undefined) return undefined;
  const key: PrefetchKey = { requestTimeoutMs };
  for (const f of ['kubeconfig', 'context', 'namespace', 'as'] as const) {
    const v = one(f);
    if (v !== undefined) key[f] = v;
  }
  if (values.has('as-group')) key.asGroups = values.get('as-group');
  return key;
}

function sameKey(a: PrefetchKey, b: PrefetchKey): boolean {
  const groups = (k: PrefetchKey) => JSON.stringify(k.asGroups ?? []);
  return a.kubeconfig === b.kubeconfig && a.context === b.context && a.namespace === b.namespace && a.as === b.as && groups(a) === groups(b) && a.requestTimeoutMs === b.requestTimeoutMs;
}

/**
 * Starts the early reads for an explain command line (see the header); does nothing for any
 * other. The promise resolves once the requests are out of kexp's hands (created, and one turn
 * of the event loop given to their connections), never rejects: the caller awaits it before
 * loading oclif, whose evaluation would otherwise run first and hold the requests back.
 */
export async function startExplainPrefetch(args: readonly string[], now: () => number = () => performance.timeOrigin + performance.now()): Promise<void> {
  const key = prefetchKeyOf(args);
  if (!key) return;
  const controller = new AbortController();
  const ready = (async (): Promise<Prefetched | undefined> => {
    const access = await loadClusterAccess({ kubeconfig: key.kubeconfig, context: key.context, namespace: key.namespace, as: key.as, asGroups: key.asGroups });
    if (!(access.kc instanceof LightKubeConfig) || access.kc.getCurrentUser()?.exec != null || controller.signal.aborted) return undefined;
    return { access, reads: startEarlyReads({ access, now, requestTimeoutMs: key.requestTimeoutMs, signal: controller.signal }) };
  })().catch(() => undefined);
  slots[SLOT] = { key, ready, controller };
  await ready;
  await new Promise((resolve) => setImmediate(resolve));
}

/**
 * The early reads, if they were started for this key: `signal` now aborts them. Undefined when
 * none were started, or they were started for other parameters (those are aborted).
 */
export async function takeExplainPrefetch(key: PrefetchKey, signal: AbortSignal): Promise<Prefetched | undefined> {
  const slot = slots[SLOT];
  if (!slot) return undefined;
  delete slots[SLOT];
  if (!sameKey(slot.key, key)) {
    slot.controller.abort();
    return undefined;
  }
  const onAbort = () => slot.controller.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return slot.ready;
}

/** Aborts early reads nobody took (the command failed before, or never ran). */
export function abandonExplainPrefetch(): void {
  const slot = slots[SLOT];
  if (!slot) return;
  delete slots[SLOT];
  slot.controller.abort();
}
