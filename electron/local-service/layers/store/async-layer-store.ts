import type { Geometry, Position } from 'geojson';
import type { LayerFeature } from '../types';
import type { BBox } from './geo';
import type { LayerInfo, LayerStore, NearFeature, NewLayer, QueryOptions, StoredFeature } from './layer-store';

/**
 * The layer store with every call asynchronous: what a networked backend (PostGIS) can offer,
 * and what the embedded SQLite store gives through asAsyncLayerStore. Same semantics as
 * LayerStore (layer-store.ts): distances in great-circle metres, nearest first, all-or-nothing
 * imports.
 */

export interface AsyncLayerWriter {
  readonly id: string;
  readonly count: number;
  add(features: readonly LayerFeature[]): Promise<void>;
  commit(warnings: string[]): Promise<LayerInfo>;
  abort(): Promise<void>;
}

export interface AsyncLayerStore {
  create(layer: NewLayer): Promise<AsyncLayerWriter>;
  list(): Promise<LayerInfo[]>;
  get(id: string): Promise<LayerInfo | null>;
  remove(id: string): Promise<boolean>;
  feature(layerId: string, fid: number): Promise<StoredFeature | null>;
  inBBox(layerId: string, bbox: BBox, opts?: QueryOptions): Promise<StoredFeature[]>;
  within(layerId: string, point: Position, metres: number, opts?: QueryOptions): Promise<NearFeature[]>;
  nearest(layerId: string, point: Position, k: number): Promise<NearFeature[]>;
  containing(layerId: string, point: Position, opts?: QueryOptions): Promise<StoredFeature[]>;
  intersecting(layerId: string, geometry: Geometry, opts?: QueryOptions): Promise<StoredFeature[]>;
  /**
   * Every feature meeting the box, in fid order, handed out as it is read: a whole country
   * layer passes through in bounded memory (PostGIS reads it through a cursor, a page at a
   * time). Breaking out of the loop ends the read.
   */
  scan(layerId: string, bbox: BBox): AsyncIterable<StoredFeature>;
  close(): Promise<void>;
}

/** The embedded store behind the asynchronous interface (its calls complete at once). */
export function asAsyncLayerStore(s: LayerStore): AsyncLayerStore {
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
    feature: async (id, fid) => s.feature(id, fid),
    inBBox: async (id, b, o) => s.inBBox(id, b, o),
    within: async (id, p, m, o) => s.within(id, p, m, o),
    nearest: async (id, p, k) => s.nearest(id, p, k),
    containing: async (id, p, o) => s.containing(id, p, o),
    intersecting: async (id, g, o) => s.intersecting(id, g, o),
    // The embedded store answers a box at once; its layers are the size one machine holds.
    async *scan(id, b) {
      yield* await s.inBBox(id, b);
    },
    close: async () => s.close(),
  };
}
