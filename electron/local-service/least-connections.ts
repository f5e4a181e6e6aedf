/**
 * Which process gets the next connection: the one holding the fewest open, ties in turn.
 * node:cluster's round robin hands a connection to whichever worker acknowledged its last one
 * first, so a burst of kept-alive connections (a team's clients starting together) can split
 * 20/12 over two workers, and the users of the busier one wait longer for as long as they stay
 * connected.
 */
export class LeastConnections<W> {
  private readonly open = new Map<W, number>();
  private turn = 0;

  /** A process that takes connections from now on, holding none. */
  add(w: W): void {
    if (!this.open.has(w)) this.open.set(w, 0);
  }

  /** A process that takes no more (stopping or gone); what it held is forgotten. */
  remove(w: W): void {
    this.open.delete(w);
  }

  /**
   * The process for a new connection (or request), counted as holding it; undefined while there
   * is none, or none that `eligible` accepts.
   */
  pick(eligible?: (w: W) => boolean): W | undefined {
    const ws = [...this.open.keys()];
    let best: W | undefined;
    let fewest = Infinity;
    for (let i = 0; i < ws.length; i++) {
      const w = ws[(this.turn + i) % ws.length]!;
      const n = this.open.get(w)!;
      if (n < fewest && (!eligible || eligible(w))) [best, fewest] = [w, n];
    }
    this.turn = (this.turn + 1) % Math.max(1, ws.length);
    if (best !== undefined) this.open.set(best, fewest + 1);
    return best;
  }

  /** Whether the process takes connections (added and not removed). */
  has(w: W): boolean {
    return this.open.has(w);
  }

  /** One of the process's connections closed. */
  closed(w: W): void {
    const n = this.open.get(w);
    if (n) this.open.set(w, n - 1);
  }

  /** Open connections per process, in the order they were added. */
  counts(): number[] {
    return [...this.open.values()];
  }
}
