/**
 * Checks a kexp recording against the apiserver's audit log of the same namespace and time:
 * every pod the audit log shows created has exactly one ADDED in the recording, every pod it
 * shows deleted has its deletion recorded exactly once (a DELETED, or a relist's synthetic
 * DELETED), and the recording's gaps are counted against the relists the fault proxy forced
 * (`gone` faults that hit kexp's recorder). Used by the fault e2e test for `kexp record`
 * through dropped connections, stalls and 410s.
 */
import fs from 'node:fs';

export interface RecordingCheck {
  /** Pod changes the audit log shows that the recording lacks (`create ns/name uid` / `delete …`). */
  lost: string[];
  /** Pod changes the recording holds more than once. */
  duplicated: string[];
  gaps: Array<{ recv: string; src: string; reason: string }>;
  /** 410 answers the proxy gave kexp's recorder (each forces a relist: a real loss of continuity). */
  relists: number;
}

function jsonLines(file: string): any[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

export function checkRecordingAgainstAudit(recording: string, audit: string, faults: string): RecordingCheck {
  const rec = jsonLines(recording);
  const header = rec[0] ?? {};
  const from = Date.parse(header.startedAt);
  const lastRecv = Math.max(...rec.filter((r) => r.recv).map((r) => Date.parse(r.recv)));
  const added = new Map<string, number>();
  const deleted = new Map<string, number>();
  const gaps: RecordingCheck['gaps'] = [];
  for (const r of rec) {
    if (r.gap) gaps.push({ recv: r.recv, src: r.src, reason: r.gap.reason });
    if (r.src !== 'pods' || !r.event) continue;
    const uid = r.event.object?.metadata?.uid;
    if (!uid) continue;
    if (r.event.type === 'ADDED' && r.synthetic !== 'initial-list') added.set(uid, (added.get(uid) ?? 0) + 1);
    if (r.event.type === 'DELETED') deleted.set(uid, (deleted.get(uid) ?? 0) + 1);
  }
  const lost: string[] = [];
  const duplicated: string[] = [];
  for (const e of jsonLines(audit)) {
    if (e.stage !== 'ResponseComplete' || e.objectRef?.resource !== 'pods' || e.objectRef?.subresource) continue;
    const at = Date.parse(e.stageTimestamp);
    // Only what happened while the recorder ran (the namespace's cleanup comes after it stopped).
    if (!(at >= from && at <= lastRecv)) continue;
    const obj = e.responseObject;
    const uid = obj?.metadata?.uid;
    const what = `${obj?.metadata?.namespace}/${obj?.metadata?.name} ${uid}`;
    if (e.verb === 'create' && e.responseStatus?.code === 201 && uid) {
      if (!added.has(uid)) lost.push(`create ${what}`);
    }
    // A delete answered 200 with the object gone (no deletionTimestamp left to wait for) or
    // graceful: either way the pod's DELETED follows while the recorder runs.
    if (e.verb === 'delete' && e.responseStatus?.code === 200 && uid && Date.parse(e.stageTimestamp) + 2000 <= lastRecv) {
      if (!deleted.has(uid)) lost.push(`delete ${what}`);
    }
  }
  for (const [uid, n] of added) if (n > 1) duplicated.push(`ADDED ${uid} ×${n}`);
  for (const [uid, n] of deleted) if (n > 1) duplicated.push(`DELETED ${uid} ×${n}`);
  const relists = jsonLines(faults).filter((f) => f.action === 'gone' && String(f.client ?? '').startsWith('kexp/')).length;
  return { lost, duplicated, gaps, relists };
}
