import type { ComputeFeature } from '../../../shared/service/compute';
import type { Catalog } from '../catalog/catalog';
import type { Cell, PropertyColumn } from '../catalog/kinds/entry';
import type { KindLayer } from '../catalog/kinds/registry';
import { UPLOADS } from '../catalog/kinds/uploads';
import type { UploadFeature } from '../uploads';
import type { Execution, Item } from './execute';

/**
 * Score in (0, 1]: with a distance reference, exp(-d / scale) so nearer is higher; without one,
 * the kind's score rule: log-scaled population (a city of 10 million scores about 0.93), or a
 * column's value (1 or 0.7 for large or medium airports); uploaded features score 1.
 */
export function scoreOf(x: Item, ex: Execution, catalog: Catalog): number {
  if (x.d !== undefined) {
    const scale = (ex.radiusKm ?? 50) * 1000;
    return Math.round(Math.exp(-x.d / scale) * 1e4) / 1e4 || 0.0001;
  }
  if (x.k === UPLOADS.name) return 1;
  const K = catalog.kinds.get(x.k);
  const rule = K.entry.score;
  if (!rule) return 1;
  if ('population' in rule) {
    const pop = K.pop[x.i]!;
    return pop > 0 ? Math.min(1, Math.round((Math.log10(pop) / 7.5) * 1e4) / 1e4) : 0.1;
  }
  return rule.map[String(K.cols[rule.column]![x.i])] ?? 1;
}

/** One property of a feature from its column, as the kind's entry says. */
function propertyOf(p: PropertyColumn, cell: Cell | undefined): unknown {
  if (p.equals !== undefined) return cell === p.equals;
  if (p.map) return p.map[String(cell)] ?? null;
  if (p.emptyIsNull && (cell === '' || cell === null || cell === undefined)) return null;
  return cell;
}

export function toFeature(x: Item, ex: Execution, catalog: Catalog, uploads: UploadFeature[]): ComputeFeature {
  const score = scoreOf(x, ex, catalog);
  const distance_meters = x.d !== undefined ? Math.round(x.d * 10) / 10 : 0;
  // Full precision for tools; the written answer rounds for people.
  const km = x.d !== undefined ? { distance_km: Math.round(x.d * 10) / 10_000 } : {};
  if (x.k === UPLOADS.name) {
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
        kind: UPLOADS.name,
        country: u.country || null,
      },
    };
  }
  // Any other name must be a kind of the catalog: an unknown one is an error, never an upload.
  const K: KindLayer = catalog.kinds.get(x.k);
  const { entry: e, cols } = K;
  const cell = (column: string) => cols[column]![x.i];
  const countryName = (cca2: string) => {
    const ci = catalog.countryByCode.get(cca2);
    return ci !== undefined ? catalog.countries.rows[ci]!.name : cca2;
  };
  const id = String(cell(e.id.column));
  const geometry = e.columns.geometry ? (cell(e.columns.geometry) as ComputeFeature['geometry'] | null) : null;
  const address = e.address
    .map((c) => (c === e.columns.country ? countryName(String(cell(c))) : cell(c)))
    .filter(Boolean)
    .join(', ');
  return {
    type: 'Feature',
    id: e.id.prefix + id,
    geometry: geometry ?? { type: 'Point', coordinates: [K.lon[x.i]!, K.lat[x.i]!] },
    properties: {
      source_id: id,
      name: String(cell(e.columns.name)),
      address,
      score,
      distance_meters,
      ...km,
      source: { name: e.source.name, url: e.source.url.replace(/\{(\w+)\}/g, (_, c: string) => String(cell(c))) },
      attributes: x.a ?? {},
      kind: e.name,
      ...Object.fromEntries(e.properties.map((p) => [p.name, propertyOf(p, cell(p.column))])),
    },
  };
}
