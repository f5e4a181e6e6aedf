import Feature from 'ol/Feature';
import GeoJSON from 'ol/format/GeoJSON';
import type { Extent } from 'ol/extent';
import LineString from 'ol/geom/LineString';
import Point from 'ol/geom/Point';
import VectorLayer from 'ol/layer/Vector';
import { fromLonLat } from 'ol/proj';
import VectorSource from 'ol/source/Vector';
import { diffStyle, type DiffPart } from './diffStyles';

/** One change of a re-run diff as the map draws it. */
export interface DiffItem {
  id: string;
  change: 'added' | 'removed' | 'moved' | 'changed';
  /** GeoJSON geometry where the item is now (where it was, for a removed one). */
  geometry: unknown;
  /** Where a moved item was, [lon, lat]. */
  from: [number, number] | null;
}

/**
 * A re-run diff on the map: added, removed and moved items in styles of their own, each move a
 * dashed line from where the item was to where it is. Call dispose() when done.
 */
export default class DiffLayer {
  readonly layer: VectorLayer<VectorSource>;
  private readonly source = new VectorSource();
  private readonly format = new GeoJSON({ dataProjection: 'EPSG:4326', featureProjection: 'EPSG:3857' });

  constructor() {
    this.layer = new VectorLayer({ source: this.source, style: diffStyle, zIndex: 4, properties: { name: 'diff' } });
  }

  setItems(items: readonly DiffItem[] | null): void {
    this.source.clear(true);
    if (!items) return;
    const out: Feature[] = [];
    for (const item of items) {
      let now: Feature | null = null;
      try {
        now = item.geometry ? (this.format.readFeature({ type: 'Feature', geometry: item.geometry, properties: null }) as Feature) : null;
      } catch {
        now = null;
      }
      if (!now?.getGeometry()) continue;
      now.setProperties({ part: item.change satisfies DiffPart, id: item.id });
      out.push(now);
      if (item.change === 'moved' && item.from) {
        const was = fromLonLat(item.from);
        const geom = now.getGeometry();
        const to = geom instanceof Point ? geom.getCoordinates() : null;
        out.push(new Feature({ geometry: new Point(was), part: 'moved-from', id: item.id }));
        if (to) out.push(new Feature({ geometry: new LineString([was, to]), part: 'moved-path', id: item.id }));
      }
    }
    this.source.addFeatures(out);
  }

  get count(): number {
    return this.source.getFeatures().length;
  }

  extent(): Extent | undefined {
    return this.source.isEmpty() ? undefined : (this.source.getExtent() ?? undefined);
  }

  setVisible(visible: boolean): void {
    this.layer.setVisible(visible);
  }

  dispose(): void {
    this.source.clear(true);
    this.layer.dispose();
  }
}
