/**
 * Directory inputs for `kexp audit`: a must-gather (or any directory) gives its kube-apiserver
 * audit logs (`audit_logs/kube-apiserver/*.log(.gz)`) and its kube-controller-manager container
 * logs; the rest is counted in one line. A directory without audit logs is one line naming
 * what was looked for (exit 6); its Lists are for `kexp replay DIR`, and that line says so.
 */
import { dirSummary, expandInputs, lookedFor, skippedSummary } from '../sources/dump-dir.js';
import { InputError, type Diagnostics } from '../sources/source.js';

export async function auditInputsOfDirs(inputs: string[], diagnostics: Diagnostics): Promise<{ files: string[]; audit: string[]; kcm: string[] }> {
  const expanded = await expandInputs(inputs);
  const audit: string[] = [];
  const kcm: string[] = [];
  for (const d of expanded.dirs) {
    if (d.auditLogs.length === 0) {
      const skipped = skippedSummary(d);
      throw new InputError(d.dir, 0, `no audit logs: ${lookedFor('audit')}${d.lists.length ? `; it holds ${d.lists.length} List file(s): read them with \`kexp replay ${d.dir}\`` : `; ${skipped ?? 'the directory is empty'}`}`);
    }
    diagnostics.warn(dirSummary(d, { lists: false, kcm: true, audit: true }) + (d.lists.length ? `; its ${d.lists.length} List file(s) are read by \`kexp replay ${d.dir}\`` : ''));
    audit.push(...d.auditLogs);
    kcm.push(...d.kcmLogs);
  }
  return { files: expanded.files, audit, kcm };
}
