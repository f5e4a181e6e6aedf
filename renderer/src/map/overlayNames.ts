import type { Coordinate } from 'ol/coordinate';
import { buffer, containsCoordinate, type Extent } from 'ol/extent';

export interface NamedExtent {
  name: string;
  extent: Extent;
}

const key = (name: string) => name.trim().toLocaleLowerCase();

/**
 * The names the map's overlays (results, a data layer) label, each with its feature's extent.
 * The basemap leaves out its own label of a place an overlay already names at that spot: the
 * analyst's data keeps its label, and a place is never named twice.
 */
export default class OverlayNames {
  private readonly bySource = new Map<string, Map<string, Extent[]>>();
  private readonly listeners = new Set<() => void>();

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
    for (const cb of this.listeners) cb();
  }

  /** Whether an overlay labels `name` at `at`: inside its feature's extent grown by `margin` map units. */
  has(name: string, at: Coordinate, margin: number): boolean {
    const k = key(name);
    for (const names of this.bySource.values()) for (const e of names.get(k) ?? []) if (containsCoordinate(buffer(e, margin), at)) return true;
    return false;
  }

  onChange(cb: () => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }
}
