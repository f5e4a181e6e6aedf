import type { FeatureLike } from 'ol/Feature';
import type { Coordinate } from 'ol/coordinate';
import { getCenter } from 'ol/extent';
import { lineStringLength } from 'ol/geom/flat/length';
import RenderFeature from 'ol/render/Feature';
import { Fill, Stroke, Style, Text } from 'ol/style';
import type { StyleFunction } from 'ol/style/Style';
import type { Theme } from '../lib/theme';
import { STREET_PALETTES } from '../../../shared/basemap/palettes';

export { STREET_PALETTES, type StreetPalette } from '../../../shared/basemap/palettes';

/** Road width in pixels at zoom 16 per class; it doubles with each zoom in, halves out. */
const ROAD_WIDTH: Record<string, number> = { motorway: 9, primary: 8, secondary: 7, street: 6, service: 3.5, path: 1.5 };
const ROAD_ORDER = ['path', 'service', 'street', 'secondary', 'primary', 'motorway'];
/**
 * Pixels along a road between two labels of its name, about half a screen or more: a road is named
 * once or twice across a view, as on a printed map, not once in each tile it crosses.
 */
export const ROAD_NAME_SPACING_PX = 600;
/** A road name's width in pixels per character, a little over the 11 px font's average. */
const ROAD_NAME_PX_PER_CHAR = 6.5;

/**
 * The street basemap's style for one theme, by the tiles' layer and class names
 * (shared/basemap/streetClasses). Road casings go under their fills (z-index by class), names
 * follow roads, place labels are bold; labels are decluttered by the layer.
 */
/** Whether an overlay already labels this place name near this map coordinate (its label is then left out here). */
export type PlaceNamed = (name: string, at: Coordinate, resolution: number) => boolean;

export function streetStyle(theme: Theme, placeNamed?: PlaceNamed): StyleFunction {
  const p = STREET_PALETTES[theme];
  const fill = (color: string, stroke?: Stroke) => new Style({ fill: new Fill({ color }), ...(stroke ? { stroke } : {}) });
  const areas: Record<string, Style> = {
    water: fill(p.water),
    park: fill(p.park),
    wood: fill(p.wood),
    grass: fill(p.grass),
    residential: fill(p.residential),
    industrial: fill(p.industrial),
    building: fill(p.building, new Stroke({ color: p.buildingEdge, width: 1 })),
  };
  const roadColour = (c: string) => (c === 'motorway' ? p.motorway : c === 'primary' ? p.primary : c === 'secondary' ? p.secondary : c === 'path' ? p.path : p.street);
  const font = (size: number, weight = 'normal') => `${weight} ${size}px system-ui, sans-serif`;
  const text = (name: string, size: number, line: boolean, weight?: string) =>
    new Text({
      text: name,
      font: font(size, weight),
      fill: new Fill({ color: p.label }),
      stroke: new Stroke({ color: p.halo, width: 3 }),
      ...(line ? { placement: 'line' as const, overflow: false } : {}),
    });

  // Styles are made once per class and zoom step (and per name for labels), not per feature and frame.
  const cache = new Map<string, Style | Style[]>();
  const cached = (key: string, make: () => Style | Style[]) => {
    let st = cache.get(key);
    if (!st) {
      if (cache.size > 4000) cache.clear();
      cache.set(key, (st = make()));
    }
    return st;
  };

  /**
   * Where each road name has a label, per name and tile resolution, as flat x, y in map units.
   * Tiles are styled one at a time, each holding its own piece of a road; a piece is named unless
   * another piece of that name already is within ROAD_NAME_SPACING_PX. A piece styled again
   * (the tile drawn anew) finds its own place and keeps its name.
   */
  const roadNames = new Map<string, number[]>();
  const namesRoad = (f: FeatureLike, name: string, resolution: number): boolean => {
    if (!(f instanceof RenderFeature)) return true;
    const flat = f.getFlatCoordinates();
    const stride = f.getStride();
    const end = f.getEnds()?.[0] ?? flat.length;
    // Too short for the name: OpenLayers would not place it, so it holds no place either.
    if (lineStringLength(flat, 0, end, stride) / resolution < name.length * ROAD_NAME_PX_PER_CHAR + 8) return false;
    const [x, y] = f.getType() === 'LineString' ? f.getFlatMidpoint() : f.getFlatMidpoints();
    const key = `${name}|${resolution}`;
    let placed = roadNames.get(key);
    if (!placed) {
      if (roadNames.size > 4000) roadNames.clear();
      roadNames.set(key, (placed = []));
    }
    const reach = (ROAD_NAME_SPACING_PX * resolution) ** 2;
    for (let i = 0; i < placed.length; i += 2) {
      const d = (placed[i]! - x!) ** 2 + (placed[i + 1]! - y!) ** 2;
      if (d === 0) return true;
      if (d < reach) return false;
    }
    placed.push(x!, y!);
    return true;
  };

  return (f: FeatureLike, resolution: number): Style | Style[] | undefined => {
    const layer = f.get('layer') as string;
    const cls = f.get('class') as string;
    const name = f.get('name') as string | undefined;
    if (layer === 'landuse' || layer === 'water' || layer === 'buildings') return areas[cls] ?? areas['residential'];
    // 2.39 m per pixel at the equator is zoom 16; widths follow in quarter-zoom steps.
    const step = Math.round(Math.log2(2.39 / resolution) * 4) / 4;
    const scale = Math.min(4, Math.max(0.25, 2 ** step));
    if (layer === 'waterway') {
      return cached(`w|${cls}|${step}`, () => new Style({ stroke: new Stroke({ color: p.water, width: (cls === 'river' ? 10 : 3) * scale, lineCap: 'round' }), zIndex: 1 }));
    }
    if (layer === 'rail') return cached(`r|${step}`, () => new Style({ stroke: new Stroke({ color: p.rail, width: Math.max(1, 1.5 * scale), lineDash: [6, 4] }), zIndex: 20 }));
    if (layer === 'roads') {
      const w = Math.max(cls === 'path' ? 1 : 1.5, (ROAD_WIDTH[cls] ?? 3) * scale);
      const line = cached(`l|${cls}|${step}`, () => {
        const rank = ROAD_ORDER.indexOf(cls);
        const out = [
          new Style({ stroke: new Stroke({ color: roadColour(cls), width: w, lineCap: 'round', lineJoin: 'round', ...(cls === 'path' ? { lineDash: [4, 3] } : {}) }), zIndex: 11 + rank }),
        ];
        if (cls !== 'path') out.unshift(new Style({ stroke: new Stroke({ color: p.casing, width: w + 2, lineCap: 'round', lineJoin: 'round' }), zIndex: 10 }));
        return out;
      }) as Style[];
      if (!name || w < 5 || !namesRoad(f, name, resolution)) return line;
      return [...line, cached(`t|${name}`, () => new Style({ text: text(name, 11, true), zIndex: 30 })) as Style];
    }
    if (layer === 'places' && name) {
      const g = f.getGeometry();
      if (placeNamed && g && placeNamed(name, getCenter(g.getExtent()), resolution)) return undefined;
      return cached(`p|${cls}|${name}`, () => new Style({ text: text(cls === 'town' ? name : name.toUpperCase(), cls === 'town' ? 15 : 11, false, 'bold'), zIndex: 40 }));
    }
    return undefined;
  };
}
