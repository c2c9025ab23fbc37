/**
 * The metrics: `kexp serve`'s Prometheus exposition (prom-client), derived from the registry's
 * latest Evaluation (registry.ts), the kube-controller-manager Lease (kcm-lease.ts) and serve's
 * own counters. docs/metrics.md is the reference (name, type, labels, cardinality); keep the two
 * in step.
 *
 * Contract:
 * - `update(ev, lease, now)` rewrites every per-object gauge from the evaluation: an object has
 *   per-object series only while it is gated, leaked, failing or carries a warning/critical finding
 *   (a healthy, idle object has none); aggregates (`kexp_objects`, `kexp_findings`) are bounded by
 *   kind × verdict and kind × finding catalogue.
 * - Counters (`_total`) are made monotonic from evaluations that each see only the journal's
 *   history: every gated window, round and failure is keyed by its object and start time, and
 *   only what grew since the last evaluation is added (a window or round leaving the history is
 *   forgotten after it has been counted). A per-object counter is removed when its object has
 *   nothing left in its journal (folded after the history, at the latest 2 × the history:
 *   registry.ts; Prometheus treats that as a reset).
 * - Every label value comes from the cluster's own names or a fixed catalogue; no object content
 *   other than kind, namespace and name, no credential.
 *
 * Cost: O(objects reported + their windows and rounds within the history) per update; series
 * O(problem objects × small constant) + O(kinds × (verdicts + findings)) + serve's own.
 */
import client from 'prom-client';
import type { ReplicaSetReport, RoundReport } from '../analysis/report-types.js';
import { ownerKindOf } from '../analysis/report/owner-kind.js';
import type { LeaseState } from './kcm-lease.js';
import { objectId, type Evaluation, type ServeRegistry } from './registry.js';

/** Why a write failed, from the API server's message (a fixed set: bounded label values). */
export function failureReason(message: string): string {
  const m = message.toLowerCase();
  if (/exceeded quota|quota/.test(m)) return 'quota';
  if (/namespacet?erminating|being terminated|is terminating/.test(m)) return 'namespace-terminating';
  if (/admission webhook|denied the request/.test(m)) return 'admission';
  if (/timeout|timed out|\b504\b/.test(m)) return 'timeout';
  if (/forbidden/.test(m)) return 'forbidden';
  if (/invalid|unprocessable/.test(m)) return 'invalid';
  if (/conflict|already exists/.test(m)) return 'conflict';
  if (/not found/.test(m)) return 'not-found';
  return 'other';
}

/** Leak findings, and what can clear each (the findings catalogue, findings/expectation-rules.ts). */
const LEAK_FINDINGS: Readonly<Record<string, 'timeout' | 'owner-deletion' | 'expired'>> = {
  'expectation-leak-open': 'timeout',
  'expectation-leak-namespace-terminating-open': 'owner-deletion',
  'expectation-leak-until-deleted': 'owner-deletion',
  'expectation-leak-namespace-terminating': 'owner-deletion',
  'expectation-leak-expired': 'expired',
};

const PROBLEM_VERDICTS = new Set(['gated', 'leaked', 'failing', 'stalled']);

/** Whether an object gets per-object series: it is in trouble now or has been within the history. */
function troubled(r: ReplicaSetReport): boolean {
  return PROBLEM_VERDICTS.has(r.verdict.state) || r.gatedWindows.some((w) => w.endedBy === 'open') || r.findings.some((f) => f.severity === 'critical' || f.severity === 'warning');
}

/** Failed calls of a round: creates made but not succeeded (those whose outcome is unknown left out), deletes that failed. */
function failuresOf(r: RoundReport): number {
  if (r.kind === 'create') return Math.max(0, (r.calls ?? 0) - (r.successes ?? 0) - (r.unknown ?? 0));
  if (r.kind === 'delete') return r.failed?.length ?? 0;
  return 0;
}

/** The API verb of a round's writes. */
function verbOf(r: RoundReport): string {
  return r.kind === 'create' ? 'create' : r.kind === 'delete' ? 'delete' : 'patch';
}

type Labels = Record<string, string>;

