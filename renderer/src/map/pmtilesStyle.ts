import type { FeatureLike } from 'ol/Feature';
import { Circle, Fill, Stroke, Style } from 'ol/style';

/**
 * A plain style for any vector PMTiles basemap: water by its layer's name (every common schema,
 * Protomaps, OpenMapTiles, Shortbread, calls it so), everything else by geometry, muted so
 * results stay the strongest thing on the map.
 */
const water = new Style({ fill: new Fill({ color: '#b9d3e6' }), stroke: new Stroke({ color: '#9fbfd8', width: 0.6 }) });
const area = new Style({ fill: new Fill({ color: '#e9ebe1' }), stroke: new Stroke({ color: '#cfd3c4', width: 0.5 }) });
const line = new Style({ stroke: new Stroke({ color: '#b8b8b8', width: 1 }) });
const point = new Style({ image: new Circle({ radius: 2, fill: new Fill({ color: '#8a8a8a' }) }) });

export function pmtilesStyle(f: FeatureLike): Style {
  const layer = String(f.get('layer') ?? '');
  const type = f.getGeometry()?.getType();
  if (/water|ocean|sea|lake|river/i.test(layer)) return water;
  if (type === 'Polygon' || type === 'MultiPolygon') return area;
  if (type === 'LineString' || type === 'MultiLineString') return line;
  return point;
}
