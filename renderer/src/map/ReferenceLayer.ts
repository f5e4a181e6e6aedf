import Feature from 'ol/Feature';
import GeoJSON from 'ol/format/GeoJSON';
import Point from 'ol/geom/Point';
import Polygon, { circular } from 'ol/geom/Polygon';
import type { Extent } from 'ol/extent';
import { createEmpty, extend } from 'ol/extent';
import VectorLayer from 'ol/layer/Vector';
import { fromLonLat } from 'ol/proj';
import VectorSource from 'ol/source/Vector';
import { Circle, Fill, Stroke, Style, Text } from 'ol/style';
import type { Geometry } from '../../../shared/service/geojson';
import type { Theme } from '../lib/theme';

/** What an answer was measured from or kept within, as the map draws it. */
export interface MapReference {
  /** The place as the reading names it. */
  label: string;
  lon: number;
  lat: number;
  /** A "within" radius (circle), or with minKm a "between" ring; none: the place alone. */
  maxKm?: number;
  minKm?: number;
  /** An area's outline (a country), drawn instead of a mark. */
  area?: Geometry;
  /** A line measured from (a river, a street "along X"): drawn and named along itself, instead of a mark or circle. */
  line?: Geometry;
}

/** Blue, apart from the results' colours, the basemap's greys and the selection's red. */
export const REFERENCE_PALETTES: Record<Theme, { line: string; fill: string; halo: string; text: string }> = {
  light: { line: '#1c5fd4', fill: 'rgba(28, 95, 212, 0.06)', halo: '#ffffff', text: '#123f8c' },
  dark: { line: '#6aa8ff', fill: 'rgba(106, 168, 255, 0.08)', halo: '#1b2026', text: '#b8d4ff' },
};

/** Points of a geodesic circle: one every 3 degrees of bearing is smooth at any zoom. */
const CIRCLE_POINTS = 120;

/** A ring of the world's shape of a circle on the ground, in map coordinates. */
function groundCircle(lon: number, lat: number, km: number): Polygon {
  return circular([lon, lat], km * 1000, CIRCLE_POINTS).transform('EPSG:4326', 'EPSG:3857') as Polygon;
}

/**
 * The answer's reference on the map: the place or typed point marked and named, a "within N"
 * radius as a circle, "between" as a ring, an area as its outline, a line (a river, a street)
 * drawn and named along itself. Under the results.
 */
export default class ReferenceLayer {
  readonly layer: VectorLayer;
  private theme: Theme;
  private shown: MapReference[] = [];

  constructor(theme: Theme) {
    this.theme = theme;
    this.layer = new VectorLayer({ source: new VectorSource(), properties: { name: 'answer-reference' }, style: (f) => this.style(f.get('part') as string, f.get('name') as string) });
  }

  private style(part: string, name: string): Style {
    const p = REFERENCE_PALETTES[this.theme];
    if (part === 'mark')
      return new Style({
        zIndex: 5,
        image: new Circle({ radius: 7, fill: new Fill({ color: p.line }), stroke: new Stroke({ color: p.halo, width: 2.5 }), declutterMode: 'none' }),
        text: new Text({ text: name, font: '600 13px system-ui, sans-serif', offsetY: 16, fill: new Fill({ color: p.text }), stroke: new Stroke({ color: p.halo, width: 3.5 }) }),
      });
    if (part === 'area') return new Style({ stroke: new Stroke({ color: p.line, width: 2 }), fill: new Fill({ color: p.fill }) });
    if (part === 'line')
      return new Style({
        zIndex: 4,
        stroke: new Stroke({ color: p.line, width: 3.5 }),
        text: new Text({ text: name, placement: 'line', font: '600 13px system-ui, sans-serif', fill: new Fill({ color: p.text }), stroke: new Stroke({ color: p.halo, width: 3.5 }) }),
      });
    return new Style({ stroke: new Stroke({ color: p.line, width: 2, lineDash: [8, 6] }), fill: new Fill({ color: p.fill }) });
  }

  /** Draws these references (none clears). */
  set(refs: readonly MapReference[]): void {
    this.shown = [...refs];
    const features: Feature[] = [];
    const format = new GeoJSON({ featureProjection: 'EPSG:3857' });
    for (const r of refs) {
      if (r.line) {
        const line = format.readGeometry(r.line);
        if (line) features.push(new Feature({ geometry: line, part: 'line', name: r.label }));
        continue;
      }
      if (r.area) {
        const area = format.readGeometry(r.area);
        if (area) features.push(new Feature({ geometry: area, part: 'area', name: r.label }));
      }
      if (r.maxKm !== undefined && Number.isFinite(r.maxKm)) {
        const outer = groundCircle(r.lon, r.lat, r.maxKm);
        if (r.minKm !== undefined && r.minKm > 0) {
          const inner = groundCircle(r.lon, r.lat, r.minKm).getLinearRing(0)!;
          outer.appendLinearRing(inner);
          features.push(new Feature({ geometry: outer, part: 'ring', name: r.label }));
        } else features.push(new Feature({ geometry: outer, part: 'circle', name: r.label }));
      } else if (r.minKm !== undefined && r.minKm > 0) features.push(new Feature({ geometry: groundCircle(r.lon, r.lat, r.minKm), part: 'circle', name: r.label }));
      // The place itself, named: where the answer's distances start, or the area's name.
      features.push(new Feature({ geometry: new Point(fromLonLat([r.lon, r.lat])), part: 'mark', name: r.label }));
    }
    const source = this.layer.getSource()!;
    source.clear();
    source.addFeatures(features);
  }

  get references(): readonly MapReference[] {
    return this.shown;
  }

  /** The drawn reference's extent in map coordinates, or null when none is drawn. */
  extent(): Extent | null {
    const source = this.layer.getSource()!;
    if (source.getFeatures().length === 0) return null;
    return extend(createEmpty(), source.getExtent() as Extent);
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
    this.layer.changed();
  }

  dispose(): void {
    this.layer.getSource()?.clear();
    this.layer.dispose();
  }
}
