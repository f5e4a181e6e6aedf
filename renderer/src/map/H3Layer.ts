import Feature from 'ol/Feature';
import type Map from 'ol/Map';
import type { Coordinate } from 'ol/coordinate';
import Polygon from 'ol/geom/Polygon';
import Draw from 'ol/interaction/Draw';
import VectorLayer from 'ol/layer/Vector';
import { fromLonLat } from 'ol/proj';
import VectorSource from 'ol/source/Vector';
import { Fill, Stroke, Style } from 'ol/style';
import { unwrapLine } from './unwrapAntimeridian';
import { cellRing } from './h3Cells';

export interface H3LayerOptions {
  map: Map;
  color: string;
}

/** Picked H3 cells as outlined hexagons, and the polygon tool that fills an area with cells. */
export default class H3Layer {
  readonly layer: VectorLayer<VectorSource<Feature<Polygon>>>;
  private readonly source = new VectorSource<Feature<Polygon>>();
  private draw: Draw | null = null;

  constructor(private readonly options: H3LayerOptions) {
    this.layer = new VectorLayer({
      source: this.source,
      properties: { name: 'h3' },
      zIndex: 2,
      style: new Style({
        fill: new Fill({ color: `${options.color}40` }),
        stroke: new Stroke({ color: options.color, width: 1.5 }),
      }),
    });
    options.map.addLayer(this.layer);
  }

  setCells(ids: readonly string[]): void {
    this.source.clear(true);
    this.source.addFeatures(
      ids.map((id) => {
        // A cell across the antimeridian keeps its ring continuous, like the basemap's.
        const ring = unwrapLine(cellRing(id)).map((p) => fromLonLat(p));
        const f = new Feature({ geometry: new Polygon([ring]) });
        f.setId(id);
        return f;
      }),
    );
  }

  /** Starts the polygon tool; each finished polygon's outer ring (map projection) is handed over. */
  startDrawing(onPolygon: (ring: Coordinate[]) => void): void {
    this.stopDrawing();
    // stopClick: the clicks that place corners must not also zoom (double-click) or pick results.
    this.draw = new Draw({ type: 'Polygon', source: new VectorSource(), stopClick: true });
    this.draw.on('drawend', (e) => {
      const ring = (e.feature.getGeometry() as Polygon).getCoordinates()[0];
      if (ring && ring.length >= 4) onPolygon(ring);
    });
    this.options.map.addInteraction(this.draw);
  }

  stopDrawing(): void {
    if (!this.draw) return;
    this.options.map.removeInteraction(this.draw);
    this.draw.dispose();
    this.draw = null;
  }

  setVisible(visible: boolean): void {
    this.layer.setVisible(visible);
  }

  dispose(): void {
    this.stopDrawing();
    this.options.map.removeLayer(this.layer);
    this.source.dispose();
    this.layer.dispose();
  }
}
