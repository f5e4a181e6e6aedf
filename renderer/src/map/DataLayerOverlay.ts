import type Feature from 'ol/Feature';
import type { FeatureLike } from 'ol/Feature';
import GeoJSON from 'ol/format/GeoJSON';
import VectorLayer from 'ol/layer/Vector';
import VectorSource from 'ol/source/Vector';
import { Fill, RegularShape, Stroke, Style, Text } from 'ol/style';
import type { Extent } from 'ol/extent';
import type { GeoJsonFeatureCollection } from './ResultsLayer';

/** A data layer's colour: apart from the results' orange, the basemap's land and water. */
export const DATA_LAYER_COLOUR = '#1b7f8c';

/**
 * One data layer drawn under the results: areas filled lightly, lines and points in one colour,
 * named features labelled where labels fit. Call dispose() when done.
 */
export default class DataLayerOverlay {
  readonly layer: VectorLayer<VectorSource>;
  private readonly source = new VectorSource();
  private readonly format = new GeoJSON({ dataProjection: 'EPSG:4326', featureProjection: 'EPSG:3857' });

  constructor() {
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
    const label = (f: FeatureLike) =>
      new Style({
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
      style: (f: FeatureLike) => (f.get('name') ? [shape, label(f)] : shape),
      // Labels that would overlap are dropped; shapes are always drawn.
      declutter: true,
    });
  }

  setFeatures(collection: GeoJsonFeatureCollection | null): void {
    this.source.clear(true);
    if (collection) this.source.addFeatures(this.format.readFeatures(collection) as Feature[]);
  }

  get count(): number {
    return this.source.getFeatures().length;
  }

  extent(): Extent | undefined {
    return this.source.isEmpty() ? undefined : (this.source.getExtent() ?? undefined);
  }

  dispose(): void {
    this.source.clear(true);
    this.layer.dispose();
  }
}
