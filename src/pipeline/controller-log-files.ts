/**
 * Reads kube-controller-manager logs given beside a recording or an audit log (`--kcm-log`, or
 * any input file that sniffs as one) into what the report builder fuses with its
 * reconstruction (src/analysis/controller-log.ts).
 */
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { openKcmLogSource } from '../sources/kcm-log/kcm-log-source.js';
import { buildGroundTruth } from '../sources/kcm-log/ground-truth.js';
import { looksLikeKcmLog } from '../sources/kcm-log/detect.js';
import { InputError, type Diagnostics, type FileCoverage } from '../sources/source.js';
import type { ControllerLogEvent, SourceRef } from '../timeline/event.js';
import type { ControllerLogInput } from '../analysis/controller-log.js';

const POD_CREATED_RE = /"Pod created"[^\n]*?\bpod="([^"]+)"|"msg":"Pod created"[^\n]*?"pod":"([^"]+)"|\bPod created\b[^\n]*?\bpod="?([^"\s]+)/;

/** Splits the inputs into kube-controller-manager logs and the rest (each file sniffed). */
export async function splitControllerLogs(files: string[], command: 'replay' | 'audit'): Promise<{ kcm: string[]; rest: string[] }> {
  const kcm: string[] = [];
  const rest: string[] = [];
  for (const f of files) (await looksLikeKcmLog(f) ? kcm : rest).push(f);
  if (rest.length === 0 && kcm.length > 0) {
    throw new InputError(kcm[0]!, 0, `this is a kube-controller-manager log: read it with \`kexp kcm-log\`, or give it beside ${command === 'audit' ? 'an audit log' : 'a recording'} (\`kexp ${command} FILE --kcm-log ${kcm[0]}\`)`);
  }
  return { kcm, rest };
}

/**
 * Reads the logs. `year`: klog lines carry no year; the other inputs' year is used (their
 * start), so the times line up.
 */
/** The same log given twice (two names, or as an input and with --kcm-log) is read once. */
function dedupe(files: string[], diagnostics: Diagnostics): string[] {
  const seen = new Map<string, string>();
  const out: string[] = [];
  for (const f of files) {
    let id = f;
    try {
      const st = fs.statSync(f);
      const fd = fs.openSync(f, 'r');
      const head = Buffer.alloc(Math.min(st.size, 65536));
      fs.readSync(fd, head, 0, head.length, 0);
      fs.closeSync(fd);
      id = `${st.size}:${createHash('sha1').update(head).digest('hex')}`;
    } catch {
      // unreadable: openKcmLogSource reports it
    }
    const first = seen.get(id);
    if (first !== undefined) {
      diagnostics.warn(`${f}: the same kube-controller-manager log as ${first}; read once`);
      continue;
    }
    seen.set(id, f);
    out.push(f);
  }
  return out;
}

export async function readControllerLogs(given: string[], o: { diagnostics: Diagnostics; year?: number }): Promise<ControllerLogInput & { coverage: FileCoverage[] }> {
  const files = dedupe(given, o.diagnostics);
  const coverage: FileCoverage[] = [];
  const events: ControllerLogEvent[] = [];
  const podAdded = new Map<string, { at: number; source: SourceRef }>();
  const starts: Array<{ at: number; source: SourceRef }> = [];
  for (const f of files) {
    const src = await openKcmLogSource(f, { diagnostics: o.diagnostics, ...(o.year !== undefined ? { year: o.year } : {}) });
    for await (const e of src.events) {
      if (e.type !== 'controller-log') continue;
      // (consumed whole so its coverage is complete)
      events.push(e);
      if (e.logKind === 'controller-started') starts.push({ at: e.at, source: e.source });
      if (e.message.includes('Pod created')) {
        const m = POD_CREATED_RE.exec(e.message);
        const pod = m?.[1] ?? m?.[2] ?? m?.[3];
        if (pod && !podAdded.has(pod)) podAdded.set(pod, { at: e.at, source: e.source });
      }
    }
    coverage.push({ ...src.coverage(), format: 'kcm-log' });
  }
  events.sort((a, b) => a.at - b.at);
  starts.sort((a, b) => a.at - b.at);
  return { files, truths: buildGroundTruth(events), podAdded, starts, coverage };
}

/**
 * The controller log's time range against the other inputs': a log from another day (or a
 * klog clock in another time zone) must not be fused as if it were the same time. Returns a
 * warning when they do not overlap.
 */
export function controllerLogOverlap(log: { coverage: FileCoverage[] }, start: number | undefined, end: number | undefined): string | undefined {
  const ks = Math.min(...log.coverage.map((c) => c.start ?? Infinity));
  const ke = Math.max(...log.coverage.map((c) => c.end ?? -Infinity));
  if (start === undefined || end === undefined || !Number.isFinite(ks) || !Number.isFinite(ke)) return undefined;
  if (ke < start || ks > end) {
    const d = (x: number) => new Date(x).toISOString();
    return `the kube-controller-manager log covers ${d(ks)} → ${d(ke)}, the other inputs ${d(start)} → ${d(end)}: no overlap (another day, or its clock's time zone differs: klog prints local time); it was not used`;
  }
  return undefined;
}
