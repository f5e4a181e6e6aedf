import { defineStore } from 'pinia';
import { shallowRef } from 'vue';
import type { PlaceLabel } from '../../../shared/rpc/methods/places';
import type { QuestionReading } from '../../../shared/service/reading';
import type { MapReference } from '../map/ReferenceLayer';
import { useServices } from '../services';

/** A reading's filter that keeps an area ("in France"): the area's name. */
const AREA_FILTER = /^in (.+)$/;

/** The middle vertex of a line's longest part, where its name goes. */
function middleOf(parts: readonly (readonly number[])[][]): [number, number] | null {
  const longest = parts.reduce<readonly (readonly number[])[]>((a, p) => (p.length > a.length ? p : a), []);
  const m = longest[Math.floor(longest.length / 2)];
  return m ? [m[0]!, m[1]!] : null;
}

/**
 * The built-in catalog's place names for the offline basemap, read once, and the places an
 * answer's reading names, found in the same catalog so the map can draw what was asked about.
 */
export const usePlacesStore = defineStore('places', () => {
  const { basemap } = useServices();
  const labels = shallowRef<{ countries: PlaceLabel[]; cities: PlaceLabel[] } | null>(null);
  let loading: Promise<void> | null = null;

  function ensureLoaded(): Promise<void> {
    return (loading ??= basemap.places().then((v) => {
      labels.value = v;
      if (!v) loading = null;
    }));
  }

  /** The references of a reading the catalog holds: relations to a place, and areas it keeps within. */
  async function referencesOf(reading: QuestionReading | null): Promise<MapReference[]> {
    if (!reading) return [];
    const out: MapReference[] = [];
    for (const r of reading.relations) {
      // A line the answer was measured from comes with the reading: drawn as itself, named at its middle.
      const mid = r.line ? middleOf(r.line.coordinates) : null;
      if (r.line && mid) {
        out.push({ label: r.reference, lon: mid[0], lat: mid[1], line: r.line });
        continue;
      }
      const found = await basemap.findPlace(r.reference);
      if (!found) continue;
      const ref: MapReference = { label: found.kind === 'point' ? r.reference : found.name, lon: found.lon, lat: found.lat };
      if (r.max_km !== undefined) ref.maxKm = r.max_km;
      if (r.min_km !== undefined) ref.minKm = r.min_km;
      if (found.geometry && (r.relation === 'inside' || r.relation === 'outside' || r.relation === 'intersecting')) ref.area = found.geometry;
      out.push(ref);
    }
    for (const f of reading.filters) {
      const m = AREA_FILTER.exec(f);
      if (!m) continue;
      // "in France or Spain": each country named.
      for (const name of m[1]!.split(' or ')) {
        const found = await basemap.findPlace(name);
        if (found?.geometry) out.push({ label: found.name, lon: found.lon, lat: found.lat, area: found.geometry });
      }
    }
    return out;
  }

  return { labels, ensureLoaded, referencesOf };
});
