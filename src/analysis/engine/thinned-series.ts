/**
 * A per-ReplicaSet series of count points kept under `max` points by thinning the middle: once
 * full, every new point first removes the one at index 1 + (dropped mod (max − 2)) — the first
 * point stays, and successive removals sweep the array, so older stretches get sparser.
 *
 * The replay engine did that with `Array.prototype.splice` on a 5,000-point array for nearly
 * every pod event of a busy ReplicaSet (O(max) each). Same result in O(1) amortised: during one
 * sweep the removal index advances by one per removal, so the points before it (`kept`) never
 * move again in that sweep, and the one removed is always the first of the rest (`rest`, a
 * queue that also receives the new points); when the sweep wraps around, the two parts are
 * joined again (O(max) once per max − 2 removals). test/analysis/thinned-series.test.ts checks
 * it against the splice on random sizes.
 */
export class ThinnedSeries<T> {
  private kept: T[] = [];
  private rest: T[] = [];
  private restHead = 0;
  /** Points removed so far. */
  dropped = 0;

  constructor(private readonly max: number) {}

  get length(): number {
    return this.kept.length + this.rest.length - this.restHead;
  }

  last(): T | undefined {
    return this.rest.length > this.restHead ? this.rest[this.rest.length - 1] : this.kept[this.kept.length - 1];
  }

  push(p: T): void {
    if (this.max <= 2) {
      // Degenerate sizes: the modulo is NaN/undefined there, keep the splice's exact behaviour.
      const all = this.toArray();
      if (all.length >= this.max) {
        all.splice(1 + (this.dropped % (this.max - 2)), 1);
        this.dropped++;
      }
      all.push(p);
      this.kept = [];
      this.rest = all;
      this.restHead = 0;
      return;
    }
    if (this.length >= this.max) {
      const j = this.dropped % (this.max - 2);
      if (j === 0) {
        // A new sweep: only the first point is behind the removal index.
        const all = this.toArray();
        this.kept = all.slice(0, 1);
        this.rest = all.slice(1);
        this.restHead = 0;
      } else {
        // The point after the last removed one stays (the index moved past it).
        this.kept.push(this.rest[this.restHead++]!);
      }
      this.restHead++; // remove the point at index 1 + j: the first of the rest
      this.dropped++;
      if (this.restHead > 1024 && this.restHead * 2 > this.rest.length) {
        this.rest = this.rest.slice(this.restHead);
        this.restHead = 0;
      }
    }
    this.rest.push(p);
  }

  toArray(): T[] {
    return this.kept.concat(this.restHead ? this.rest.slice(this.restHead) : this.rest);
  }
}
