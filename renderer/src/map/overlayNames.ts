import type { Coordinate } from 'ol/coordinate';
import { buffer, containsCoordinate, type Extent } from 'ol/extent';

export interface NamedExtent {
  name: string;
  extent: Extent;
}

const key = (name: string) => name.trim().toLocaleLowerCase();
const claimId = (k: string, e: Extent) => `${k}\u0000${e.join(',')}`;

/** Names the basemap may ask about before the oldest are forgotten (they are asked again when drawn). */
const ASKED_MAX = 5000;

/**
 * The names the map's overlays (results, a data layer) label, each with its feature's extent.
 * A place is named once: the basemap leaves out its own label of a place an overlay names at that
 * spot, unless the overlay's label gave way in the last complete frame (to another label or a map
 * control), in which case the basemap's label stands in for it.
 */
export default class OverlayNames {
  private readonly bySource = new Map<string, Map<string, Extent[]>>();
  private readonly listeners = new Set<() => void>();
  /** Claims (name and extent) whose label the last complete frame did not place. */
  private unplaced = new Set<string>();
  /** Names the basemap asked about: only their labels' placing is followed. */
  private readonly asked = new Set<string>();

  /** What one overlay labels now (nothing when it is hidden or draws no labels). */
  set(source: string, named: Iterable<NamedExtent>): void {
    const next = new Map<string, Extent[]>();
    for (const n of named) {
      const k = key(n.name);
      if (!k) continue;
      const list = next.get(k);
      if (list) list.push(n.extent);
      else next.set(k, [n.extent]);
    }
    const had = this.bySource.get(source);
    if (!next.size && !had?.size) return;
    if (next.size) this.bySource.set(source, next);
    else this.bySource.delete(source);
    this.tell();
  }

  /**
   * Whether an overlay labels `name` at `at`: inside its feature's extent grown by `margin` map
   * units, and its label was not left out in the last complete frame (until one is complete, it
   * counts as placed).
   */
  has(name: string, at: Coordinate, margin: number): boolean {
    const k = key(name);
    if (!this.asked.has(k)) {
      if (this.asked.size >= ASKED_MAX) this.asked.clear();
      this.asked.add(k);
    }
    for (const names of this.bySource.values())
      for (const e of names.get(k) ?? []) if (!this.unplaced.has(claimId(k, e)) && containsCoordinate(buffer(e, margin), at)) return true;
    return false;
  }

  /**
   * After a complete frame, the named labels it placed: an overlay's label of a place the basemap
   * asked about that was left out lets the basemap's own label in, and one placed again takes it
   * out. Listeners are told only when that changes.
   */
  settle(placed: Iterable<NamedExtent>): void {
    const drawn = new Set<string>();
    for (const p of placed) {
      const k = key(p.name);
      if (this.asked.has(k)) drawn.add(claimId(k, p.extent));
    }
    const next = new Set<string>();
    for (const k of this.asked)
      for (const names of this.bySource.values())
        for (const e of names.get(k) ?? []) {
          const id = claimId(k, e);
          if (!drawn.has(id)) next.add(id);
        }
    const changed = next.size !== this.unplaced.size || [...next].some((id) => !this.unplaced.has(id));
    this.unplaced = next;
    if (changed) this.tell();
  }

  onChange(cb: () => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }

  private tell(): void {
    for (const cb of this.listeners) cb();
  }
}
