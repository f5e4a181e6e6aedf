import type { Catalog } from '../../catalog/catalog';
import { nearestPoint } from '../../catalog/nearest-point';

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
