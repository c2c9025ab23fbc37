/**
 * Reads kube-controller-manager logs given beside a recording or an audit log (`--kcm-log`, or
 * any input file that sniffs as one) into what the report builder fuses with its
 * reconstruction (src/analysis/controller-log.ts).
 */
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
export async function readControllerLogs(files: string[], o: { diagnostics: Diagnostics; year?: number }): Promise<ControllerLogInput & { coverage: FileCoverage[] }> {
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
