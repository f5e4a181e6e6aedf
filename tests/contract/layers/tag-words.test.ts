import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComputeResponse } from '../../../shared/service/compute';
import { compute, refused, startService, stopService, type Running } from '../local-service/harness';

/**
 * Conditions read from words about tags, over a small OSM extract written here: tag syntax
 * ("amenity=bench", "highway!=footway"), names ("named", "name starts with"), absence and
 * negation ("without a website", "unnamed", "not footways"), element types ("nodes", "ways"),
 * and a qualifier before the noun of a reference. Each answer is checked against a filter over
 * the elements written here.
 */
interface El {
  type: 'node' | 'way';
  id: number;
  tags: Record<string, string>;
  coords: [number, number][];
}
const els: El[] = [];
let id = 1;
const node = (lon: number, lat: number, tags: Record<string, string>) => els.push({ type: 'node', id: id++, tags, coords: [[lon, lat]] });
const way = (coords: [number, number][], tags: Record<string, string>) => els.push({ type: 'way', id: id++, tags, coords });
const ring = (lon: number, lat: number): [number, number][] => [[lon, lat], [lon + 0.001, lat], [lon + 0.001, lat + 0.001], [lon, lat]];

node(7.60, 47.55, { amenity: 'bench', name: 'Rosenbank' });
node(7.601, 47.551, { amenity: 'bench', backrest: 'yes' });
node(7.602, 47.552, { amenity: 'bench', backrest: 'no', wikidata: 'Q1' });
way(ring(7.603, 47.553), { amenity: 'bench', name: 'Long bench' });
node(7.604, 47.554, { amenity: 'pharmacy', name: 'Sankt Anna Apotheke', website: 'https://a.example' });
node(7.605, 47.555, { amenity: 'pharmacy', name: 'Stadt Apotheke' });
way(ring(7.606, 47.556), { amenity: 'pharmacy', name: 'Apotheke am Markt', website: 'https://b.example' });
way([[7.60, 47.56], [7.61, 47.56]], { highway: 'footway', name: 'Uferweg' });
way([[7.60, 47.561], [7.61, 47.561]], { highway: 'residential', name: 'Lindenstrasse' });
way([[7.60, 47.562], [7.61, 47.562]], { highway: 'residential' });
way([[7.60, 47.563], [7.61, 47.563]], { highway: 'cycleway', name: 'Veloweg' });
way(ring(7.62, 47.57), { boundary: 'administrative', admin_level: '8', name: 'Unterdorf' });
way(ring(7.63, 47.57), { boundary: 'administrative', admin_level: '6', name: 'Oberland' });
way(ring(7.635, 47.57), { boundary: 'political', admin_level: '8', name: 'Wahlkreis' });
node(7.64, 47.57, { shop: 'supermarket', operator: 'Kornhaus', name: 'Markt 1' });
node(7.641, 47.571, { shop: 'supermarket', operator: 'Feldhof', name: 'Markt 2' });
node(7.6425, 47.5715, { amenity: 'bench', name: 'Bank am Markt' });
node(7.639, 47.569, { amenity: 'bench', name: 'Bank am Korn' });
node(7.65, 47.58, { amenity: 'bench', name: 'Far bench' });

