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

/**
 * A tag test as data (so a SQL backend can translate it): every clause holds; a clause holds
 * when the key is present and, if `values` is given, its value is one of them.
 */
export type TagMatch = { key: string; values?: string[] }[];

export interface QueryOptions {
  limit?: number;
  /** Only features that pass any of these tag tests (absent: every feature). */
  match?: TagMatch[];
}

/** What a layer's columns hold, for its vocabulary: distinct values up to a bound per key. */
export interface ColumnSummary {
  key: string;
  /** Features with a value in this column. */
  count: number;
  /** Distinct text values, most frequent first; null when there are more than the bound. */
  values: string[] | null;
  /** Whether every value reads as a number (OSM writes numbers as text). */
  numeric: boolean;
}

export interface LayerSummary {
  columns: ColumnSummary[];
}

export interface LayerStore {
  create(layer: NewLayer): LayerWriter;
  list(): LayerInfo[];
  get(id: string): LayerInfo | null;
  remove(id: string): boolean;
  // Queries are asynchronous so that a database server (PostGIS) can answer them; the embedded
  // store answers at once.
  feature(layerId: string, fid: number): Promise<StoredFeature | null>;
  /** Features whose geometry meets the box [minLon, minLat, maxLon, maxLat]. */
  inBBox(layerId: string, bbox: BBox, opts?: QueryOptions): Promise<StoredFeature[]>;
  /** Features within `metres` of a point, nearest first. */
  within(layerId: string, point: Position, metres: number, opts?: QueryOptions): Promise<NearFeature[]>;
  /** The k features nearest a point, nearest first (fewer if the layer holds fewer). */
  nearest(layerId: string, point: Position, k: number, opts?: Pick<QueryOptions, 'match'>): Promise<NearFeature[]>;
  /** Polygons that contain a point. */
  containing(layerId: string, point: Position, opts?: QueryOptions): Promise<StoredFeature[]>;
  /** Features that intersect a geometry (touching counts). */
  intersecting(layerId: string, geometry: Geometry, opts?: QueryOptions): Promise<StoredFeature[]>;
  /** Every feature that passes the tag tests, in storage order (no spatial index involved). */
  scan(layerId: string, opts?: QueryOptions): Promise<StoredFeature[]>;
  /** The layer's columns and their values (bounded), recorded at import. */
  summary(layerId: string): Promise<LayerSummary>;
  close(): void;
}

export class LayerNotFoundError extends Error {
  constructor(readonly layerId: string) {
    super(`no layer ${layerId}`);
    this.name = 'LayerNotFoundError';
  }
}
