import { around, distance } from 'geokdbush';
import type { Layer } from '../../catalog/catalog';
import type { BBox } from '../../layers/store/geo';
import type { Position } from 'geojson';

/**
 * geokdbush's index compares haversines, which round apart from its distance(): an item the
 * distance puts exactly on the radius can be left out. Ask the index a hair wider; the distance
 * test on every candidate decides.
 */
export const reach = (km: number) => km * (1 + 1e-9) + 1e-9;

/** The spatial calls of a source held as a point layer (kinds, uploads): its geodesic index answers them. */
export function pointCandidates(L: Layer) {
  return {
    inBox: async ([w, s, e, n]: BBox): Promise<number[]> => L.index.range(w, s, e, n),
    within: async ([lon, lat]: Position, km: number): Promise<number[]> => around(L.index, lon!, lat!, Infinity, reach(km)),
    nearest: async ([lon, lat]: Position, k: number, minKm = 0): Promise<number[]> =>
      around(L.index, lon!, lat!, k, Infinity, minKm > 0 ? (i: number) => distance(lon!, lat!, L.lon[i]!, L.lat[i]!) >= minKm : undefined),
    all: async (): Promise<number[]> => L.byPopulation as unknown as number[],
    inCountry: async (cca2: string): Promise<number[]> => L.byCountry.get(cca2) ?? [],
    position: (i: number): Position => [L.lon[i]!, L.lat[i]!],
    country: (i: number): string => L.country[i] ?? '',
  };
}
