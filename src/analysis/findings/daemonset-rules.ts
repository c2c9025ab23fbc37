/**
 * Finding rules of a DaemonSet replay about what only a DaemonSet does: more than one running
 * daemon pod on a node, which podsShouldBeOnNode (pkg/controller/daemon/daemon_controller.go,
 * v1.37.2; without maxSurge) ends by deleting all but the oldest. Two pods on one node mean the
 * controller created for a node whose pod its cache did not hold — after a kube-controller-manager
 * restart or failover, a first LIST served by an apiserver cache that had not yet seen the previous
 * process's create (kubernetes#54096: DaemonSets give no at-most-one guarantee across a failover;
 * ConsistentListFromCache, on by default from 1.31, serves that LIST consistently).
 *
 * Contract: a `FindingRule<ReplayedTrack>`; fires only for DaemonSets, from the delete rounds whose
 * sync found excess pods (SyncRecord.daemon.excessPods) — the duplicate is what the input shows
 * (observed), its cause is read from the restarts of the track between the two creates (inferred).
 * Pure: no I/O, no clock. Cost: O(rounds + writes + restarts).
 */
import { objectKey } from '../../model/objects.js';
import { iso } from '../iso.js';
import { refs } from '../report/evidence-refs.js';
import type { ReplayedTrack } from '../report/replayed-track.js';
import { fmtDuration } from '../report/wording.js';
import type { FindingRule } from './finding-rule.js';

export const excessDaemonPods: FindingRule<ReplayedTrack> = {
  name: 'excess-daemon-pods',
  ids: ['excess-daemon-pods'],
  reads: 'the DaemonSet\'s delete rounds whose sync found more than one running daemon pod on a node, the creates of those pods in the input, and the restarts of kube-controller-manager between them',
  fires: 'the controller deleted an excess daemon pod: one node had two (or more)',
  find({ t, res, resource }) {
    if (resource !== 'ds' || !t.rs) return undefined;
    const ns = t.rs.metadata.namespace ?? '';
    const createdAt = (name: string): number | undefined => {
      const w = t.writes.find((x) => x.kind === 'create' && x.pod === `${ns}/${name}` && x.outcome === 'ok');
      if (w) return w.at;
      const p = res.pods.get(`${ns}/${name}`);
      const c = Date.parse(p?.metadata.creationTimestamp ?? '');
      return Number.isNaN(c) ? undefined : c;
    };
    const out = [];
    for (const r of t.rounds) {
      const excess = r.kind === 'delete' ? r.sync.daemon?.excessPods : undefined;
      if (!excess?.length) continue;
      for (const e of excess) {
        const kept = createdAt(e.kept);
        const dup = e.deleted.map((d) => ({ name: d, at: createdAt(d) }));
        const lastDup = Math.max(...dup.map((d) => d.at ?? -Infinity));
        const restart = kept !== undefined && Number.isFinite(lastDup) ? t.restarts.find((x) => x.at > kept && x.at <= lastDup) : undefined;
        const dupText = dup.map((d) => `${ns}/${d.name}${d.at !== undefined ? ` (created ${iso(d.at)})` : ''}`).join(', ');
        out.push({
          id: 'excess-daemon-pods',
          severity: 'warning' as const,
          title: `${e.deleted.length + 1} daemon pods on node ${e.node}: the controller created one for a node whose pod its cache did not hold`,
          basis: restart ? 'inferred' as const : 'observed' as const,
          at: iso(r.at)!,
          explanation:
            `On node ${e.node} ${objectKey(t.rs.metadata)} had ${ns}/${e.kept}${kept !== undefined ? ` (created ${iso(kept)})` : ''} and ${dupText}. ` +
            `The DaemonSet controller creates a daemon pod only for a node without one in its informer cache, so the later create was made from a cache that lacked ${ns}/${e.kept}. ` +
            (restart
              ? `A new kube-controller-manager process started at ${iso(restart.at)}, ${fmtDuration(restart.at - kept!)} after ${ns}/${e.kept} was created: its first LIST did not hold that pod yet — an apiserver cache behind the previous process's create — so it created a second one (kubernetes#54096: DaemonSets give no at-most-one guarantee across a failover; ConsistentListFromCache, on by default from 1.31, makes that first LIST consistent). `
              : 'No restart lies between the two creates in the input: an informer that had not delivered the first pod yet (its watch behind, or a relist that missed it). ') +
            `At ${iso(r.at)} the controller saw both and deleted ${e.deleted.length === 1 ? 'the newer' : 'all but the oldest'} (podsShouldBeOnNode keeps the oldest running pod): until then the node had ${e.deleted.length + 1} daemon pods.`,
          nextStep: 'If the daemon must never run twice on a node (a node-local lock, a device), guard it in the daemon itself (a node-level lock file or lease); on 1.31+ the consistent first LIST closes this window.',
          evidence: refs([r.trigger, ...(r.evidence?.sources ?? []), restart?.source]),
        });
      }
    }
    return out;
  },
};
