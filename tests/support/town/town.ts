import type { Feature, FeatureCollection, Geometry, Position } from 'geojson';

/**
 * A made-up town ("Lennbrück") described once as GeoJSON features with OSM tags, and written
 * from that description as OSM XML (nodes, ways, multipolygon relations). Tests compute their
 * expected answers from `features` (the generator's own geometry), never from what an importer
 * read back. Deterministic: the same town every run.
 */

const LON0 = 8.52;
const LAT0 = 47.31;
const M_PER_DEG_LAT = 111_195;
const round7 = (x: number) => Math.round(x * 1e7) / 1e7;

/** Metres east/north of the town centre to [lon, lat], at OSM's 7-decimal precision. */
export function at(x: number, y: number): Position {
  return [round7(LON0 + x / (M_PER_DEG_LAT * Math.cos((LAT0 * Math.PI) / 180))), round7(LAT0 + y / M_PER_DEG_LAT)];
}

function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Tags = Record<string, string>;

/** How a feature is drawn in OSM: a node, a way (closed for areas), or a multipolygon relation of ways. */
export type OsmShape = 'node' | 'way' | 'relation';

export interface TownFeature extends Feature<Geometry, Tags> {
  osm: OsmShape;
  /** For relations: the outer ring is split into this many ways (joined again by the importer). */
  outerParts?: number;
}

const rect = (x0: number, y0: number, x1: number, y1: number): Position[] => [at(x0, y0), at(x1, y0), at(x1, y1), at(x0, y1), at(x0, y0)];
const riverY = (x: number) => 80 * Math.sin(x / 300);

export function buildTown(): TownFeature[] {
  const r = rng(12);
  const out: TownFeature[] = [];
  const point = (x: number, y: number, tags: Tags) =>
    out.push({ type: 'Feature', osm: 'node', geometry: { type: 'Point', coordinates: at(x, y) }, properties: tags });
  const line = (coords: Position[], tags: Tags) => out.push({ type: 'Feature', osm: 'way', geometry: { type: 'LineString', coordinates: coords }, properties: tags });
  const area = (rings: Position[][], tags: Tags, osm: OsmShape = 'way', outerParts = 1) =>
    out.push({ type: 'Feature', osm, outerParts, geometry: { type: 'Polygon', coordinates: rings }, properties: tags });

  const riverPts: Position[] = [];
  for (let x = -1500; x <= 1500; x += 150) riverPts.push(at(x, riverY(x)));
  line(riverPts, { waterway: 'river', name: 'Lenne' });
  for (const [i, x] of [-800, 0, 700].entries()) {
    line([at(x, riverY(x) - 45), at(x, riverY(x) + 45)], { highway: 'secondary', bridge: 'yes', layer: '1', name: `Lennebrücke ${i + 1}` });
  }
  line([at(-1400, 500), at(-400, 520), at(600, 480), at(1400, 500)], { highway: 'residential', name: 'Nordstraße' });
  line([at(-1400, -600), at(0, -620), at(1400, -600)], { highway: 'residential', name: 'Südstraße' });
  // A closed footway stays a line; a closed building is an area (decided from the iD presets).
  line(rect(-300, 900, -100, 1100).reverse(), { highway: 'footway', name: 'Ringweg' });
  area([rect(-60, 200, 40, 260)], { building: 'yes', amenity: 'townhall', name: 'Rathaus' });
  area([rect(900, 600, 960, 660)], { power: 'substation', substation: 'distribution', operator: 'Stadtwerke Lennbrück', voltage: '20000', name: 'Umspannwerk Ost' });
  point(-1100, -1000, { power: 'substation', operator: 'Netz AG', name: 'Umspannwerk Süd' });
  point(100, 300, { railway: 'station', public_transport: 'station', name: 'Lennbrück Hauptbahnhof' });
  point(160, 340, { amenity: 'cafe', brand: 'Starbucks', 'brand:wikidata': 'Q37158', cuisine: 'coffee_shop', name: 'Starbucks' });

  const hours = ['Mo-Fr 08:00-18:30; Sa 09:00-13:00', '24/7', 'Mo-Sa 08:00-20:00; Su 10:00-14:00', 'Mo-Fr 08:30-12:30,14:00-18:00', 'Mo-Fr 09:00-19:00', 'Mo-Su 07:00-22:00'];
  const pharmacies: [number, number][] = [[250, 420], [-900, 300], [700, 900], [1200, -300], [-300, -900], [520, 180]];
  pharmacies.forEach(([x, y], i) =>
    point(x, y, {
      amenity: 'pharmacy',
      healthcare: 'pharmacy',
      dispensing: 'yes',
      name: `Apotheke ${['am Bahnhof', 'West', 'im Park', 'Ost', 'Süd', 'an der Lenne'][i]}`,
      opening_hours: hours[i]!,
      wheelchair: ['yes', 'no', 'yes', 'limited', 'yes', 'no'][i]!,
      ...(i % 2 === 0 ? { operator: 'Apotheken AG' } : {}),
    }),
  );
  const kinds = ['supermarket', 'bakery', 'convenience', 'clothes', 'butcher', 'hardware'];
  for (let i = 0; i < 24; i++) {
    const x = Math.round(-1400 + r() * 2800);
    const y = Math.round(-1400 + r() * 2800);
    point(x, Math.abs(y - riverY(x)) < 60 ? y + 150 : y, { shop: kinds[i % kinds.length]!, name: `Laden ${i + 1}`, ...(i % 4 === 0 ? { wheelchair: 'yes' } : {}) });
  }
  area([rect(600, 800, 800, 1000)], { leisure: 'park', name: 'Stadtpark' });
  point(-700, 1200, { amenity: 'fire_station', name: 'Feuerwache Nord' });
  point(1300, 1300, { power: 'generator', 'generator:source': 'wind', 'generator:method': 'wind_turbine', name: 'Windrad Lennhöhe' });
  for (const [i, [x, y]] of ([[-200, 700], [400, -300], [1100, 200]] as const).entries()) {
    point(x, y, { amenity: 'parking', capacity: ['40', '150', '320'][i]!, name: `Parkplatz ${['Nord', 'Süd', 'Ost'][i]}` });
  }
  // Other names of a place, as OSM writes them (several in one value separated by ";").
  area([rect(-1500, 150, 0, 1500)], { place: 'quarter', name: 'Nordviertel', alt_name: 'Oberstadt;Kirchhügel', old_name: 'Lennfeld', 'name:fr': 'Quartier Nord' }, 'relation', 2);
  area([rect(0, 150, 1500, 1500), rect(600, 800, 800, 1000).reverse()], { place: 'quarter', name: 'Ostviertel' }, 'relation');
  area([rect(-1500, -1500, 1500, -150)], { place: 'quarter', name: 'Südviertel', official_name: 'Stadtbezirk Lennbrück-Süd' }, 'relation');
  return out;
}

