import type { LayerStore, NearFeature, QueryOptions, TagMatch } from './layer-store';

export interface CachingLayerStore extends LayerStore {
  /** Drops every kept answer (a layer was imported or removed, here or by another process). */
  forget(): void;
  /** Answers kept and the features they hold in all. */
  readonly size: { answers: number; features: number };
}

/** Features held in all by the kept answers of one store, by default. */
export const CACHED_FEATURES = 20_000;

/**
 * Recent distance questions of a database store answered from memory: a follow-up ("sort by
 * distance to site", "only those open now") is read together with the question it continues and
 * asks the layer's index the same within or nearest question again, moments later. A ready
 * layer's features never change (a new import is a new layer), so an answer stays right until
 * the layer is removed; the owner calls forget() on every layer change it hears of, and a
 * removal through this store forgets at once. The least recently used answers go first past
 * `maxFeatures`; an answer of more than a quarter of that is not kept.
 */
export function cachingLayerStore(inner: LayerStore, maxFeatures = CACHED_FEATURES): CachingLayerStore {
  // Each answer as its JSON text, with its feature count: one string per answer for the
  // collector to move, where the features themselves are a few hundred objects that would
  // survive every young-generation collection until they are dropped; and every caller gets
  // features of its own.
  const kept = new Map<string, { text: string; n: number }>();
  let features = 0;
  /** Bumped by forget(): an answer asked for before it is not kept. */
  let forgotten = 0;
  const keyOf = (kind: string, layerId: string, point: readonly number[], n: number, limit: number | undefined, match: readonly TagMatch[] | undefined) =>
    `${kind}\u0000${layerId}\u0000${point[0]},${point[1]}\u0000${n}\u0000${limit ?? ''}\u0000${match ? JSON.stringify(match) : ''}`;
  const remember = async (key: string, ask: () => Promise<NearFeature[]>): Promise<NearFeature[]> => {
    const hit = kept.get(key);
    if (hit) {
      // Most recently used last: the first key is the one to drop.
      kept.delete(key);
      kept.set(key, hit);
      return JSON.parse(hit.text) as NearFeature[];
    }
    const generation = forgotten;
    const rows = await ask();
    // A change heard of while the question was out may have made its answer stale.
    if (generation !== forgotten || rows.length > maxFeatures / 4) return rows;
    kept.set(key, { text: JSON.stringify(rows), n: rows.length });
    features += rows.length;
    while (features > maxFeatures) {
      const [oldest, o] = kept.entries().next().value!;
      kept.delete(oldest);
      features -= o.n;
    }
    return rows;
  };
  const forget = () => {
    kept.clear();
    features = 0;
    forgotten++;
  };
  return {
    create: (layer) => inner.create(layer),
    list: () => inner.list(),
    get: (id) => inner.get(id),
    async remove(id) {
      forget();
      const removed = await inner.remove(id);
      forget();
      return removed;
    },
    feature: (layerId, fid) => inner.feature(layerId, fid),
    inBBox: (layerId, bbox, opts) => inner.inBBox(layerId, bbox, opts),
    within: (layerId, point, metres, opts: QueryOptions = {}) =>
      remember(keyOf('within', layerId, point, metres, opts.limit, opts.match), () => inner.within(layerId, point, metres, opts)),
    nearest: (layerId, point, k, opts = {}) => remember(keyOf('nearest', layerId, point, k, undefined, opts.match), () => inner.nearest(layerId, point, k, opts)),
    containing: (layerId, point, opts) => inner.containing(layerId, point, opts),
    intersecting: (layerId, geometry, opts) => inner.intersecting(layerId, geometry, opts),
    scan: (layerId, opts) => inner.scan(layerId, opts),
    countPerPolygon: (polygons, subject) => inner.countPerPolygon(polygons, subject),
    summary: (layerId) => inner.summary(layerId),
    close: () => inner.close(),
    forget,
    get size() {
      return { answers: kept.size, features };
    },
  };
}
