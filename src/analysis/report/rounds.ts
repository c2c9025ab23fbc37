/**
 * The rounds of the report: each sync of the controller model that created, deleted or claimed
 * pods (manageReplicas' slow-start batches, or ClaimPods' adoptions and releases; mirrors
 * syncReplicaSet and manageReplicas in pkg/controller/replicaset/replica_set.go), with what the
 * input shows of its calls: the writes it claimed (observed ones, and those seen only late),
 * the calls whose outcome the input never showed (`unknown`), errors, and the evidence to cite
 * (the controller's first write when observed, else the event that triggered the sync).
 *
 * Pure: no I/O, no clock. O(writes of the round) each (writesOfRound indexes them once).
 */
import { iso } from '../iso.js';
import type { RsTrack } from '../engine/rs-track.js';
import type { Basis, RoundReport } from '../report-types.js';
import { ref } from './evidence-refs.js';
import { writesOfRound } from './replayed-track.js';
import { fmtDuration, plural } from './wording.js';

type Round = RsTrack['rounds'][number];

/** A claim round: what ClaimPods adopted and released. */
function claimRoundReport(r: Round, t: RsTrack, lateOut: Pick<RoundReport, 'late'>, forced: Pick<RoundReport, 'forced'>): RoundReport {
  const s = r.sync;
  const claimed = writesOfRound(t, r.modelRound);
  const claims = (s.claims ?? []).filter((c) => c.evidence !== 'unmade');
  const adopted = claims.filter((c) => c.action === 'adopt' && c.claimed).map((c) => c.pod);
  const released = claims.filter((c) => c.action === 'release').map((c) => c.pod);
  // Adoption and release rest on the controller's own patch: observed from an audit log, inferred
  // from the pod's ownerReference change, unknown when the input shows neither.
  const made = claims.filter((c) => (c.action === 'adopt' || c.action === 'release') && c.evidence === undefined);
  const basis: Basis = made.length === 0 ? 'unknown' : claimed.length > 0 && t.writes.some((w) => w.round === r.modelRound && w.forms.includes('audit')) ? 'observed' : 'inferred';
  const evidence = ref(claimed[0]?.sources[0]) ?? ref(r.trigger) ?? '';
  return {
    at: iso(r.at)!, kind: 'claim', n: claims.filter((c) => c.action === 'adopt' || c.action === 'release').length, basis, writes: claimed.length, ...lateOut,
    ...(adopted.length ? { adopted } : {}), ...(released.length ? { released } : {}), errors: s.claimErrors ?? [], evidence, ...forced,
  };
}

export function roundReport(r: Round, t: RsTrack): RoundReport {
  const s = r.sync;
  const claimed = writesOfRound(t, r.modelRound);
  const late = claimed.filter((w) => w.lateMs !== undefined);
  const lateOut = late.length ? { late: { count: late.length, maxMs: Math.round(Math.max(...late.map((w) => w.lateMs!))) } } : {};
  const forced = r.forced ? { forced: r.forced } : {};
  if (r.kind === 'claim') return claimRoundReport(r, t, lateOut, forced);
  let basis: Basis = r.evidence?.basis ?? 'inferred';
  const notes: string[] = [];
  // Calls the oracle could not decide, less those whose writes the input showed later.
  const undecided = s.create ? s.create.unknown : (s.delete?.unknown.length ?? 0);
  const unknown = Math.min(undecided, r.unresolved ?? undecided);
  const n = s.create?.n ?? s.delete?.n ?? 0;
  if (undecided > 0 && unknown === 0 && basis === 'unknown') basis = 'inferred';
  // Unknown only when no call of the round is evidenced; otherwise the round (its Set) is real
  // and only the undecided calls are reported as unknown.
  if (unknown > 0 && unknown >= n) basis = 'unknown';
  if (late.length) notes.push(`${plural(late.length, 'write')} observed only ${fmtDuration(lateOut.late!.maxMs)} or less after the sync (informer or recorder lag)`);
  // Observed rounds cite the controller's first write; inferred ones the event that triggered the sync.
  const evidence = (basis === 'observed' ? ref(r.evidence?.sources[0]) : undefined) ?? ref(r.trigger) ?? '';
  if (s.create) {
    const c = s.create;
    const out: RoundReport = {
      at: iso(r.at)!, kind: 'create', n: c.n, basis, writes: claimed.length, ...lateOut, batches: c.batches, calls: c.calls, successes: c.successes - unknown,
      skipped: c.skipped, namespaceTerminating: c.namespaceTerminating, errors: [...new Set(c.errors)], evidence,
    };
    if (c.timedOut) out.timedOut = c.timedOut;
    if (unknown) out.unknown = unknown;
    if (c.unmade) out.unmade = c.unmade;
    const note = [...(unknown || !late.length ? [r.evidence?.note] : []), ...notes].filter(Boolean).join('; ');
    if (note) out.note = note;
    return { ...out, ...forced };
  }
  const d = s.delete!;
  // Every delete shown by the controller's own requests: the round itself is observed.
  if (basis === 'inferred' && claimed.length >= d.n && claimed.every((w) => w.forms.includes('audit'))) basis = 'observed';
  const out: RoundReport = { at: iso(r.at)!, kind: 'delete', n: d.n, basis, writes: claimed.length, ...lateOut, keys: d.keys, failed: d.failed, errors: d.errors, evidence };
  if (unknown) out.unknown = unknown;
  if (d.unmade.length) out.unmade = d.unmade.length;
  if (d.notFound.length) notes.push(notFoundNote(d.notFound, claimed));
  const note = [d.note, ...notes].filter(Boolean).join('; ');
  if (note) out.note = note;
  return { ...out, ...forced };
}

/**
 * A round's DELETEs answered 404: the controller chose pods from its informer cache that the API
 * no longer had — its cache still held them (a ghost) — and a NotFound delete is lowered with no
 * error (manageReplicas in pkg/controller/replicaset/replica_set.go, syncNodes in
 * pkg/controller/daemon/daemon_controller.go). Observed where the controller's own request shows
 * the 404 (cited), else inferred: the input saw the pod deleted before the sync chose it.
 */
function notFoundNote(keys: readonly string[], claimed: ReturnType<typeof writesOfRound>): string {
  const cited = claimed.filter((w) => w.pod !== undefined && keys.includes(w.pod) && w.forms.includes('audit')).map((w) => ref(w.sources[0])).filter(Boolean);
  const basis = cited.length >= keys.length ? `observed: ${cited.join(', ')}` : 'inferred: the input saw the pod deleted before this sync chose it';
  return `${plural(keys.length, 'DELETE')} answered 404 (NotFound) for ${keys.join(', ')}: the controller's cache still held ${keys.length === 1 ? 'the pod' : 'the pods'} the API no longer had, and a NotFound delete lowers the record with no error (${basis})`;
}