export function townGeoJson(features: TownFeature[]): FeatureCollection<Geometry, Tags> {
  return { type: 'FeatureCollection', features: features.map(({ osm: _o, outerParts: _p, ...f }) => f) };
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const tagXml = (tags: Tags) => Object.entries(tags).map(([k, v]) => `    <tag k="${esc(k)}" v="${esc(v)}"/>\n`).join('');

/** The town as OSM XML: nodes first (ids ascending), then ways, then relations, as OSM writes them. */
export function townOsmXml(features: TownFeature[]): string {
  const nodes: string[] = [];
  const ways: string[] = [];
  const rels: string[] = [];
  let nodeId = 0;
  let wayId = 0;
  let relId = 0;
  const nodeOf = new Map<string, number>();
  const node = (p: Position, tags: Tags = {}) => {
    const key = `${p[0]},${p[1]}`;
    const known = nodeOf.get(key);
    if (known !== undefined && !Object.keys(tags).length) return known;
    const id = ++nodeId;
    if (!Object.keys(tags).length) nodeOf.set(key, id);
    const body = tagXml(tags);
    nodes.push(`  <node id="${id}" version="1" lat="${p[1]}" lon="${p[0]}"${body ? `>\n${body}  </node>` : '/>'}\n`);
    return id;
  };
  const way = (coords: Position[], tags: Tags) => {
    const refs = coords.map((c) => node(c));
    const id = ++wayId;
    ways.push(`  <way id="${id}" version="1">\n${refs.map((r) => `    <nd ref="${r}"/>\n`).join('')}${tagXml(tags)}  </way>\n`);
    return id;
  };
  for (const f of features) {
    const g = f.geometry;
    if (f.osm === 'node' && g.type === 'Point') node(g.coordinates, f.properties);
    else if (f.osm === 'way' && g.type === 'LineString') way(g.coordinates, f.properties);
    else if (f.osm === 'way' && g.type === 'Polygon') way(g.coordinates[0]!, f.properties);
    else if (f.osm === 'relation' && g.type === 'Polygon') {
      const members: string[] = [];
      const outer = g.coordinates[0]!;
      const parts = f.outerParts ?? 1;
      const step = Math.ceil((outer.length - 1) / parts);
      for (let i = 0; i < outer.length - 1; i += step) {
        members.push(`    <member type="way" ref="${way(outer.slice(i, Math.min(outer.length, i + step + 1)), {})}" role="outer"/>\n`);
      }
      for (const inner of g.coordinates.slice(1)) members.push(`    <member type="way" ref="${way(inner, {})}" role="inner"/>\n`);
      rels.push(`  <relation id="${++relId}" version="1">\n${members.join('')}${tagXml({ type: 'multipolygon', ...f.properties })}  </relation>\n`);
    } else throw new Error(`town feature ${f.properties['name']} cannot be drawn as ${f.osm}`);
  }
  // A route relation: not an area, reported as not imported.
  rels.push(`  <relation id="${++relId}" version="1">\n    <member type="way" ref="2" role=""/>\n${tagXml({ type: 'route', route: 'bus', name: 'Linie 1' })}  </relation>\n`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<osm version="0.6" generator="fieldlens-test-town">\n${nodes.join('')}${ways.join('')}${rels.join('')}</osm>\n`;
}
