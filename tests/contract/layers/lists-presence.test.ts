import { distance, point } from '@turf/turf';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComputeResponse } from '../../../shared/service/compute';
import { extractXml } from '../../support/overpassnl/osm-xml';
import { keyOf, type Element } from '../../support/overpassnl/ql-run';
import { compute, refused, startService, stopService, type Running } from '../local-service/harness';

/**
 * Lists of things ("hospitals, police stations and supermarkets", "piers or parking spaces"), a
 * word for any such thing after a preset ("police stations"), a tag's presence ("with a name",
 * "with a website"), a radius written without "within" ("50 meters around coordinates …") and a
 * preset's value carrying its first tag ("nursing homes": amenity=social_facility +
 * social_facility=nursing_home). Each answer is checked against a filter over the elements
 * written here, distances with turf.
 */
const els: Element[] = [];
let id = 1;
const node = (lon: number, lat: number, tags: Record<string, string>) => els.push({ type: 'node', id: id++, tags, coords: [[lon, lat]] });
const ring = (lon: number, lat: number): [number, number][] => [[lon, lat], [lon + 0.001, lat], [lon + 0.001, lat + 0.001], [lon, lat + 0.001], [lon, lat]];

node(9.0, 48.0, { amenity: 'police', name: 'Revier Mitte' });
node(9.001, 48.001, { amenity: 'police' });
els.push({ type: 'way', id: id++, tags: { amenity: 'hospital', name: 'Klinikum' }, coords: ring(9.002, 48.002) });
node(9.003, 48.003, { shop: 'supermarket', name: 'Markt' });
node(9.004, 48.004, { shop: 'bakery', name: 'Beck' });
node(9.005, 48.005, { man_made: 'pier', name: 'Steg' });
node(9.006, 48.006, { amenity: 'parking_space' });
node(9.007, 48.007, { amenity: 'parking' });
node(9.008, 48.008, { amenity: 'school', name: 'Grundschule' });
node(9.009, 48.009, { amenity: 'school' });
node(9.010, 48.010, { amenity: 'restaurant', name: 'Krone', website: 'https://krone.example' });
node(9.011, 48.011, { amenity: 'restaurant', name: 'Adler' });
node(9.012, 48.012, { amenity: 'social_facility', social_facility: 'nursing_home', name: 'Haus am See' });
// A near miss: the value without the tag a nursing home is tagged as first.
node(9.013, 48.013, { social_facility: 'nursing_home', name: 'Stray' });
node(9.014, 48.014, { amenity: 'social_facility', social_facility: 'group_home' });
node(9.0001, 48.0002, { amenity: 'cafe', name: 'Near' });
node(9.0004, 48.0004, { amenity: 'cafe', name: 'Mid' });
node(9.002, 48.0, { amenity: 'cafe', name: 'Far' });

const line = (lon: number, lat: number, tags: Record<string, string>) => els.push({ type: 'way', id: id++, tags, coords: [[lon, lat], [lon + 0.002, lat], [lon + 0.002, lat + 0.0001], [lon, lat]] });
line(9.02, 48.02, { highway: 'service', maxspeed: '30' });
line(9.02, 48.021, { highway: 'residential', maxspeed: '60' });
line(9.02, 48.022, { highway: 'primary', maxspeed: '60' });
line(9.02, 48.023, { highway: 'primary', maxspeed: '50' });
line(9.02, 48.024, { highway: 'secondary' });
line(9.02, 48.025, { highway: 'tertiary' });
node(9.03, 48.03, { highway: 'bus_stop', public_transport: 'platform', name: 'Halt A' });
node(9.031, 48.031, { highway: 'bus_stop', public_transport: 'stop_position', name: 'Halt B' });
node(9.032, 48.032, { highway: 'bus_stop', name: 'Halt C' });
els.push({ type: 'relation', id: id++, tags: { type: 'boundary', boundary: 'administrative', admin_level: '8', name: 'Quarzlingen' }, coords: ring(9.04, 48.04) });
els.push({ type: 'relation', id: id++, tags: { type: 'boundary', boundary: 'administrative', admin_level: '10', name: 'Oberau' }, coords: ring(9.042, 48.04) });
els.push({ type: 'relation', id: id++, tags: { type: 'boundary', boundary: 'administrative', admin_level: '6', name: 'Kreis' }, coords: ring(9.044, 48.04) });
node(9.0405, 48.0405, { amenity: 'library', name: 'Inside' });
node(9.0605, 48.0605, { amenity: 'library', name: 'Outside' });
node(9.07, 48.07, { 'addr:street': 'Hauptstrasse', 'addr:housenumber': '4' });
node(9.071, 48.071, { 'addr:street': 'Hauptstrasse' });
node(9.072, 48.072, { amenity: 'place_of_worship', religion: 'christian' });
node(9.073, 48.073, { amenity: 'recycling', recycling_type: 'container' });

let r: Running;
beforeAll(async () => {
  r = await startService();
  const file = join(r.dataDir, 'lists.osm');
  writeFileSync(file, extractXml(els, 1_000_000));
  await r.service.layers.startImport(file, { name: 'Lists extract' }).done;
});
afterAll(() => stopService(r));

