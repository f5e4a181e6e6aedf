import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parseCoord } from '../../shared/coords';
import type { PlaceFound, PlaceLabel } from '../../shared/rpc/methods/places';
import type { Geometry } from '../../shared/service/geojson';
import type { CityColumns, CountryRow } from '../local-service/catalog/catalog';
import { normalizeName } from '../local-service/catalog/text';
import type { Handlers } from '../rpc/router';

type PlaceMethods = 'places.labels' | 'places.find';

interface Gazetteer {
  countries: CountryRow[];
  countryByName: Map<string, CountryRow>;
  cities: { name: string; key: string; country: string; admin: string; lon: number; lat: number; pop: number }[];
}

const readGz = <T>(dir: string, file: string): T => JSON.parse(gunzipSync(readFileSync(join(dir, file))).toString('utf8')) as T;

/** The catalog's countries and cities, read once on the first call (a second copy of them stays off the start). */
function loadGazetteer(dir: string): Gazetteer {
  const countries = readGz<{ rows: CountryRow[] }>(dir, 'countries.json.gz').rows;
  const c = readGz<CityColumns & { lon: number[]; lat: number[] }>(dir, 'cities.json.gz');
  // The city file stores degrees times 10^5 (the cities entry's `scale`).
  const cities = c.name.map((name, i) => ({ name, key: normalizeName(name), country: c.country[i]!, admin: c.admin[i]!, lon: c.lon[i]! / 1e5, lat: c.lat[i]! / 1e5, pop: c.pop[i] ?? 0 }));
  cities.sort((a, b) => b.pop - a.pop);
  const countryByName = new Map<string, CountryRow>();
  for (const r of countries) for (const n of [r.name, r.official, r.cca2, r.cca3, ...r.aliases]) if (!countryByName.has(normalizeName(n))) countryByName.set(normalizeName(n), r);
  return { countries, countryByName, cities };
}

/** What a reading names, as the catalog holds it: typed coordinates, a country, or a city ("Lyon, France"; the most populous of the name). */
export function findPlace(g: Gazetteer, text: string): PlaceFound | null {
  const coord = parseCoord(text);
  if (!('error' in coord)) return { name: text, kind: 'point', lon: coord.lon, lat: coord.lat, geometry: null };
  const whole = g.countryByName.get(normalizeName(text));
  if (whole) return { name: whole.name, kind: 'country', lon: whole.lon, lat: whole.lat, geometry: (whole.geometry as Geometry | null) ?? null };
  const parts = text.split(',').map((p) => p.trim());
  const key = normalizeName(parts[0]!);
  const country = parts.length > 1 ? g.countryByName.get(normalizeName(parts[parts.length - 1]!))?.cca2 : undefined;
  const city = g.cities.find((c) => c.key === key && (!country || c.country === country));
  return city ? { name: parts[0]!, kind: 'city', lon: city.lon, lat: city.lat, geometry: null } : null;
}

/** Place names for the offline basemap, from the catalog folder. */
export function createPlaceHandlers(catalogDir: string): Pick<Handlers, PlaceMethods> {
  let gazetteer: Gazetteer | null = null;
  const get = () => (gazetteer ??= loadGazetteer(catalogDir));
  const label = (name: string, lon: number, lat: number, pop: number): PlaceLabel => ({ name, lon, lat, pop });
  return {
    'places.labels': ({ minPopulation }) => {
      const g = get();
      return {
        countries: g.countries.map((r) => label(r.name, r.lon, r.lat, r.population ?? 0)).sort((a, b) => b.pop - a.pop),
        cities: g.cities.filter((c) => c.pop >= minPopulation).map((c) => label(c.name, c.lon, c.lat, c.pop)),
      };
    },
    'places.find': ({ text }) => findPlace(get(), text),
  };
}
