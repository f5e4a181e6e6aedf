import Feature from 'ol/Feature';
import type OlMap from 'ol/Map';
import type { Extent } from 'ol/extent';
import Point from 'ol/geom/Point';
import VectorLayer from 'ol/layer/Vector';
import VectorSource from 'ol/source/Vector';
import { Fill, RegularShape, Style } from 'ol/style';

/** Side of the unit square scaled to each control's box (its canvas is a little larger). */
const UNIT = 10;

/**
 * Invisible boxes under the map's controls, in the declutter group every labelled layer shares
 * (`declutter: true`) and above them all: OpenLayers then leaves out any label of the street
 * basemap, a basemap file or a data layer that would fall under a control, as it leaves out one
 * that would overlap another. Placed again each time the view settles or the map is resized.
 */
export default class ControlObstacles {
  readonly layer: VectorLayer<VectorSource>;
  private readonly source = new VectorSource();

  constructor(
    private readonly map: OlMap,
    /** The controls' boxes in map pixels. */
    private readonly boxes: () => Extent[],
  ) {
    this.layer = new VectorLayer({ source: this.source, declutter: true, zIndex: 1000, properties: { name: 'control-obstacles' } });
  }

  update(): void {
    const features: Feature[] = [];
    for (const [x0, y0, x1, y1] of this.boxes()) {
      const at = this.map.getCoordinateFromPixel([(x0! + x1!) / 2, (y0! + y1!) / 2]);
      if (!at) continue;
      const f = new Feature(new Point(at));
      const square = new RegularShape({
        points: 4,
        radius: UNIT * Math.SQRT1_2,
        angle: Math.PI / 4,
        fill: new Fill({ color: 'rgba(0, 0, 0, 0)' }),
        declutterMode: 'obstacle',
      });
      // Declutter takes the shape's whole canvas, which is larger than the square it draws:
      // scaled by the canvas, the obstacle is the control's box, not a wider band around it.
      const [w, h] = square.getSize();
      square.setScale([(x1! - x0!) / w!, (y1! - y0!) / h!]);
      f.setStyle(new Style({ image: square }));
      features.push(f);
    }
    this.source.clear(true);
    this.source.addFeatures(features);
  }
}
