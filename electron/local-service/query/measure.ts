import type { Catalog } from '../catalog/catalog';
import type { Layer } from '../catalog/catalog';
import type { Item } from './item';
import type { Measurement, Plan, Warning } from './plan';

export const PER_CAPITA_UNIT = 1e6;
export const PER_AREA_UNIT_KM2 = 1e4;

export interface MeasurementResult {
  kind: Measurement;
  value: number | null;
  unit: string;
  scope: string;
}

function countryFigures(catalog: Catalog, cca2: string) {
  const ci = catalog.countryByCode.get(cca2);
  const row = ci !== undefined ? catalog.countries.rows[ci] : undefined;
  return { ci, population: row?.population ?? null, area: row?.area ?? null, name: row?.name ?? cca2 };
}

function ratio(count: number, denom: number | null, unit: number): number | null {
  return denom && denom > 0 ? Math.round((count / denom) * unit * 1000) / 1000 : null;
}

/** A feature counted in a figure per country: its country (alpha-2) and a position standing for it. */
export interface Counted {
  country: string;
  lon: number;
  lat: number;
}

/** The items counted per country: one country item each, with its figures, largest figure first. */
export function aggregateByCountry(items: Item[], L: Layer, catalog: Catalog, m: Measurement): Item[] {
  return countPerCountry(items.map((x) => ({ country: L.country[x.i] ?? '', lon: L.lon[x.i]!, lat: L.lat[x.i]! })), catalog, m);
}

/**
 * Features counted per country: one country item each, largest figure first, with the box of the
 * features it counts (what an answer frames: France's counted sites, not its overseas lands).
 */
export function countPerCountry(counted: Iterable<Counted>, catalog: Catalog, m: Measurement): Item[] {
  const groups = new Map<string, { count: number; box: [number, number, number, number] }>();
  for (const c of counted) {
    const g = groups.get(c.country);
    if (!g) groups.set(c.country, { count: 1, box: [c.lon, c.lat, c.lon, c.lat] });
    else {
      g.count++;
      g.box = [Math.min(g.box[0], c.lon), Math.min(g.box[1], c.lat), Math.max(g.box[2], c.lon), Math.max(g.box[3], c.lat)];
    }
  }
  const out: Item[] = [];
  for (const [cca2, { count, box }] of groups) {
    const f = countryFigures(catalog, cca2);
    if (f.ci === undefined) continue;
    out.push({
      k: catalog.countries.kind,
      i: f.ci,
      a: {
        count,
        population: f.population,
        area_km2: f.area,
        per_capita: ratio(count, f.population, PER_CAPITA_UNIT),
        per_area: ratio(count, f.area, PER_AREA_UNIT_KM2),
      },
      members: box,
    });
  }
  const key = (x: Item) => x.a?.[m] ?? -1;
  out.sort((a, b) => key(b)! - key(a)! || a.i - b.i);
  return out;
}

/** A count, or a ratio to the population or area of the named countries or of one radius. */
export function measure(
  m: Measurement,
  count: number,
  countries: string[],
  within: Plan['within'],
  catalog: Catalog,
  warn: (code: Warning['code'], message: string) => void,
): MeasurementResult {
  if (m === 'count') return { kind: m, value: count, unit: 'features', scope: 'all matches' };
  const figs = countries.map((c) => countryFigures(catalog, c));
  const scope = figs.map((f) => f.name).join(', ');
  if (m === 'per_capita') {
    const pop = figs.length && figs.every((f) => f.population) ? figs.reduce((s, f) => s + f.population!, 0) : null;
    if (pop === null) warn('measurement', 'per_capita needs the population of a country; none known here');
    return { kind: m, value: ratio(count, pop, PER_CAPITA_UNIT), unit: 'per million people', scope };
  }
  let area: number | null = figs.length && figs.every((f) => f.area) ? figs.reduce((s, f) => s + f.area!, 0) : null;
  let areaScope = scope;
  if (area === null && within && within.reference.type === 'points' && within.reference.points.length === 1) {
    area = Math.PI * within.radiusKm ** 2;
    areaScope = `${within.radiusKm} km around ${within.reference.label}`;
  }
  if (area === null) warn('measurement', 'per_area needs a country or a radius around one place; none here');
  return { kind: m, value: ratio(count, area, PER_AREA_UNIT_KM2), unit: 'per 10,000 km²', scope: areaScope };
}

