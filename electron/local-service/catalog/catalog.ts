import { resourcesDir } from '../../ground/paths';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import KDBush from 'kdbush';
import type { Geometry } from 'geojson';
import type { Slicer } from '../upload/slice';
import type { PointIndexer } from './index-worker';
import { countryLocator } from './country-at';
import { normalizeName } from './text';
import { airports as airportsEntry } from './kinds/airports';
import { cities as citiesEntry } from './kinds/cities';
import { countries as countriesEntry } from './kinds/countries';
import type { Cell, Columns, KindEntry } from './kinds/entry';
import { kindMapper } from './kinds/mapper';
import { BUILTIN_KINDS, buildKinds, checkColumns, rowsToColumns, type KindLayer, type Kinds } from './kinds/registry';

/** Name of a kind of feature: a vocabulary entry's `name`, or uploads. */
export type Kind = string;

/** Points of one kind with a geodesic index; every query runs over layers of this shape. */
export interface Layer {
  kind: Kind;
  size: number;
  lon: Float64Array;
  lat: Float64Array;
  /** ISO 3166-1 alpha-2 per item ('' when unknown). */
  country: string[];
  /** Population per item, or NaN where the source has none. */
  pop: Float64Array;
  index: KDBush;
  /** Item ids per country, largest population first. */
  byCountry: Map<string, number[]>;
  /** Item ids ordered by population, largest first. */
  byPopulation: Uint32Array;
}

export interface CityColumns {
  id: number[];
  name: string[];
  country: string[];
  admin: string[];
  code: string[];
  pop: number[];
  /** Other names of some cities (English and ASCII spellings): item numbers and names. */
  alias?: { city: number[]; name: string[] };
  /** English names of first-level divisions whose codes cities carry in `admin`. */
  admins?: { country: string[]; code: string[]; name: string[] };
}
export interface AirportColumns {
  id: number[];
  ident: string[];
  large: number[];
  name: string[];
  municipality: string[];
  region: string[];
  country: string[];
  iata: string[];
}
export interface CountryRow {
  cca2: string;
  cca3: string;
  name: string;
  official: string;
  aliases: string[];
  demonym: string | null;
  capital: string | null;
  region: string;
  subregion: string;
  area: number;
  population: number | null;
  lat: number;
  lon: number;
  geometry: Geometry | null;
}

export interface Catalog {
  /** Short hash of the catalog files: saved result sets refer to item numbers of one version. */
  version: string;
  /** Every kind of the catalog, from its vocabulary entry: lexicon, lookup, storage codes. */
  kinds: Kinds;
  /** The gazetteer: place names are read from the cities and countries. */
  cities: KindLayer<CityColumns>;
  airports: KindLayer<AirportColumns>;
  countries: KindLayer & { rows: CountryRow[] };
  countryByCode: Map<string, number>;
  /** Normalized country names, official names, alternative spellings and demonyms. */
  countryByName: Map<string, number>;
  countryByDemonym: Map<string, number>;
  /** Cities by normalized name or alias, the most important first (see cityImportance). */
  cityByName: Map<string, number[]>;
  /** First-level divisions by normalized name ("texas", "canton of geneva"): country and admin code. */
  adminByName: Map<string, { country: string; code: string }[]>;
  /** Continents and subregions of world-countries ("europe", "south america"): alpha-2 codes. */
  regionByName: Map<string, { name: string; countries: string[] }>;
  /** Area ids (UUID v5 of the alpha-3 code) that `area_id` accepts. */
  areaIds: Map<string, number>;
  /** Country index containing the point, or -1. */
  countryAt(lon: number, lat: number): number;
  /** Capital city item of a country, or -1. */
  capitalOf: Map<string, number>;
}

/**
 * How much a city stands for its name: population, weighted up for seats of government (GeoNames
 * feature codes PPLC, PPLA): "Santiago" is the capital of Chile before any larger namesake.
 */
export function cityImportance(pop: number, code: string): number {
  const p = Number.isFinite(pop) ? pop : 0;
  return code === 'PPLC' ? p * 3 : code === 'PPLA' ? p * 1.5 : p;
}

function readGz<T>(dir: string, file: string, hash: ReturnType<typeof createHash>): T {
  const bytes = readFileSync(join(dir, file));
  hash.update(bytes);
  return JSON.parse(gunzipSync(bytes).toString('utf8')) as T;
}

