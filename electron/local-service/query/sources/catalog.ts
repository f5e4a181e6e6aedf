import type { Geometry } from 'geojson';
import type { Catalog } from '../../catalog/catalog';
import type { KindLayer } from '../../catalog/kinds/registry';
import { modifierTest } from '../modifiers';
import { kindHolds } from '../refusal';
import { defaultOrder } from '../sort';
import type { Source } from '../source';
import { pointCandidates } from './points';

/** A kind of the built-in catalog (airports, cities, countries) as a source: items are its row numbers. */
export function catalogSource(K: KindLayer, catalog: Catalog): Source<number> {
  const cols = K.cols as unknown as Record<string, ArrayLike<unknown>>;
  const regionOf = new Map(catalog.countries.rows.map((r) => [r.cca2, r.region]));
  const numeric = Object.keys(cols).filter((c) => c !== 'id' && typeof cols[c]![0] === 'number');
  if (K.entry.columns.population && !numeric.includes('population')) numeric.push('population');
  const points = pointCandidates(K);
  const own = K.entry.order?.length ? defaultOrder(K) : undefined;
  const raw = [...new Set([...Object.keys(cols).filter((c) => c !== 'id'), ...(K.entry.columns.population ? ['population'] : [])])];
  return {
    label: K.entry.label.many,
    populated: !!K.entry.columns.population,
    columns: () => kindHolds(K.entry).columns,
    numericColumns: () => numeric,
    ...points,
    geometry: (i): Geometry => ({ type: 'Point', coordinates: [K.lon[i]!, K.lat[i]!] }),
    region: (i) => regionOf.get(K.country[i] ?? '') ?? '',
    attributes: (i) => {
      const out: Record<string, unknown> = {};
      for (const [c, v] of Object.entries(cols)) out[c] = v[i];
      if (K.entry.columns.population) out['population'] = K.pop[i];
      return out;
    },
    pointLike: true,
    population: (i) => K.pop[i]!,
    ...(own && { compare: own }),
    modifiers: (chosen) => modifierTest(K, chosen),
    // Conditions read the kind's own columns, as they are stored.
    conditionColumns: () => [raw],
  };
}
