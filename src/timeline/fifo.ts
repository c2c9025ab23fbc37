/**
 * A FIFO with O(1) shift: an array with a moving head, compacted once the consumed part is
 * large. Used on hot paths (the replay engine's look-ahead, causal ordering) where
 * Array.prototype.shift would make every event O(queue length).
 */
export class Fifo<T> {
  private items: T[] = [];
  private head = 0;
  get length(): number {
    return this.items.length - this.head;
  }
  push(x: T): void {
    this.items.push(x);
  }
  peek(): T | undefined {
    return this.items[this.head];
  }
  last(): T | undefined {
    return this.items[this.items.length - 1];
  }
  shift(): T | undefined {
    const x = this.items[this.head++];
    if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return x;
  }
  *iterate(): Generator<T> {
    for (let i = this.head; i < this.items.length; i++) yield this.items[i]!;
  }
}
