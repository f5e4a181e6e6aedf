import type { ComputeFeature } from '../../../shared/service/compute';
import type { Catalog } from '../catalog/catalog';
import { UPLOADS } from '../catalog/kinds/uploads';
import type { UploadSet } from '../uploads';
import type { Execution, Item } from './item';
import { layerAddress, type NearPlaces } from './layers/address';
import { representativePoint } from './layers/geometry';

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
  if (x.k === UPLOADS.name || x.hit) return 1;
  const K = catalog.kinds.get(x.k);
  const rule = K.entry.score;
  if (!rule) return 1;
  if ('population' in rule) {
    const pop = K.pop[x.i]!;
    return pop > 0 ? Math.min(1, Math.round((Math.log10(pop) / 7.5) * 1e4) / 1e4) : 0.1;
  }
  return rule.map[String(K.cols[rule.column]![x.i])] ?? 1;
}

/** The name an item is listed by: a kind's own, an upload's, a layer feature's name or brand, else its label and id. */
export function nameOf(x: Item, ex: Execution, catalog: Catalog, uploads: UploadSet): string {
  if (x.hit) return String(x.hit.f.tags['name'] ?? x.hit.f.tags['brand'] ?? `${ex.layers?.label} ${x.hit.f.sourceId}`);
  if (x.k === UPLOADS.name) return uploads.get(x.i).name;
  return catalog.kinds.get(x.k).feature(x.i).name;
}

/** One item of any source as a feature of the answer; `near` keeps the "near …" addresses of layer features. */
export function toFeature(x: Item, ex: Execution, catalog: Catalog, uploads: UploadSet, near?: NearPlaces): ComputeFeature {
  const score = scoreOf(x, ex, catalog);
  const distance_meters = x.d !== undefined ? Math.round(x.d * 10) / 10 : 0;
  // Full precision for tools; the written answer rounds for people.
  const km = x.d !== undefined ? { distance_km: Math.round(x.d * 10) / 10_000 } : {};
  if (x.hit) {
    const { f, layer } = x.hit;
    const [lon, lat] = representativePoint(f.geometry) as [number, number];
    return {
      type: 'Feature',
      id: `layer:${layer.id}:${f.fid}`,
      geometry: f.geometry as ComputeFeature['geometry'],
      properties: {
        source_id: f.sourceId,
        name: nameOf(x, ex, catalog, uploads),
        address: layerAddress(f.tags, lon, lat, catalog, near),
        score,
        distance_meters,
        ...km,
        source: { name: layer.name, url: `layer:${layer.id}`, licence: layer.licence, text: layer.sourceText },
        attributes: x.count !== undefined ? { ...f.tags, count: x.count } : f.tags,
        kind: x.k,
        layer: layer.name,
        ...(f.sublayer ? { sublayer: f.sublayer } : {}),
      },
    };
  }
  if (x.k === UPLOADS.name) {
    const u = uploads.get(x.i);
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
  const K = catalog.kinds.get(x.k);
  const m = K.feature(x.i);
  return {
    type: 'Feature',
    id: m.id,
    geometry: m.geometry,
    // A foreign member, not a property: where the counted features lie, for framing (not a column).
    ...(x.members ? { members_bbox: x.members } : {}),
    properties: {
      source_id: m.sourceId,
      name: m.name,
      address: m.address,
      score,
      distance_meters,
      ...km,
      source: { name: K.entry.source.name, url: m.url },
      attributes: x.a ?? {},
      kind: K.entry.name,
      ...m.properties,
    },
  };
}
