import type { Geometry, Position } from 'geojson';
import type { LayerFeature, LayerFormat } from '../types';
import type { BBox } from './geo';

/**
 * The storage interface of data layers. The embedded SQLite store (sqlite-layer-store.ts) is
 * the default; a PostGIS backend implements the same interface and runs the same tests.
 */

export interface LayerInfo {
  id: string;
  name: string;
  sourceFile: string;
  format: LayerFormat;
  featureCount: number;
  /** Counts per geometry type, e.g. {Point: 120, LineString: 14}. */
  geometryTypes: Record<string, number>;
  bbox: BBox | null;
  sizeBytes: number;
  licence: string | null;
  /** Where the data came from, in words, for results and the credits screen. */
  sourceText: string;
  warnings: string[];
  createdAt: string;
}

export interface StoredFeature {
  layerId: string;
  fid: number;
  sourceId: string;
  sublayer: string | null;
  geometry: Geometry;
  tags: Record<string, unknown>;
}

export interface NearFeature extends StoredFeature {
  /** Metres to the feature's nearest point (0 inside a polygon). */
  distanceMeters: number;
}

export interface NewLayer {
  name: string;
  sourceFile: string;
  format: LayerFormat;
  licence: string | null;
  sourceText: string;
}

/** One import in progress: nothing of it is listed until commit(); abort() leaves nothing. */
export interface LayerWriter {
  readonly id: string;
  readonly count: number;
  add(features: readonly LayerFeature[]): void;
  /** Builds the spatial index, records the figures and makes the layer visible, atomically. */
  commit(warnings: string[]): LayerInfo;
  abort(): void;
}

export interface QueryOptions {
  limit?: number;
}

export interface LayerStore {
  create(layer: NewLayer): LayerWriter;
  list(): LayerInfo[];
  get(id: string): LayerInfo | null;
  remove(id: string): boolean;
  feature(layerId: string, fid: number): StoredFeature | null;
  /** Features whose geometry meets the box [minLon, minLat, maxLon, maxLat]. */
  inBBox(layerId: string, bbox: BBox, opts?: QueryOptions): StoredFeature[];
  /** Features within `metres` of a point, nearest first. */
  within(layerId: string, point: Position, metres: number, opts?: QueryOptions): NearFeature[];
  /** The k features nearest a point, nearest first (fewer if the layer holds fewer). */
  nearest(layerId: string, point: Position, k: number): NearFeature[];
  /** Polygons that contain a point. */
  containing(layerId: string, point: Position, opts?: QueryOptions): StoredFeature[];
  /** Features that intersect a geometry (touching counts). */
  intersecting(layerId: string, geometry: Geometry, opts?: QueryOptions): StoredFeature[];
  close(): void;
}

export class LayerNotFoundError extends Error {
  constructor(readonly layerId: string) {
    super(`no layer ${layerId}`);
    this.name = 'LayerNotFoundError';
  }
}