/** Counts what grew since the last evaluation, per item (object + start time), forgetting items no longer shown. */
class Monotone {
  private seen = new Map<string, number>();
  private next = new Map<string, number>();

  /** The growth of `item` to `value` since it was last seen (0 when it shrank or is new at 0). */
  delta(item: string, value: number): number {
    const before = this.seen.get(item) ?? 0;
    this.next.set(item, Math.max(before, value));
    return value > before ? value - before : 0;
  }

  /** Ends an evaluation: items not shown in it are forgotten. */
  roll(): void {
    this.seen = this.next;
    this.next = new Map();
  }
}

export class ServeMetrics {
  readonly registry = new client.Registry();
  private readonly gated: client.Gauge;
  private readonly gatedSince: client.Gauge;
  private readonly outstanding: client.Gauge;
  private readonly leaked: client.Gauge;
  private readonly verdict: client.Gauge;
  private readonly gatedSeconds: client.Counter;
  private readonly failures: client.Counter;
  private readonly writes: client.Counter;
  private readonly objects: client.Gauge;
  private readonly findings: client.Gauge;
  private readonly leaderChanges: client.Counter;
  private readonly kcmRestarts: client.Counter;
  private readonly kcmLeading: client.Gauge;
  private readonly kcmLeaseObserved: client.Gauge;
  private readonly kcmLeaseTransitions: client.Gauge;
  private readonly evalDuration: client.Histogram;
  private readonly evalReplayed: client.Gauge;
  private readonly lastEval: client.Gauge;
  private readonly gatedMs = new Monotone();
  private readonly failed = new Monotone();
  private readonly written = new Monotone();
  /** Per-object counter label sets alive after the last update (to remove those that leave). */
  private counterLabels = new Map<string, { c: client.Counter; labels: Labels }>();
  private leaderChangesSeen = 0;
  private kcmRestartsSeen = 0;