function osmXml(): string {
  let next = 100_000;
  const nodes: string[] = [];
  const ways: string[] = [];
  const tags = (t: Record<string, string>) => Object.entries(t).map(([k, v]) => `<tag k="${k}" v="${v}"/>`).join('');
  for (const e of els) {
    if (e.type === 'node') nodes.push(`<node id="${e.id}" version="1" lat="${e.coords[0]![1]}" lon="${e.coords[0]![0]}">${tags(e.tags)}</node>`);
    else {
      const closed = e.coords.length > 2 && e.coords[0]![0] === e.coords.at(-1)![0] && e.coords[0]![1] === e.coords.at(-1)![1];
      const refs = (closed ? e.coords.slice(0, -1) : e.coords).map(([lon, lat]) => {
        nodes.push(`<node id="${next}" version="1" lat="${lat}" lon="${lon}"/>`);
        return next++;
      });
      if (closed) refs.push(refs[0]!);
      ways.push(`<way id="${e.id}" version="1">${refs.map((r) => `<nd ref="${r}"/>`).join('')}${tags(e.tags)}</way>`);
    }
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<osm version="0.6">\n${[...nodes, ...ways].join('\n')}\n</osm>\n`;
}

let r: Running;
beforeAll(async () => {
  r = await startService();
  const file = join(r.dataDir, 'tags.osm');
  writeFileSync(file, osmXml());
  await r.service.layers.startImport(file, { name: 'Tag extract' }).done;
});
afterAll(() => stopService(r));

const ids = (res: ComputeResponse) => res.results.features.map((f) => String(f.properties.source_id)).sort();
const where = (test: (t: Record<string, string>, e: El) => boolean) => els.filter((e) => test(e.tags, e)).map((e) => `${e.type}/${e.id}`).sort();
const ask = async (query: string) => ids(await compute(r, { query, limit: 500 }));
const fold = (s: string) => s.toLowerCase();

describe('OSM tag syntax in the question', () => {
  it('"amenity=bench" alone is the subject; "tagged backrest=yes" and "highway!=footway" narrow one', async () => {
    const benches = where((t) => t['amenity'] === 'bench');
    expect(benches.length).toBeGreaterThan(2);
    expect(await ask('amenity=bench')).toEqual(benches);
    expect(await ask('benches tagged backrest=yes')).toEqual(where((t) => t['amenity'] === 'bench' && t['backrest'] === 'yes'));
    const roads = where((t) => t['highway'] !== undefined && t['highway'] !== 'footway');
    expect(await ask('highway=* ways')).toEqual(where((t, e) => t['highway'] !== undefined && e.type === 'way'));
    expect(await ask('features tagged highway with highway!=footway')).toEqual(roads);
  });

  it('"with the attribute K having the value V", "with a wikidata tag"; "admin level 8" names the presets with that field', async () => {
    expect(await ask('ways with the attribute highway having the value residential')).toEqual(where((t, e) => e.type === 'way' && t['highway'] === 'residential'));
    expect(await ask('benches with a wikidata tag')).toEqual(where((t) => t['amenity'] === 'bench' && t['wikidata'] !== undefined));
    // The Administrative Boundary preset lists admin_level among its fields; written as a tag, any feature with it.
    expect(await ask('admin level 8')).toEqual(where((t) => t['boundary'] === 'administrative' && t['admin_level'] === '8'));
    expect(await ask('admin_level=8')).toEqual(where((t) => t['admin_level'] === '8'));
    expect(await ask('admin level 8 boundaries')).toEqual(where((t) => t['boundary'] === 'administrative' && t['admin_level'] === '8'));
  });

  it('a key no layer has is refused by name', async () => {
    const p = await refused(r, { query: 'benches tagged colour=green' });
    expect(p.unread.map((u) => u.why).join(' ')).toMatch(/colour/);
  });
});

describe('names', () => {
  it('"named X", "called X", "with the name X", "name starts with X", "name contains X"', async () => {
    expect(await ask('benches named Rosenbank')).toEqual(where((t) => t['amenity'] === 'bench' && t['name'] === 'Rosenbank'));
    expect(await ask('pharmacies called stadt apotheke')).toEqual(where((t) => t['amenity'] === 'pharmacy' && fold(t['name'] ?? '') === 'stadt apotheke'));
    expect(await ask('roads with the name Lindenstrasse')).toEqual(where((t) => t['highway'] !== undefined && t['name'] === 'Lindenstrasse'));
    expect(await ask('pharmacies whose name starts with Sankt')).toEqual(where((t) => t['amenity'] === 'pharmacy' && (t['name'] ?? '').startsWith('Sankt')));
    const markt = where((t) => t['amenity'] === 'pharmacy' && (t['name'] ?? '').includes('Markt'));
    expect(markt.length).toBe(1);
    expect(await ask('pharmacies whose name contains Markt')).toEqual(markt);
  });

  it('"in the area with the name X" names a place, not the subject: read as the place, not as the name', async () => {
    const res = await compute(r, { query: 'benches in area with name Unterdorf', limit: 500 });
    expect(ids(res)).toEqual(await ask('benches in Unterdorf'));
    expect(JSON.stringify(res.warnings)).not.toMatch(/named "Unterdorf"/);
  });
});

describe('absence and negation', () => {
  it('"unnamed", "without a name", "with no website", "without backrest"', async () => {
    const unnamed = where((t) => t['amenity'] === 'bench' && t['name'] === undefined);
    expect(unnamed.length).toBeGreaterThan(0);
    expect(await ask('unnamed benches')).toEqual(unnamed);
    expect(await ask('benches without a name')).toEqual(unnamed);
    expect(await ask('pharmacies with no website')).toEqual(where((t) => t['amenity'] === 'pharmacy' && t['website'] === undefined));
    expect(await ask('benches without backrest')).toEqual(where((t) => t['amenity'] === 'bench' && t['backrest'] === undefined));
  });

  it('"highways that are not footways": a kind word negated', async () => {
    const want = where((t) => t['highway'] !== undefined && t['highway'] !== 'footway');
    expect(await ask('highways that are not footways')).toEqual(want);
  });
});

describe('element types', () => {
  it('"nodes" and "ways" test the OSM id; "polygons" the geometry; "features" no filter, said', async () => {
    expect(await ask('bench nodes')).toEqual(where((t, e) => t['amenity'] === 'bench' && e.type === 'node'));
    expect(await ask('benches that are ways')).toEqual(where((t, e) => t['amenity'] === 'bench' && e.type === 'way'));
    expect(await ask('pharmacy polygons')).toEqual(where((t, e) => t['amenity'] === 'pharmacy' && e.type === 'way' && e.coords.length > 2));
    const res = await compute(r, { query: 'pharmacy features', limit: 500 });
    expect(ids(res)).toEqual(where((t) => t['amenity'] === 'pharmacy'));
    expect(JSON.stringify(res.warnings)).toMatch(/any type \(no filter\)/);
  });
});

describe('a qualifier before the noun of a reference is applied, never dropped', () => {
  it('"benches within 200 m of Kornhaus supermarkets": only the supermarkets operated by Kornhaus', async () => {
    const ref = els.find((e) => e.tags['operator'] === 'Kornhaus')!;
    const other = els.find((e) => e.tags['operator'] === 'Feldhof')!;
    const near = (e: El, to: El) => {
      const [a, b] = [e.coords[0]!, to.coords[0]!];
      const dx = (a[0] - b[0]) * 111.32 * Math.cos((a[1] * Math.PI) / 180);
      const dy = (a[1] - b[1]) * 110.57;
      return Math.hypot(dx, dy) <= 0.2;
    };
    const want = where((t, e) => t['amenity'] === 'bench' && near(e, ref));
    // The other supermarket has a bench near it that the qualifier must leave out.
    expect(els.filter((e) => e.tags['amenity'] === 'bench' && near(e, other) && !near(e, ref)).length).toBe(1);
    expect(want.length).toBe(1);
    expect(await ask('benches within 200 m of Kornhaus supermarkets')).toEqual(want);
  });
});
