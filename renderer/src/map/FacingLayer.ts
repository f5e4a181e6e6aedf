import Feature from 'ol/Feature';
import type { Extent } from 'ol/extent';
import LineString from 'ol/geom/LineString';
import Point from 'ol/geom/Point';
import VectorLayer from 'ol/layer/Vector';
import { fromLonLat } from 'ol/proj';
import VectorSource from 'ol/source/Vector';
import { Circle, Fill, RegularShape, Stroke, Style } from 'ol/style';

/** Imagery facing a feature: where each capture stood, and the feature it looks at. */
export interface FacingView {
  /** The feature's name, for the map's key. */
  label: string;
  target: [number, number];
  captures: ReadonlyArray<{ featureId: string; lon: number; lat: number }>;
}

/** The arrows' colour: the imagery layer's purple, so they read as "imagery" beside its captures. */
export const FACING_COLOUR = '#7b3fb5';

const line = [new Style({ stroke: new Stroke({ color: '#ffffff', width: 4.5 }) }), new Style({ stroke: new Stroke({ color: FACING_COLOUR, width: 2.5 }) })];
const capture = new Style({ image: new Circle({ radius: 5, fill: new Fill({ color: FACING_COLOUR }), stroke: new Stroke({ color: '#ffffff', width: 1.5 }) }) });
const target = new Style({ image: new Circle({ radius: 9, fill: new Fill({ color: 'rgba(255,255,255,0.5)' }), stroke: new Stroke({ color: FACING_COLOUR, width: 2 }) }) });

const headCache = new Map<number, Style>();
/** An arrowhead turned to `radians` (clockwise from up), drawn at the line's end. */
function head(radians: number): Style {
  const key = Math.round((radians * 180) / Math.PI);
  let s = headCache.get(key);
  if (!s) {
    s = new Style({
      image: new RegularShape({
        points: 3,
        radius: 8,
        rotation: (key * Math.PI) / 180,
        // Backed off along the line so the tip meets the target's ring (the displacement turns with the rotation).
        displacement: [0, -14],
        fill: new Fill({ color: FACING_COLOUR }),
        stroke: new Stroke({ color: '#ffffff', width: 1.5 }),
      }),
    });
    headCache.set(key, s);
  }
  return s;
}

/**
 * Map direction of a line from `a` to `b` (map projection), clockwise from up: Web Mercator keeps
 * angles, so over the short lines drawn here it is the compass bearing the service gives.
 */
export const screenAngle = (a: number[], b: number[]): number => Math.atan2(b[0]! - a[0]!, b[1]! - a[1]!);

/**
 * Arrows from each capture to the feature it faces, the head stopped short of the feature's
 * ring so heads do not pile up on it. Call dispose() when done.
 */
export default class FacingLayer {
  readonly layer: VectorLayer<VectorSource>;
  private readonly source = new VectorSource();

  constructor() {
    this.layer = new VectorLayer({
      source: this.source,
      zIndex: 5,
      properties: { name: 'facing' },
      style: (f) => {
        const part = f.get('part') as string;
        if (part === 'line') return line;
        if (part === 'head') return head(f.get('angle') as number);
        return part === 'target' ? target : capture;
      },
    });
  }

  setView(view: FacingView | null): void {
    this.source.clear(true);
    if (!view) return;
    const t = fromLonLat(view.target);
    const out: Feature[] = [new Feature({ geometry: new Point(t), part: 'target' })];
    for (const c of view.captures) {
      const from = fromLonLat([c.lon, c.lat]);
      const angle = screenAngle(from, t);
      out.push(
        new Feature({ geometry: new LineString([from, t]), part: 'line', id: c.featureId }),
        new Feature({ geometry: new Point(from), part: 'capture', id: c.featureId }),
        new Feature({ geometry: new Point(t), part: 'head', angle, id: c.featureId }),
      );
    }
    this.source.addFeatures(out);
  }

  /** Arrows drawn (one per capture). */
  get count(): number {
    return this.source.getFeatures().filter((f) => f.get('part') === 'line').length;
  }

  extent(): Extent | undefined {
    return this.source.isEmpty() ? undefined : (this.source.getExtent() ?? undefined);
  }

  dispose(): void {
    this.source.clear(true);
    this.layer.dispose();
  }
}
