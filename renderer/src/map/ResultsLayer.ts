import type Feature from 'ol/Feature';
import GeoJSON from 'ol/format/GeoJSON';
import VectorLayer from 'ol/layer/Vector';
import VectorSource from 'ol/source/Vector';
import { Circle, Fill, Stroke, Style, Text } from 'ol/style';
import type { Extent } from 'ol/extent';
import type { FeatureLike } from 'ol/Feature';

export interface ResultsLayerOptions {
  /** Layer name, used by tests and the layer list. */
  name: string;
  color: string;
  /** Colour of the selected feature. */
  selectedColor?: string;
}

/** GeoJSON features as the service sends them (WGS84, [lon, lat]). */
export interface GeoJsonFeatureCollection {
  type: 'FeatureCollection';
  features: Array<{ type: 'Feature'; id?: string | number; geometry: unknown; properties?: unknown }>;
}

/** One result set on the map: points as dots, lines and areas outlined; the selection is ringed. */
export default class ResultsLayer {
  readonly layer: VectorLayer<VectorSource>;
  private readonly source = new VectorSource();
  private readonly format = new GeoJSON({ dataProjection: 'EPSG:4326', featureProjection: 'EPSG:3857' });
  private selectedId: string | number | undefined;
  /** Small result sets are named on the map; large ones only their selected feature. */
  private labelAll = false;

  constructor(private readonly options: ResultsLayerOptions) {
    const base = this.styleFor(options.color, false);
    const selected = this.styleFor(options.selectedColor ?? '#d7301f', true);
    this.layer = new VectorLayer({
      source: this.source,
      properties: { name: options.name },
      // Canvas rendering handles the 2,000 features a compute response can hold.
      style: (f: FeatureLike) => {
        if (f.getId() !== undefined && f.getId() === this.selectedId) return [selected, this.labelFor(f, true)];
        return this.labelAll ? [base, this.labelFor(f, false)] : base;
      },
      // Labels that would overlap are left out; dots are always drawn.
      declutter: true,
    });
  }

  private styleFor(color: string, emphasised: boolean): Style {
    return new Style({
      // The selected feature is drawn above the others, even among 2,000 overlapping dots.
      zIndex: emphasised ? 10 : 0,
      image: new Circle({
        declutterMode: 'none',
        radius: emphasised ? 8 : 5,
        fill: new Fill({ color }),
        stroke: new Stroke({ color: '#ffffff', width: emphasised ? 2.5 : 1.5 }),
      }),
      stroke: new Stroke({ color, width: emphasised ? 3 : 2 }),
      fill: new Fill({ color: `${color}33` }),
    });
  }

  /** Features are named on the map: the basemap has no place labels to read them by. */
  private labelFor(f: FeatureLike, selected: boolean): Style {
    const name = String(f.get('name') ?? f.get('address') ?? f.get('feature_name') ?? '');
    return new Style({
      zIndex: selected ? 11 : 1,
      text: new Text({
        // A label is a hint; the full name is in the details panel.
        text: name.length > 60 ? `${name.slice(0, 59)}…` : name,
        font: selected ? '600 12px system-ui, sans-serif' : '12px system-ui, sans-serif',
        // Clear of the dot and its white rim, so the label's halo never covers it.
        offsetY: selected ? -21 : -17,
        fill: new Fill({ color: selected ? '#1d2733' : '#3d4a58' }),
        stroke: new Stroke({ color: '#ffffff', width: 3 }),
        overflow: true,
      }),
    });
  }

  setFeatures(collection: GeoJsonFeatureCollection): void {
    this.source.clear(true);
    this.labelAll = collection.features.length <= 50;
    this.source.addFeatures(this.format.readFeatures(collection) as Feature[]);
  }

  select(id: string | number | undefined): void {
    this.selectedId = id;
    this.layer.changed();
  }

  featureExtent(id: string | number): Extent | undefined {
    return this.source.getFeatureById(id)?.getGeometry()?.getExtent();
  }

  extent(): Extent | undefined {
    return this.source.isEmpty() ? undefined : (this.source.getExtent() ?? undefined);
  }

  setVisible(visible: boolean): void {
    this.layer.setVisible(visible);
  }

  get name(): string {
    return this.options.name;
  }

  clear(): void {
    this.source.clear(true);
  }

  dispose(): void {
    this.source.clear(true);
    this.layer.dispose();
  }
}
