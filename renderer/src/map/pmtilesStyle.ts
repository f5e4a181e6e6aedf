import type { FeatureLike } from 'ol/Feature';
import { getCenter } from 'ol/extent';
import { Circle, Fill, Stroke, Style, Text } from 'ol/style';
import type { StyleFunction } from 'ol/style/Style';
import type { PlaceNamed } from './streetStyle';

/**
 * A plain style for any vector PMTiles basemap: water by its layer's name (every common schema,
 * Protomaps, OpenMapTiles, Shortbread, calls it so), place names from the layer of places (named
 * "places", "place" or "place_labels" by those schemas), everything else by geometry, muted so
 * results stay the strongest thing on the map.
 */
const water = new Style({ fill: new Fill({ color: '#b9d3e6' }), stroke: new Stroke({ color: '#9fbfd8', width: 0.6 }) });
const area = new Style({ fill: new Fill({ color: '#e9ebe1' }), stroke: new Stroke({ color: '#cfd3c4', width: 0.5 }) });
const line = new Style({ stroke: new Stroke({ color: '#b8b8b8', width: 1 }) });
const point = new Style({ image: new Circle({ radius: 2, fill: new Fill({ color: '#8a8a8a' }) }) });
const WATER = /water|ocean|sea|lake|river/i;
const PLACES = /^place/i;

/**
 * The style of a PMTiles basemap. A place an overlay already names there (`placeNamed`) is not
 * named again: the same rule as the street basemap's.
 */
export function pmtilesStyle(placeNamed?: PlaceNamed): StyleFunction {
  const labels = new Map<string, Style>();
  return (f: FeatureLike, resolution: number): Style | undefined => {
    const layer = String(f.get('layer') ?? '');
    const geometry = f.getGeometry();
    const type = geometry?.getType();
    if (WATER.test(layer)) return water;
    if (type === 'Polygon' || type === 'MultiPolygon') return area;
    if (type === 'LineString' || type === 'MultiLineString') return line;
    const name = f.get('name') as unknown;
    if (PLACES.test(layer) && typeof name === 'string' && name && geometry) {
      if (placeNamed?.(name, getCenter(geometry.getExtent()), resolution)) return undefined;
      let label = labels.get(name);
      if (!label) {
        if (labels.size > 4000) labels.clear();
        label = new Style({
          text: new Text({ text: name, font: 'bold 12px system-ui, sans-serif', fill: new Fill({ color: '#2f3338' }), stroke: new Stroke({ color: '#ffffff', width: 3 }) }),
          zIndex: 40,
        });
        labels.set(name, label);
      }
      return label;
    }
    return point;
  };
}