function makeLayer(
  kind: Kind,
  lon: readonly number[],
  lat: readonly number[],
  country: string[],
  pop: readonly number[] | null,
  scale = 1,
): Layer {
  const size = lon.length;
  const L: Layer = {
    kind,
    size,
    lon: new Float64Array(size),
    lat: new Float64Array(size),
    country,
    pop: new Float64Array(size).fill(NaN),
    index: new KDBush(Math.max(size, 1)),
    byCountry: new Map(),
    byPopulation: new Uint32Array(size),
  };
  for (let i = 0; i < size; i++) {
    const x = lon[i]! / scale;
    const y = lat[i]! / scale;
    L.lon[i] = x;
    L.lat[i] = y;
    L.index.add(x, y);
    if (pop) L.pop[i] = pop[i]!;
    const c = country[i]!;
    let list = L.byCountry.get(c);
    if (!list) L.byCountry.set(c, (list = []));
    list.push(i);
  }
  if (size === 0) L.index.add(0, 0);
  L.index.finish();
  // Without populations every tie falls back to item order, which the lists already have: a
  // comparator sort of 300,000 uploaded points would hold the request thread for no change.
  if (!pop) {
    for (let i = 0; i < size; i++) L.byPopulation[i] = i;
    return L;
  }
  const byPop = (a: number, b: number) => (L.pop[b]! || 0) - (L.pop[a]! || 0) || a - b;
  const order = Array.from({ length: size }, (_, i) => i);
  order.sort(byPop);
  L.byPopulation.set(order);
  for (const list of L.byCountry.values()) list.sort(byPop);
  return L;
}

/** Builds a layer from arbitrary points (uploaded features). */
export function pointLayer(kind: Kind, lon: number[], lat: number[], country: string[]): Layer {
  return makeLayer(kind, lon, lat, country, null);
}

/** Points from which pointLayerOf builds a layer in slices. */
export interface PointSource {
  lon: number;
  lat: number;
  country: string;
}

/** Points read one by one: an array of them (pointList) or columns of positions (the uploads). */
export interface PointList {
  readonly length: number;
  lon(i: number): number;
  lat(i: number): number;
  country(i: number): string;
  /** All positions at once, when the list holds them so: the layer shares them (read-only) rather than copy them. */
  positions?(): { lon: Float64Array; lat: Float64Array };
}

export function pointList(points: readonly PointSource[]): PointList {
  return { length: points.length, lon: (i) => points[i]!.lon, lat: (i) => points[i]!.lat, country: (i) => points[i]!.country };
}

/** pointLayer of a point list, at once. */
export function pointLayerAt(kind: Kind, points: PointList): Layer {
  const lon: number[] = [];
  const lat: number[] = [];
  const country: string[] = [];
  for (let i = 0; i < points.length; i++) {
    lon.push(points.lon(i));
    lat.push(points.lat(i));
    country.push(points.country(i));
  }
  return pointLayer(kind, lon, lat, country);
}

/** Point count from which layers are built in slices with the index on a worker thread. */
export const LARGE_LAYER = 20_000;

/**
 * pointLayer for requests: small sets on this thread at once (a worker round trip costs more
 * than their whole build); large ones copied in slices between which other requests are
 * answered (or sharing the list's positions), and indexed by the worker. What a question over
 * uploads seldom asks of its layer (countries, their lists, populations, which uploads have
 * none) is made on first use: for millions of rows these are a hundred MB and more.
 */
export async function pointLayerOf(
  kind: Kind,
  points: PointList,
  tools: { slice: Slicer; indexer: PointIndexer },
): Promise<Layer> {
  const size = points.length;
  if (size < LARGE_LAYER) return pointLayerAt(kind, points);
  const shared = points.positions?.();
  const lon = shared?.lon ?? new Float64Array(size);
  const lat = shared?.lat ?? new Float64Array(size);
  if (!shared)
    for (let i = 0; i < size; i++) {
      lon[i] = points.lon(i);
      lat[i] = points.lat(i);
      if ((i & 4095) === 4095 && tools.slice.due()) await tools.slice.pause();
    }
  const index = await tools.indexer.build(lon, lat);
  let country: string[] | undefined;
  let byCountry: Map<string, number[]> | undefined;
  let pop: Float64Array | undefined;
  let byPopulation: Uint32Array | undefined;
  return {
    kind,
    size,
    lon,
    lat,
    index,
    get country() {
      return (country ??= Array.from({ length: size }, (_, i) => points.country(i)));
    },
    get byCountry() {
      if (byCountry) return byCountry;
      byCountry = new Map();
      for (let i = 0; i < size; i++) {
        const c = points.country(i);
        let list = byCountry.get(c);
        if (!list) byCountry.set(c, (list = []));
        list.push(i);
      }
      return byCountry;
    },
    get pop() {
      return (pop ??= new Float64Array(size).fill(NaN));
    },
    get byPopulation() {
      if (byPopulation) return byPopulation;
      byPopulation = new Uint32Array(size);
      for (let i = 0; i < size; i++) byPopulation[i] = i;
      return byPopulation;
    },
  };
}

