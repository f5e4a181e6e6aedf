import type Feature from 'ol/Feature';
import type { FeatureLike } from 'ol/Feature';
import GeoJSON from 'ol/format/GeoJSON';
import VectorLayer from 'ol/layer/Vector';
import VectorSource from 'ol/source/Vector';
import { Fill, RegularShape, Stroke, Style, Text } from 'ol/style';
import type { Coordinate } from 'ol/coordinate';
import { getCenter, type Extent } from 'ol/extent';
import type { LineString, Point } from 'ol/geom';
import type OverlayNames from './overlayNames';
import type { GeoJsonFeatureCollection } from './ResultsLayer';

/** A data layer's colour: apart from the results' orange, the basemap's land and water. */
export const DATA_LAYER_COLOUR = '#1b7f8c';

const AREAS = new Set(['Polygon', 'MultiPolygon']);

export interface DataLayerOverlayOptions {
  /** Whether a label of this size at this map coordinate is clear of the map's controls (absent: always). */
  labelClear?: (coordinate: Coordinate, box: { width: number; height: number; offsetY: number }) => boolean;
  /** Where the names this layer labels are told, so the basemap does not name the same place again. */
  names?: OverlayNames;
}

/**
 * One data layer drawn under the results: areas filled lightly, lines and points in one colour,
 * named features labelled where labels fit. Call dispose() when done.
 */
export default class DataLayerOverlay {
  readonly layer: VectorLayer<VectorSource>;
  private readonly source = new VectorSource();
  private readonly format = new GeoJSON({ dataProjection: 'EPSG:4326', featureProjection: 'EPSG:3857' });

  constructor(private readonly options: DataLayerOverlayOptions = {}) {
    const shape = new Style({
      // Points are always drawn; only labels give way to each other. A diamond, where results
      // are round dots: a layer's point and an answer's are told apart by shape as well as colour.
      image: new RegularShape({
        declutterMode: 'none',
        points: 4,
        radius: 6,
        angle: 0,
        fill: new Fill({ color: DATA_LAYER_COLOUR }),
        stroke: new Stroke({ color: '#ffffff', width: 1.5 }),
      }),
      stroke: new Stroke({ color: DATA_LAYER_COLOUR, width: 2 }),
      fill: new Fill({ color: `${DATA_LAYER_COLOUR}22` }),
    });
    // Where OpenLayers puts a label: above a point, at a line's middle, at an area's centre.
    const anchor = (f: FeatureLike): Coordinate | null => {
      const g = f.getGeometry();
      if (!g) return null;
      if (g.getType() === 'Point') return (g as Point).getCoordinates();
      if (g.getType() === 'LineString') return (g as LineString).getCoordinateAt(0.5);
      return getCenter(g.getExtent());
    };
    const clear = (f: FeatureLike): boolean => {
      const at = options.labelClear && anchor(f);
      const point = f.getGeometry()?.getType() === 'Point';
      return !at || options.labelClear!(at, { width: String(f.get('name')).length * 6.5 + 6, height: 16, offsetY: point ? -15 : 0 });
    };
    const label = (f: FeatureLike) =>
      new Style({
        // An area's name (a quarter, a park) is placed before the names of the points and lines in
        // it, as on a printed map: the place is named, and a shop's label gives way if they meet.
        zIndex: AREAS.has(f.getGeometry()?.getType() ?? '') ? 1 : 0,
        text: new Text({
          text: String(f.get('name') ?? ''),
          font: '11px system-ui, sans-serif',
          offsetY: f.getGeometry()?.getType() === 'Point' ? -15 : 0,
          fill: new Fill({ color: '#134e56' }),
          stroke: new Stroke({ color: '#ffffff', width: 3 }),
        }),
      });
    this.layer = new VectorLayer({
      source: this.source,
      properties: { name: 'data-layer' },
      // A label that would fall under a map control is left out, as one overlapping another is.
      style: (f: FeatureLike) => (f.get('name') && clear(f) ? [shape, label(f)] : shape),
      // Labels that would overlap are dropped; shapes are always drawn.
      declutter: true,
    });
    this.layer.on('change:visible', () => this.tellNames());
  }

  /** Its named features, while it is shown. */
  private tellNames(): void {
    const named = this.layer.getVisible()
      ? this.source.getFeatures().flatMap((f) => {
          const extent = f.getGeometry()?.getExtent();
          return f.get('name') && extent ? [{ name: String(f.get('name')), extent }] : [];
        })
      : [];
    this.options.names?.set('data-layer', named);
  }

  /** Labels are placed when features are styled: after the view settles, again for where the controls now are. */
  refreshLabels(): void {
    this.layer.changed();
  }

  setFeatures(collection: GeoJsonFeatureCollection | null): void {
    this.source.clear(true);
    if (collection) this.source.addFeatures(this.format.readFeatures(collection) as Feature[]);
    this.tellNames();
  }

  get count(): number {
    return this.source.getFeatures().length;
  }

  extent(): Extent | undefined {
    return this.source.isEmpty() ? undefined : (this.source.getExtent() ?? undefined);
  }

  dispose(): void {
    this.source.clear(true);
    this.options.names?.set('data-layer', []);
    this.layer.dispose();
  }
}