  constructor(reg: ServeRegistry) {
    const r = [this.registry];
    const obj = ['kind', 'namespace', 'name'];
    this.gated = new client.Gauge({ name: 'kexp_controller_gated', help: 'The object\'s controller is gated on its own expectations now (1); absent when not.', labelNames: obj, registers: r });
    this.gatedSince = new client.Gauge({ name: 'kexp_controller_gated_since_timestamp_seconds', help: 'When the open gated window began (Unix time).', labelNames: obj, registers: r });
    this.outstanding = new client.Gauge({ name: 'kexp_expectations_outstanding', help: 'Creations (op="add") and deletions (op="del") the controller still waits to observe in its open window.', labelNames: [...obj, 'op'], registers: r });
    this.leaked = new client.Gauge({ name: 'kexp_expectations_leaked', help: 'A leaked expectation (finding id) and what clears it: timeout (only the 5-minute ExpectationsTimeout), owner-deletion, expired (cleared by the timeout within the history).', labelNames: [...obj, 'finding', 'clears'], registers: r });
    this.verdict = new client.Gauge({ name: 'kexp_object_verdict', help: 'The object\'s current verdict (1) when it is gated, leaked, failing or stalled.', labelNames: [...obj, 'verdict'], registers: r });
    this.gatedSeconds = new client.Counter({ name: 'kexp_controller_gated_seconds_total', help: 'Seconds the object\'s controller spent gated on its expectations, since serve started.', labelNames: obj, registers: r });
    this.failures = new client.Counter({ name: 'kexp_controller_write_failures_total', help: 'The controller\'s pod writes that failed, by verb and reason (quota, admission, forbidden, namespace-terminating, timeout, invalid, conflict, not-found, other).', labelNames: [...obj, 'verb', 'reason'], registers: r });
    this.writes = new client.Counter({ name: 'kexp_controller_writes_total', help: 'The controller\'s pod writes kexp attributed to a sync, by owner kind and verb (create, delete, patch).', labelNames: ['kind', 'verb'], registers: r });
    this.objects = new client.Gauge({ name: 'kexp_objects', help: 'Objects reported, by kind and verdict.', labelNames: ['kind', 'verdict'], registers: r });
    this.findings = new client.Gauge({ name: 'kexp_findings', help: 'Objects whose current report carries the finding, by kind, finding id and severity.', labelNames: ['kind', 'finding', 'severity'], registers: r });
    this.leaderChanges = new client.Counter({ name: 'kexp_kcm_leader_changes_total', help: 'Changes of the kube-controller-manager Lease holder seen since serve started.', registers: r });
    this.kcmRestarts = new client.Counter({ name: 'kexp_kcm_restarts_total', help: 'Lease holder changes to a new process on the same host (a kube-controller-manager restart) seen since serve started.', registers: r });
    this.kcmLeading = new client.Gauge({ name: 'kexp_kcm_leading', help: 'The kube-controller-manager Lease is held and renewed within its duration (1) or not (0); absent when unknown.', registers: r });
    this.kcmLeaseObserved = new client.Gauge({ name: 'kexp_kcm_lease_observed', help: 'serve can read the kube-controller-manager Lease (1) or not (0).', registers: r });
    this.kcmLeaseTransitions = new client.Gauge({ name: 'kexp_kcm_lease_transitions', help: 'The Lease\'s own leaseTransitions count.', registers: r });
    this.evalReplayed = new client.Gauge({ name: 'kexp_evaluation_owners_replayed', help: 'Owners whose journal the last evaluation replayed (those with new events or a report not yet proven stable; the others\' reports were kept).', registers: r });
    this.evalDuration = new client.Histogram({ name: 'kexp_evaluation_duration_seconds', help: 'Time to replay the owners whose report may have changed and rebuild the report.', buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: r });
    this.lastEval = new client.Gauge({ name: 'kexp_last_evaluation_timestamp_seconds', help: 'When the report last was rebuilt (Unix time).', registers: r });
    new client.Counter({
      name: 'kexp_events_processed_total', help: 'Watch events received and journaled, by resource.', labelNames: ['resource'], registers: r,
      collect() {
        // The registry counts; the exposition shows its totals.
        const c = this as client.Counter;
        c.reset();
        for (const [resource, n] of reg.eventsByResource) c.inc({ resource }, n);
      },
    });
    new client.Counter({
      name: 'kexp_watch_restarts_total', help: 'Watch restarts: relist (410 Gone: a gap), reconnect (a gap), resumed (an error resumed from the last resourceVersion, nothing lost).', labelNames: ['resource', 'reason'], registers: r,
      collect() {
        const c = this as client.Counter;
        c.reset();
        for (const [k, n] of reg.watchRestarts) {
          const [resource, reason] = k.split('\u0000') as [string, string];
          c.inc({ resource, reason }, n);
        }
      },
    });
    new client.Gauge({
      name: 'kexp_objects_tracked', help: 'Owner objects the watches show now (after -l), by kind.', labelNames: ['kind'], registers: r,
      collect() {
        for (const [kind, n] of reg.tracked()) (this as client.Gauge).set({ kind }, n);
      },
    });
    new client.Gauge({
      name: 'kexp_journal_lines', help: 'Lines kept in the owners\' journals for replay (within 2 × --history; older ones folded into each journal\'s base state; a line shared by several owners counts for each).', registers: r,
      collect() {
        (this as client.Gauge).set(reg.journalSize.lines);
      },
    });
    new client.Gauge({
      name: 'kexp_ready', help: 'Every watch has delivered its initial list (1).', registers: r,
      collect() {
        (this as client.Gauge).set(reg.ready ? 1 : 0);
      },
    });
    client.collectDefaultMetrics({ register: this.registry, prefix: 'kexp_' });
  }