// RFC 4122 name-based UUID (v5); node:crypto has only v4, and one function is not worth a dependency.
const AREA_NAMESPACE = '6f1f3c1e-3b0a-5d43-9c52-1f5a7a0e4b11';
export function uuidV5(name: string, namespace = AREA_NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const h = createHash('sha1').update(ns).update(name).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
export const areaIdOf = (cca3: string) => uuidV5('country:' + cca3);

/** resources/catalog of the app (source tree or built out/main). */
export function defaultCatalogDir(): string {
  return join(resourcesDir(import.meta.dirname), 'catalog');
}

/** A kind given with its data: an extra kind beside the built-in ones (tests, later data layers). */
export interface KindSource {
  entry: KindEntry;
  columns: Columns;
}

/**
 * A kind's point layer from its columns, as its entry names them, with its feature mapper
 * (`countryName` writes the country column of addresses).
 */
export function kindLayer({ entry, columns: cols }: KindSource, countryName = (cca2: string) => cca2): KindLayer {
  checkColumns(entry, cols);
  const c = entry.columns;
  const popCol = c.population ? cols[c.population]! : null;
  const pop = popCol ? popCol.map((v) => (v === null ? NaN : Number(v))) : null;
  const layer = makeLayer(entry.name, cols[c.lon] as number[], cols[c.lat] as number[], cols[c.country] as string[], pop, c.scale ?? 1);
  return Object.assign(layer, { entry, cols, feature: kindMapper({ entry, cols, lon: layer.lon, lat: layer.lat }, countryName) });
}

/** The catalog folder's file of a built-in kind, as columns (row-wise files keep their rows). */
function readKind(dir: string, entry: KindEntry, hash: ReturnType<typeof createHash>): KindSource & { rows?: unknown[] } {
  const data = readGz<Columns & { rows?: Record<string, Cell>[] }>(dir, entry.source.file!, hash);
  if (entry.source.layout !== 'rows') return { entry, columns: data };
  return { entry, columns: rowsToColumns(data.rows ?? []), rows: data.rows };
}

/**
 * The catalog of the folder's files, one kind per built-in vocabulary entry, and any extra kinds
 * given with their data.
 */
export function loadCatalog(dir: string, extra: KindSource[] = []): Catalog {
  const hash = createHash('sha256');
  const read = BUILTIN_KINDS.map((e) => readKind(dir, e, hash));
  for (const x of extra) hash.update(JSON.stringify(x));
  const rows = read[BUILTIN_KINDS.indexOf(countriesEntry)]!.rows as CountryRow[];
  const countryByCode = new Map<string, number>();
  // Addresses name the country; the codes are read when a feature is made, after the maps are filled.
  const countryName = (cca2: string) => {
    const ci = countryByCode.get(cca2);
    return ci !== undefined ? rows[ci]!.name : cca2;
  };
  const kinds = buildKinds([...read, ...extra].map((source) => kindLayer(source, countryName)));
  const cities = kinds.get(citiesEntry.name) as KindLayer<unknown> as KindLayer<CityColumns>;
  const c = cities.cols;
  const airports = kinds.get(airportsEntry.name) as KindLayer<unknown> as KindLayer<AirportColumns>;
  const countries = Object.assign(kinds.get(countriesEntry.name), { rows });

  const countryByName = new Map<string, number>();
  const countryByDemonym = new Map<string, number>();
  const areaIds = new Map<string, number>();
  rows.forEach((r, i) => {
    countryByCode.set(r.cca2, i);
    countryByCode.set(r.cca3, i);
    areaIds.set(areaIdOf(r.cca3), i);
    for (const n of [r.name, r.official, ...r.aliases]) {
      // Two- and three-letter spellings are codes ("US", "UK"): matched only when written in capitals.
      if (n.length <= 3) continue;
      const key = normalizeName(n);
      if (key && !countryByName.has(key)) countryByName.set(key, i);
    }
    for (const n of r.aliases) if (/^[A-Z]{2,3}$/.test(n) && !countryByCode.has(n)) countryByCode.set(n, i);
    if (r.demonym) {
      // "French" is also the demonym of French overseas lands: the most populous country wins.
      const key = normalizeName(r.demonym);
      const prev = countryByDemonym.get(key);
      if (prev === undefined || (r.population ?? 0) > (rows[prev]!.population ?? 0)) countryByDemonym.set(key, i);
    }
  });
  // Common English names the sources spell otherwise.
  for (const [alias, code] of [
    ['america', 'US'],
    ['usa', 'US'],
    ['britain', 'GB'],
    ['great britain', 'GB'],
    ['england', 'GB'],
    ['holland', 'NL'],
    ['uk', 'GB'],
    ['uae', 'AE'],
    ['drc', 'CD'],
  ] as const) {
    const i = countryByCode.get(code);
    if (i !== undefined && !countryByName.has(alias)) countryByName.set(alias, i);
  }

  const regionByName = new Map<string, { name: string; countries: string[] }>();
  const addRegion = (name: string, cca2: string) => {
    if (!name) return;
    const key = normalizeName(name);
    let r = regionByName.get(key);
    if (!r) regionByName.set(key, (r = { name, countries: [] }));
    r.countries.push(cca2);
  };
  for (const r of rows) {
    addRegion(r.region, r.cca2);
    addRegion(r.subregion, r.cca2);
    // "Americas" is one region in the source; North America there means the US, Canada and so on.
    if (r.region === 'Americas') addRegion('America', r.cca2);
  }
  if (regionByName.has('antarctic')) regionByName.set('antarctica', regionByName.get('antarctic')!);

  const cityByName = new Map<string, number[]>();
  const addCityName = (name: string, i: number) => {
    const key = normalizeName(name);
    if (!key) return;
    let list = cityByName.get(key);
    if (!list) cityByName.set(key, (list = []));
    if (!list.includes(i)) list.push(i);
  };
  for (let i = 0; i < cities.size; i++) addCityName(c.name[i]!, i);
  c.alias?.city.forEach((i, j) => addCityName(c.alias!.name[j]!, i));
  // "New York City", "Mexico City": also found without the trailing "city".
  for (let i = 0; i < cities.size; i++) {
    const key = normalizeName(c.name[i]!);
    if (!key.endsWith(' city')) continue;
    const short = key.slice(0, -5);
    // "New City" must not make every "new" a place: short forms need five letters or two words.
    if (short.length < 5 && !short.includes(' ')) continue;
    let list = cityByName.get(short);
    if (!list) cityByName.set(short, (list = []));
    list.push(i);
  }
  const importance = (i: number) => cityImportance(cities.pop[i]!, c.code[i]!);
  for (const list of cityByName.values()) list.sort((x, y) => importance(y) - importance(x) || x - y);

  const adminByName = new Map<string, { country: string; code: string }[]>();
  c.admins?.name.forEach((name, j) => {
    const key = normalizeName(name);
    const list = adminByName.get(key) ?? [];
    list.push({ country: c.admins!.country[j]!, code: c.admins!.code[j]! });
    adminByName.set(key, list);
  });

  const capitalOf = new Map<string, number>();
  for (let i = 0; i < cities.size; i++) {
    if (c.code[i] !== 'PPLC') continue;
    const prev = capitalOf.get(c.country[i]!);
    if (prev === undefined || cities.pop[i]! > cities.pop[prev]!) capitalOf.set(c.country[i]!, i);
  }

  const countryAt = countryLocator(rows.map((r) => r.geometry));

  return {
    version: hash.digest('hex').slice(0, 12),
    kinds,
    cities,
    airports,
    countries,
    countryByCode,
    countryByName,
    countryByDemonym,
    cityByName,
    adminByName,
    regionByName,
    areaIds,
    countryAt,
    capitalOf,
  };
}
