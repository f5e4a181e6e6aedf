/**
 * The street basemap drawn from an OSM extract, as data: which tagged features go into which
 * vector tile layer under which class, from which zoom. The tiler selects and classifies by this
 * table (first entry a feature matches wins); the map styles by the same layer and class names.
 */

/** Every clause holds; a clause holds when the key is present and, if values are given, its value is one of them. */
export type StreetMatch = { key: string; values?: string[] }[];

export type StreetLayer = 'landuse' | 'water' | 'waterway' | 'buildings' | 'roads' | 'rail' | 'places';

export interface StreetClass {
  layer: StreetLayer;
  class: string;
  /** Any of these tag tests. */
  match: StreetMatch[];
  /** The first zoom that draws it. */
  minZoom: number;
  /** A polygon drawn as its label point (place areas). */
  asPoint?: boolean;
}

/** Below this zoom Natural Earth alone is the basemap; tiles are made from here down. */
export const STREET_MIN_ZOOM = 12;
/** Deepest zoom tiles are made at; deeper views enlarge them. */
export const STREET_MAX_ZOOM = 17;

const tag = (key: string, ...values: string[]): StreetMatch => [values.length ? { key, values } : { key }];

export const STREET_CLASSES: readonly StreetClass[] = [
  { layer: 'water', class: 'water', match: [tag('natural', 'water', 'bay'), tag('landuse', 'reservoir', 'basin'), tag('waterway', 'riverbank', 'dock')], minZoom: 12 },
  { layer: 'waterway', class: 'river', match: [tag('waterway', 'river', 'canal')], minZoom: 12 },
  { layer: 'waterway', class: 'stream', match: [tag('waterway', 'stream', 'ditch', 'drain')], minZoom: 14 },
  { layer: 'buildings', class: 'building', match: [tag('building')], minZoom: 15 },
  { layer: 'roads', class: 'motorway', match: [tag('highway', 'motorway', 'trunk', 'motorway_link', 'trunk_link')], minZoom: 12 },
  { layer: 'roads', class: 'primary', match: [tag('highway', 'primary', 'primary_link')], minZoom: 12 },
  { layer: 'roads', class: 'secondary', match: [tag('highway', 'secondary', 'tertiary', 'secondary_link', 'tertiary_link')], minZoom: 12 },
  { layer: 'roads', class: 'street', match: [tag('highway', 'residential', 'unclassified', 'living_street', 'road')], minZoom: 13 },
  { layer: 'roads', class: 'service', match: [tag('highway', 'service', 'track')], minZoom: 15 },
  { layer: 'roads', class: 'path', match: [tag('highway', 'footway', 'path', 'cycleway', 'pedestrian', 'steps', 'bridleway')], minZoom: 15 },
  { layer: 'rail', class: 'rail', match: [tag('railway', 'rail', 'light_rail', 'subway', 'tram', 'narrow_gauge')], minZoom: 12 },
  { layer: 'landuse', class: 'park', match: [tag('leisure', 'park', 'garden', 'playground', 'pitch', 'recreation_ground'), tag('landuse', 'recreation_ground', 'village_green')], minZoom: 12 },
  { layer: 'landuse', class: 'wood', match: [tag('natural', 'wood'), tag('landuse', 'forest')], minZoom: 12 },
  { layer: 'landuse', class: 'grass', match: [tag('landuse', 'grass', 'meadow', 'farmland', 'orchard', 'vineyard', 'allotments', 'cemetery'), tag('natural', 'grassland', 'heath', 'scrub')], minZoom: 12 },
  { layer: 'landuse', class: 'residential', match: [tag('landuse', 'residential')], minZoom: 12 },
  { layer: 'landuse', class: 'industrial', match: [tag('landuse', 'industrial', 'commercial', 'retail', 'railway', 'construction')], minZoom: 12 },
  { layer: 'places', class: 'town', match: [tag('place', 'city', 'town', 'village')], minZoom: 12, asPoint: true },
  { layer: 'places', class: 'quarter', match: [tag('place', 'suburb', 'quarter', 'borough', 'neighbourhood', 'hamlet')], minZoom: 13, asPoint: true },
];

/** The first class a feature's tags match, at a zoom (null: not drawn there). */
export function streetClassOf(tags: Record<string, unknown>, zoom: number): StreetClass | null {
  for (const c of STREET_CLASSES) {
    if (c.minZoom > zoom) continue;
    if (c.match.some((m) => m.every(({ key, values }) => tags[key] !== undefined && tags[key] !== null && (!values || values.includes(String(tags[key]))))))
      return c;
  }
  return null;
}
