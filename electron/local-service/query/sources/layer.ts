import type { Geometry } from 'geojson';
import type { Catalog } from '../../catalog/catalog';
import type { BBox } from '../../layers/store/geo';
import type { LayerStore, StoredFeature } from '../../layers/store/layer-store';
import { MAX_COLUMNS } from '../../layers/store/summary';
import type { Selection } from '../../vocabulary/vocabulary';
import { representativePoint } from '../layers/geometry';
import { firstOf, type LayerHit } from '../layers/resolve';
import type { Warning } from '../plan';
import { LAYER_ITEM } from '../item';
import type { Source } from '../source';

/** Features read for one index question of a layer; more are not read (a warning says so). */
export const SCAN_LIMIT = 100_000;

export interface LayerSourceInput {
  selection: Selection;
  store: LayerStore;
  catalog: Catalog;
  /** Column summaries of the layers, by layer id: what the layers hold. */
  summaries?: ReadonlyMap<string, { columns: { key: string; numeric?: boolean }[] }>;
  warn: (w: Warning) => void;
}

/** A data layer's features as a source: what a selection matches in each layer that holds it, on either backend. */
export interface LayerSource extends Source<LayerHit> {
  /** Candidates whose geometry meets a box; `note` says what they are if the bound is reached. */
  inBox(box: BBox, note?: string): Promise<LayerHit[]>;
  /** Candidates that intersect a geometry (touching counts). */
  intersecting(g: Geometry, note: string): Promise<LayerHit[]>;
  /** Each layer's columns, or null where a layer holds too many to list (then any column may be there). */
  layerColumns(): (string[] | null)[];
}

/**
 * Every index question is bounded like a scan (SCAN_LIMIT features per layer, with an `ignored`
 * warning past it), so what Node holds for one question never grows with the layer. `note` says
 * in words what the bounded features were, for that warning.
 */
export function layerSource({ selection, store, catalog, summaries, warn }: LayerSourceInput): LayerSource {
  const label = selection.said;
  const regionOf = new Map(catalog.countries.rows.map((r) => [r.cca2, r.region]));
  const countryOf = (x: LayerHit) => {
    const [lon, lat] = representativePoint(x.f.geometry) as [number, number];
    const ci = catalog.countryAt(lon, lat);
    return ci >= 0 ? catalog.countries.rows[ci]!.cca2 : '';
  };
  const each = async (read: (s: Selection['sources'][number]) => Promise<StoredFeature[]>, note: (layer: string) => string): Promise<LayerHit[]> => {
    const out: LayerHit[] = [];
    for (const s of selection.sources) {
      let fs = await read(s);
      if (fs.length > SCAN_LIMIT) {
        warn({ code: 'ignored', message: note(s.layer.name) });
        fs = fs.slice(0, SCAN_LIMIT);
      }
      for (const f of fs) out.push({ f, layer: s.layer });
    }
    return out;
  };
  const bounded = (which: string) => (layer: string) =>
    `more than ${SCAN_LIMIT.toLocaleString('en')} "${label}" features of "${layer}" are ${which}; the first ${SCAN_LIMIT.toLocaleString('en')} were searched — a smaller area or distance narrows the question`;
  const some = (s: Selection['sources'][number]) => ({ match: s.match, limit: SCAN_LIMIT + 1 });
  const summaryOf = (id: string) => summaries?.get(id)?.columns ?? [];
  const layerColumns = () =>
    selection.sources.map((s) => {
      const cols = summaries?.get(s.layer.id)?.columns;
      return cols && cols.length < MAX_COLUMNS ? cols.map((c) => c.key) : null;
    });
  return {
    label,
    populated: false,
    columns: () => [...new Set(selection.sources.flatMap((s) => summaryOf(s.layer.id).map((c) => c.key)))],
    numericColumns: () => [...new Set(selection.sources.flatMap((s) => summaryOf(s.layer.id).filter((c) => c.numeric).map((c) => c.key)))],
    layerColumns,
    inBox: (box: BBox, note = 'in the box') => each((s) => store.inBBox(s.layer.id, box, some(s)), bounded(note)),
    // The store's distances (PostGIS on the sphere) and the executor's test (turf) may part by a
    // hair at the edge: ask a little wider and let the one test decide.
    within: (point, km) => each((s) => store.within(s.layer.id, point, km * 1000 * 1.001 + 1, some(s)), bounded('within the distance (the nearest kept)')),
    nearest: async (point, k, minKm = 0) => {
      // The store has no ring search: ask for more until k lie past the lower bound.
      const out: LayerHit[] = [];
      for (const s of selection.sources) {
        for (let ask = k; ; ask *= 4) {
          const fs = await store.nearest(s.layer.id, point, ask, { match: s.match });
          const past = fs.filter((f) => f.distanceMeters >= minKm * 1000);
          if (past.length >= k || fs.length < ask || ask > SCAN_LIMIT) {
            for (const f of past.slice(0, k)) out.push({ f, layer: s.layer });
            break;
          }
        }
      }
      return out;
    },
    intersecting: (g, note) => each((s) => store.intersecting(s.layer.id, g, some(s)), bounded(note)),
    all: () =>
      each(
        (s) => firstOf(store, s.layer.id, { match: s.match }, SCAN_LIMIT + 1),
        (layer) => `more than ${SCAN_LIMIT.toLocaleString('en')} "${label}" features in "${layer}"; the first ${SCAN_LIMIT.toLocaleString('en')} were searched — name a place or a distance to narrow the question`,
      ),
    inCountry: async (cca2) => {
      const box = catalog.countries.rows[catalog.countryByCode.get(cca2) ?? -1]?.geometry;
      const candidates = box ? await each((s) => store.intersecting(s.layer.id, box, some(s)), bounded(`in ${cca2}`)) : [];
      return candidates.filter((x) => countryOf(x) === cca2);
    },
    position: (x) => representativePoint(x.f.geometry),
    geometry: (x) => x.f.geometry,
    country: countryOf,
    region: (x) => regionOf.get(countryOf(x)) ?? '',
    attributes: (x) => x.f.tags,
    sourceId: (x) => x.f.sourceId,
    // Named features first by name, then by layer and feature number: the same order on either backend.
    compare: (a, b) => String(a.f.tags['name'] ?? '').localeCompare(String(b.f.tags['name'] ?? '')) || a.layer.id.localeCompare(b.layer.id) || a.f.fid - b.f.fid,
    conditionColumns: layerColumns,
    extent: () =>
      selection.sources.reduce<BBox | null>((b, s) => {
        const x = s.layer.bbox;
        if (!x) return b;
        return b ? [Math.min(b[0], x[0]), Math.min(b[1], x[1]), Math.max(b[2], x[2]), Math.max(b[3], x[3])] : [...x];
      }, null),
    item: (x) => ({ k: LAYER_ITEM, i: x.f.fid, hit: x }),
  };
}
