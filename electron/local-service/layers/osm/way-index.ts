/**
 * Where each way geometry kept in memory is, by way id. Ways arrive in ascending id order in PBF
 * files, so their ids go into sorted typed arrays (16 bytes a way, found by binary search): a
 * Map of 200,000 numeric keys cost more than assembling the ways. A way out of order, or a
 * later copy of one, goes into a Map that is looked at first.
 */
export class WayIndex {
  private ids: Float64Array = new Float64Array(1024);
  private at: Float64Array = new Float64Array(1024);
  private count = 0;
  private readonly others = new Map<number, number>();

  get(id: number): number | undefined {
    const o = this.others.get(id);
    if (o !== undefined) return o;
    const i = this.find(id);
    return i >= 0 && this.at[i]! >= 0 ? this.at[i] : undefined;
  }

  set(id: number, at: number): void {
    if (!this.count || id > this.ids[this.count - 1]!) {
      if (this.count === this.ids.length) {
        this.ids = grow(this.ids);
        this.at = grow(this.at);
      }
      this.ids[this.count] = id;
      this.at[this.count++] = at;
      return;
    }
    this.delete(id);
    this.others.set(id, at);
  }

  /** Forgets a way (a later copy of it is kept elsewhere). */
  delete(id: number): void {
    if (this.others.size) this.others.delete(id);
    if (!this.count || id > this.ids[this.count - 1]!) return;
    const i = this.find(id);
    if (i >= 0) this.at[i] = -1;
  }

  private find(id: number): number {
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.ids[mid]!;
      if (v === id) return mid;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

function grow(a: Float64Array): Float64Array {
  const b = new Float64Array(a.length * 2);
  b.set(a);
  return b;
}
