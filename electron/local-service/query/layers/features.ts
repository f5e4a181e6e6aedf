import type { ComputeFeature } from '../../../../shared/service/compute';
import type { Catalog } from '../../catalog/catalog';
import { formatNumber } from '../../catalog/format';
import { nearestPoint } from '../../catalog/nearest-point';
import { originSentence } from '../origin';
import { itemDistanceText, radiusText, type SaidDistance } from '../units';
import type { LayerExecution, LayerItem } from './execute-layers';
import { representativePoint } from './geometry';

/** OSM address parts, in the order an address is written. */
const ADDR = [['addr:housenumber', 'addr:street'], ['addr:postcode', 'addr:city'], ['addr:country']] as const;

/**
 * The address of a layer feature: its OSM addr:* tags when it has them, else "near" the nearest
 * place of the catalog's fallback kind (cities) with that place's own address.
 */
export function layerAddress(tags: Record<string, unknown>, lon: number, lat: number, catalog: Catalog, near?: NearPlaces): string {
  const parts = ADDR.map((group) => group.map((k) => tags[k]).filter((v) => v !== undefined && v !== '').join(' ')).filter(Boolean);
  if (parts.length) return parts.join(', ');
  const at = `${lon},${lat}`;
  const known = near?.get(at);
  if (known !== undefined) return known;
  const K = catalog.kinds.get(catalog.kinds.fallback);
  const hit = nearestPoint(K.index, lon, lat);
  const m = hit >= 0 ? K.feature(hit) : null;
  const text = m ? `near ${[m.name, m.address].filter(Boolean).join(', ')}` : '';
  near?.set(at, text);
  return text;
}

/**
 * The "near …" addresses of positions asked lately (a continuation lists the same features
 * again; a team asks about the same places), for one catalog, at most `size` of them.
 */
export class NearPlaces {
  private readonly texts = new Map<string, string>();
  constructor(private readonly size = 20_000) {}
  get(at: string): string | undefined {
    return this.texts.get(at);
  }
  set(at: string, text: string): void {
    this.texts.set(at, text);
    if (this.texts.size > this.size) this.texts.delete(this.texts.keys().next().value!);
  }
}

const nameOf = (x: LayerItem, label: string) => String(x.f.tags['name'] ?? x.f.tags['brand'] ?? `${label} ${x.f.sourceId}`);

export function layerFeature(x: LayerItem, ex: LayerExecution, catalog: Catalog, near?: NearPlaces): ComputeFeature {
  const [lon, lat] = representativePoint(x.f.geometry) as [number, number];
  const scale = (ex.radiusKm ?? 50) * 1000;
  const score = x.d !== undefined ? Math.round(Math.exp(-x.d / scale) * 1e4) / 1e4 || 0.0001 : 1;
  return {
    type: 'Feature',
    id: `layer:${x.layer.id}:${x.f.fid}`,
    geometry: x.f.geometry as ComputeFeature['geometry'],
    properties: {
      source_id: x.f.sourceId,
      name: nameOf(x, ex.label),
      address: layerAddress(x.f.tags, lon, lat, catalog, near),
      score,
      distance_meters: x.d !== undefined ? Math.round(x.d * 10) / 10 : 0,
      ...(x.d !== undefined ? { distance_km: Math.round(x.d * 10) / 10_000 } : {}),
      source: { name: x.layer.name, url: `layer:${x.layer.id}`, licence: x.layer.licence, text: x.layer.sourceText },
      attributes: x.count !== undefined ? { ...x.f.tags, count: x.count } : x.f.tags,
      kind: 'layer',
      layer: x.layer.name,
      ...(x.f.sublayer ? { sublayer: x.f.sublayer } : {}),
    },
  };
}

/** The written answer for layer features, in the shape of the kinds' answer. */
export function writeLayerAnswer(ex: LayerExecution, said?: SaidDistance): string {
  const n = ex.items.length;
  const label = ex.label;
  const dist = (x: LayerItem) => (x.d !== undefined ? itemDistanceText(x.d / 1000, said) : null);
  if (ex.perPolygon) {
    const top = ex.items.slice(0, 5).map((x) => `${nameOf(x, label)} ${formatNumber(x.count ?? 0)}`);
    return `${ex.measurement?.value ?? 0} "${label}" features in ${n} ${ex.measurement?.scope.replace(/^per /, '') ?? 'areas'}: ${top.join(', ')}${n > 5 ? ', …' : ''}.`;
  }
  const where = ex.radiusKm !== undefined && ex.reference ? ` within ${radiusText(ex.radiusKm, said)} of ${ex.reference.label}` : '';
  const first = ex.items[0];
  const parts: string[] = [];
  if (ex.nearestFirst && first && dist(first) !== null) {
    const from = ex.reference && !where ? ` to ${ex.reference.label}` : '';
    parts.push(`The nearest of ${formatNumber(ex.matched)} "${label}" features${where}${from} is ${nameOf(first, label)}, ${dist(first)}.`);
    if (n > 1) parts.push(`Then ${ex.items.slice(1, 3).map((x) => `${nameOf(x, label)} (${dist(x)})`).join('; ')}${n > 3 ? `; ${formatNumber(n)} listed` : ''}.`);
  } else {
    parts.push(`${formatNumber(ex.matched)} "${label}" features matched${where}.`);
    if (n) parts.push(`${n > 3 ? 'First' : 'They are'}: ${ex.items.slice(0, 3).map((x) => nameOf(x, label)).join('; ')}.`);
  }
  const origin = originSentence(ex.reference, ex.items.some((x) => x.d !== undefined));
  if (origin) parts.push(origin);
  const sources = [...new Set(ex.items.map((x) => (x.layer.licence ? `${x.layer.name} (${x.layer.licence})` : x.layer.name)))];
  if (sources.length) parts.push(`Source: ${sources.join(', ')}.`);
  if (ex.measurement?.kind === 'count') parts.push(`Count: ${formatNumber(ex.measurement.value ?? 0)}.`);
  return parts.join(' ');
}