  /** Rewrites the metrics from an evaluation and the Lease's state at `now`. */
  update(ev: Evaluation, lease: LeaseState, leaseCounts: { leaderChanges: number; restarts: number }): void {
    this.evalDuration.observe(ev.tookMs / 1000);
    this.evalReplayed.set(ev.replayed);
    this.lastEval.set(ev.at / 1000);
    for (const g of [this.gated, this.gatedSince, this.outstanding, this.leaked, this.verdict, this.objects, this.findings]) g.reset();
    const alive = new Map<string, { c: client.Counter; labels: Labels }>();
    const byVerdict = new Map<string, number>();
    const byFinding = new Map<string, number>();
    for (const r of ev.report.replicaSets) {
      const kind = ownerKindOf(r);
      const o: Labels = { kind, namespace: r.namespace, name: r.name };
      const id = objectId(kind, r.namespace, r.name);
      const vk = `${kind}\u0000${r.verdict.state}`;
      byVerdict.set(vk, (byVerdict.get(vk) ?? 0) + 1);
      for (const f of new Set(r.findings.map((f) => `${kind}\u0000${f.id}\u0000${f.severity}`))) byFinding.set(f, (byFinding.get(f) ?? 0) + 1);
      // Writes by verb: aggregated per kind, every object.
      for (const x of r.rounds) {
        const d = this.written.delta(`${id}\u0000${x.at}\u0000${x.kind}`, x.writes);
        if (d > 0) this.writes.inc({ kind, verb: verbOf(x) }, d);
      }
      if (!troubled(r) && r.gatedWindows.length === 0) continue;
      const open = r.gatedWindows.find((w) => w.endedBy === 'open');
      if (open) {
        this.gated.set(o, 1);
        this.gatedSince.set(o, Date.parse(open.start) / 1000);
        this.outstanding.set({ ...o, op: 'add' }, open.remaining?.add ?? open.raised.add);
        this.outstanding.set({ ...o, op: 'del' }, open.remaining?.del ?? open.raised.del);
      }
      if (PROBLEM_VERDICTS.has(r.verdict.state)) this.verdict.set({ ...o, verdict: r.verdict.state }, 1);
      for (const f of r.findings) {
        const clears = LEAK_FINDINGS[f.id];
        if (clears) this.leaked.set({ ...o, finding: f.id, clears }, 1);
      }
      // Gated seconds: each window's length so far, counted once.
      let gatedItems = false;
      for (const w of r.gatedWindows) {
        const start = Date.parse(w.start);
        const end = w.end ? Date.parse(w.end) : ev.at;
        const ms = Math.max(0, end - start);
        gatedItems = true;
        const d = this.gatedMs.delta(`${id}\u0000${w.start}`, ms);
        if (d > 0) this.gatedSeconds.inc(o, d / 1000);
      }
      if (gatedItems) alive.set(`g\u0000${id}`, { c: this.gatedSeconds, labels: o });
      for (const x of r.rounds) {
        const n = failuresOf(x);
        if (n === 0) continue;
        const reason = x.namespaceTerminating ? 'namespace-terminating' : failureReason(x.errors[0] ?? x.failed?.[0] ?? '');
        const labels = { ...o, verb: verbOf(x), reason };
        const d = this.failed.delta(`${id}\u0000${x.at}\u0000${x.kind}`, n);
        if (d > 0) this.failures.inc(labels, d);
        alive.set(`f\u0000${id}\u0000${labels.verb}\u0000${reason}`, { c: this.failures, labels });
      }
    }
    for (const [k, v] of this.counterLabels) if (!alive.has(k)) v.c.remove(v.labels);
    this.counterLabels = alive;
    this.gatedMs.roll();
    this.failed.roll();
    this.written.roll();
    for (const [k, n] of byVerdict) {
      const [kind, verdict] = k.split('\u0000') as [string, string];
      this.objects.set({ kind, verdict }, n);
    }
    for (const [k, n] of byFinding) {
      const [kind, finding, severity] = k.split('\u0000') as [string, string, string];
      this.findings.set({ kind, finding, severity }, n);
    }
    this.kcmLeaseObserved.set(lease.observed ? 1 : 0);
    this.kcmLeading.reset();
    if (lease.leading !== undefined) this.kcmLeading.set(lease.leading ? 1 : 0);
    this.kcmLeaseTransitions.reset();
    if (lease.transitions !== undefined) this.kcmLeaseTransitions.set(lease.transitions);
    if (leaseCounts.leaderChanges > this.leaderChangesSeen) this.leaderChanges.inc(leaseCounts.leaderChanges - this.leaderChangesSeen);
    if (leaseCounts.restarts > this.kcmRestartsSeen) this.kcmRestarts.inc(leaseCounts.restarts - this.kcmRestartsSeen);
    this.leaderChangesSeen = leaseCounts.leaderChanges;
    this.kcmRestartsSeen = leaseCounts.restarts;
  }

  /** The exposition text. */
  async text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
