import { bboxOf } from './geo';
import type { EmbeddedLayerStore, LayerStore, PolygonCount, StoredFeature } from './layer-store';

/** Features per page of an embedded scan: few promise turns per page, a bounded array each. */
const PAGE = 4096;

function* pages(features: Iterable<StoredFeature>): Generator<StoredFeature[]> {
  let page: StoredFeature[] = [];
  for (const f of features) {
    page.push(f);
    if (page.length === PAGE) {
      yield page;
      page = [];
    }
  }
  if (page.length) yield page;
}

/**
 * The embedded store behind the one asynchronous LayerStore interface. Its calls complete at
 * once; the index questions are the store's own, and counts per polygon ask its R*Tree once per
 * polygon rather than testing every pair.
 */
export function asAsyncLayerStore(s: EmbeddedLayerStore): LayerStore {
  return {
    async create(layer) {
      const w = s.create(layer);
      return {
        id: w.id,
        get count() {
          return w.count;
        },
        add: async (fs) => w.add(fs),
        commit: async (warnings) => w.commit(warnings),
        abort: async () => w.abort(),
      };
    },
    list: async () => s.list(),
    get: async (id) => s.get(id),
    remove: async (id) => s.remove(id),
    feature: (id, fid) => s.feature(id, fid),
    inBBox: (id, b, o) => s.inBBox(id, b, o),
    within: (id, p, m, o) => s.within(id, p, m, o),
    nearest: (id, p, k, o) => s.nearest(id, p, k, o),
    containing: (id, p, o) => s.containing(id, p, o),
    intersecting: (id, g, o) => s.intersecting(id, g, o),
    async *scan(id, opts = {}) {
      // A box goes through the R*Tree; the embedded store's layers are the size one machine holds.
      if (opts.bbox) yield* pages(await s.inBBox(id, opts.bbox, { match: opts.match }));
      else yield* pages(s.iterate(id, { match: opts.match }));
    },
    async countPerPolygon(polygons, subject) {
      const out: PolygonCount[] = [];
      // Read whole first: an open SQLite iterator must not span the awaits between requests.
      for (const p of await s.scan(polygons.layerId, { match: polygons.match })) {
        const t = p.geometry.type;
        if ((t !== 'Polygon' && t !== 'MultiPolygon') || !bboxOf(p.geometry)) continue;
        out.push({ fid: p.fid, count: (await s.intersecting(subject.layerId, p.geometry, { match: subject.match })).length });
      }
      return out;
    },
    summary: (id) => s.summary(id),
    close: async () => s.close(),
  };
}
