import Feature from 'ol/Feature';
import type Map from 'ol/Map';
import type { Pixel } from 'ol/pixel';
import Point from 'ol/geom/Point';
import Translate from 'ol/interaction/Translate';
import VectorLayer from 'ol/layer/Vector';
import { fromLonLat, toLonLat } from 'ol/proj';
import VectorSource from 'ol/source/Vector';
import { Circle, Fill, Stroke, Style, Text } from 'ol/style';

/** A pin as drawn: names are unique on the map, as questions refer to places by name. */
export interface NamedCoordinate {
  name: string;
  lon: number;
  lat: number;
}

export interface NamedCoordinatesLayerOptions {
  map: Map;
  color: string;
  /** A coordinate was dragged to a new place ([lon, lat]). */
  onMove: (name: string, lon: number, lat: number) => void;
}

/** Named coordinates as labelled pins that can be dragged; the selected one is ringed. */
export default class NamedCoordinatesLayer {
  readonly layer: VectorLayer<VectorSource<Feature<Point>>>;
  private readonly source = new VectorSource<Feature<Point>>();
  private readonly translate: Translate;
  private selected: string | null = null;
  private dragging = false;

  constructor(private readonly options: NamedCoordinatesLayerOptions) {
    this.layer = new VectorLayer({
      source: this.source,
      properties: { name: 'coordinates' },
      zIndex: 3,
      style: (f) => this.styleOf(String(f.getId()), f.get('label') as string),
    });
    options.map.addLayer(this.layer);
    this.translate = new Translate({ layers: [this.layer], hitTolerance: 6 });
    this.translate.on('translatestart', () => (this.dragging = true));
    this.translate.on('translateend', (e) => {
      this.dragging = false;
      for (const f of e.features.getArray()) {
        const [lon, lat] = toLonLat((f.getGeometry() as Point).getCoordinates());
        options.onMove(String(f.getId()), lon!, lat!);
      }
    });
    options.map.addInteraction(this.translate);
  }

  private styleOf(name: string, label: string): Style[] {
    const selected = name === this.selected;
    return [
      new Style({
        image: new Circle({
          radius: selected ? 9 : 7,
          fill: new Fill({ color: this.options.color }),
          stroke: new Stroke({ color: selected ? '#d7301f' : '#ffffff', width: selected ? 3 : 2 }),
        }),
        text: new Text({
          text: label,
          font: '600 12px system-ui, sans-serif',
          offsetY: 18,
          fill: new Fill({ color: this.options.color }),
          stroke: new Stroke({ color: '#ffffff', width: 3 }),
        }),
        zIndex: selected ? 2 : 1,
      }),
    ];
  }

  setCoordinates(list: readonly NamedCoordinate[]): void {
    // A drag in progress owns its feature; the store catches up at translateend.
    if (this.dragging) return;
    this.source.clear(true);
    this.source.addFeatures(
      list.map((c) => {
        const f = new Feature({ geometry: new Point(fromLonLat([c.lon, c.lat])), label: c.name });
        f.setId(c.name);
        return f;
      }),
    );
  }

  /** The name of the coordinate under a pixel, or null. */
  nameAt(pixel: Pixel): string | null {
    let name: string | null = null;
    this.options.map.forEachFeatureAtPixel(
      pixel,
      (f) => {
        name = String(f.getId());
        return true;
      },
      { hitTolerance: 6, layerFilter: (l) => l === this.layer },
    );
    return name;
  }

  select(name: string | null): void {
    this.selected = name;
    this.layer.changed();
  }

  setVisible(visible: boolean): void {
    this.layer.setVisible(visible);
    this.translate.setActive(visible);
  }

  dispose(): void {
    this.options.map.removeInteraction(this.translate);
    this.options.map.removeLayer(this.layer);
    this.translate.dispose();
    this.source.dispose();
    this.layer.dispose();
  }
}