const ids = (res: ComputeResponse) => res.results.features.map((f) => String(f.properties.source_id)).sort();
const where = (test: (t: Record<string, string>, e: Element) => boolean) => els.filter((e) => test(e.tags, e)).map(keyOf).sort();
const ask = async (query: string) => ids(await compute(r, { query, limit: 500 }));

describe('lists, generic heads, presence, bare radii', () => {
  it('reads a list of things as features of any of them', async () => {
    expect(await ask('hospitals, police stations and supermarkets')).toEqual(where((t) => t['amenity'] === 'hospital' || t['amenity'] === 'police' || t['shop'] === 'supermarket'));
    expect(await ask('piers or parking spaces')).toEqual(where((t) => t['man_made'] === 'pier' || t['amenity'] === 'parking_space'));
    // Words before one noun each narrow it.
    expect(await ask('primary or secondary highways')).toEqual(where((t) => t['highway'] === 'primary' || t['highway'] === 'secondary'));
  });

  it('reads "police stations" as police, and refuses a list part no layer holds by its words', async () => {
    expect(await ask('police stations')).toEqual(where((t) => t['amenity'] === 'police'));
    const res = await refused(r, { query: 'police stations and fire stations' });
    expect(JSON.stringify(res.unread)).toMatch(/fire stations/);
  });

  it('reads "with a name" and "with a website" as the tag being there', async () => {
    expect(await ask('schools with a name')).toEqual(where((t) => t['amenity'] === 'school' && 'name' in t));
    expect(await ask('restaurants with a website')).toEqual(where((t) => t['amenity'] === 'restaurant' && 'website' in t));
    // "with the name X" is still the name's text.
    expect(await ask('restaurants with the name Adler')).toEqual(where((t) => t['amenity'] === 'restaurant' && t['name'] === 'Adler'));
  });

  it('reads "N meters around coordinates X, Y" as a radius', async () => {
    const at = point([9.0, 48.0]);
    const within = (m: number) => where((t, e) => t['amenity'] === 'cafe' && distance(at, point(e.coords[0]!), { units: 'meters' }) <= m);
    expect(await ask('cafes 50 meters around coordinates 48.0, 9.0')).toEqual(within(50));
    expect(await ask('cafes in a radius of 100 m around 48.0, 9.0')).toEqual(within(100));
    expect(within(50).length).toBeGreaterThan(0);
    expect(within(100).length).toBeGreaterThan(within(50).length);
  });

  it('carries the first tag of the preset a value names', async () => {
    expect(await ask('nursing homes')).toEqual(where((t) => t['amenity'] === 'social_facility' && t['social_facility'] === 'nursing_home'));
  });

  it('reads "tagged as X" as narrowing the subject, and "not tagged as X" as excluding it', async () => {
    expect(await ask('roads tagged as service')).toEqual(where((t) => t['highway'] === 'service'));
    expect(await ask('bus stops not tagged as a stop position')).toEqual(where((t) => t['highway'] === 'bus_stop' && t['public_transport'] !== 'stop_position'));
  });

  it('reads a key with figures: "maxspeed of 60", "admin level 10 or 8"', async () => {
    expect(await ask('ways with maxspeed of 60')).toEqual(where((t, e) => e.type === 'way' && t['maxspeed'] === '60'));
    expect(await ask('administrative boundaries with admin level 10 or 8')).toEqual(where((t) => t['boundary'] === 'administrative' && ['10', '8'].includes(t['admin_level'] ?? '')));
  });

  it('reads the kind of place said after its name ("in Quarzlingen municipality") and "the area with the name X"', async () => {
    const [w, s, e, n] = [9.04, 48.04, 9.041, 48.041];
    expect(await ask('libraries in the area with the name Quarzlingen')).toEqual(await ask('libraries in Quarzlingen'));
    const inside = await ask('libraries in Quarzlingen');
    expect(await ask('libraries not in Quarzlingen')).toEqual(where((t, el) => t['amenity'] === 'library' && !inside.includes(keyOf(el))));
    expect(await ask('libraries which are not located in Quarzlingen')).toEqual(await ask('libraries outside Quarzlingen'));
    expect(await ask('libraries in Quarzlingen municipality')).toEqual(where((t, el) => t['amenity'] === 'library' && el.coords[0]![0] >= w && el.coords[0]![0] <= e && el.coords[0]![1] >= s && el.coords[0]![1] <= n));
  });

  it('reads a key said in words as the subject ("house numbers": addr:housenumber)', async () => {
    expect(await ask('house numbers')).toEqual(where((t) => 'addr:housenumber' in t));
  });

  it('reads a group of presets by its name ("major roads")', async () => {
    // iD's "Major Roads": motorways, trunk, primary, secondary and tertiary roads and their links.
    const major = new Set(['motorway', 'trunk', 'primary', 'secondary', 'tertiary', 'motorway_link', 'trunk_link', 'primary_link', 'secondary_link', 'tertiary_link']);
    expect(await ask('major roads')).toEqual(where((t) => major.has(t['highway'] ?? '')));
  });

  it('reads "places of worship" (the plural first), "recycling spots" and "places with a house number"', async () => {
    expect(await ask('places of worship')).toEqual(where((t) => t['amenity'] === 'place_of_worship'));
    expect(await ask('recycling spots')).toEqual(where((t) => t['amenity'] === 'recycling'));
    expect(await ask('places with a house number')).toEqual(where((t) => 'addr:housenumber' in t));
  });
});
