import { booleanPointInPolygon, distance, point, polygon } from '@turf/turf';
import { describe, expect, it } from 'vitest';
import { buildScene } from '../../support/overpassnl/extract';
import { LeftOut, parseQl } from '../../support/overpassnl/ql-parse';
import type { Element } from '../../support/overpassnl/ql-run';
import { unstatedBox, unstatedTest } from '../../support/overpassnl/unstated';

// The bench's Overpass QL reader, interpreter and extract builder on queries written here: each
// gold set is checked against a brute force over the extract's elements written with turf.

const scene = (text: string, seed: number, view: [number, number, number, number] | null = null) => {
  let s = seed;
  const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
  return buildScene({ program: parseQl(text), center: [8.7, 47.5], view, ids: { next: 1 }, rand });
};
const key = (e: Element) => `${e.type}/${e.id}`;
const brute = (elements: Element[], keep: (e: Element) => boolean) => new Set(elements.filter(keep).map(key));
const anyVertex = (e: Element, test: (lon: number, lat: number) => boolean) => e.coords.some(([lon, lat]) => test(lon, lat));

describe('bench:overpassnl extract and gold set', () => {
  it('an area by name with a negated tag: matches inside, the same outside and the negated value left out', () => {
    for (const seed of [1, 2, 3]) {
      const sc = scene('[out:json];{{geocodeArea:"Testville, Somewhere"}}->.searchArea;(node["amenity"="cafe"]["wifi"!="no"](area.searchArea);way["amenity"="cafe"]["wifi"!="no"](area.searchArea););out;>;out skel qt;', seed);
      const town = sc.elements.find((e) => e.tags['name'] === 'Testville')!;
      expect(town.tags).toMatchObject({ boundary: 'administrative', type: 'boundary' });
      expect(town.tags['place']).toBeDefined();
      // The parent named after the comma holds the town.
      const parent = sc.elements.find((e) => e.tags['name'] === 'Somewhere')!;
      expect(town.coords.every((p) => booleanPointInPolygon(point(p), polygon([parent.coords])))).toBe(true);
      const area = polygon([town.coords]);
      const want = brute(sc.elements, (e) => e.type !== 'relation' && e.tags['amenity'] === 'cafe' && e.tags['wifi'] !== 'no' && anyVertex(e, (x, y) => booleanPointInPolygon(point([x, y]), area)));
      expect(sc.gold).toEqual(want);
      expect(want.size).toBeGreaterThanOrEqual(2);
      for (const k of sc.expected) expect(want.has(k)).toBe(true);
      // Near misses: outside the area, another amenity, and wifi=no inside.
      expect(sc.decoys.size).toBeGreaterThanOrEqual(3);
      for (const k of sc.decoys) expect(want.has(k)).toBe(false);
      const decoys = sc.elements.filter((e) => sc.decoys.has(key(e)));
      expect(decoys.some((e) => e.tags['wifi'] === 'no')).toBe(true);
      expect(decoys.some((e) => e.tags['amenity'] === 'cafe' && !anyVertex(e, (x, y) => booleanPointInPolygon(point([x, y]), area)))).toBe(true);
    }
  });

  it('around a position with a regular expression and a key test', () => {
    const sc = scene('node["shop"~"^(bakery|pastry)$"]["organic"](around:300,47.5,8.7);out;', 4);
    const want = brute(sc.elements, (e) => e.type === 'node' && /^(bakery|pastry)$/.test(e.tags['shop'] ?? '') && e.tags['organic'] !== undefined && distance(e.coords[0]!, [8.7, 47.5], { units: 'meters' }) <= 300);
    expect(sc.gold).toEqual(want);
    expect(want.size).toBe(2);
    expect([...sc.decoys].some((k) => sc.elements.find((e) => key(e) === k)!.tags['organic'] === undefined)).toBe(true);
    expect(sc.elements.some((e) => sc.decoys.has(key(e)) && distance(e.coords[0]!, [8.7, 47.5], { units: 'meters' }) > 300)).toBe(true);
  });

  it('around the features of a named set, inside the map view', () => {
    const view: [number, number, number, number] = [47.45, 8.6, 47.55, 8.8];
    const sc = scene('[bbox:{{bbox}}];node["amenity"="school"]->.s;nwr["leisure"="playground"][!"fee"](around.s:100);out;', 5, view);
    const schools = sc.elements.filter((e) => e.type === 'node' && e.tags['amenity'] === 'school' && e.coords.every(([x, y]) => y >= view[0] && y <= view[2] && x >= view[1] && x <= view[3]));
    const want = brute(
      sc.elements,
      (e) =>
        e.tags['leisure'] === 'playground' && e.tags['fee'] === undefined &&
        anyVertex(e, (x, y) => y >= view[0] && y <= view[2] && x >= view[1] && x <= view[3]) &&
        schools.some((s) => anyVertex(e, (x, y) => distance(s.coords[0]!, [x, y], { units: 'meters' }) <= 100)),
    );
    expect(sc.gold).toEqual(want);
    expect(want.size).toBe(2);
    // The schools are only the anchor: not printed.
    for (const s of schools) expect(sc.gold.has(key(s))).toBe(false);
    expect(sc.elements.some((e) => sc.decoys.has(key(e)) && e.tags['fee'] !== undefined)).toBe(true);
  });

  it('leaves out what it does not judge, saying why', () => {
    const why = (q: string) => {
      try {
        parseQl(q);
        return null;
      } catch (e) {
        return e instanceof LeftOut ? e.reason : String(e);
      }
    };
    expect(why('node["amenity"="cafe"](user:"someone");out;')).toMatch(/metadata/);
    expect(why('[out:csv(name)];node["amenity"="cafe"];out;')).toMatch(/csv/);
    expect(why('node["amenity"="cafe"]({{bbox}});out count;')).toMatch(/count/);
    expect(why('way["highway"]({{bbox}});(._;>>;);out;')).toMatch(/recursion/);
    expect(why('(node["a"="b"]; - node["c"="d"];);out;')).toMatch(/difference/);
    expect(why('node["amenity"="cafe"]({{bbox}});out;')).toBeNull();
  });

  it('leaves out gold queries that test a tag the request does not state, and keeps stated ones', () => {
    const unstated = (q: string, nl: string) => unstatedTest(parseQl(q), nl)?.key ?? null;
    // Added by the gold's author: a name test, a negated list of the subject's own values, a key's absence.
    expect(unstated('node["amenity"="bench"]["name"]({{bbox}});out;', 'bench in the current view')).toBe('name');
    expect(unstated('way["highway"]["highway"!~"^(construction|cycleway|footway)$"]({{bbox}});out;', 'highway in the current view')).toBe('highway');
    expect(unstated('node["amenity"="bicycle_parking"]["capacity"!~".*"]({{bbox}});out;', 'bicycle parkings here')).toBe('capacity');
    expect(unstated('nwr["amenity"="courthouse"]["courthouse:type:at"]({{bbox}});out;', 'austrian courthouses')).toBe('courthouse:type:at');
    expect(unstated('way["highway"]["official_name"]["name"!~".*"]({{bbox}});out;', 'highway with official name')).toBe('name');
    expect(unstated('nwr["boundary"="local_authority"]["local_authority:IN"="gram_panchayat"]["admin_level"="8"];out;', 'Local authorities Gram Panchayat')).toBe('admin_level');
    expect(unstated('nwr["amenity"="social_facility"]["social_facility"="nursing_home"];out;', 'nursing homes')).toBeNull();
    // Stated: the name, a negated value, the key of a qualifier, any value test, the subject's test.
    expect(unstated('node["amenity"="library"]["name"]({{bbox}});out;', 'a library with a name')).toBeNull();
    expect(unstated('node["amenity"="cafe"]["name"="Fulerum"]({{bbox}});out;', 'the cafe called "Fulerum"')).toBeNull();
    expect(unstated('wr["highway"]["highway"!="platform"]({{bbox}});out;', 'highways which are not platforms')).toBeNull();
    expect(unstated('node["amenity"="toilets"]["fee"!="yes"]({{bbox}});out;', 'toilets without a fee')).toBeNull();
    expect(unstated('node["amenity"="fuel"]["fuel:biogas"="yes"]({{bbox}});out;', 'gas stations with bio fuel')).toBeNull();
    expect(unstated('node["amenity"="restaurant"]["opening_hours"!~"."]({{bbox}});out;', 'restaurants without opening hours')).toBeNull();
    expect(unstated('node["amenity"="pharmacy"]({{bbox}});out;', 'drugstores')).toBeNull();
  });

  it('leaves out gold queries over a box of coordinates the request does not write, and keeps written ones', () => {
    const box = (q: string, nl: string) => unstatedBox(parseQl(q), nl);
    const toilets = 'node["amenity"="toilets"]["fee"!="yes"](50.78408,-0.68159,50.78717,-0.65296);out;';
    expect(box(toilets, 'Public toilets without a fee in Bognor Regis, England, UK')).toBe(true);
    expect(box('[bbox:50.7,-0.7,50.8,-0.6];node["amenity"="toilets"];out;', 'toilets in Bognor Regis')).toBe(true);
    expect(box(toilets, 'toilets without a fee between 50.78408, -0.68159 and 50.78717, -0.65296')).toBe(false);
    // The map view and a named area are no literal box.
    expect(box('node["amenity"="toilets"]({{bbox}});out;', 'toilets here')).toBe(false);
    expect(box('{{geocodeArea:"Bognor Regis"}}->.a;node["amenity"="toilets"](area.a);out;', 'toilets in Bognor Regis')).toBe(false);
  });
});
